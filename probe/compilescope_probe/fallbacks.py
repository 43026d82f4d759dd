"""`capture_warning` events: the probe took a fallback because torch lacks
something it reads (a private API renamed or moved, a file no longer
shipped). What was captured is then less than it could be; the warning says
what and under which torch, once per `what` per run.

Standard library only: fallbacks can be reported before torch is imported."""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

ERROR_LIMIT = 300  # characters of the exception text kept

_lock = threading.Lock()
_emit: Callable[..., None] | None = None
_seen: set[str] = set()


def install(emit: Callable[..., None] | None) -> None:
    """Report to `emit` from now on; a new run starts with nothing seen."""
    global _emit
    with _lock:
        _emit = emit
        _seen.clear()


def torch_version() -> str:
    # torch is not imported here: a fallback taken before it is reports "unknown".
    return str(getattr(sys.modules.get("torch"), "__version__", "unknown"))


def error_text(error: BaseException | str) -> str:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 3] + "..."


def missing(what: str, error: BaseException | str) -> None:
    """The fallback for `what` was taken because of `error`."""
    with _lock:
        emit = _emit
        if emit is None or what in _seen:
            return
        _seen.add(what)
    try:
        emit(
            "capture_warning",
            what=what,
            error=error_text(error),
            torch=torch_version(),
        )
    except Exception:  # a warning must never end the run it describes
        pass


def attribute(owner: Any, name: str, what: str) -> Any:
    """getattr(owner, name), or None after reporting `what` as missing."""
    value = getattr(owner, name, None)
    if value is None:
        owner_name = getattr(owner, "__name__", type(owner).__name__)
        missing(what, f"AttributeError: {owner_name} has no attribute '{name}'")
    return value
