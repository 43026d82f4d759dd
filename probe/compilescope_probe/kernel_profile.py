"""The profiled window: time per kernel and per eager line (`kernel_profile`).

After the measure phase and the cross-check, in a phase of its own
(`profile`), the probe runs at most `--profile-calls` calls under
torch.profiler (CPU activity). What it reads from the events:

- kernels: Inductor's C++ kernels, recorded as `graph_<N>_<kernel>` when
  `cpp.enable_kernel_profile` was on at compile time, under
  `Torch-Compiled Region: <compile id>`; extern kernels are the aten ops
  directly under `## Call CompiledFxGraph <hash> ##`, matched in order to the
  `extern_kernels.<op>` entries of that graph's code; a custom op the
  profiler does not record (one written in Python) takes the ops between
  the kernel before its call site and the one after it
  (`_unrecorded_op_calls`);
- wrappers: the CompiledFxGraph time outside its kernels;
- eager: the top-level ops outside any compiled graph, on the user line that
  was running when the op began (a line tracer on the user's frames, run in
  the same window; torch's profiler knows functions, not lines).

On CUDA the kernels come from the CUPTI collector's records of the window
instead (`cupti_kernels`, pure, tested on synthetic records).
"""

from __future__ import annotations

import bisect
import os
import re
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

from .cupti_records import KERNEL, Record
from .frames import FrameClassifier, source_line

CALL_MARK = "compilescope_profile_call"
_REGION_RE = re.compile(r"^Torch-Compiled Region: (?P<cid>\S+)$")
_GRAPH_CALL_PREFIX = "## Call CompiledFxGraph"
_KERNEL_RE = re.compile(r"^graph_\d+_(?P<name>.+)$")
# Record functions of torch's own, outside any compiled region, that are not
# the user's eager code.
_NOT_EAGER = ("TorchDynamo Cache Lookup", "Pregraph bytecode", CALL_MARK)


def _ns(us: float) -> int:
    return int(round(float(us) * 1000.0))


def is_dynamo_rewrite(code: Any) -> bool:
    """Whether `code` is Dynamo's rewrite of a user function (it calls a
    compiled graph or a resume function), not the function's own bytecode."""
    return any(n.startswith(("__compiled_fn_", "__resume_at_")) for n in code.co_names)


def hide_from_dynamo(functions: Iterable[Callable[..., Any]]) -> None:
    """Have Dynamo run these functions, and all they call, as plain Python.

    CPython calls a trace function as a Python frame, and while a compiled
    call runs, Dynamo's frame hook sees that frame like any other: it would
    trace the tracer into a graph and break it on `time.time_ns()` (seen on
    SSDlite: a "Call to a time function" break in this file, compiled inside
    the profiled window)."""
    dynamo = sys.modules.get("torch._dynamo.eval_frame")
    if dynamo is None:  # torch not imported: no frame hook to hide from
        return
    try:
        skip = dynamo.FrameExecStrategy(dynamo.FrameAction.SKIP, dynamo.FrameAction.SKIP)
        for fn in functions:
            dynamo.set_code_exec_strategy(getattr(fn, "__func__", fn).__code__, skip)
    except Exception as e:  # an older torch: skip_code, this frame only
        from . import fallbacks

        fallbacks.missing("torch._dynamo.eval_frame.set_code_exec_strategy", e)
        try:
            for fn in functions:
                dynamo.skip_code(getattr(fn, "__func__", fn).__code__)
        except Exception as e2:
            fallbacks.missing("torch._dynamo.eval_frame.skip_code", e2)


def _per_code(cache: dict[int, tuple[Any, bool]], code: Any, answer: Callable[[Any], bool]) -> bool:
    """answer(code), computed once per code object. Keyed by id, the code kept
    alive beside its answer: a code object hashes its constants, and Dynamo's
    rewrites can hold a dict there (transformers' BigBird: "unhashable type:
    'dict'")."""
    known = cache.get(id(code))
    if known is None:
        known = cache[id(code)] = (code, answer(code))
    return known[1]


def _takes_self(code: Any) -> bool:
    return code.co_argcount > 0 and code.co_varnames[0] == "self"


