"""Graphs, graph breaks and recompiles, captured from the same compilation
that the chosen setting runs (see docs/capture.md for the choices).

Sources, all guarded so an older torch degrades instead of crashing (and says
so in one capture_warning per missing piece, see fallbacks.py):
- a recording backend: every FX graph Dynamo hands to the backend, and the
  `compile_subgraph_reason` on it (exactly what torch._dynamo.explain reads);
- a handler on the structured trace logger ("torch.__trace"): the
  `dynamo_graph_break_reason` artifact of every break, with the live
  `Unsupported` exception (gb_type, real_stack), which also covers breaks
  that left no graph behind;
- guard_fail_fn and torch's CompilationMetrics: recompiles and their reasons;
- the "torch._dynamo.convert_frame" logger: the recompile-limit warning.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import sys
import time
from typing import Any, Callable

from . import fallbacks
from .frames import FrameClassifier, break_stack, frame_dicts, innermost_user, parse_stack_text

Emit = Callable[..., None]

_GB_ID_RE = re.compile(r"/gb/gb(\d{4})\.html", re.IGNORECASE)
_BREAK_AT_RE = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)")
_REASON_RE = re.compile(
    r"Graph Break Reason: (?P<reason>.*?)(?:\n\s*\n|\nUser code traceback:|\Z)", re.S
)
# A backend's failure on an FX node: where the node's code is, as torch quotes
# it in the "Backend compiler exception" break (the user's line first).
_ORIGINAL_TRACEBACK_RE = re.compile(r"Original traceback:\n(?P<stack>.*?)(?:\n\s*\n|\Z)", re.S)
BACKEND_FAILURE = "Backend compiler exception"
_LIMIT_RE = re.compile(
    r"hit config\.(?P<kind>\w+) \((?P<limit>\d+)\)\s*\n\s*function: '(?P<func>[^']*)' \((?P<file>.*):(?P<line>\d+)\)"
    r"\s*\n\s*last reason: (?P<reason>.*?)\n",
    re.S,
)


# How guards name a library wrapper's inputs: "args[0]" (or "L['args'][0]"),
# "kwargs['input_ids']" (or "L['kwargs']['input_ids']").
_ARGS_RE = re.compile(r"(?:L\[')?\bargs(?:'\])?\[(\d+)\]")
_KWARGS_RE = re.compile(r"(?:L\[')?\bkwargs(?:'\])?\['(\w+)'\]")
# The probe's own KeywordCall(*values) around a model called by keyword.
_VALUES_RE = re.compile(r"(?:L\[')?\bvalues(?:'\])?\[(\d+)\]")


def _qualified(target: Any) -> str:
    if isinstance(target, str):
        return target
    try:
        from torch.fx.node import _get_qualified_name
    except ImportError as e:
        fallbacks.missing("torch.fx.node._get_qualified_name", e)
    else:
        try:
            return _get_qualified_name(target)
        except Exception:  # a target it cannot name: fall back to its own name
            pass
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name:
        return f"{module}.{name}" if module else name
    return str(target)


def _dtype_text(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def _describe_value(value: Any) -> tuple[Any, Any]:
    """(shape, dtype) of a node's example value; symbolic sizes keep their
    symbol (`s0`), tuple outputs give lists."""
    import torch

    if isinstance(value, torch.Tensor):
        try:
            shape = "[" + ", ".join(str(d) for d in value.shape) + "]"
        except Exception:  # a size that cannot be printed: the value, not torch, is odd
            shape = None
        return shape, _dtype_text(value.dtype)
    if isinstance(value, (list, tuple)):
        shapes, dtypes = [], []
        for v in value:
            s, d = _describe_value(v)
            shapes.append(s)
            dtypes.append(d)
        return shapes, dtypes
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return None, type(value).__name__
    if value is None:
        return None, None
    if isinstance(value, (int, float, bool)):
        return None, type(value).__name__
    return None, None


_SOURCE_ROOT_RE = re.compile(r"^(L|G)\[['\"]([^'\"]*)['\"]\]")


def _innermost_source(nn_module_stack: Any) -> str | None:
    """The source of the innermost module a node came from: `L['self'].layers[0]`."""
    if not nn_module_stack:
        return None
    try:
        last = list(nn_module_stack.values())[-1]
        return last[0] if isinstance(last, (tuple, list)) else str(last)
    except Exception as e:
        fallbacks.missing("node.meta['nn_module_stack'] as a dict of (path, type)", e)
        return None


def _source_root(source: str | None) -> tuple[str, str] | None:
    """`L['self'].layers[0]` → ("L", "self"): the frame's local or global the
    module path starts from."""
    m = _SOURCE_ROOT_RE.match(source or "")
    return (m.group(1), m.group(2)) if m else None


def _joined(prefix: str, path: str | None) -> str | None:
    """A path below the module at `prefix` ("" the model); None: the model."""
    full = f"{prefix}.{path}" if prefix and path else (prefix or path)
    return full or None


def _module_path(nn_module_stack: Any) -> str | None:
    """`L['self'].layers[0]` / `L['self']._modules['layers']._modules['0']`
    → `layers.0` (the innermost module the node came from), relative to the
    compiled frame's `self` (or whichever local the source starts from)."""
    return _relative_path(_innermost_source(nn_module_stack))


