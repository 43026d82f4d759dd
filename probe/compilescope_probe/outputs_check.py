"""Do a compiled setting's outputs agree with eager's on the same inputs?

Compiled kernels reorder reductions and fuse ops, so their outputs may
differ from eager's in the last bits; a wrong result differs by far more.
After the measured calls the probe calls the model eagerly twice, each under
its own random seed, then the compiled function under the first seed, and
compares that with the first eager output leaf by leaf. When the two eager
outputs differ (random ops, state kept between calls, inputs changed in
place) there is nothing to hold the compiled one to: the check says so and
compares nothing.

A leaf differs when its largest difference exceeds the tolerance times the
eager leaf's largest magnitude (its scale): a relative measure that holds
for logits and probabilities alike. Low precision gets more room, since
Inductor keeps a fused chain's intermediates in float32 where eager rounds
each op. When a leaf differs, the same call in float64 tells which side is
nearer the exact result (docs/outputs.md). Where the model holds modules
PyTorch runs on its fast path in eval (nn.TransformerEncoder and its kin),
eager is called once more with that path off: agreement there names the fast
path as the whole difference.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Mapping
from typing import Any, Callable

from . import fallbacks
from .errors import exc_summary

# Largest difference allowed, as a fraction of the leaf's scale, by the
# precision the call computes in.
TOLERANCE = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-2, "bfloat16": 5e-2}
FIRST_SEED = 20261205
SECOND_SEED = 977
# Leaves named in the event, worst first.
MAX_LISTED = 8
# nn modules with a fast path (torch.backends.mha) that eager takes in eval
# under no_grad; under torch.compile the encoder skips its nested tensors.
FAST_PATH_KINDS = ("TransformerEncoder", "TransformerEncoderLayer", "MultiheadAttention")
# Fast-path modules named in the event.
MAX_MODULES = 4
# Containers within containers pytree does not know, looked into this deep.
_MAX_DEPTH = 8


def fast_path_modules(torch: Any, model: Any) -> list[str]:
    """The outermost modules of `model` that eager may run on PyTorch's fast
    path, as "encoder (TransformerEncoder)"; none while the path is off."""
    mha = getattr(getattr(torch, "backends", None), "mha", None)
    if not isinstance(model, torch.nn.Module) or mha is None or not mha.get_fastpath_enabled():
        return []
    kinds = tuple(getattr(torch.nn, name) for name in FAST_PATH_KINDS if hasattr(torch.nn, name))
    found: list[str] = []
    for name, module in model.named_modules():
        inside = any(name.startswith(outer + ".") for outer in found)
        if isinstance(module, kinds) and not inside:
            found.append(name)
    return [
        f"{name or 'the model'} ({type(model.get_submodule(name)).__name__})"
        for name in found[:MAX_MODULES]
    ]


def _fields_of(value: Any) -> dict | None:
    """A container pytree left whole, as a dict of what it holds: a mapping or
    a dataclass of no registered type (diffusers' BaseOutput, an OrderedDict
    dataclass: UNet2DModel's output read as "no output is a tensor"); None
    for anything else."""
    if isinstance(value, Mapping):
        return dict(value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return None


def leaves(output: Any, depth: int = 0) -> tuple[list[tuple[str, Any]], Any]:
    """(path, value) of every leaf, and the structure to compare."""
    try:
        from torch.utils import _pytree as pytree

        flatten = pytree.tree_flatten_with_path
    except Exception as e:  # an older torch: one leaf, compared as a whole
        fallbacks.missing("torch.utils._pytree.tree_flatten_with_path", e)
        return [("output", output)], None
    try:
        flat, spec = flatten(output)
    except Exception:
        # A type registered without key paths (diffusers registers its
        # BaseOutput so): taken apart by its fields instead.
        return _leaves_by_fields(output, depth)
    out: list[tuple[str, Any]] = []
    inner = []
    for path, value in flat:
        name = "output" + pytree.keystr(path)
        fields = _fields_of(value) if depth < _MAX_DEPTH else None
        if fields is None:
            out.append((name, value))
            continue
        held, held_spec = leaves(fields, depth + 1)
        inner.append(held_spec)
        out.extend((name + held_name[len("output") :], v) for held_name, v in held)
    return out, (spec, tuple(inner)) if inner else spec


def _leaves_by_fields(output: Any, depth: int) -> tuple[list[tuple[str, Any]], Any]:
    """leaves() of a value pytree could not key: its fields (or items) one by
    one, each named by its key; the value whole where it has none."""
    fields = _fields_of(output)
    if fields is None and isinstance(output, (list, tuple)):
        fields = dict(enumerate(output))
    if fields is None or depth >= _MAX_DEPTH:
        return [("output", output)], None
    out: list[tuple[str, Any]] = []
    specs = []
    for key, value in fields.items():
        held, held_spec = leaves(value, depth + 1)
        out.extend((f"output[{key!r}]" + name[len("output") :], v) for name, v in held)
        specs.append((key, held_spec))
    return out, (type(output).__name__, tuple(specs))


def detached(output: Any) -> Any:
    """A copy whose tensors are the call's values now: a CUDA graph's next
    replay overwrites its outputs in place."""
    import torch
    from torch.utils import _pytree as pytree

    return pytree.tree_map(
        lambda v: v.detach().clone() if isinstance(v, torch.Tensor) else v, output
    )


def precision_of(leaf_dtypes: list[Any], autocast: str) -> str:
    """The lowest precision among the floating leaves, or autocast's."""
    if autocast in ("bf16", "fp16"):
        return {"bf16": "bfloat16", "fp16": "float16"}[autocast]
    names = {str(d).replace("torch.", "") for d in leaf_dtypes}
    for name in ("bfloat16", "float16", "float32"):
        if name in names:
            return name
    return "float64" if "float64" in names else "float32"


def compare_leaf(path: str, eager: Any, compiled: Any, tolerance: float) -> dict:
    """One leaf's agreement: `relative` is the largest difference over the
    eager leaf's scale; `differs` when it passes the tolerance, when a value
    becomes NaN or infinite, or when the shape or type changed."""
    import torch

    entry: dict = {"path": path, "differs": False, "kind": "values"}
    if isinstance(eager, torch.Tensor) != isinstance(compiled, torch.Tensor):
        entry.update(differs=True, kind="type", detail=f"{_type(eager)} vs {_type(compiled)}")
        return entry
    if not isinstance(eager, torch.Tensor):
        if isinstance(eager, (bool, int, float)) and isinstance(compiled, (bool, int, float)):
            scale = abs(float(eager))
            diff = abs(float(eager) - float(compiled))
            entry.update(
                dtype=type(eager).__name__,
                shape=[],
                max_abs_diff=diff,
                scale=scale,
                relative=diff / scale if scale else diff,
                elements=1,
                mismatched=int(diff > tolerance * max(scale, 1e-30)),
            )
            entry["differs"] = entry["mismatched"] > 0
            return entry
        entry["kind"] = "skipped"
        entry["detail"] = f"a {_type(eager)} is not compared"
        return entry
    entry["dtype"] = str(eager.dtype).replace("torch.", "")
    entry["shape"] = list(eager.shape)
    entry["elements"] = eager.numel()
    if eager.shape != compiled.shape:
        entry.update(
            differs=True,
            kind="shape",
            detail=f"shape {list(eager.shape)} in eager, {list(compiled.shape)} compiled",
        )
        return entry
    e = eager.detach()
    c = compiled.detach().to(e.device)
    if not (e.is_floating_point() or e.is_complex()):
        mismatched = int((e != c.to(e.dtype)).sum().item())
        entry.update(
            max_abs_diff=float((e.double() - c.double()).abs().max().item()) if e.numel() else 0.0,
            scale=float(e.double().abs().max().item()) if e.numel() else 0.0,
            mismatched=mismatched,
        )
        entry["relative"] = mismatched / e.numel() if e.numel() else 0.0
        entry["differs"] = mismatched > 0
        return entry
    e64 = e.to(torch.complex128 if e.is_complex() else torch.float64)
    c64 = c.to(e64.dtype)
    finite_e = torch.isfinite(e64)
    finite_c = torch.isfinite(c64)
    # Non-finite where eager is finite, or the other way: a wrong result
    # whatever the tolerance. Both NaN, or the same infinity, agree.
    nonfinite = int((finite_e != finite_c).sum().item())
    same_special = ~finite_e & ~finite_c & ((e64 == c64) | (e64.isnan() & c64.isnan()))
    both = finite_e & finite_c
    diff = torch.where(both, (e64 - c64).abs(), torch.zeros_like(e64.real))
    scale = (
        float(torch.where(finite_e, e64.abs(), torch.zeros_like(e64.real)).max().item())
        if e.numel()
        else 0.0
    )
    max_diff = float(diff.max().item()) if e.numel() else 0.0
    limit = tolerance * (scale if scale > 0 else 1.0)
    mismatched = int((diff > limit).sum().item()) + nonfinite
    mismatched += int((~both & ~same_special & ~(finite_e != finite_c)).sum().item())
    entry.update(
        max_abs_diff=max_diff,
        scale=scale,
        relative=max_diff / scale if scale > 0 else max_diff,
        mismatched=mismatched,
        nonfinite=nonfinite,
    )
    if nonfinite:
        entry["kind"] = "nonfinite"
    entry["differs"] = mismatched > 0
    if mismatched and not nonfinite:
        rows = _zero_rows(e64, c64, diff > limit, diff, limit, scale)
        if rows:
            entry["zero_rows"] = rows
    return entry


def _zero_rows(e64: Any, c64: Any, past: Any, diff: Any, limit: float, scale: float) -> dict | None:
    """Every value past the tolerance in rows (along the last dimension) that
    one side left all zeros, a minority of the rows: positions a padding mask
    masks out, which eager's nested-tensor fast path (nn.TransformerEncoder
    with src_key_padding_mask) writes as zeros and the compiled graph does not.
    What differs elsewhere says whether the rest agrees."""
    if e64.dim() < 2 or e64.shape[-1] < 2 or e64.is_complex():
        return None
    width = e64.shape[-1]
    past_rows = past.reshape(-1, width).any(-1)
    total = past_rows.numel()
    for side, values in (("eager", e64), ("compiled", c64)):
        zero = (values.reshape(-1, width) == 0).all(-1)
        count = int(zero.sum().item())
        if not count or 2 * count > total or bool((past_rows & ~zero).any().item()):
            continue
        rest = diff.reshape(-1, width)[~zero]
        elsewhere = float(rest.max().item()) if rest.numel() else 0.0
        return {
            "side": side,
            "rows": count,
            "of": total,
            "differing_rows": int(past_rows.sum().item()),
            "max_abs_diff_elsewhere": elsewhere,
            "relative_elsewhere": elsewhere / scale if scale > 0 else elsewhere,
            "within": elsewhere <= limit,
        }
    return None


def _type(v: Any) -> str:
    return type(v).__name__


def _error_against(reference: list[tuple[str, Any]], values: list[tuple[str, Any]]) -> float | None:
    """The largest difference from the float64 reference over every floating
    leaf of the same shape, each over its own scale (compare_leaf's relative);
    None when no leaf has the reference's shape, so nothing was measured."""
    import torch

    worst = None
    for (path, ref), (_, value) in zip(reference, values):
        if (
            isinstance(ref, torch.Tensor)
            and isinstance(value, torch.Tensor)
            and ref.is_floating_point()
            and ref.shape == value.shape
        ):
            relative = compare_leaf(path, ref, value, 1.0).get("relative", 0.0)
            worst = relative if worst is None else max(worst, relative)
    return worst


def _shape_verdict(
    reference: list[tuple[str, Any]],
    eager: list[tuple[str, Any]],
    compiled: list[tuple[str, Any]],
) -> tuple[str, str] | None:
    """Which side the float64 call's shape agrees with, for the first leaf
    whose shape differs: a size set by values (a mask, nonzero, a threshold)
    follows rounding, and float64 tells whose rounding moved it. Returns the
    side ("compiled", "eager" or "neither") and the verdict in words."""
    for (path, ref), (_, e), (_, c) in zip(reference, eager, compiled):
        shapes = [list(getattr(v, "shape", [])) for v in (ref, e, c)]
        if not all(hasattr(v, "shape") for v in (ref, e, c)) or shapes[1] == shapes[2]:
            continue
        ref_shape, eager_shape, compiled_shape = shapes
        said = f"the same call in float64 gives {path} the shape {ref_shape}"
        if ref_shape == compiled_shape:
            return "compiled", (
                f"{said}, as the compiled call does; eager's {eager_shape} is the odd one: "
                f"a size set by values (a mask, nonzero, a threshold) fell the other way "
                f"in eager's rounding"
            )
        if ref_shape == eager_shape:
            return "eager", (
                f"{said}, as eager does; the compiled {compiled_shape} is the odd one: "
                f"a value within rounding of a threshold fell the other way in the "
                f"compiled rounding, or the compiled program computes otherwise"
            )
        return "neither", (
            f"{said}, neither eager's {eager_shape} nor the compiled {compiled_shape}: "
            f"the size depends on values at the level of rounding"
        )
    return None


def _to_float64(value: Any) -> Any:
    import torch
    from torch.utils import _pytree as pytree

    return pytree.tree_map(
        lambda v: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v,
        value,
    )


class OutputsCheck:
    """Runs the calls and builds the `outputs_check` event's fields."""

    def __init__(self, torch: Any, device: Any, autocast: str, force_eager: bool = False) -> None:
        self.torch = torch
        self.device = device
        self.autocast = autocast
        # Mode as-written: the model itself holds compiled parts, which eager's
        # calls must run uncompiled.
        self.force_eager = force_eager

    def eager(self) -> Any:
        if not self.force_eager:
            return contextlib.nullcontext()
        return self.torch.compiler.set_stance("force_eager")

    @contextlib.contextmanager
    def seeded(self, seed: int) -> Any:
        torch = self.torch
        devices = [self.device] if self.device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed)
            yield

    def call(self, fn: Callable[..., Any], inputs: tuple, seed: int) -> Any:
        with self.seeded(seed):
            return detached(fn(*inputs))

    def run(self, fn: Callable[..., Any], model: Any, inputs: tuple) -> dict:
        with self.eager():
            first = self.call(model, inputs, FIRST_SEED)
            second = self.call(model, inputs, SECOND_SEED)
        compiled = self.call(fn, inputs, FIRST_SEED)
        modules = fast_path_modules(self.torch, model)

        def first_seed_again() -> Any:
            with self.eager():
                return self.call(model, inputs, FIRST_SEED)

        return self.judge(
            first,
            second,
            compiled,
            lambda: self.float64_call(model, inputs),
            (modules, lambda: self.plain_call(model, inputs)) if modules else None,
            first_seed_again,
        )

    def plain_call(self, model: Any, inputs: tuple) -> Any:
        """The eager call again with PyTorch's fast path off; the switch is
        process-wide, so it is put back."""
        mha = self.torch.backends.mha
        mha.set_fastpath_enabled(False)
        try:
            with self.eager():
                return self.call(model, inputs, FIRST_SEED)
        finally:
            mha.set_fastpath_enabled(True)

    def float64_call(self, model: Any, inputs: tuple) -> Any:
        """The eager call again with the model and inputs in float64, on a copy
        of the model; autocast off, since it would round to low precision."""
        torch = self.torch
        if not isinstance(model, torch.nn.Module):
            raise ValueError("get_model() gave a function, which has no float64 copy")
        twin = copy.deepcopy(model).double()
        with torch.autocast(device_type=self.device.type, enabled=False), self.eager():
            return self.call(twin, _to_float64(inputs), FIRST_SEED)

    def judge(
        self,
        first: Any,
        second: Any,
        compiled: Any,
        float64: Callable[[], Any] | None,
        fast_path: tuple[list[str], Callable[[], Any]] | None = None,
        first_seed_again: Callable[[], Any] | None = None,
    ) -> dict:
        eager_leaves, eager_spec = leaves(first)
        second_leaves, _ = leaves(second)
        compiled_leaves, compiled_spec = leaves(compiled)
        dtypes = [v.dtype for _, v in eager_leaves if hasattr(v, "dtype")]
        precision = precision_of(dtypes, self.autocast)
        tolerance = TOLERANCE[precision]
        fields: dict = {"tolerance": tolerance, "precision": precision, "leaves": len(eager_leaves)}
        # Eager's own variation must sit well inside the tolerance: CUDA's
        # atomics leave last-bit noise, a random op or kept state far more.
        varying = [
            e for e in _compare_all(eager_leaves, second_leaves, tolerance / 10) if e["differs"]
        ]
        if varying:
            fields.update(
                status="varies",
                message=_varies_message(
                    varying[0]["path"],
                    _repeats_under_seed(eager_leaves, first_seed_again, tolerance / 10),
                ),
            )
            return fields
        if eager_spec is not None and compiled_spec is not None and eager_spec != compiled_spec:
            fields.update(
                status="differ",
                differing=1,
                worst=[
                    {
                        "path": "output",
                        "differs": True,
                        "kind": "structure",
                        "detail": f"{len(eager_leaves)} value(s) in eager's output, "
                        f"{len(compiled_leaves)} in the compiled one's",
                    }
                ],
            )
            return fields
        compared = _compare_all(eager_leaves, compiled_leaves, tolerance)
        differing = [e for e in compared if e["differs"]]
        skipped = sum(1 for e in compared if e["kind"] == "skipped")
        fields["skipped"] = skipped
        if skipped == len(compared):
            fields.update(
                status="skipped",
                message="no output is a tensor or a number, so nothing was compared",
            )
            return fields
        differing.sort(key=lambda e: (e["kind"] == "values", -e.get("relative", 0.0)))
        fields["differing"] = len(differing)
        fields["worst"] = differing[:MAX_LISTED] or [
            max(
                (e for e in compared if e["kind"] != "skipped"),
                key=lambda e: e.get("relative", 0.0),
            )
        ]
        fields["status"] = "differ" if differing else "match"
        if differing and fast_path is not None:
            modules, plain = fast_path
            try:
                fields["fast_path"] = _fast_path_verdict(
                    modules, leaves(plain())[0], eager_leaves, compiled_leaves, tolerance
                )
            except Exception as e:  # the verdict stands without it
                fields["fast_path"] = {"modules": modules, "note": f"raised: {exc_summary(e)}"}
            # float64's eager call takes the fast path too: its verdict would
            # be on the path, not on the compiled program.
            if fields["fast_path"].get("compiled_agrees"):
                float64 = None
        if differing and float64 is not None:
            try:
                reference, _ = leaves(float64())
                eager_error = _error_against(reference, eager_leaves)
                compiled_error = _error_against(reference, compiled_leaves)
                shapes = _shape_verdict(reference, eager_leaves, compiled_leaves)
                # A side with no leaf of float64's shape has no error to give:
                # 0% would read as exact.
                if eager_error is not None and compiled_error is not None and shapes is None:
                    fields["float64"] = {
                        "eager_error": eager_error,
                        "compiled_error": compiled_error,
                    }
                elif shapes:
                    fields["float64_shape"], fields["float64_note"] = shapes
                else:
                    fields["float64_note"] = (
                        "the float64 call's outputs have other shapes than both sides'"
                    )
            except Exception as e:  # the verdict stands without it
                fields["float64_note"] = f"no float64 reference: {exc_summary(e)}"
        return fields


