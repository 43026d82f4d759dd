"""The model's own torch.compile calls, undone before a setting runs it.

A model file taken from deployed code often compiles already: get_model()
returns torch.compile(model), a block calls Module.compile(), a forward or a
helper is decorated with @torch.compile. Left in place, mode eager would time
compiled code, and a compiled setting would run the user's compile inside its
own: the outer trace inlines the inner call, but what runs after a graph break
compiles under the user's options, unseen by the probe's capture. So each one
found is undone here, every setting then runs what its name says, and the
`model` event lists them (`own_compiles`) so the report can say what the
model asked for (docs/protocol.md)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from typing import Any

from . import fallbacks

# Mode options torch.compile applies, tried largest first when naming a mode.
_MODES = ("max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead")


def _context(fn: Any, optimize_context: type) -> Any:
    """The OptimizeContext of a function torch.compile wrapped; None for any
    other function (one torch._dynamo.disable wrapped has a DisableContext)."""
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, optimize_context):
            return value
    return None


def _unwrapped(original: Any) -> Any:
    """What was passed to torch.compile: for a bound method or a builtin,
    torch keeps a function wrapping it (its __wrapped__); a Python function
    stays itself (its own __wrapped__, from another decorator, is not it)."""
    inner = getattr(original, "__wrapped__", None)
    return inner if inspect.ismethod(inner) or inspect.isbuiltin(inner) else original


def _backend(ctx: Any) -> Any:
    """The backend object behind a context's callback: torch's wrapper of
    the backend name (its compiler_name), or the user's own callable."""
    backend = getattr(ctx, "callback", None)
    seen = 0
    while hasattr(backend, "_torchdynamo_orig_backend") and seen < 8:
        backend = backend._torchdynamo_orig_backend
        seen += 1
    return backend


def _mode_and_options(torch: Any, config: dict, dynamic: Any) -> tuple[str, dict]:
    """The mode whose options `config` holds, and the options beyond it."""
    for mode in _MODES:
        try:
            implied = torch._inductor.list_mode_options(mode, dynamic)
        except Exception as e:
            fallbacks.missing("torch._inductor.list_mode_options", e)
            break
        if implied and all(config.get(k, object()) == v for k, v in implied.items()):
            return mode, {k: v for k, v in config.items() if k not in implied}
    return "default", dict(config)


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def describe(torch: Any, ctx: Any) -> dict:
    """backend, mode, dynamic, fullgraph and the call as written, as far as
    the context tells; an Inductor mode is named by the options it set."""
    backend = _backend(ctx)
    name = getattr(backend, "compiler_name", None)
    if not isinstance(name, str):
        name = getattr(backend, "__name__", None) or type(backend).__name__
    dynamic = getattr(ctx, "_dynamic", None)
    if dynamic is None:
        dynamic = getattr(backend, "dynamic", None)
    fullgraph = bool(getattr(ctx, "fullgraph", False))
    mode, options = "default", {}
    config = getattr(backend, "config", None)
    if name == "inductor" and isinstance(config, dict):
        mode, options = _mode_and_options(torch, config, dynamic)
    args = []
    if name != "inductor":
        args.append(f"backend={_literal(name)}")
    if mode != "default":
        args.append(f"mode={_literal(mode)}")
    if options:
        args.append(
            "options={"
            + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in options.items())
            + "}"
        )
    if dynamic is not None:
        args.append(f"dynamic={dynamic}")
    if fullgraph:
        args.append("fullgraph=True")
    return {
        "backend": name,
        "mode": mode if name == "inductor" else None,
        "dynamic": dynamic,
        "fullgraph": fullgraph,
        "call": "torch.compile(" + ", ".join(args) + ")",
    }


# A wrapper like torch.compile(...) with its options bound: fn -> compiled fn.
Wrap = Callable[[Any], Any]
# Puts a call back where the model file made it, compiled by the given wrapper.
Redo = Callable[[Wrap], None]


@dataclasses.dataclass
class Place:
    """Where one of the calls was, for mode as-written to compile it again."""

    context: Any  # its OptimizeContext; None where torch did not say
    redo: Redo | None  # None for get_model()'s own, which the probe wraps itself


@dataclasses.dataclass
class Undone:
    """The model with its own calls undone, the calls (the `model` event's
    own_compiles) and, in the same order, where each was."""

    model: Any
    calls: list[dict]
    places: list[Place]


def _setter(owner: Any, name: str, original: Any) -> Redo:
    def redo(wrap: Wrap) -> None:
        setattr(owner, name, wrap(original))

    return redo


