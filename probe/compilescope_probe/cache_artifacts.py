"""torch's portable cache artifacts (docs/measuring.md, "Cold starts").

`--cache-artifacts save:PATH` writes `torch.compiler.save_cache_artifacts()`
to PATH after the compiled calls; `--cache-artifacts load:PATH` reads PATH and
hands it to `torch.compiler.load_cache_artifacts()` right after `import torch`,
before anything compiles, in the probe's fresh cache. What the load costs is
part of the program's first call."""

from __future__ import annotations

import os
import time
from typing import Any

from .errors import ProbeError, exc_summary, format_exc


def parse(text: str) -> tuple[str, str]:
    """("save" | "load", path) from "save:PATH" / "load:PATH"; ValueError otherwise."""
    action, sep, path = text.partition(":")
    if not sep or action not in ("save", "load") or not path.strip():
        raise ValueError(f"expected save:PATH or load:PATH, got {text!r}")
    return action, path


def _entries(info: Any) -> list[dict]:
    """What a CacheInfo says was saved or loaded: [{kind, count}], kinds sorted."""
    artifacts = getattr(info, "artifacts", None)
    if not isinstance(artifacts, dict):
        return []
    return [
        {"kind": str(kind), "count": len(keys) if hasattr(keys, "__len__") else 0}
        for kind, keys in sorted(artifacts.items(), key=lambda kv: str(kv[0]))
    ]


def _api(torch: Any, name: str) -> Any:
    compiler = getattr(torch, "compiler", None)
    fn = getattr(compiler, name, None)
    if not callable(fn):
        raise ProbeError(
            "cache_artifacts",
            f"torch {torch.__version__} has no torch.compiler.{name}(): portable cache "
            f"artifacts need torch 2.7 or newer.",
        )
    return fn


def load(torch: Any, path: str) -> dict:
    """Reads PATH and loads it into torch's caches; the cache_artifacts event's
    fields. Raises ProbeError (fatal) naming the file when it cannot."""
    load_fn = _api(torch, "load_cache_artifacts")
    t0 = time.perf_counter_ns()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ProbeError(
            "cache_artifacts",
            f"Cannot read the cache artifacts file {path}: {e.strerror or exc_summary(e)}.",
        ) from None
    if not data:
        raise ProbeError(
            "cache_artifacts",
            f"The cache artifacts file {path} is empty: nothing was saved into it.",
        )
    try:
        info = load_fn(data)
    except Exception as e:
        raise ProbeError(
            "cache_artifacts",
            f"torch could not load the cache artifacts file {path}: {exc_summary(e)}.",
            tb=format_exc(e),
        ) from None
    ns = time.perf_counter_ns() - t0
    if info is None:
        raise ProbeError(
            "cache_artifacts",
            f"The cache artifacts file {path} ({len(data)} bytes) is not torch cache artifacts "
            f"this torch ({torch.__version__}) can read: torch.compiler.load_cache_artifacts() "
            f"refused it (corrupt, or saved by another torch).",
        )
    return {
        "action": "load",
        "path": path,
        "bytes": len(data),
        "ns": ns,
        "entries": _entries(info),
        "message": "",
    }


def save(torch: Any, path: str) -> dict:
    """Writes what torch compiled so far to PATH; the cache_artifacts event's
    fields. Never raises: `bytes` 0 and a `message` when nothing was saved."""
    fields = {"action": "save", "path": path, "bytes": 0, "ns": -1, "entries": [], "message": ""}
    try:
        save_fn = _api(torch, "save_cache_artifacts")
    except ProbeError as e:
        fields["message"] = e.message
        return fields
    t0 = time.perf_counter_ns()
    try:
        result = save_fn()
    except Exception as e:
        fields["message"] = f"torch.compiler.save_cache_artifacts() failed: {exc_summary(e)}"
        return fields
    # (bytes, CacheInfo) on the torch this was written for; None when nothing
    # was cached; bare bytes, defensively, for a torch that returns only them.
    if isinstance(result, (bytes, bytearray)):
        data, info = bytes(result), None
    elif isinstance(result, tuple) and result and isinstance(result[0], (bytes, bytearray)):
        data, info = bytes(result[0]), (result[1] if len(result) > 1 else None)
    else:
        data, info = b"", None
    fields["entries"] = _entries(info)
    if not data:
        fields["message"] = (
            "torch had no cache artifacts to save: nothing went through its compile caches "
            "(an eager run, a backend without caches, or caches turned off)"
        )
        return fields
    try:
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        fields["message"] = (
            f"cannot write the cache artifacts file {path}: {e.strerror or exc_summary(e)}"
        )
        return fields
    fields["ns"] = time.perf_counter_ns() - t0
    fields["bytes"] = len(data)
    return fields