class LineTracer:
    """sys.settrace on the user's frames only: (time, file, line, function)
    at every line event, and the nearest user caller's line again when a user
    function returns. `model_root`: the package of a model that is library code
    (torchvision's, transformers'), whose frames count as the user's here:
    otherwise its eager time would have no line at all.

    Dynamo's rewrite of a frame runs its compiled graph and the op it broke on
    under the rewrite's first line, the `def`: those entries wait for the
    frame's next line (or the resume function's first, the break's line) and
    take it, so an op that broke the graph keeps the line that calls it.

    With `model` (the user's nn.Module), it also notes the innermost of the
    model's modules running, (time, module path), from the frames whose `self`
    is one of them (its forward, torch's `_call_impl` around it): a module
    hook would do the same in eager, but changes what Dynamo traces, and the
    frames are there under every mode, a compiled module's too after a graph
    break (its rewrite, which runs the break's op, has its `self`)."""

    def __init__(
        self, classifier: FrameClassifier, model_root: str | None = None, model: Any = None
    ) -> None:
        self.classifier = classifier
        self.model_root = model_root.rstrip(os.sep) + os.sep if model_root else None
        self.times: list[int] = []
        self.locs: list[tuple[str, int, str] | None] = []  # None: no user line
        self._old: Any = None
        self._traced: dict[str, bool] = {}
        self._rewrites: dict[int, tuple[Any, bool]] = {}  # by _per_code
        # (entry index, frame) of entries on a rewrite's def line, not yet moved
        self._pending: list[tuple[int, Any]] = []
        self.paths = {id(m): path for path, m in model.named_modules()} if model is not None else {}
        self.module_times: list[int] = []
        self.modules: list[str | None] = []
        self._module_frames: list[tuple[Any, str]] = []  # innermost last
        self._takes_self: dict[int, tuple[Any, bool]] = {}  # by _per_code

    def is_traced(self, filename: str) -> bool:
        hit = self._traced.get(filename)
        if hit is None:
            hit = self.classifier.is_user(filename) or bool(
                self.model_root and os.path.realpath(filename).startswith(self.model_root)
            )
            self._traced[filename] = hit
        return hit

    def _on_rewrite_def_line(self, frame: Any) -> bool:
        code = frame.f_code
        if frame.f_lineno != code.co_firstlineno:
            return False
        return _per_code(self._rewrites, code, is_dynamo_rewrite)

    def _record(self, frame: Any) -> None:
        self.times.append(time.time_ns())
        loc = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        self.locs.append(loc)
        if self._on_rewrite_def_line(frame):
            self._pending.append((len(self.locs) - 1, frame))
        elif self._pending:
            for i, _ in self._pending:
                self.locs[i] = loc
            self._pending.clear()

    def _module_of(self, frame: Any) -> str | None:
        """The path of the model's module that is the frame's `self`, if any."""
        code = frame.f_code
        if not _per_code(self._takes_self, code, _takes_self):
            return None
        # The trace hook has copied the frame's locals already (CPython's
        # trampoline does it for every trace call): this reads that dict.
        return self.paths.get(id(frame.f_locals.get("self")))

    def _note_module(self) -> None:
        self.module_times.append(time.time_ns())
        self.modules.append(self._module_frames[-1][1] if self._module_frames else None)

    def _leave_module(self, frame: Any) -> None:
        if self._module_frames and self._module_frames[-1][0] is frame:
            self._module_frames.pop()
            self._note_module()

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "call":
            return None
        traced = self.is_traced(frame.f_code.co_filename)
        if self.paths:
            path = self._module_of(frame)
            if path is not None:
                self._module_frames.append((frame, path))
                self._note_module()
                if not traced:
                    frame.f_trace_lines = False  # its return only
                    return self._module_local
        return self._local if traced else None

    def _module_local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "return":
            self._leave_module(frame)
        return self._module_local

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self._record(frame)
        elif event == "return":
            self._leave_module(frame)
            # A rewrite that returns from its def line keeps it: the caller's
            # next line is not where its graph ran.
            if self._pending:  # every return passes here: the list is usually empty
                self._pending = [(i, f) for i, f in self._pending if f is not frame]
            # The nearest traced caller, past torch's own frames between: ops
            # that nn.Sequential runs after this module belong to the line
            # that called the Sequential, not to this module's last line.
            back = frame.f_back
            while back is not None and not self.is_traced(back.f_code.co_filename):
                back = back.f_back
            if back is not None:
                self._record(back)
            else:
                # Back in torch's code with no user frame under it (a model
                # that is an nn.Sequential): what runs next has no user line,
                # not this function's last one.
                self.times.append(time.time_ns())
                self.locs.append(None)
        return self._local

    def start(self) -> None:
        self._old = sys.gettrace()
        # What the trace functions call runs under them: hidden recursively.
        hide_from_dynamo((self._global, self._local, self._module_local))
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(self._old)
        self._pending.clear()  # no later line came: they keep the def line
        self._module_frames.clear()

    def at(self, t_ns: int) -> tuple[str, int, str] | None:
        i = bisect.bisect_right(self.times, t_ns) - 1
        return self.locs[i] if i >= 0 else None

    def module_at(self, t_ns: int) -> str | None:
        """The innermost of the model's modules running at `t_ns`; None
        outside them all, or without a model."""
        i = bisect.bisect_right(self.module_times, t_ns) - 1
        return self.modules[i] if i >= 0 else None


