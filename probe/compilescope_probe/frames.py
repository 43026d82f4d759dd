"""Telling the user's own source frames from library (torch, stdlib, site-packages) frames."""

from __future__ import annotations

import linecache
import os
import re
import sysconfig
import traceback
from collections.abc import Iterable
from typing import Any

_PROBE_DIR = os.path.dirname(os.path.abspath(__file__))


def _library_roots() -> list[str]:
    roots = {_PROBE_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            path = sysconfig.get_paths().get(key)
        except Exception:  # Python's own layout, not torch's: one root fewer
            path = None
        if path:
            roots.add(os.path.realpath(path))
    return sorted(roots)


class FrameClassifier:
    """A frame is the user's unless it lies in the stdlib, site-packages,
    torch or this probe. The model's own file (and its folder) always count as
    the user's, even when installed somewhere library-like."""

    def __init__(self, model_file: str | None = None) -> None:
        self.model_file = os.path.realpath(model_file) if model_file else None
        self.model_dir = os.path.dirname(self.model_file) if self.model_file else None
        self.roots = _library_roots()
        self._cache: dict[str, bool] = {}

    def add_library_root(self, path: str) -> None:
        self.roots.append(os.path.realpath(path))
        self._cache.clear()

    def is_user(self, filename: str | None) -> bool:
        if not filename:
            return False
        hit = self._cache.get(filename)
        if hit is not None:
            return hit
        self._cache[filename] = result = self._classify(filename)
        return result

    def _classify(self, filename: str) -> bool:
        if filename.startswith("<"):  # <frozen ...>, <string>, <eval_with_key>
            return False
        real = os.path.realpath(filename)
        if self.model_file and real == self.model_file:
            return True
        if self.model_dir and os.path.dirname(real) == self.model_dir:
            return True
        # As given and as resolved: a site-packages reached through a symlink
        # (a venv linked elsewhere) is still installed code.
        parts = set(real.split(os.sep)) | set(os.path.abspath(filename).split(os.sep))
        if "site-packages" in parts or "dist-packages" in parts:
            return False
        return not any(real == r or real.startswith(r + os.sep) for r in self.roots)


def source_line(filename: str, line: int | None) -> str:
    if not filename or not line:
        return ""
    return linecache.getline(filename, int(line)).strip()


def frame_dicts(summaries: Iterable[Any], classifier: FrameClassifier) -> tuple[list[dict], int]:
    """FrameSummary-likes (outermost first) → protocol frames and the index
    of the innermost user frame (-1 when every frame is library code)."""
    frames = []
    for fs in summaries:
        filename = getattr(fs, "filename", None) or ""
        lineno = getattr(fs, "lineno", None) or 0
        code = getattr(fs, "line", None) or source_line(filename, lineno)
        frames.append(
            {
                "file": filename,
                "line": int(lineno),
                "function": getattr(fs, "name", "") or "",
                "code": (code or "").strip(),
                "user": classifier.is_user(filename),
            }
        )
    user_frame = -1
    for i in range(len(frames) - 1, -1, -1):
        if frames[i]["user"]:
            user_frame = i
            break
    return frames, user_frame


_STACK_RE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')


def parse_stack_text(text: str | None) -> list[traceback.FrameSummary]:
    """Frames from a formatted traceback (FX node stack_trace), outermost first."""
    if not text:
        return []
    out = []
    for m in _STACK_RE.finditer(text):
        out.append(
            traceback.FrameSummary(
                m.group("file"), int(m.group("line")), m.group("func"), lookup_line=False
            )
        )
    return out


_MODULE_CALL = (
    os.sep + os.path.join("torch", "nn", "modules", "module.py"),
    ("_call_impl", "_wrapped_call_impl"),
)


def break_stack(stack: list) -> list:
    """A break's stack from the code torch compiled on. Dynamo's own stacks
    start there; a whole Python traceback (seen with transformers' Reformer,
    torch 2.15) starts in runpy and the probe's harness and passes through
    nn.Module's call machinery between modules: those frames are cut, so the
    stack's first frame is the compiled forward, as in every other break."""
    outer = [i for i, fs in enumerate(stack) if _is_probe_file(getattr(fs, "filename", None))]
    if outer and outer[-1] + 1 < len(stack):  # a break in the probe's own wrapper keeps it
        stack = stack[outer[-1] + 1 :]
    suffix, calls = _MODULE_CALL
    return [
        fs
        for i, fs in enumerate(stack)
        if i == len(stack) - 1
        or not (
            (getattr(fs, "filename", "") or "").endswith(suffix)
            and getattr(fs, "name", "") in calls
        )
    ]


def innermost_user(frames: list[traceback.FrameSummary], classifier: FrameClassifier):
    for fs in reversed(frames):
        if classifier.is_user(fs.filename):
            return fs
    # No user frame (a model that is library code): the innermost frame, but
    # never the probe's own keyword wrapper, which is not the user's program.
    for fs in reversed(frames):
        if not _is_probe_file(fs.filename):
            return fs
    return None


def _is_probe_file(filename: str | None) -> bool:
    if not filename:
        return False
    return os.path.dirname(os.path.realpath(filename)) == _PROBE_DIR
