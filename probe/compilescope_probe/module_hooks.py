"""The hooks the model's modules run around their forward: torch.compile
traces them with the module, so a hook that logs, prints or appends to a list
breaks the graph or recompiles, from code that is not in any forward
(docs/capture.md, "Module hooks")."""

from __future__ import annotations

from typing import Any

from . import fallbacks

# Listed in the model event; a model with more (a hook per layer) is named by these.
MAX_LISTED = 64

_KINDS = (
    ("forward_pre", "_forward_pre_hooks"),
    ("forward", "_forward_hooks"),
)
_GLOBAL_KINDS = (
    ("global_forward_pre", "_global_forward_pre_hooks"),
    ("global_forward", "_global_forward_hooks"),
)


def _function(hook: Any) -> Any:
    """The Python function behind a hook: a bound method's, a partial's."""
    for _ in range(4):
        inner = getattr(hook, "__func__", None) or getattr(hook, "func", None)
        if inner is None:
            break
        hook = inner
    return hook


def _entry(module: str, kind: str, hook: Any) -> dict:
    fn = _function(hook)
    code = getattr(fn, "__code__", None)
    if code is None:  # a builtin or a callable object without Python code
        name = type(hook).__qualname__
        return {"module": module, "kind": kind, "function": name, "file": "", "line": 0}
    return {
        "module": module,
        "kind": kind,
        "function": getattr(fn, "__qualname__", code.co_name),
        "file": code.co_filename,
        "line": code.co_firstlineno,
    }


def registered(torch: Any, model: Any) -> list[dict]:
    """`{"module", "kind", "function", "file", "line"}` per hook: the module's
    path in the model ("" the model itself and any global hook), `kind` one of
    forward_pre, forward, global_forward_pre, global_forward."""
    out: list[dict] = []
    try:
        named = model.named_modules() if isinstance(model, torch.nn.Module) else []
        for path, module in named:
            for kind, attribute in _KINDS:
                for hook in getattr(module, attribute, {}).values():
                    out.append(_entry(path, kind, hook))
        from torch.nn.modules import module as module_mod

        for kind, attribute in _GLOBAL_KINDS:
            for hook in getattr(module_mod, attribute, {}).values():
                out.append(_entry("", kind, hook))
    except Exception as e:  # torch keeps its hook dicts private: the run stands without them
        fallbacks.missing("the modules' forward hooks", e)
    return out[:MAX_LISTED]