def _relative_path(source: str | None) -> str | None:
    """A module source without its root: `L['self'].layers[0]` → `layers.0`."""
    if source is None:
        return None
    path = _SOURCE_ROOT_RE.sub("", source)
    path = re.sub(r"\._modules\[['\"]([^'\"]*)['\"]\]", r".\1", path)
    path = re.sub(r"\[['\"]([^'\"]*)['\"]\]", r".\1", path)
    path = re.sub(r"\[(\d+)\]", r".\1", path)
    return path.lstrip(".") or None


def _without_wrapper(path: str | None) -> str | None:
    """A module path under the probe's KeywordCall, `model.encoder.layer.0`,
    as the user's model names it: `encoder.layer.0`; the model itself: None."""
    if path is None or path == "model":
        return None
    return path[len("model.") :] if path.startswith("model.") else path


def _gb_id(text: str | None) -> str | None:
    m = _GB_ID_RE.search(text or "")
    return f"GB{m.group(1)}" if m else None


def _explanation_and_hints(reason: str) -> dict:
    """torch's break messages read `gb_type / Explanation: ... / Hint: ...`,
    with the details of this break filled in; the registry only has templates."""
    explanation = None
    hints: list[str] = []
    for raw in (reason or "").splitlines():
        line = raw.strip()
        if line.startswith("Explanation:"):
            explanation = line[len("Explanation:") :].strip()
        elif line.startswith("Hint:"):
            hints.append(line[len("Hint:") :].strip())
    if explanation is None and not hints:
        return {}
    return {"explanation": explanation, "hints": hints}


class _Registry:
    """torch's own graph_break_registry.json (explanation and hints per break
    type), read from the user's torch; absent on older torch."""

    def __init__(self) -> None:
        self._by_type: dict[str, tuple[str, dict]] | None = None

    def _load(self) -> None:
        self._by_type = {}
        try:
            import torch._dynamo

            path = os.path.join(
                os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json"
            )
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            for gb_id, entries in data.items():
                for entry in entries if isinstance(entries, list) else [entries]:
                    t = entry.get("Gb_type")
                    if t:
                        self._by_type[t] = (gb_id, entry)
        except Exception as e:
            fallbacks.missing("torch/_dynamo/graph_break_registry.json", e)

    def lookup(self, gb_type: str | None, gb_id: str | None) -> dict:
        if self._by_type is None:
            self._load()
        assert self._by_type is not None
        found = self._by_type.get(gb_type or "")
        if found is None and gb_id:
            found = next(((i, e) for i, e in self._by_type.values() if i == gb_id), None)
        if not found:
            return {}
        gb_id2, entry = found
        return {
            "gb_id": gb_id2,
            "explanation": entry.get("Explanation"),
            "hints": entry.get("Hints") or [],
        }


def _without_torch_tail(stack: list) -> list:
    """The stack without its innermost frames in torch's own code; all of
    it where every frame is torch's."""
    import torch

    root = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    end = len(stack)
    while end > 0 and os.path.abspath(stack[end - 1].filename).startswith(root):
        end -= 1
    return stack[:end] or stack


_SKIPPED_RE = re.compile(r"frame skipped: [^\n]*")


def _place(brk: dict) -> tuple | None:
    """Where a break shows and what it is: its innermost user frame, else its
    innermost frame (a break in a library's code), its type, and the frame
    torch skipped for it (a break in a loop skips each frame it is met in)."""
    frames = brk["frames"]
    if not frames:
        return None
    f = frames[brk["user_frame"]] if brk["user_frame"] >= 0 else frames[-1]
    skipped = _SKIPPED_RE.search(brk["reason"] or "")
    return (f["file"], f["line"], brk["gb_type"], skipped.group(0) if skipped else "")


def _frame_id(m: Any) -> str:
    """torch's frame id of a CompilationMetrics: "1" of compile id "1/3"."""
    return str(getattr(m, "compile_id", "") or "").split("/")[0]


