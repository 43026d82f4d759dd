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

# One term of a sympy expression as torch prints it: `4*Min(300, u0)`,
# `s0*s1`, `-u3`, with parentheses nested up to two deep.
_TERM = r"-?(?:[\w.*/]|\((?:[^()]|\([^()]*\))*\))+"
# A sum of at least this many terms is shown by its first two and its last.
_SUM_TERMS_SHOWN_WHOLE = 6
_LONG_SUM_RE = re.compile(rf"{_TERM}(?: [+-] {_TERM}){{{_SUM_TERMS_SHOWN_WHOLE},}}")
_TERM_RE = re.compile(_TERM)
# torch repeats the expression before its hints and lists its symbols after it.
_REPEATS = ("(unhinted: ", "(Size-like symbols: ")


def _drop_parenthetical(text: str, opening: str) -> str:
    """`text` without each balanced parenthetical that starts with `opening`."""
    while (start := text.find(opening)) >= 0:
        depth, end = 0, len(text)
        for i in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        rest = text[end:].lstrip()
        joiner = "" if not rest or rest[0] in ".,;:)" else " "
        text = (text[:start].rstrip() + joiner + rest).strip()
    return text


def shorten_symbolic(text: str) -> str:
    """torch's symbolic-shape words, short enough to read: a sum of tens of
    terms (`4*Min(300, u0) + ... + 4*Min(300, u89) > 4000`, one per box a
    detector kept) as its first two terms, an ellipsis, its last term and the
    count, so the comparison at its end stays in view; the repeated
    `(unhinted: ...)` copy and the `(Size-like symbols: ...)` list dropped."""
    for opening in _REPEATS:
        text = _drop_parenthetical(text, opening)

    def collapse(m: re.Match) -> str:
        whole = m.group(0)
        terms = list(_TERM_RE.finditer(whole))
        ops = [whole[a.end() : b.start()].strip() for a, b in zip(terms, terms[1:])]
        t = [term.group(0) for term in terms]
        return f"{t[0]} {ops[0]} {t[1]} {ops[1]} … {ops[-1]} {t[-1]} ({len(t)} terms)"

    return _LONG_SUM_RE.sub(collapse, text)


def exc_summary(exc: BaseException) -> str:
    text = str(exc).strip()
    first = shorten_symbolic(text.splitlines()[0]) if text else ""
    if len(first) > SUMMARY_CHARS:
        first = f"{first[:SUMMARY_CHARS]}… ({len(first) - SUMMARY_CHARS:,} more characters)"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def exit_words(e: SystemExit) -> str:
    """How the user's code ended the process: `sys.exit('no config file')`."""
    return f"sys.exit({e.code!r})" if e.code is not None else "sys.exit()"


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


# Installed packages whose frames are never where a model's own code failed:
# torch's, what torch and models call into, and the probe's.
_NOT_MODEL_CODE = {
    "torch",
    "functorch",
    "torchgen",
    "sympy",
    "triton",
    "numpy",
    "compilescope_probe",
}


def installed_package(filename: str) -> str | None:
    """The top-level package of a file under site-packages: `torchvision`."""
    parts = filename.split(os.sep)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in ("site-packages", "dist-packages"):
            return parts[i + 1].removesuffix(".py")
    return None


def library_location(exc: BaseException) -> tuple[str, int] | None:
    """The innermost frame the exception passed through in an installed
    package other than torch's own: where library code that is the model
    (torchvision's detector, a transformers model) failed while it ran as
    Python, under a non-strict torch.export."""
    for e in _chain(exc):
        for fs in reversed(traceback.extract_tb(e.__traceback__)):
            package = installed_package(fs.filename or "")
            if package and package not in _NOT_MODEL_CODE:
                return fs.filename, fs.lineno or 0
    return None


def pip_hint(package: str) -> str:
    return f'"{sys.executable}" -m pip install {package}'
