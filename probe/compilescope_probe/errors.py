"""Errors the probe reports as `error` events, with words a person can act on."""

from __future__ import annotations

import os
import re
import sys
import traceback
from typing import Any

from .frames import FrameClassifier


class ProbeError(Exception):
    """A failure with a protocol error kind; `fields` are extra event fields."""

    def __init__(
        self, kind: str, message: str, *, tb: str = "", fatal: bool = True, **fields: Any
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.tb = tb
        self.fatal = fatal
        self.fields = fields


def format_exc(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


# A message line longer than this is cut: torch's symbolic-shape errors print
# expressions of kilobytes on one line. The traceback keeps the whole text.
SUMMARY_CHARS = 400


def exc_summary(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    if len(first) > SUMMARY_CHARS:
        first = f"{first[:SUMMARY_CHARS]}… ({len(first) - SUMMARY_CHARS:,} more characters)"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


_FILE_LINE_RE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _chain(exc: BaseException):
    """The exception and its causes (then contexts), each once."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def _attached_frames(e: BaseException):
    """The stacks torch attaches to its own exceptions (the code it was
    compiling), innermost frame first."""
    for attr in ("real_stack", "user_stack"):
        yield from reversed(list(getattr(e, attr, None) or []))


def user_location(exc: BaseException, classifier: FrameClassifier) -> tuple[str, int] | None:
    """The innermost frame of the user's code that the exception passed
    through: the traceback first, then the stacks torch attaches to its own
    exceptions, then `File "...", line N` mentions in the message."""
    for e in _chain(exc):
        for fs in reversed(traceback.extract_tb(e.__traceback__)):
            if classifier.is_user(fs.filename):
                return fs.filename, fs.lineno or 0
        for fs in _attached_frames(e):
            fn = getattr(fs, "filename", None)
            if classifier.is_user(fn):
                return fn, getattr(fs, "lineno", 0) or 0
        for m in reversed(list(_FILE_LINE_RE.finditer(str(e)))):
            if classifier.is_user(m.group("file")):
                return m.group("file"), int(m.group("line"))
    return None


def compiled_code_location(
    exc: BaseException, classifier: FrameClassifier
) -> tuple[str, int] | None:
    """user_location, else the innermost frame of the code torch was compiling
    (the stack torch attaches to its errors) outside torch itself: where a
    model that is library code (torchvision's, transformers') failed."""
    loc = user_location(exc, classifier)
    if loc is not None:
        return loc
    torch_dir = os.sep + "torch" + os.sep
    for e in _chain(exc):
        for fs in _attached_frames(e):
            fn = getattr(fs, "filename", None) or ""
            if fn and not fn.startswith("<") and torch_dir not in fn:
                return fn, getattr(fs, "lineno", 0) or 0
    return None


def pip_hint(package: str) -> str:
    return f'"{sys.executable}" -m pip install {package}'