def recompile_limit() -> int | None:
    """torch's limit on compiled versions of one frame: recompile_limit, or
    cache_size_limit before torch 2.6. None when neither exists."""
    try:
        from torch._dynamo import config
    except Exception as e:
        fallbacks.missing("torch._dynamo.config", e)
        return None
    for name in ("recompile_limit", "cache_size_limit"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


class _TraceHandler(logging.Handler):
    """Keeps the few structured-trace envelopes the capture needs. Runs inside
    torch's compile, so it does as little as possible."""

    def __init__(self, capture: Capture) -> None:
        super().__init__(level=logging.DEBUG)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not metadata:
                return
            artifact = metadata.get("artifact")
            if artifact and artifact.get("name") == "dynamo_graph_break_reason":
                exc = sys.exc_info()[1]
                cid = f"{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}"
                self.capture._on_break_artifact(cid, getattr(record, "payload", None), exc)
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("the dynamo_graph_break_reason trace artifact", e)


class _LimitHandler(logging.Handler):
    def __init__(self, capture: Capture) -> None:
        super().__init__(level=logging.WARNING)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if "hit config." not in str(record.msg):
                return
            self.capture._on_limit(record)
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("the recompile-limit warning of torch._dynamo", e)


@dataclasses.dataclass(frozen=True)
class WrappedTarget:
    """The function a library decorator's wrapper calls: its qualified name
    and place, and the wrapper's args[i] as its parameter names."""

    function: str
    file: str
    line: int
    args_names: list[str]


def wrapped_target(code: Any, closure: tuple) -> WrappedTarget | None:
    """The __wrapped__ of the function whose code and closure these are (the
    wrapper functools.wraps made); None when it has none. gc finds the
    function: Dynamo's frame holds its code and cells, not the function."""
    import gc
    import inspect
    import types

    for f in gc.get_referrers(code):
        if not isinstance(f, types.FunctionType) or f.__code__ is not code:
            continue
        cells = f.__closure__ or ()
        if len(cells) != len(closure) or any(a is not b for a, b in zip(cells, closure)):
            continue
        inner = getattr(f, "__wrapped__", None)
        target_code = getattr(inspect.unwrap(inner), "__code__", None) if inner else None
        if target_code is None:
            return None
        # The wrapper's own named positionals come before its *args:
        # wrapper(self, *args) passes args[0] as the target's second parameter.
        parameters = list(target_code.co_varnames[: target_code.co_argcount])
        named = code.co_argcount if code.co_flags & inspect.CO_VARARGS else len(parameters)
        return WrappedTarget(
            function=getattr(inner, "__qualname__", target_code.co_name),
            file=target_code.co_filename,
            line=target_code.co_firstlineno,
            args_names=parameters[named:],
        )
    return None


class Capture:
    def __init__(
        self,
        emit: Emit,
        classifier: FrameClassifier,
        root: tuple | None = None,
        input_names: list[str] | None = None,
        wrapper_file: str | None = None,
    ) -> None:
        self.emit = emit
        # The file of the probe's own wrapper around a model called by keyword
        # (loader.keyword_call): its frame is the model's forward to the user,
        # and its values[i] the keyword names in input_names.
        self.wrapper_file = os.path.realpath(wrapper_file) if wrapper_file else None
        # (function, file, line) of the model's forward: names the frame when
        # torch compiles a wrapper around it (its own wrap_inline's `inner`, or
        # a library's decorator such as transformers' can_return_tuple).
        self.root = root
        # Whether torch compiles the whole model, so that a library frame it
        # compiles first is a decorator around root; mode as-written may
        # compile a submodule's forward alone (model.lm.forward = ...).
        self.root_compiled = True
        # The forward's positional parameters: a wrapper's args[0] is input_ids.
        self.input_names = input_names or []
        # The named positionals of the library wrapper torch compiles around
        # the forward, before its *args: 1 for wrapper(self, *args), 0 for
        # wrapped_func(*args), whose args[0] is self.
        self.library_wrapper_positionals = 1
        self.classifier = classifier
        self.registry = _Registry()
        self.graph_count = 0
        self.break_count = 0
        self.overhead_ns = 0  # time spent recording inside torch's compile
        self.failures: list[str] = []
        self._pending: list[tuple[str, dict]] = []  # ("graph"|"graph_break", payload) for this call
        self._attempts: dict[int, int] = {}  # id(payload) -> the compile attempt that made it
        self._artifacts: list[dict] = []
        self._guard_fails: list[tuple[str, Any]] = []
        self._limits: list[dict] = []
        self._call_inputs = ""
        self._call_index: int | None = None
        self._frames: dict[str, tuple[Any, Any, Any]] = {}  # torch's frame id -> code
        # compile id -> the function a decorator's wrapper compiled there calls
        self._wrapped: dict[str, WrappedTarget] = {}
        # (code id, cell ids) -> (the code and the cells, kept so that their ids stay theirs; target)
        self._wrapped_of_closure: dict[tuple, tuple[Any, tuple, WrappedTarget | None]] = {}
        self._handlers: list[tuple[logging.Logger, logging.Handler, int | None]] = []
        self.metrics_seen = 0
        self.module_paths: dict[int, str] = {}  # the user's model: id(module) -> path
        self.modules_by_path: dict[str, Any] = {}  # path -> module

    # -- installation -------------------------------------------------------
    def _user_module(self, path: str | None) -> str | None:
        # Under the keyword wrapper the user's model is its `model` attribute.
        return _without_wrapper(path) if self.wrapper_file else path

    def set_model(self, model: Any) -> None:
        """The user's nn.Module: a graph of a frame whose `self` is one of its
        submodules (compiled on its own after a graph break made the caller
        run it eagerly) names its nodes' modules below that submodule's path."""
        named = getattr(model, "named_modules", None)
        if not callable(named):  # a function, an exported program: paths stay relative
            self.module_paths = {}
            self.modules_by_path = {}
            return
        try:
            self.modules_by_path = dict(named())
            self.module_paths = {id(m): path for path, m in self.modules_by_path.items()}
        except Exception as e:  # a named_modules() that is not nn.Module's
            fallbacks.missing("the model's named_modules()", e)
            self.module_paths = {}
            self.modules_by_path = {}

    def _frame_module(self, tx: Any) -> str | None:
        """The path of the module the compiled frame's `self` is: the frame's
        own `self`, else the nearest one running on the live stack (a resume
        function after a break, called from the module's rewritten frame,
        keeps no `self` when it no longer uses it). None: not the model's."""
        if not self.module_paths:
            return None
        locals_ = getattr(tx, "f_locals", None) or {}
        found = self.module_paths.get(id(locals_.get("self")))
        if found is not None or "self" in locals_:
            return found
        frame = sys._getframe(1)
        while frame is not None:
            found = self.module_paths.get(id(frame.f_locals.get("self")))
            if found is not None:
                return found
            frame = frame.f_back
        return None

    def _node_module(self, nn_module_stack: Any, tx: Any, frame_module: str | None) -> str | None:
        """A node's module as the user's model names it (None: the model)."""
        source = _innermost_source(nn_module_stack)
        relative = _relative_path(source)
        root = _source_root(source)
        base = frame_module
        if root is not None and root != ("L", "self"):
            # A module held in another local or a global: its own path.
            names = getattr(tx, "f_locals" if root[0] == "L" else "f_globals", None) or {}
            base = self.module_paths.get(id(names.get(root[1])))
        if base is None:
            return self._user_module(relative)
        return _joined(base, relative)

    def install(self) -> None:
        if self._handlers:
            return  # installed already: one handler each, never two
        trace = logging.getLogger("torch.__trace")
        h = _TraceHandler(self)
        old_level = trace.level
        trace.addHandler(h)
        trace.setLevel(logging.DEBUG)
        self._handlers.append((trace, h, old_level))
        conv = logging.getLogger("torch._dynamo.convert_frame")
        lh = _LimitHandler(self)
        conv.addHandler(lh)
        self._handlers.append((conv, lh, None))

    def uninstall(self) -> None:
        for logger, h, level in self._handlers:
            logger.removeHandler(h)
            if level is not None:
                logger.setLevel(level)
        self._handlers.clear()

    # -- hooks called by torch during a compile ------------------------------
    def guard_fail_fn(self, failure: Any) -> None:
        try:
            code = getattr(failure, "orig_code", None)
            reason = getattr(failure, "reason", None) or str(failure)
            self._guard_fails.append((reason, code))
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("guard_fail_fn's GuardFail (orig_code, reason)", e)

    def _on_break_artifact(self, compile_id: str, payload: Any, exc: BaseException | None) -> None:
        text = payload if isinstance(payload, str) else ""
        if text.startswith("WON'T CONVERT") and getattr(exc, "gb_type", None) is None:
            # torch's log of a backend's own exception (a fake tensor's
            # DataDependentOutputException), not a break: the "Backend compiler
            # exception" break torch raises next reports it, traceback and all.
            return
        info: dict[str, Any] = {"compile_id": compile_id, "used": False}
        stack = getattr(exc, "real_stack", None) if exc is not None else None
        gb_type = getattr(exc, "gb_type", None) if exc is not None else None
        if stack:
            info["stack"] = list(stack)
        else:
            tail = text.split("User code traceback:", 1)
            info["stack"] = parse_stack_text(tail[1] if len(tail) > 1 else text)
            if not info["stack"]:
                m = _BREAK_AT_RE.search(text)
                if m:
                    info["stack"] = parse_stack_text(
                        f'File "{m.group("file")}", line {m.group("line")}, in ?'
                    )
        msg = getattr(exc, "msg", None) if exc is not None else None
        if not msg:
            m = _REASON_RE.search(text)
            msg = m.group("reason").strip() if m else text.strip()
        info["reason"] = str(msg)
        info["gb_type"] = gb_type or (str(msg).splitlines()[0].strip() if msg else None)
        info["gb_id"] = _gb_id(str(msg)) or _gb_id(text)
        self._artifacts.append(info)

    def _on_limit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        text = record.getMessage()
        m = _LIMIT_RE.search(text + "\n")
        entry: dict[str, Any] = {}
        if m:
            entry = {
                "function": m.group("func"),
                "file": m.group("file"),
                "line": int(m.group("line")),
                "limit": int(m.group("limit")),
                "limit_name": m.group("kind"),
                "reason": m.group("reason").strip(),
            }
        elif len(args) >= 4:
            entry = {
                "function": str(args[2]),
                "limit": args[1],
                "limit_name": str(args[0]),
                "reason": str(args[3]),
            }
        else:
            entry = {"function": "", "limit": recompile_limit(), "reason": text}
        entry["input_shapes"] = self._call_inputs
        if self._call_index is not None:
            entry["call_index"] = self._call_index
        self._limits.append(entry)

    def record_graph(self, gm: Any) -> None:
        """Called by the recording backend before it delegates. Copies what
        it needs: compile_fx may mutate the graph afterwards."""
        t0 = time.perf_counter_ns()
        try:
            self._record_graph(gm)
        except Exception as e:  # not a fallback: reported as a log warning after the call
            self.failures.append(f"graph capture failed: {type(e).__name__}: {e}")
        finally:
            self.overhead_ns += time.perf_counter_ns() - t0

    def _record_graph(self, gm: Any) -> None:
        meta = getattr(gm, "meta", {}) or {}
        cid = meta.get("dynamo_compile_id")
        if cid is None:
            try:
                import torch._guards

                cid = torch._guards.CompileContext.current_compile_id()
            except Exception as e:
                fallbacks.missing("torch._guards.CompileContext.current_compile_id", e)
                cid = None
        compile_id = str(cid) if cid is not None else None
        attempt = _compile_attempt()
        if attempt > 0 and compile_id is not None:
            self._drop_restarted(compile_id, attempt)
        index = self.graph_count
        self.graph_count += 1
        reason = getattr(gm, "compile_subgraph_reason", None)
        function = file = code = None
        line = 0
        tx = None
        try:
            from torch._dynamo.symbolic_convert import InstructionTranslator

            tx = InstructionTranslator.current_tx()
            code = getattr(tx, "f_code", None)
            if code is not None:
                function, file, line = code.co_name, code.co_filename, code.co_firstlineno
        except Exception as e:
            fallbacks.missing("torch._dynamo.symbolic_convert.InstructionTranslator.current_tx", e)
        graph_extra: dict[str, Any] = {}
        frame_module = self._frame_module(tx)
        if self.root and function == "inner" and (file or "").endswith("external_utils.py"):
            # torch's wrapper around a compiled module's call: the model's,
            # or a submodule's of its own (Module.compile() on a block).
            owner = self.modules_by_path.get(frame_module) if frame_module else None
            function, file, line = (owner and forward_location(owner)) or self.root
        elif self.root and self._is_wrapper(file):
            function, file, line = self.root
        elif self._library_entry(file, compile_id):
            graph_extra["library_frame"] = {"function": function, "file": file, "line": line}
            function, file, line = self.root
            if code is not None:
                self.library_wrapper_positionals = code.co_argcount
        elif (target := self._wrapped_target(tx)) is not None:
            # A library decorator's wrapper (transformers' @deprecate_kwarg on
            # hundreds of functions): told as the library function it wraps.
            graph_extra["wrapper_frame"] = {"function": function, "file": file, "line": line}
            function, file, line = target.function, target.file, target.line
            if compile_id is not None:
                self._wrapped[compile_id] = target
        if function is None and reason is not None and getattr(reason, "user_stack", None):
            fs = reason.user_stack[0]
            function, file, line = fs.name, fs.filename, fs.lineno
        nodes = []
        for node in gm.graph.nodes:
            nm = node.meta
            value = nm.get("example_value", nm.get("val"))
            shape, dtype = _describe_value(value)
            frames = parse_stack_text(nm.get("stack_trace"))
            fs = innermost_user(frames, self.classifier)
            nodes.append(
                {
                    "name": node.name,
                    "op": node.op,
                    "target": _qualified(node.target),
                    "shape": shape,
                    "dtype": dtype,
                    "file": fs.filename if fs else None,
                    "line": fs.lineno if fs else None,
                    "module": self._node_module(nm.get("nn_module_stack"), tx, frame_module),
                    "inputs": [n.name for n in node.all_input_nodes],
                }
            )
        graph = {
            "index": index,
            "compile_id": compile_id,
            "function": function,
            "file": file,
            "line": line,
            "nodes": nodes,
            **graph_extra,
        }
        if frame_module is not None:
            # The instance it compiled for: Dynamo reuses the graph for every
            # module of the same class, whose nodes then belong to that one.
            graph["frame_module"] = frame_module
        # A graph that follows a break is that break's graph_after.
        for kind, payload in reversed(self._pending):
            if kind == "graph_break":
                if payload["graph_after"] == -1:
                    payload["graph_after"] = index
                break
            if kind == "graph":
                break
        self._pending.append(("graph", graph))
        self._attempts[id(graph)] = attempt
        if reason is not None and getattr(reason, "graph_break", False):
            artifact = self._take_artifact(compile_id)
            stack = list(getattr(reason, "user_stack", None) or [])
            if not stack and artifact:
                stack = artifact.get("stack") or []
            text = str(reason.reason)
            if text == "step_unsupported" and artifact and artifact.get("reason"):
                # Dynamo's tag for "compiled up to the last state it can
                # resume from": the break it could not resume from is the
                # artifact's.
                text = artifact["reason"]
            b = self._break(text, stack, artifact, index, compile_id)
            self._pending.append(("graph_break", b))
            self._attempts[id(b)] = attempt

    def _drop_restarted(self, compile_id: str, attempt: int) -> None:
        """Dynamo restarted the analysis of this compile (attempt > 0, the
        "0/0_1" of torch's logs): what it recorded at earlier attempts was
        thrown away, so it leaves the call's graphs and breaks, and its graph
        indexes go to the graphs of this attempt. Those were the latest
        recorded: a frame compiles to the end before another starts."""
        kept = []
        for kind, payload in self._pending:
            stale = (
                payload.get("compile_id") == compile_id
                and self._attempts.get(id(payload), 0) < attempt
            )
            if not stale:
                kept.append((kind, payload))
                continue
            self._attempts.pop(id(payload), None)  # its id may be reused by a later payload
            if kind == "graph":
                self.graph_count = min(self.graph_count, payload["index"])
        self._pending = kept

    def _is_wrapper(self, file: str | None) -> bool:
        return bool(self.wrapper_file and file and os.path.realpath(file) == self.wrapper_file)

    def _library_entry(self, file: str | None, compile_id: str | None) -> bool:
        """The first frame torch compiled (frame id 0) lies in library code: a
        decorator around the model's forward. Later frames in library code are
        the library's own (a break inside it) and keep their names."""
        if not self.root or not self.root_compiled or not file or self.classifier.is_user(file):
            return False
        if self.root[1] and os.path.realpath(file) == os.path.realpath(self.root[1]):
            return False  # the forward itself lies in a library (torchvision:resnet18)
        return compile_id is None or str(compile_id).split("/")[0] in ("0", "[0")

    def _wrapped_target(self, tx: Any) -> WrappedTarget | None:
        """The function that the frame Dynamo compiles calls, where that frame
        is a decorator's wrapper in library code (functools.wraps sets
        __wrapped__ on it); None for any other frame."""
        code = getattr(tx, "f_code", None)
        closure = getattr(tx, "closure", None)
        if code is None or not closure or self.classifier.is_user(code.co_filename):
            return None
        # Ids, each object kept alive in the value: a code object's hash
        # takes its constants, which may hold a dict.
        key = (id(code), *(id(cell) for cell in closure))
        if key in self._wrapped_of_closure:
            return self._wrapped_of_closure[key][2]
        target = None
        try:
            target = wrapped_target(code, tuple(closure))
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("the function a decorator's wrapper calls (__wrapped__)", e)
        # A user's function under a library wrapper keeps the wrapper's name
        # (the model's forward is told as the root above): the advice reads
        # a library frame as the library's.
        if target is not None and self.classifier.is_user(target.file):
            target = None
        self._wrapped_of_closure[key] = (code, tuple(closure), target)
        return target

    def _user_names(
        self, text: str, positions: re.Pattern = _ARGS_RE, names: list[str] | None = None
    ) -> str:
        """A wrapper's args[i] (or the keyword wrapper's values[i]) and
        kwargs['x'] as the forward's parameter names (or `names`)."""
        names = self.input_names if names is None else names

        def positional(m: re.Match) -> str:
            i = int(m.group(1))
            return names[i] if i < len(names) else m.group(0)

        return _KWARGS_RE.sub(lambda m: m.group(1), positions.sub(positional, text))

    def _as_user_entry(self, entry: dict, compile_id: str | None) -> dict:
        """A recompile (or limit) of a library wrapper, told as the model's
        forward and its parameter names; the raw names stay in library_frame
        and raw_reason. The probe's own keyword wrapper is told the same way,
        without a library_frame: it is not the user's program. A decorator's
        wrapper around a library function is told as that function, the
        wrapper in wrapper_frame."""
        wrapper = self.root is not None and self._is_wrapper(entry.get("file"))
        if wrapper:
            return self._renamed(entry, None, self.root, _VALUES_RE)  # type: ignore[arg-type]
        if self._library_entry(entry.get("file"), compile_id):
            names = ["self", *self.input_names][self.library_wrapper_positionals :]
            return self._renamed(entry, "library_frame", self.root, _ARGS_RE, names)  # type: ignore[arg-type]
        target = self._wrapped.get(compile_id or "")
        if target is None:
            return entry
        place = (target.function, target.file, target.line)
        return self._renamed(entry, "wrapper_frame", place, _ARGS_RE, target.args_names)

    def _renamed(
        self,
        entry: dict,
        frame_key: str | None,
        place: tuple[str, str, int],
        positions: re.Pattern,
        names: list[str] | None = None,
    ) -> dict:
        """The entry at `place`, its reasons in `names` (the forward's by
        default); the frame torch compiled under `frame_key`, and the reason
        as torch wrote it in raw_reason."""
        out = dict(entry)
        if frame_key is not None:
            out[frame_key] = {
                "function": entry.get("function"),
                "file": entry.get("file"),
                "line": entry.get("line"),
            }
        out.update(function=place[0], file=place[1], line=place[2])
        reason = entry.get("reason")
        if isinstance(reason, str):
            named = self._user_names(reason, positions, names)
            if named != reason:
                out["raw_reason"] = reason
                out["reason"] = named
        if isinstance(entry.get("reasons"), list):
            out["reasons"] = [self._user_names(str(r), positions, names) for r in entry["reasons"]]
        return out

    def _take_artifact(self, compile_id: str | None) -> dict | None:
        for art in reversed(self._artifacts):
            if not art["used"] and art["compile_id"] == compile_id:
                art["used"] = True
                return art
        return None

    def _break(
        self, reason: str, stack: list, artifact: dict | None, before: int, compile_id: str | None
    ) -> dict:
        # The probe's keyword wrapper is not the user's program: a break's
        # stack starts at the model's forward, as it would without it.
        gb_type = (artifact or {}).get("gb_type") or (
            reason.splitlines()[0].strip() if reason else None
        )
        if gb_type == BACKEND_FAILURE:
            # Dynamo's stack ends where it compiled the graph (the frame's
            # return); the node the backend failed on is the one to show, at
            # the line that calls into torch (EnCodec's nn.functional.pad),
            # not inside torch's own function.
            m = _ORIGINAL_TRACEBACK_RE.search(reason)
            stack = _without_torch_tail(parse_stack_text(m.group("stack") if m else None)) or stack
        stack = [fs for fs in stack if not self._is_wrapper(getattr(fs, "filename", None))]
        frames, user_frame = frame_dicts(break_stack(stack), self.classifier)
        gb_id = (artifact or {}).get("gb_id") or _gb_id(reason)
        extra = self.registry.lookup(gb_type, gb_id)
        parsed = _explanation_and_hints(reason)
        if parsed:  # this break's own words beat the registry's templates
            extra.update(parsed)
        out = {
            "reason": reason,
            "gb_type": gb_type,
            "gb_id": extra.get("gb_id") or gb_id,
            "frames": frames,
            "user_frame": user_frame,
            "graph_before": before,
            "graph_after": -1,
            "compile_id": compile_id,
        }
        if extra.get("explanation"):
            out["explanation"] = extra["explanation"]
            out["hints"] = extra.get("hints") or []
        return out

    # -- per call -------------------------------------------------------------
    def begin_call(self, inputs_text: str, call_index: int | None = None) -> None:
        """`call_index`: the call's index as its `iteration` event numbers it,
        None when the span holds no single numbered call."""
        self._call_inputs = inputs_text
        self._call_index = call_index
        self._pending = []
        self._attempts = {}
        self._artifacts = []
        self._guard_fails = []
        self._limits = []

    def end_call(
        self, metrics: list[Any], locate: Callable[[Any], int | None] | None = None
    ) -> None:
        """Emit what this call compiled: graphs and breaks in execution order,
        then recompiles and recompile-limit hits. `locate` finds the call of a
        compile (its CompilationMetrics) in a span of several calls."""
        # Breaks that left no graph behind (a break at the top of a frame, a
        # frame skipped for a break in a loop) come only from the trace.
        seen = {_place(p) for kind, p in self._pending if kind == "graph_break"}
        for art in self._artifacts:
            if art["used"]:
                continue
            b = self._break(art["reason"], art.get("stack") or [], art, -1, art["compile_id"])
            key = _place(b)
            if key is not None and key in seen:
                continue  # the same break, met again when its frame ran on its own
            if key is not None:
                seen.add(key)
            self._insert_orphan_break(b)
        for kind, payload in self._pending:
            if kind == "graph_break":
                payload["index"] = self.break_count
                self.break_count += 1
                self.emit("graph_break", **payload)
            else:
                self.emit("graph", **payload)
        self._pending = []
        self._attempts = {}
        self._emit_recompiles(metrics, locate)
        for entry in self._limits:
            self.emit("recompile_limit", **self._as_user_entry(entry, None))
        self._limits = []
        for msg in self.failures:
            self.emit("log", level="warning", message=msg)
        self.failures = []

    def _insert_orphan_break(self, b: dict) -> None:
        # Place it before the first graph compiled from a later frame of the
        # same compile (frame ids grow as frames are compiled), else at the end.
        try:
            frame_id = int(str(b["compile_id"]).split("/")[0])
        except ValueError:
            frame_id = None
        pos = len(self._pending)
        if frame_id is not None:
            for i, (kind, p) in enumerate(self._pending):
                if kind != "graph":
                    continue
                try:
                    fid = int(str(p["compile_id"]).split("/")[0])
                except ValueError:
                    continue
                if fid > frame_id:
                    pos = i
                    break
        if pos < len(self._pending):
            b["graph_after"] = self._pending[pos][1]["index"]
        self._pending.insert(pos, ("graph_break", b))

    def _call_of(self, m: Any, locate: Callable[[Any], int | None] | None) -> int | None:
        """The call a compile (its CompilationMetrics) happened in: the span's
        own call, or found by time in a span of several calls."""
        return self._call_index if locate is None else locate(m)

    def _remember_frame(self, m: Any) -> None:
        """Which code object each of torch's frame ids ("1" of compile id
        "1/3") is: a refused compile's metrics carry no code of their own."""
        frame = _frame_id(m)
        name = getattr(m, "co_name", None)
        if frame and name:
            self._frames[frame] = (
                name,
                getattr(m, "co_filename", None),
                getattr(m, "co_firstlineno", None),
            )

    def _limit_from_metrics(
        self, m: Any, reason: str, locate: Callable[[Any], int | None] | None
    ) -> dict:
        name, file, line = self._frames.get(_frame_id(m), (None, None, None))
        entry: dict[str, Any] = {
            "function": getattr(m, "co_name", None) or name or "",
            "file": getattr(m, "co_filename", None) or file,
            "line": getattr(m, "co_firstlineno", None) or line,
            "limit": recompile_limit(),
            "reason": reason,
            "input_shapes": self._call_inputs,
        }
        call = self._call_of(m, locate)
        if call is not None:
            entry["call_index"] = call
        return entry

    def _emit_recompiles(
        self, metrics: list[Any], locate: Callable[[Any], int | None] | None
    ) -> None:
        # By id(code): a code object hashes its constants, which can hold a
        # dict in Dynamo's rewrites.
        by_code: dict[int, tuple[Any, list[str]]] = {}
        for reason, code in self._guard_fails:
            by_code.setdefault(id(code), (code, []))[1].append(reason)
        done_codes: set[int] = set()
        limit = recompile_limit()
        for m in metrics:
            self._remember_frame(m)
            reason = getattr(m, "recompile_reason", None)
            if not reason:
                continue
            fail = getattr(m, "fail_type", None)
            if fail:
                # Not a recompile but a refusal: the limit (reported from the
                # log, or here when the log said nothing) or a failed compile.
                text = str(getattr(m, "fail_reason", "") or "")
                if "recompile limit" in text.lower() or "cache_size_limit" in text:
                    if self._limits:
                        # The log named it; the metrics know when it was.
                        call = self._call_of(m, locate)
                        if call is not None:
                            self._limits[0].setdefault("call_index", call)
                    else:
                        # The log was not heard (the quiet measure loop
                        # unhooks it): the metrics name the frame too.
                        self._limits.append(self._limit_from_metrics(m, reason, locate))
                continue
            name = getattr(m, "co_name", None)
            file = getattr(m, "co_filename", None)
            line = getattr(m, "co_firstlineno", None)
            reasons = []
            for key, (code, rs) in by_code.items():
                if code is not None and code.co_name == name and code.co_filename == file:
                    reasons = rs
                    done_codes.add(key)
                    break
            compile_id = str(getattr(m, "compile_id", "") or "")
            entry = {
                "function": name,
                "file": file,
                "line": line,
                "reason": reason,
                "reasons": reasons or [reason],
                "cache_size": self._cache_size(m),
                "compile_id": compile_id,
                "input_shapes": self._call_inputs,
                "limit": limit,
            }
            call = self._call_of(m, locate)
            if call is not None:
                entry["call_index"] = call
            self.emit("recompile", **self._as_user_entry(entry, compile_id or None))
        # Without CompilationMetrics.recompile_reason (older torch), guard
        # failures are all we have: one recompile per code object.
        for key, (code, rs) in by_code.items():
            if key in done_codes or any(getattr(m, "recompile_reason", None) for m in metrics):
                continue
            entry = {
                "function": getattr(code, "co_name", None),
                "file": getattr(code, "co_filename", None),
                "line": getattr(code, "co_firstlineno", None),
                "reason": rs[0],
                "reasons": rs,
                "cache_size": self._entries(code),
                "compile_id": None,
                "input_shapes": self._call_inputs,
                "limit": limit,
            }
            if self._call_index is not None:
                entry["call_index"] = self._call_index
            self.emit("recompile", **self._as_user_entry(entry, None))

    @staticmethod
    def _entries(code: Any) -> int | None:
        try:
            from torch._dynamo.eval_frame import _debug_get_cache_entry_list

            return len(_debug_get_cache_entry_list(code))
        except Exception as e:
            fallbacks.missing("torch._dynamo.eval_frame._debug_get_cache_entry_list", e)
            return None

    @staticmethod
    def _cache_size(m: Any) -> int | None:
        # CompilationMetrics.cache_size counts the entries that existed when
        # the compile started; the one just made makes it one more.
        size = getattr(m, "cache_size", None)
        if isinstance(size, int):
            return size + 1
        return None


def _compile_attempt() -> int:
    """Which analysis of the current compile this is: 0, or more after Dynamo
    restarted it (RestartAnalysis, e.g. after Inductor specialized a float)."""
    try:
        import torch._guards

        ctx = torch._guards.CompileContext.try_get()
    except Exception as e:
        fallbacks.missing("torch._guards.CompileContext.try_get", e)
        return 0
    return int(getattr(ctx, "attempt", 0) or 0) if ctx is not None else 0


def fullgraph_break(exc: BaseException, capture: Capture) -> dict:
    """The graph_break object for an Unsupported raised under fullgraph=True."""
    stack = list(getattr(exc, "real_stack", None) or [])
    if not stack:
        fs = getattr(exc, "innermost_user_frame_summary", None)
        if fs is not None:
            stack = [fs]
    msg = getattr(exc, "msg", None) or str(exc)
    artifact = {"gb_type": getattr(exc, "gb_type", None), "gb_id": _gb_id(str(exc))}
    # fullgraph compiles nothing when it breaks: no graph on either side
    b = capture._break(str(msg), stack, artifact, -1, getattr(exc, "compile_id", None))
    if b["compile_id"] is not None:
        b["compile_id"] = str(b["compile_id"])
    b["index"] = capture.break_count
    return b


def forward_location(model: Any) -> tuple | None:
    """(name, file, line) of a module's forward ("Block.forward"), or of a
    function; None without Python source (a builtin, a .pt2)."""
    import inspect

    try:
        target = type(model).forward if not inspect.isfunction(model) else model
        target = inspect.unwrap(target)
        _, line = inspect.getsourcelines(target)
        file = inspect.getsourcefile(target)
        owner = type(model).__name__ if not inspect.isfunction(model) else ""
        return (f"{owner}.forward" if owner else target.__name__, file, line)
    except Exception:  # a model without Python source: no root to name
        return None


def make_backend(
    capture: Capture, backend: str, mode: str, dynamic: bool | None, options: dict | None = None
) -> Any:
    """A backend that records each graph and then does exactly what
    torch.compile(backend=backend, mode=mode, options=options) would do."""
    import torch

    if backend == "inductor":
        base = getattr(torch, "_TorchCompileInductorWrapper", None)
        if base is not None:

            class RecordingInductor(base):  # type: ignore[misc, valid-type]
                def __call__(self, model_: Any, inputs_: Any, **kwargs: Any) -> Any:
                    capture.record_graph(model_)
                    return super().__call__(model_, inputs_, **kwargs)

            return RecordingInductor(None if mode == "default" else mode, options, dynamic)

        # Very old torch: no wrapper class; compile_fx with the mode's options.
        fallbacks.missing(
            "torch._TorchCompileInductorWrapper", "AttributeError: torch has no such attribute"
        )
        from torch._inductor.compile_fx import compile_fx

        patches = {}
        if mode != "default":
            try:
                from torch._inductor import list_mode_options

                patches = list_mode_options(mode, dynamic)
            except Exception as e:
                fallbacks.missing("torch._inductor.list_mode_options", e)
                patches = {}

        def recording_compile_fx(gm: Any, example_inputs: Any) -> Any:
            capture.record_graph(gm)
            return compile_fx(gm, example_inputs, config_patches=patches)

        return recording_compile_fx

    base = getattr(torch, "_TorchCompileWrapper", None)
    if base is not None:

        class RecordingWrapper(base):  # type: ignore[misc, valid-type]
            def __call__(self, model_: Any, inputs_: Any, **kwargs: Any) -> Any:
                capture.record_graph(model_)
                return super().__call__(model_, inputs_, **kwargs)

        return RecordingWrapper(backend, None, None, dynamic)

    fallbacks.missing("torch._TorchCompileWrapper", "AttributeError: torch has no such attribute")
    from torch._dynamo.backends.registry import lookup_backend

    inner = lookup_backend(backend)

    def recording(gm: Any, example_inputs: Any) -> Any:
        capture.record_graph(gm)
        return inner(gm, example_inputs)

    return recording
