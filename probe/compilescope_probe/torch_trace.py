"""`--torch-trace DIR`: torch writes its own structured trace (TORCH_TRACE) into DIR.

torch opens the trace file itself (DIR/dedicated_log_torch_trace_*.log, one per
process), the file tlparse reads. torch reads TORCH_TRACE once, when it is
imported; the probe imports torch after this runs, so setting the variable is
enough. Where torch is already in the process (a sitecustomize or .pth that
imports it), the variable comes too late and a handler of torch's own kind is
added to its trace logger instead.

Standard library only until torch is already imported."""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

from . import fallbacks
from .errors import ProbeError

ENV_VAR = "TORCH_TRACE"


def prepare_trace_dir(directory: str) -> str:
    """The absolute directory, made with its parents and checked writable;
    a non-fatal ProbeError naming it where it cannot be written."""
    path = os.path.abspath(os.path.expanduser(directory))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise _unwritable(path, e.strerror or str(e)) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise _unwritable(path, "permission denied")
    return path


def _unwritable(path: str, why: str) -> ProbeError:
    return ProbeError(
        "torch_trace_unwritable",
        f"--torch-trace: cannot write torch's trace into {path} ({why}). "
        f"The run goes on without a TORCH_TRACE log; pick a directory you can write to.",
        fatal=False,
    )


class TorchTrace:
    """Arranges for torch to write its trace into one directory."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._handler: Any = None  # ours, where torch was imported before us

    def start(self) -> None:
        os.environ[ENV_VAR] = self.directory
        if "torch" in sys.modules:
            self._add_handler()

    def _add_handler(self) -> None:
        try:
            from torch._logging import _internal

            handler = _internal.LazyTraceHandler(self.directory)
            handler.setFormatter(_internal.TorchLogsFormatter(trace=True))
            trace_log = logging.getLogger("torch.__trace")
            trace_log.addHandler(handler)
            trace_log.setLevel(logging.DEBUG)
            self._handler = handler
        except Exception as e:  # a torch without these: the trace is not written
            fallbacks.missing("torch._logging._internal.LazyTraceHandler (--torch-trace)", e)

    def file(self) -> str | None:
        """The trace file torch opened, once it has written a record; None
        before that (mode eager compiles nothing, so torch writes none)."""
        handler = self._handler
        if handler is None:
            internal = sys.modules.get("torch._logging._internal")
            handler = getattr(internal, "LOG_TRACE_HANDLER", None)
        path = getattr(handler, "_stream_path", None)
        if isinstance(path, str) and os.path.dirname(path) == self.directory:
            return path
        return None


# The artifact that tells an importer of this trace what the probe's keyword
# wrapper hides (compilescope-cli import, core/trace/rank_builder.cpp).
KEYWORD_CALL_ARTIFACT = "compilescope_keyword_call"


def note_keyword_call(wrapper_file: str, names: list[str], root: tuple | None) -> None:
    """Writes into torch's trace that frames of wrapper_file are the probe's
    KeywordCall: to the user they are the model's forward (root: name, file,
    line), and its values[i] the keyword input names[i]. Without it an
    imported trace of a model called by keyword named `forward (loader.py)`
    and told to mark_dynamic(values[1], 1)."""
    payload = {"wrapper_file": wrapper_file, "input_names": list(names)}
    if root is not None:
        payload["root"] = {"function": root[0], "file": root[1], "line": root[2]}
    try:
        from torch._logging import trace_structured

        trace_structured(
            "artifact",
            metadata_fn=lambda: {"name": KEYWORD_CALL_ARTIFACT, "encoding": "json"},
            payload_fn=lambda: json.dumps(payload),
            expect_trace_id=False,
        )
    except Exception as e:  # a torch without it: the import names the wrapper, as before
        fallbacks.missing("torch._logging.trace_structured (--torch-trace input names)", e)
