"""Which part of torch.compile's stack a compile failure comes from: the
first call compiled again under less of it, as torch's own troubleshooting
guide narrows a failure by hand. Backend eager runs Dynamo alone, aot_eager
adds AOTAutograd; the first that fails names the stage (docs/capture.md,
"A compile that fails")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import exc_summary

# The backends below Inductor, cheapest first, and what each adds.
LADDER = (("eager", "dynamo"), ("aot_eager", "aot_autograd"))


def failing_stage(
    torch: Any,
    compile_call: Callable[[str], None],
    backend: str,
) -> dict | None:
    """The stage that fails: `{"stage", "backend", "checks": [{"backend", "ok", "error"}]}`.

    `compile_call(name)` compiles the model under backend `name` and makes its
    first call. Each try starts from torch._dynamo.reset(), so no graph of the
    failed compile is reused. `stage` is `dynamo` or `aot_autograd` when that
    backend fails too, else `backend` (only the setting's own backend fails).
    None for a backend the ladder does not sit below (eager itself, a custom
    backend whose stack is unknown)."""
    if backend == "eager":
        return None
    # Any backend runs under Dynamo; AOTAutograd is known to sit under Inductor.
    below = LADDER if backend == "inductor" else LADDER[:1]
    checks: list[dict] = []
    for name, stage in below:
        torch._dynamo.reset()
        try:
            compile_call(name)
        except Exception as e:  # the failure sought: which backend still fails
            checks.append({"backend": name, "ok": False, "error": exc_summary(e)})
            return {"stage": stage, "backend": backend, "checks": checks}
        checks.append({"backend": name, "ok": True, "error": ""})
    return {"stage": "backend", "backend": backend, "checks": checks}


def stage_words(found: dict) -> str:
    """The failing stage and what to do meanwhile, for the error message."""
    stage = found["stage"]
    if stage == "dynamo":
        return (
            "it fails under backend eager too, so Dynamo's tracing fails, whatever the backend: "
            "mark the function holding that line @torch.compiler.disable to compile around it"
        )
    if stage == "aot_autograd":
        return (
            "backend eager runs it and aot_eager fails, so AOTAutograd fails, not the backend: "
            "mark the function holding that line @torch.compiler.disable to compile around it"
        )
    ran = [c["backend"] for c in found["checks"]]
    runs = f"backends {' and '.join(ran)} run it" if len(ran) > 1 else f"backend {ran[0]} runs it"
    return (
        f"{runs}, so {found['backend']} itself fails: --backend "
        f"{found['checks'][-1]['backend']} runs meanwhile, without {found['backend']}'s kernels"
    )