def _repeats_under_seed(
    first: list[tuple[str, Any]], again: Callable[[], Any] | None, tolerance: float
) -> bool | None:
    """Whether eager called again under the first call's seed gives its
    outputs: the variation then came from the random numbers it draws. None
    when that call is not made or raises."""
    if again is None:
        return None
    try:
        repeat, _ = leaves(again())
    except Exception:  # the verdict stands without it
        return None
    return not any(e["differs"] for e in _compare_all(first, repeat, tolerance))


def _varies_message(path: str, seeded: bool | None) -> str:
    if seeded:
        # ViTMAE's random masking (torch.rand in forward): one seed, one result.
        return (
            f"eager's outputs change with the random seed ({path}) and repeat under the same "
            f"one: the model draws random numbers in forward (a torch.rand, a dropout it applies "
            f"itself), and a compiled graph draws its own (Inductor has its own generator), so "
            f"there is no one result to hold the compiled one to; with "
            f"torch._inductor.config.fallback_random = True Inductor draws as eager does"
        )
    if seeded is False:
        return (
            f"eager's outputs changed between two calls at the same inputs, also under the same "
            f"random seed ({path}): the model keeps state between calls or changes its inputs "
            f"in place, so there is no one result to hold the compiled one to"
        )
    return (
        f"eager's outputs changed between two calls at the same inputs ({path}): the model "
        f"draws random numbers, keeps state between calls or changes its inputs in place, so "
        f"there is no one result to hold the compiled one to"
    )