class _Undo:
    def __init__(self, torch: Any) -> None:
        self.torch = torch
        from torch._dynamo.eval_frame import OptimizeContext, OptimizedModule

        self.optimized_module = OptimizedModule
        self.optimize_context = OptimizeContext
        self.found: list[dict] = []
        self.places: list[Place] = []
        self._classes: set[type] = set()

    def note(self, where: str, how: str, ctx: Any, redo: Redo | None) -> None:
        self.places.append(Place(ctx, redo))
        entry = {"where": where, "how": how}
        try:
            entry |= describe(self.torch, ctx)
        except Exception as e:  # what the call was is a nicety; undoing it is not
            fallbacks.missing("torch.compile's options (OptimizeContext)", e)
            entry |= {"backend": "", "mode": None, "dynamic": None, "fullgraph": False}
            entry["call"] = "torch.compile(...)"
        self.found.append(entry)

    def compiled_function(self, fn: Any) -> Any:
        """The original of a function torch.compile wrapped, or None."""
        try:
            original = getattr(fn, "_torchdynamo_orig_callable", None)
        except Exception:  # an object whose __getattr__ raises otherwise
            return None
        if original is None:
            return None
        ctx = _context(fn, self.optimize_context)
        return (original, ctx) if ctx is not None else None

    def top(self, model: Any) -> Any:
        while True:
            if isinstance(model, self.optimized_module):
                self.note("get_model()", "torch.compile", model.dynamo_ctx, None)
                model = model._orig_mod
                continue
            hit = self.compiled_function(model)
            if hit is None:
                return model
            self.note("get_model()", "torch.compile", hit[1], None)
            model = _unwrapped(hit[0])

    def modules(self, model: Any) -> None:
        """Module.compile() calls, compiled children and compiled methods, in
        the order named_modules walks them."""
        seen: set[int] = set()

        def walk(module: Any, path: str) -> None:
            if id(module) in seen:
                return
            seen.add(id(module))
            compiled = getattr(module, "_compiled_call_impl", None)
            if compiled is not None:
                hit = self.compiled_function(compiled)

                def recompile(wrap: Wrap, module: Any = module) -> None:
                    module._compiled_call_impl = wrap(module._call_impl)

                self.note(path, "Module.compile", hit[1] if hit else None, recompile)
                module._compiled_call_impl = None
            self.methods(type(module), path)
            self.attributes(module, path)
            for name, child in list(module._modules.items()):
                if child is None:
                    continue
                child_path = f"{path}.{name}" if path else name
                while isinstance(child, self.optimized_module):

                    def rewrap(wrap: Wrap, parent: Any = module, name: str = name) -> None:
                        parent._modules[name] = wrap(parent._modules[name])

                    self.note(child_path, "torch.compile", child.dynamo_ctx, rewrap)
                    child = child._orig_mod
                module._modules[name] = child
                walk(child, child_path)

        walk(model, "")

    def methods(self, cls: type, path: str) -> None:
        """@torch.compile on a method of the module's class (its forward)."""
        if cls in self._classes:
            return
        self._classes.add(cls)
        for klass in cls.__mro__:
            if klass.__module__.startswith("torch."):
                continue
            for name, value in list(vars(klass).items()):
                hit = self.compiled_function(value)
                if hit is not None:
                    self.note(
                        f"{klass.__name__}.{name}",
                        "decorator",
                        hit[1],
                        _setter(klass, name, hit[0]),
                    )
                    setattr(klass, name, hit[0])

    def attributes(self, module: Any, path: str) -> None:
        """`model.forward = torch.compile(model.forward)`: a compiled function
        set on the module object itself (how Hugging Face's guides compile)."""
        for name, value in list(vars(module).items()):
            if name.startswith("_"):
                continue  # torch's own (_compiled_call_impl is Module.compile's)
            hit = self.compiled_function(value)
            if hit is not None:
                where = f"{path}.{name}" if path else name
                self.note(where, "attribute", hit[1], _setter(module, name, _unwrapped(hit[0])))
                # torch.compile(model.forward) keeps the bound method as the
                # __wrapped__ of its original: with the attribute gone, the
                # class's method shows through again, as before the call.
                original = _unwrapped(hit[0])
                if getattr(original, "__self__", None) is module and getattr(
                    original, "__func__", None
                ) is getattr(type(module), name, None):
                    delattr(module, name)
                else:
                    setattr(module, name, original)

    def namespace(self, namespace: dict) -> None:
        """@torch.compile on the model file's own functions."""
        for name, value in list(namespace.items()):
            if isinstance(value, type):
                continue
            hit = self.compiled_function(value)
            if hit is not None:

                def redefine(wrap: Wrap, name: str = name, original: Any = hit[0]) -> None:
                    namespace[name] = wrap(original)

                self.note(name, "decorator", hit[1], redefine)
                namespace[name] = hit[0]


def undo(torch: Any, model: Any, namespace: dict | None = None) -> Undone:
    """The model with every torch.compile call of its own undone, and those
    calls: {"where" (get_model(), a module path, an attribute of a module by
    its path, Class.method or a function of the model file), "how"
    (torch.compile, Module.compile, attribute, decorator),
    "backend", "mode", "dynamic", "fullgraph", "call"}."""
    try:
        undoer = _Undo(torch)
    except Exception as e:  # a torch without these classes: nothing to undo by them
        fallbacks.missing("torch._dynamo.eval_frame.OptimizedModule", e)
        return Undone(model, [], [])
    model = undoer.top(model)
    if isinstance(model, torch.nn.Module):
        undoer.modules(model)
    if namespace is not None:
        undoer.namespace(namespace)
    return Undone(model, undoer.found, undoer.places)


def user_backend(ctx: Any) -> Any:
    """The backend a call compiled with (torch's wrapper of a name, with its
    options, or the user's own callable); None without a context."""
    return _backend(ctx) if ctx is not None else None


def recording_backend(torch: Any, capture: Any, ctx: Any, call: dict) -> Any:
    """For mode as-written: a backend that records each graph, then compiles
    as the call's own backend did: Inductor with the call's options (its
    mode's among them), another backend by its name, or the user's own
    callable as it is."""
    from .capture import make_backend

    backend = user_backend(ctx)
    name = getattr(backend, "compiler_name", None)
    if backend is None or name == "inductor":
        config = getattr(backend, "config", None)
        options = dict(config) if isinstance(config, dict) and config else None
        return make_backend(capture, "inductor", "default", call["dynamic"], options)
    if isinstance(name, str):
        return make_backend(capture, name, "default", call["dynamic"])

    def recording(gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        capture.record_graph(gm)
        return backend(gm, example_inputs, **kwargs)

    return recording