class _Ev:
    __slots__ = ("name", "start", "end", "parent", "children")

    def __init__(self, name: str, start: int, end: int) -> None:
        self.name = name
        self.start = start
        self.end = end
        self.parent: _Ev | None = None
        self.children: list[_Ev] = []


def build_tree(events: Iterable[tuple[str, int, int, Any]]) -> list[_Ev]:
    """(name, start_ns, end_ns, thread) → events with parents by time
    containment per thread (python-function events left out by the caller)."""
    by_thread: dict[Any, list[_Ev]] = {}
    for name, start, end, thread in events:
        by_thread.setdefault(thread, []).append(_Ev(name, start, end))
    out: list[_Ev] = []
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e.start, -e.end))
        stack: list[_Ev] = []
        for e in evs:
            while stack and not (e.start >= stack[-1].start and e.end <= stack[-1].end):
                stack.pop()
            if stack:
                e.parent = stack[-1]
                stack[-1].children.append(e)
            stack.append(e)
        out.extend(evs)
    return out


def _region(e: _Ev) -> str | None:
    p = e.parent
    while p is not None:
        m = _REGION_RE.match(p.name)
        if m:
            return m.group("cid")
        p = p.parent
    return None


def _is_torch_annotation(name: str) -> bool:
    """torch's own record functions around a compiled frame's graphs."""
    return name.startswith(("AOTDispatcher", "TorchDynamo", "## ", "Pregraph", "Torch-Compiled"))


def _extern_op(name: str) -> str | None:
    """extern_kernels.addmm → aten::addmm"""
    if name.startswith("extern_kernels."):
        return "aten::" + name[len("extern_kernels.") :]
    return None


def _fallback_op(name: str) -> str | None:
    """aten.nonzero.default / torch.ops.aten.nonzero.default → aten::nonzero;
    torch.ops.torchvision.nms.default → torchvision::nms (a registered op of
    another library)"""
    parts = name.split(".")
    if parts[:2] == ["torch", "ops"]:
        parts = parts[2:]
        if len(parts) >= 2:
            return parts[0] + "::" + parts[1]
    if len(parts) >= 2 and parts[0] == "aten":
        return "aten::" + parts[1]
    return None


def _site_op(kernel: dict) -> str | None:
    """What the profiler records for a call site of the code: the op of an
    extern or fallback kernel, a generated kernel's own name."""
    if kernel.get("kind") in ("extern", "fallback"):
        return _extern_op(kernel["name"]) or _fallback_op(kernel["name"])
    return kernel["name"]


def _child_op(e: _Ev) -> str | None:
    m = _KERNEL_RE.match(e.name)
    if m:
        return m.group("name")
    return e.name if "::" in e.name else None


