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


def user_location(exc: BaseException, classifier: FrameClassifier) -> tuple[str, int] | None:
    """The innermost frame of the user's code that the exception passed
    through: the traceback first, then the stacks torch attaches to its own
    exceptions, then `File "...", line N` mentions in the message."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for fs in reversed(traceback.extract_tb(e.__traceback__)):
            if classifier.is_user(fs.filename):
                return fs.filename, fs.lineno or 0
        for attr in ("real_stack", "user_stack"):
            stack = getattr(e, attr, None)
            if stack:
                for fs in reversed(list(stack)):
                    fn = getattr(fs, "filename", None)
                    if classifier.is_user(fn):
                        return fn, getattr(fs, "lineno", 0) or 0
        for m in reversed(list(_FILE_LINE_RE.finditer(str(e)))):
            if classifier.is_user(m.group("file")):
                return m.group("file"), int(m.group("line"))
        e = e.__cause__ or e.__context__
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
    seen: set[int] = set()
    e: BaseException | None = exc
    torch_dir = os.sep + "torch" + os.sep
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        for attr in ("real_stack", "user_stack"):
            for fs in reversed(list(getattr(e, attr, None) or [])):
                fn = getattr(fs, "filename", None) or ""
                if fn and not fn.startswith("<") and torch_dir not in fn:
                    return fn, getattr(fs, "lineno", 0) or 0
        e = e.__cause__ or e.__context__
    return None


def pip_hint(package: str) -> str:
    return f'"{sys.executable}" -m pip install {package}'
