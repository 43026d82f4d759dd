"""What a failed call of the model was: the classifier behind the probe's
error events for exceptions out of the harness."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import compile_triage
from .errors import ProbeError, compiled_code_location, exc_summary, format_exc, user_location
from .frames import FrameClassifier

# Dynamo's words for a function torch refuses to trace (torch/_dynamo/variables).
_FORBIDDEN = re.compile(r"forbidden callable <(?:built-in )?(?:function|method) ([\w.]+)")


def forbidden_remedy(text: str) -> str | None:
    """What to do when the model calls, inside the compiled code, a function
    torch forbids there (torch.compiler.set_stance, ...): not torch's bug."""
    m = _FORBIDDEN.search(text)
    if not m:
        return None
    name = m.group(1)
    if name == "set_stance":
        return (
            "torch.compiler.set_stance cannot be called inside compiled code: set the stance "
            "around the call instead (with torch.compiler.set_stance(...): model(x)), outside forward"
        )
    return (
        f"torch forbids calling {name} inside compiled code: call it outside the compiled "
        f"function, or move the call into a function marked @torch.compiler.disable"
    )


def is_oom(torch: Any, e: BaseException) -> bool:
    oom_types = tuple(t for t in (getattr(torch.cuda, "OutOfMemoryError", None), MemoryError) if t)
    return isinstance(e, oom_types) or "out of memory" in str(e).lower()


# What to wrap a value in so that it becomes the tensor torch wanted.
_TO_TENSOR = {
    "ndarray": "torch.from_numpy(array)",
    "list": "torch.tensor(values)",
    "tuple": "torch.tensor(values)",
    "float": "torch.tensor(value)",
    "int": "torch.tensor(value)",
}


def not_a_tensor_remedy(e: BaseException, inputs: tuple) -> str | None:
    """For torch's "must be Tensor, not numpy.ndarray" on a value get_inputs()
    gave (an array, a list): which input, and how to make it a tensor. None
    when the message names no input's type."""
    text = str(e)
    if not isinstance(e, TypeError) or "must be Tensor, not " not in text:
        return None
    given = text.split("must be Tensor, not ", 1)[1].split()[0].rstrip(".,;)")
    for index, value in enumerate(inputs):
        kind = type(value)
        if given in (kind.__name__, f"{kind.__module__}.{kind.__name__}"):
            convert = _TO_TENSOR.get(kind.__name__, "a torch tensor")
            return (
                f"get_inputs() gives input {index} as a {given}, and torch takes tensors: "
                f"return {convert} from get_inputs() instead."
            )
    return None


def classify(
    e: BaseException,
    model: Any,
    inputs: tuple,
    *,
    torch: Any,
    device: Any,
    capture: Any,
    fullgraph: bool,
    classifier: FrameClassifier,
    narrow: Callable[[], dict | None] | None = None,
) -> ProbeError:
    """The error event for an exception out of a call of the model: a graph
    break under fullgraph, out of memory, a missing compiler, torch.compile
    failing where eager runs, or the model raising on its own. `narrow`
    finds which stage of torch.compile a failure of no known cause comes from
    (compile_triage.failing_stage)."""
    exc_mod = getattr(getattr(torch, "_dynamo", None), "exc", None)
    Unsupported = getattr(exc_mod, "Unsupported", ()) if exc_mod else ()
    if fullgraph and Unsupported and isinstance(e, Unsupported):
        from .capture import fullgraph_break

        b = fullgraph_break(e, capture)
        uf = (
            b["frames"][b["user_frame"]]
            if b["user_frame"] >= 0
            else (b["frames"][-1] if b["frames"] else None)
        )
        where = f" at {uf['file']}:{uf['line']}" if uf else ""
        return ProbeError(
            "fullgraph_break",
            f"fullgraph=True, but Dynamo must break the graph{where}: {b['gb_type'] or exc_summary(e)}. "
            f"Remove the construct there, or compile without --fullgraph to see every break.",
            tb=format_exc(e),
            graph_break=b,
        )
    if is_oom(torch, e):
        return ProbeError(
            "out_of_memory",
            f"Out of memory on {device}: {exc_summary(e)}. Use smaller inputs (batch size), "
            f"a smaller model, or a mode that holds less memory.",
            tb=format_exc(e),
        )
    compiled = capture is not None
    if compiled:
        bcf = getattr(exc_mod, "BackendCompilerFailed", None) if exc_mod else None
        text = str(e)
        if (
            "Python.h" in text
            or "No such file or directory: 'g++'" in text
            or "InvalidCxxCompiler" in text
        ):
            return ProbeError(
                "no_compiler",
                f"Inductor could not build its kernels: {exc_summary(e)}. Install a C++ compiler and "
                f"Python's headers, or use --backend aot_eager.",
                tb=format_exc(e),
            )
        # Does the model fail without torch.compile too? Then it is the model.
        eager_exc = None
        if not (bcf and isinstance(e, bcf)):
            try:
                model(*inputs)
            except Exception as e2:  # the user's model raising: the answer sought here
                eager_exc = e2
        if eager_exc is None:
            loc = compiled_code_location(e, classifier)
            where = f" (while compiling {loc[0]}:{loc[1]})" if loc else ""
            forbidden = forbidden_remedy(str(e))
            stage: dict = {}
            if "data-dependent expression" in str(e):
                # Not torch's bug: a size there comes from tensor values.
                then = "a size there depends on tensor values (torch._check tells torch what holds)"
            elif forbidden:
                then = forbidden
            else:
                found = narrow() if narrow is not None else None
                stage = {"stage": found["stage"], "stage_checks": found["checks"]} if found else {}
                then = (
                    f"{compile_triage.stage_words(found)}; and report it to PyTorch"
                    if found
                    else "try --backend aot_eager to narrow it down, and report it to PyTorch"
                )
            return ProbeError(
                "compile_failed",
                f"torch.compile failed{where}: {exc_summary(e)}. The model runs without "
                f"torch.compile; {then}.",
                tb=format_exc(e),
                **stage,
            )
        e = eager_exc
    loc = user_location(e, classifier)
    where = f" at {loc[0]}:{loc[1]}" if loc else ""
    fix = not_a_tensor_remedy(e, inputs) or "fix the model or its inputs (get_inputs())."
    return ProbeError(
        "model_raised",
        f"The model raised {exc_summary(e)}{where}. It fails without torch.compile too: {fix}",
        tb=format_exc(e),
        **({"file": loc[0], "line": loc[1]} if loc else {}),
    )
