"""Whether the model changed its own inputs across the calls the probe timed.

The probe calls the model again and again on the inputs get_inputs() gave. A
model that grows them (a Hugging Face DynamicCache appends every call's keys
and values) or writes into them in place makes each call a different
workload, and the median then describes none of them. Stdlib only apart from
the tensors it is handed."""

from __future__ import annotations

from typing import Any

MAX_TENSORS = 512
MAX_DEPTH = 5
MAX_VISITS = 10_000  # objects walked: a big config or vocabulary passed in stays cheap
SHOWN = 3


def fingerprint(values: Any, names: list[str] | tuple[str, ...] | None = None) -> dict:
    """Path → shape of every tensor reachable from the inputs: through
    tuples, lists, dicts and plain objects' attributes (a cache object's
    layers), as Dynamo names them ("past_key_values.layers[0].keys"). Writes in
    place are not counted: a StaticCache rewrites one slot, the same work
    every call."""
    out: dict[str, tuple[int, ...]] = {}
    seen: set[int] = set()

    def walk(value: Any, path: str, depth: int) -> None:
        if (
            len(out) >= MAX_TENSORS
            or len(seen) >= MAX_VISITS
            or depth > MAX_DEPTH
            or id(value) in seen
        ):
            return
        shape = getattr(value, "shape", None)
        if shape is not None and hasattr(value, "dtype"):
            try:
                out[path] = tuple(int(s) for s in shape)
            except (TypeError, ValueError):  # a symbolic or odd shape: not compared
                pass
            return
        if isinstance(value, (str, bytes, int, float, bool, type(None))):
            return
        seen.add(id(value))
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]", depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}[{key!r}]", depth + 1)
        else:
            attributes = getattr(value, "__dict__", None)
            if isinstance(attributes, dict) and not callable(value):
                for key, item in attributes.items():
                    if not key.startswith("_"):
                        walk(item, f"{path}.{key}", depth + 1)

    for i, value in enumerate(values):
        name = names[i] if names and i < len(names) and names[i] else f"args[{i}]"
        walk(value, name, 0)
    return out


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def changes(before: dict, after: dict) -> list[str]:
    """What differs, one phrase per tensor: a new shape, appeared, gone."""
    out = []
    for path, shape in before.items():
        if path not in after:
            out.append(f"{path} is gone")
        elif after[path] != shape:
            out.append(f"{path} went from {_shape_text(shape)} to {_shape_text(after[path])}")
    out += [f"{path} appeared" for path in after if path not in before]
    return out


def summary(found: list[str]) -> str:
    """The changes as the warning lists them (its `detail`): the first few."""
    more = f" (and {len(found) - SHOWN} more)" if len(found) > SHOWN else ""
    return "; ".join(found[:SHOWN]) + more


def warning(found: list[str]) -> str | None:
    """The probe's warning for the changes found; None for none."""
    if not found:
        return None
    return (
        f"the model changed its own inputs' shapes over the calls the probe made: "
        f"{summary(found)}. Each "
        f"call then did different work and the statistics describe none of them. Give "
        f"get_inputs() inputs the model leaves as they are (for a Hugging Face KV cache, "
        f"use_cache=False, or a StaticCache with its cache_position)."
    )