def _unrecorded_op_calls(call: _Ev, sites: Sequence[dict]) -> list[tuple[dict, list[int]]]:
    """The calls of ops the profiler does not record, within one graph call:
    (site, indices of the children that are its body's ops).

    A custom op written in Python (torch.library.custom_op; transformers'
    grouped_mm_fallback) gets no event of its own: the aten ops it runs come
    as the graph call's own children, between the kernels before and after
    its call site. Walking the children in the code's call order, such a
    site takes the ops from the last kernel before it to the next one the
    code names after it."""
    ops = [_child_op(c) for c in call.children]
    recorded = {op for op in ops if op is not None}
    seq: list[tuple[dict, str | None, bool]] = []
    for k in sites:
        op = _site_op(k)
        silent = (
            k.get("kind") == "fallback"
            and op is not None
            and not op.startswith("aten::")
            and op not in recorded
        )
        if silent or op in recorded:
            seq.append((k, op, silent))
    if not any(silent for _, _, silent in seq):
        return []
    calls: list[tuple[dict, list[int]]] = []
    opened: tuple[dict, list[int]] | None = None
    p = 0

    def open_silent() -> None:
        nonlocal p, opened
        while p < len(seq) and seq[p][2]:
            if opened is None:  # back to back: the first takes what runs
                opened = (seq[p][0], [])
            p += 1

    for i, op in enumerate(ops):
        if op is None:
            continue
        if opened is None:
            open_silent()
        if p < len(seq) and seq[p][1] == op:
            if opened is not None:
                calls.append(opened)
                opened = None
            p += 1
        elif opened is not None:
            opened[1].append(i)
        else:
            # An op the code names further on (a site that did not run):
            # catch up, but never past a silent site.
            for q in range(p + 1, len(seq)):
                if seq[q][2]:
                    break
                if seq[q][1] == op:
                    p = q + 1
                    break
    if opened is None:
        open_silent()  # a silent site last in the graph, or after the last child
    if opened is not None:
        calls.append(opened)
    return calls


def _occurrence(seen: dict[str, int], name: str) -> int:
    """0 for a name's first launch within one graph call, 1 for its second..."""
    seen[name] = seen.get(name, 0) + 1
    return seen[name] - 1


