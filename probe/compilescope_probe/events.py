"""The event stream: one JSON object per line on a private descriptor."""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from typing import Any


def _json_default(obj: Any) -> Any:
    # Anything torch hands us that json does not know (SymInt, dtype, Path)
    # becomes its text form rather than a crash in the middle of a stream.
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def _clean(obj: Any) -> Any:
    # NaN/inf are not JSON; the C++ parser would reject the whole line.
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


class EventWriter:
    """Writes events to `fd`; thread-safe; every line flushed as it is written."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()
        self.busy = False  # read by the SIGTERM handler: don't cut a line in two
        self.closed = False
        self.counts: dict[str, int] = {}

    def emit(self, type_: str, **fields: Any) -> None:
        event = {"type": type_, "t_ns": time.monotonic_ns()}
        event.update(fields)
        try:
            line = json.dumps(event, default=_json_default, allow_nan=False)
        except ValueError:
            line = json.dumps(_clean(event), default=_json_default)
        self._write((line + "\n").encode("utf-8", "replace"))
        self.counts[type_] = self.counts.get(type_, 0) + 1

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            self.busy = True
            try:
                view = memoryview(data)
                while view:
                    n = os.write(self.fd, view)
                    view = view[n:]
            except (BrokenPipeError, OSError):
                # The reader went away: nobody is listening, stop writing.
                self.closed = True
            finally:
                self.busy = False

    def end_foreign_line(self) -> None:
        """A child that wrote events to this fd (the AOTInductor runner) died,
        maybe mid-line: end that line, so the next event starts a line of its
        own instead of joining a cut one into invalid JSON. An empty line is
        skipped by the reader."""
        self._write(b"\n")

    def log(self, level: str, message: str, code: str = "", detail: str = "") -> None:
        """`code` names a line the app's analysis reads; `detail` is what it quotes."""
        if code:
            self.emit("log", level=level, message=message, code=code, detail=detail)
        else:
            self.emit("log", level=level, message=message)


def redirect_stdout() -> int:
    """Keep the real stdout for events; send fd 1 (and sys.stdout) to stderr.

    Returns the descriptor to write events to. os.dup gives a non-inheritable
    descriptor, so compiler subprocesses never hold the event pipe open.
    """
    try:
        sys.stdout.flush()
    except Exception:  # a closed or odd stdout: nothing of ours to lose
        pass
    event_fd = os.dup(1)
    os.dup2(2, 1)
    # A text stream over the new fd 1 (now stderr); line buffered so user
    # prints interleave sensibly with torch's own stderr output.
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    return event_fd