def _fast_path_verdict(
    modules: list[str],
    plain: list[tuple[str, Any]],
    eager: list[tuple[str, Any]],
    compiled: list[tuple[str, Any]],
    tolerance: float,
) -> dict:
    """How far the compiled outputs and eager's are from eager's with the fast
    path off, each the worst leaf over its scale; the compiled ones agree
    when no leaf is past the tolerance (nor changed in shape or kind)."""
    if len(plain) != len(compiled):
        return {"modules": modules, "note": "the fast path off changed the output's structure"}
    against_compiled = [
        e for e in _compare_all(plain, compiled, tolerance) if e["kind"] != "skipped"
    ]
    against_eager = [e for e in _compare_all(plain, eager, tolerance) if e["kind"] != "skipped"]
    return {
        "modules": modules,
        "compiled_agrees": bool(against_compiled)
        and not any(e["differs"] for e in against_compiled),
        "compiled_relative": max((e.get("relative", 0.0) for e in against_compiled), default=0.0),
        "eager_relative": max((e.get("relative", 0.0) for e in against_eager), default=0.0),
    }


def _compare_all(
    eager: list[tuple[str, Any]], other: list[tuple[str, Any]], tolerance: float
) -> list[dict]:
    return [compare_leaf(path, e, o, tolerance) for (path, e), (_, o) in zip(eager, other)]