def analyse(
    events: Iterable[tuple[str, int, int, Any]],
    code_kernels: Mapping[str, Sequence[dict]],
    locate: Callable[[int], tuple[str, int, str] | None] | None = None,
    locate_module: Callable[[int], str | None] | None = None,
) -> dict[str, Any]:
    """The kernel_profile fields (kernels, wrappers, eager, eager_ns, call_ns,
    and eager_modules and graph_calls with `locate_module`) from the window's
    non-python profiler events, times in ns."""
    tree = build_tree(events)
    # (cid, name, k) -> [ns, count]: k counts the launches of one name within
    # one graph call, so a kernel the wrapper calls twice (Inductor reuses
    # identical code: cpp_fused_relu_0 for two ReLUs) stays two entries, the
    # k-th matching the k-th call site of the code (docs/kernel-cost.md).
    kernels: dict[tuple[str, str, int], list[int]] = {}
    wrappers: dict[str, int] = {}
    eager: dict[tuple[str, int], list[Any]] = {}
    eager_modules: dict[str, int] = {}
    # (cid, the module running the graph's call) -> [ns, calls]
    graph_calls: dict[tuple[str, str], list[int]] = {}
    eager_ns = 0
    call_ns = 0

    def add(cid: str, name: str, k: int, ns: int) -> None:
        entry = kernels.setdefault((cid, name, k), [0, 0])
        entry[0] += ns
        entry[1] += 1

    for e in tree:
        if e.name == CALL_MARK and (e.parent is None or e.parent.name != CALL_MARK):
            call_ns += e.end - e.start
            continue
        if e.name.startswith(_GRAPH_CALL_PREFIX):
            cid = _region(e) or ""
            runner = locate_module((e.start + e.end) // 2) if locate_module else None
            if runner is not None:
                entry = graph_calls.setdefault((cid, runner), [0, 0])
                entry[0] += e.end - e.start
                entry[1] += 1
            inside = 0
            sites = sorted(code_kernels.get(cid, ()), key=lambda k: k.get("handle", -1))
            externs = [
                (k["name"], _site_op(k)) for k in sites if k.get("kind") in ("extern", "fallback")
            ]
            used = [False] * len(externs)
            seen: dict[str, int] = {}
            taken: set[int] = set()
            for site, children in _unrecorded_op_calls(e, sites):
                same_name = [k for k in sites if k["name"] == site["name"]]
                occurrence = next(j for j, other in enumerate(same_name) if other is site)
                # Its body's ops, as an eager module's time counts them: the
                # Python between them stays the wrapper's.
                ns = sum(e.children[i].end - e.children[i].start for i in children)
                add(cid, site["name"], occurrence, ns)
                inside += ns
                taken.update(children)
            for index, c in enumerate(e.children):
                if index in taken:
                    continue
                m = _KERNEL_RE.match(c.name)
                if m:
                    add(cid, m.group("name"), _occurrence(seen, m.group("name")), c.end - c.start)
                    inside += c.end - c.start
                    continue
                if not c.name.startswith("aten::") and not any(op == c.name for _, op in externs):
                    continue
                name = None
                for i, (kname, op) in enumerate(externs):
                    if not used[i] and op == c.name:
                        used[i] = True
                        name = kname
                        break
                if name is None:  # a call the code names otherwise: met again each call
                    name = next((kn for kn, op in externs if op == c.name), c.name)
                add(cid, name, _occurrence(seen, name), c.end - c.start)
                inside += c.end - c.start
            wrappers[cid] = wrappers.get(cid, 0) + max(0, (e.end - e.start) - inside)
            continue
        # Eager: a top-level op of a call or of a compiled frame's region
        # (the region spans the whole frame, its graph breaks included) that
        # runs outside every compiled graph.
        if e.parent is None or not (e.parent.name == CALL_MARK or _REGION_RE.match(e.parent.name)):
            continue
        if e.name in _NOT_EAGER or _REGION_RE.match(e.name) or _is_torch_annotation(e.name):
            continue
        ns = e.end - e.start
        eager_ns += ns
        # By the midpoint: the next line cannot begin before the op returns, and
        # the clocks agree only to some microseconds, which a long op outlasts.
        middle = (e.start + e.end) // 2
        module = locate_module(middle) if locate_module else None
        if module is not None:
            eager_modules[module] = eager_modules.get(module, 0) + ns
        loc = locate(middle) if locate else None
        if loc is None:
            continue
        entry = eager.setdefault((loc[0], loc[1]), [loc[2], 0])
        entry[1] += ns

    # Per call, the matching above restarts for every CompiledFxGraph event.
    fields: dict[str, Any] = {}
    if locate_module is not None:
        fields["eager_modules"] = [
            {"module": m, "ns": ns}
            for m, ns in sorted(eager_modules.items(), key=lambda kv: -kv[1])
        ]
        fields["graph_calls"] = [
            {"compile_id": cid, "module": m, "ns": ns, "count": count}
            for (cid, m), (ns, count) in sorted(graph_calls.items())
        ]
    return fields | {
        "kernels": [
            {"compile_id": cid, "name": name, "ns": ns, "count": count}
            # The k-th entry of a name is its k-th call site: kept in k order.
            for (cid, name, _), (ns, count) in sorted(kernels.items())
        ],
        "wrappers": [{"compile_id": cid, "ns": ns} for cid, ns in sorted(wrappers.items())],
        "eager": [
            {"file": f, "line": line, "function": fn, "code": source_line(f, line), "ns": ns}
            for (f, line), (fn, ns) in sorted(eager.items(), key=lambda kv: -kv[1][1])
        ],
        "eager_ns": eager_ns,
        "call_ns": call_ns,
    }


def cupti_kernels(
    records: Iterable[Record],
    windows: Mapping[str, Sequence[tuple[int, int]]],
    code_kernels: Mapping[str, Sequence[dict]],
    phase: str = "profile",
) -> list[dict]:
    """CUPTI kernel records of the window, by name, joined to the compile ids
    whose code defines a kernel of that name. A name several graphs define is
    split evenly among them, marked ambiguous; a name none defines (cuBLAS,
    cuDNN, an eager op's kernel) keeps compile_id ""."""
    spans = list(windows.get(phase, ()))
    by_name: dict[str, list[int]] = {}
    for r in records:
        if r.kind != KERNEL or not r.timed or not any(b <= r.start_ns < e for b, e in spans):
            continue
        entry = by_name.setdefault(r.name or "<unnamed kernel>", [0, 0])
        entry[0] += max(0, r.end_ns - r.start_ns)
        entry[1] += 1
    owners: dict[str, list[str]] = {}
    for cid, ks in code_kernels.items():
        for k in ks:
            if cid not in owners.setdefault(k["name"], []):
                owners[k["name"]].append(cid)
    out = []
    for name, (ns, count) in sorted(by_name.items(), key=lambda kv: (-kv[1][0], kv[0])):
        cids = sorted(owners.get(name, []))
        if len(cids) <= 1:
            out.append(
                {"compile_id": cids[0] if cids else "", "name": name, "ns": ns, "count": count}
            )
            continue
        n = len(cids)
        for i, cid in enumerate(cids):
            out.append(
                {
                    "compile_id": cid,
                    "name": name,
                    "ns": ns // n + (1 if i < ns % n else 0),
                    "count": count // n + (1 if i < count % n else 0),
                    "ambiguous": True,
                }
            )
    return out


def clock_offset(
    starts: Sequence[int],
    ends: Sequence[int],
    marks: Sequence[tuple[int, int]],
    trace_start: int | None = None,
) -> int | None:
    """time.time_ns() minus the profiler's relative ns. Kineto converts its
    clock to the same wall clock and starts its relative times at
    `trace_start`: that is the offset when every call's mark lies between its
    recorded start and end. Without it, the mean of the two edges' medians:
    each mark begins after its recorded start and ends before its recorded
    end, but by unequal spans (record_function's entry does more Python than
    its exit), which biased that estimate early by 6 to 18 us here."""
    if not marks or len(marks) != len(starts) or len(marks) != len(ends):
        return None
    if trace_start is not None and all(
        s <= m0 + trace_start and m1 + trace_start <= e
        for s, e, (m0, m1) in zip(starts, ends, marks)
    ):
        return trace_start
    before = sorted(s - m[0] for s, m in zip(starts, marks))
    after = sorted(e - m[1] for e, m in zip(ends, marks))
    return (before[len(before) // 2] + after[len(after) // 2]) // 2


def _trace_start_ns(prof: Any) -> int | None:
    """Where kineto's relative event times begin on time.time_ns()'s clock;
    None where this torch does not say (the offset is estimated then)."""
    try:
        return int(prof.profiler.kineto_results.trace_start_ns())
    except (AttributeError, RuntimeError, TypeError, ValueError) as e:
        from . import fallbacks

        fallbacks.missing("torch.profiler.profile().profiler.kineto_results.trace_start_ns", e)
        return None


# Above kineto's highest level (USDT = 5): none of its log lines.
KINETO_QUIET = "6"


def run_window(
    torch: Any,
    fn: Callable[..., Any],
    inputs: tuple,
    calls: int,
    classifier: FrameClassifier,
    code_kernels: Mapping[str, Sequence[dict]],
    cuda: bool = False,
    model_root: str | None = None,
    model: Any = None,
) -> dict[str, Any]:
    """Profile `calls` calls; the kernel_profile fields (source torch_profiler).
    `model_root`: see LineTracer. `model`: the user's nn.Module, whose modules
    then get their eager time (LineTracer)."""
    from torch.profiler import ProfilerActivity, profile, record_function

    if not cuda:
        # Kineto logs its start, stop and, on a machine without a GPU driver,
        # "ERROR ... gpuGetDeviceCount failed": noise in the user's console
        # about a GPU this run never asked for. A level the user set stays.
        os.environ.setdefault("KINETO_LOG_LEVEL", KINETO_QUIET)

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    # The profiler's first session pays its own start-up inside the first
    # events it records: one call profiled and thrown away first.
    with profile(activities=[ProfilerActivity.CPU]):
        with record_function(CALL_MARK):
            fn(*inputs)
        sync()
    by_module = isinstance(model, torch.nn.Module)
    tracer = LineTracer(classifier, model_root, model if by_module else None)
    starts: list[int] = []
    ends: list[int] = []
    sync()
    t0 = time.perf_counter_ns()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        tracer.start()
        try:
            for _ in range(calls):
                starts.append(time.time_ns())
                with record_function(CALL_MARK):
                    fn(*inputs)
                ends.append(time.time_ns())
            sync()
        finally:
            tracer.stop()
    window_ns = time.perf_counter_ns() - t0
    rows = []
    marks = []
    for e in prof.events():
        if getattr(e, "is_python_function", False):
            continue
        tr = e.time_range
        start, end = _ns(tr.start), _ns(tr.end)
        rows.append((e.name, start, end, e.thread))
        if e.name == CALL_MARK:
            marks.append((start, end))
    offset = clock_offset(starts, ends, sorted(marks), _trace_start_ns(prof))

    def locate(t: int) -> tuple[str, int, str] | None:
        if offset is None:
            return None
        return tracer.at(t + offset)

    def locate_module(t: int) -> str | None:
        if offset is None:
            return None
        return tracer.module_at(t + offset)

    fields = analyse(rows, code_kernels, locate, locate_module if by_module else None)
    fields.update(source="torch_profiler", calls=calls, window_ns=window_ns)
    return fields
