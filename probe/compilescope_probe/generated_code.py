"""Inductor's generated code for each compiled graph: the `inductor_code` event.

Sources (docs/protocol.md, "inductor_code"):
- the structured trace logger ("torch.__trace"): the `inductor_output_code`
  record (the Python wrapper with every kernel inline) and, where the torch in
  use has provenance tracking (`torch._inductor.config.trace.
  provenance_tracking_level`), the `inductor_provenance_tracking_node_mappings`
  and `inductor_provenance_tracking_kernel_stack_traces` artifacts that follow
  it, all keyed by the compile id in the record's metadata;
- without provenance: the comments Inductor writes into the wrapper
  (`# Topologically Sorted Source Nodes: [...]` before each kernel call) and
  the captured graph's own node locations.

The handler runs inside torch's compile: it only files the payloads away.
They are parsed after the call, when the probe emits its graphs.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable

from . import fallbacks
from .frames import FrameClassifier, parse_stack_text, source_line

Emit = Callable[..., None]

WRAPPER_CAP = 8 << 20  # bytes of wrapper text an event carries

_AOT_ID_RE = re.compile(r"^# AOT ID: \['\d+_(\w+)'\]", re.M)
_DEF_RE = re.compile(r"^(?P<name>[A-Za-z_]\w*) = async_compile\.(?P<how>\w+)\((?P<rest>.*)$", re.M)
_HANDLES_RE = re.compile(r"#\s*\[Provenance debug handles\]\s*(?P<keys>.*)$")
# "Topologically Sorted Source Nodes" now, "Source Nodes" in older torch
_SOURCE_NODES_RE = re.compile(
    r"#\s*(?:Topologically Sorted )?Source Nodes:\s*\[(?P<nodes>[^\]]*)\]"
)
_CALL_RE = re.compile(r"^\s*(?:\w+\s*=\s*)?(?P<callee>[A-Za-z_][\w.]*)(?:\.run)?\(")
_HANDLE_SUFFIX_RE = re.compile(r"^(?P<name>.+?):(?P<handle>\d+)$")

PARTS = ("inference", "forward", "backward")


def configure(torch: Any, kernel_profile: bool) -> str:
    """Before anything compiles: provenance tracking, and Inductor's per-kernel
    profiling records when the profile window will run. Returns a note for the
    kernel_profile event ("" when kernel profiling is on)."""
    note = ""
    try:
        import torch._inductor.config as cfg
    except Exception as e:
        fallbacks.missing("torch._inductor.config", e)
        return "kernel profiling needs torch._inductor.config, absent in this torch"
    trace = getattr(cfg, "trace", None)
    if trace is not None and hasattr(trace, "provenance_tracking_level"):
        try:
            trace.provenance_tracking_level = 1
        except Exception as e:
            fallbacks.missing("torch._inductor.config.trace.provenance_tracking_level", e)
    elif trace is not None and hasattr(trace, "provenance_tracking"):
        try:  # the boolean of the torch releases before the level
            trace.provenance_tracking = True
        except Exception as e:
            fallbacks.missing("torch._inductor.config.trace.provenance_tracking", e)
    else:
        fallbacks.missing(
            "torch._inductor.config.trace.provenance_tracking_level",
            "AttributeError: no provenance tracking in this torch: fusion read from the code's comments",
        )
    if kernel_profile:
        cpp = getattr(cfg, "cpp", None)
        if cpp is not None and hasattr(cpp, "enable_kernel_profile"):
            try:
                cpp.enable_kernel_profile = True
            except Exception as e:
                fallbacks.missing("torch._inductor.config.cpp.enable_kernel_profile", e)
                note = "kernel profiling needs cpp.enable_kernel_profile, which could not be set"
        else:
            fallbacks.missing(
                "torch._inductor.config.cpp.enable_kernel_profile",
                "AttributeError: no cpp.enable_kernel_profile in this torch",
            )
            note = "kernel profiling needs cpp.enable_kernel_profile, absent in this torch"
    return note


def compile_id_text(metadata: dict) -> str | None:
    frame = metadata.get("frame_id")
    compile_ = metadata.get("frame_compile_id")
    if frame is None or compile_ is None:
        return None
    # As str(CompileId) writes it, which is what the graph events and the
    # profiler's "Torch-Compiled Region: F/C" carry: no attempt suffix (a
    # restarted analysis keeps its compile id).
    return f"{frame}/{compile_}"


def part_of(code: str) -> str:
    m = _AOT_ID_RE.search(code[:4096])
    if m and m.group(1) in PARTS:
        return m.group(1)
    return "inference"


def split_handle(key: str) -> tuple[str, int]:
    m = _HANDLE_SUFFIX_RE.match(key)
    if m:
        return m.group("name"), int(m.group("handle"))
    return key, -1


def _kind_of(name: str, defined: dict[str, tuple[str, int, int]]) -> str:
    if name in defined:
        how = defined[name][0]
        if "_tem_" in name or name.startswith(("cpp_CppMicroGemm", "cpp_template")):
            return "template"
        if how == "triton":
            return "triton"
        if how.startswith("cpp"):
            return "cpp"
        return "other"
    if name.startswith("extern_kernels."):
        return "extern"
    if name.startswith(("aten.", "torch.ops.", "aten::")):
        return "fallback"
    return "other"


def kernel_definitions(code: str) -> dict[str, tuple[str, int, int]]:
    """{name: (how, first_line, last_line)} of the kernels defined inline with
    `name = async_compile.<how>(...)`; lines 1-based, the closing `''')` line
    last."""
    lines = code.split("\n")
    out: dict[str, tuple[str, int, int]] = {}
    starts = {}
    for m in _DEF_RE.finditer(code):
        starts[code.count("\n", 0, m.start())] = (m.group("name"), m.group("how"))
    for index, (name, how) in sorted(starts.items()):
        last = index
        if "'''" in lines[index] or '"""' in lines[index]:
            quote = "'''" if "'''" in lines[index] else '"""'
            opened = lines[index].count(quote) % 2 == 1
            j = index + 1
            while opened and j < len(lines):
                if quote in lines[j]:
                    last = j
                    opened = lines[j].count(quote) % 2 == 0
                    if not opened:
                        break
                j += 1
            else:
                if opened:
                    last = len(lines) - 1
        out[name] = (how, index + 1, last + 1)
    return out


def _unmapped(
    name: str, defined: dict[str, tuple[str, int, int]], first: int, last: int, nodes: list
) -> dict:
    """A kernel the code defines but no call site or provenance entry names."""
    return {
        "name": name,
        "kind": _kind_of(name, defined),
        "handle": -1,
        "first_line": first,
        "last_line": last,
        "nodes": nodes,
        "lines": [],
    }


def _unique(seq: Any) -> list:
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _trace_lines(traces: Any, classifier: FrameClassifier) -> list[dict]:
    """User frames from provenance stack traces: the innermost user frame of
    each, with the code line torch printed under it."""
    out: list[dict] = []
    seen = set()
    for text in traces if isinstance(traces, list) else [traces]:
        if not isinstance(text, str):
            continue
        frames = parse_stack_text(text)
        user = [f for f in frames if classifier.is_user(f.filename)]
        if not user:
            continue
        fs = user[-1]
        key = (fs.filename, fs.lineno)
        if key in seen:
            continue
        seen.add(key)
        code = ""
        m = re.search(
            rf'File "{re.escape(fs.filename)}", line {fs.lineno}, in \S+\n(?P<code>[^\n]*)', text
        )
        if m:
            code = m.group("code").strip()
        out.append(
            {
                "file": fs.filename,
                "line": int(fs.lineno or 0),
                "function": fs.name,
                "code": code or source_line(fs.filename, fs.lineno),
            }
        )
    return out


def _node_lines(nodes: list[str], graph_nodes: dict[str, tuple]) -> list[dict]:
    out, seen = [], set()
    for n in nodes:
        loc = graph_nodes.get(n)
        if not loc or not loc[0] or not loc[1]:
            continue
        key = (loc[0], loc[1])
        if key in seen:
            continue
        seen.add(key)
        out.append(
            {
                "file": loc[0],
                "line": int(loc[1]),
                "function": loc[2] or "",
                "code": source_line(loc[0], loc[1]),
            }
        )
    return out


def _call_sites(
    code: str, defined: dict[str, tuple[str, int, int]]
) -> list[tuple[str, list[int], list[str]]]:
    """Kernel calls in the wrapper's code outside the kernels' own sources, in
    order: (callee, handles from the provenance comment, source nodes from the
    comment before it)."""
    out = []
    nodes: list[str] = []
    handles: list[tuple[str, int]] = []
    inside = set()
    for _, first, last in defined.values():
        inside.update(range(first, last + 1))
    for number, line in enumerate(code.split("\n"), 1):
        if number in inside:
            continue
        s = line.strip()
        if s.startswith("#"):
            m = _SOURCE_NODES_RE.search(s)
            if m:
                nodes = [n.strip() for n in m.group("nodes").split(",") if n.strip()]
            m = _HANDLES_RE.search(s)
            if m:
                handles = [split_handle(k.strip()) for k in m.group("keys").split(",") if k.strip()]
            continue
        m = _CALL_RE.match(line)
        if not m or not line[:1].isspace():  # calls sit in call()'s body, indented
            continue
        callee = m.group("callee")
        if callee.endswith(".run"):
            callee = callee[: -len(".run")]
        if not _is_kernel_call(callee, defined):
            continue  # an allocation, a stream: the comment is for the kernel after it
        out.append((callee, [h for _, h in handles], nodes))
        nodes = []
        handles = []
    return out


def _is_kernel_call(callee: str, defined: dict) -> bool:
    return callee in defined or callee.startswith(("extern_kernels.", "aten.", "torch.ops."))


def build_kernels(
    code: str,
    mappings: dict | None,
    stacks: dict | None,
    graph_nodes: dict[str, tuple],
    classifier: FrameClassifier,
) -> tuple[list[dict], str]:
    """The kernel list of one output code and its fusion_source."""
    defined = kernel_definitions(code)
    kernels: list[dict] = []
    cpp_to_post = (mappings or {}).get("cppCodeToPost") if isinstance(mappings, dict) else None
    post_to_pre = (mappings or {}).get("postToPre") if isinstance(mappings, dict) else None
    if isinstance(cpp_to_post, dict) and cpp_to_post:
        post_to_pre = post_to_pre if isinstance(post_to_pre, dict) else {}
        keyed = sorted(cpp_to_post.items(), key=lambda kv: split_handle(kv[0])[1])
        for key, posts in keyed:
            name, handle = split_handle(key)
            pre: list[str] = []
            for p in posts or []:
                pre.extend(post_to_pre.get(p) or [])
            nodes = _unique(pre)
            if graph_nodes:
                known = [n for n in nodes if n in graph_nodes]
                nodes = known or nodes
            how_first_last = defined.get(name)
            lines = _trace_lines((stacks or {}).get(key), classifier) if stacks else []
            if not lines:
                lines = _node_lines(nodes, graph_nodes)
            kernels.append(
                {
                    "name": name,
                    "kind": _kind_of(name, defined),
                    "handle": handle,
                    "first_line": how_first_last[1] if how_first_last else 0,
                    "last_line": how_first_last[2] if how_first_last else 0,
                    "nodes": nodes,
                    "lines": lines,
                }
            )
        named = {k["name"] for k in kernels}
        for name, (_, first, last) in defined.items():
            if name not in named:  # defined but never mapped (e.g. not called)
                kernels.append(_unmapped(name, defined, first, last, []))
        return kernels, "provenance"

    # No provenance: the comments Inductor writes before each call; where a
    # kernel has none (this torch writes none for C++ kernels), the ops its
    # name lists (cpp_fused_abs_max_0) matched to the graph's node targets.
    by_name: dict[str, dict] = {}
    any_nodes = False
    claimed: set[str] = set()
    by_tokens: dict[str, list[str]] = {}
    for name in defined:
        found = _nodes_by_name_tokens(name, graph_nodes)
        if found:
            by_tokens[name] = found
            claimed.update(found)
    for callee, handles, nodes in _call_sites(code, defined):
        name = callee
        if graph_nodes:
            nodes = [n for n in nodes if n in graph_nodes] or nodes
        if not nodes:
            nodes = by_tokens.get(name, [])
        elif name not in defined:
            # The comment before an extern call lists the nodes of everything
            # that fed its buffer: leave out those a fused kernel's name claims.
            nodes = [n for n in nodes if n not in claimed] or nodes
        k = by_name.get(name)
        if k is None:
            first_last = defined.get(name)
            k = {
                "name": name,
                "kind": _kind_of(name, defined),
                "handle": handles[0] if handles else -1,
                "first_line": first_last[1] if first_last else 0,
                "last_line": first_last[2] if first_last else 0,
                "nodes": [],
                "lines": [],
            }
            by_name[name] = k
            kernels.append(k)
        k["nodes"] = _unique(k["nodes"] + nodes)
        any_nodes = any_nodes or bool(nodes)
    for name, (_, first, last) in defined.items():
        if name not in by_name:
            kernels.append(_unmapped(name, defined, first, last, by_tokens.get(name, [])))
            any_nodes = any_nodes or bool(by_tokens.get(name))
    for k in kernels:
        k["lines"] = _node_lines(k["nodes"], graph_nodes)
    return kernels, ("comments" if any_nodes else "none")


_FUSED_RE = re.compile(r"^(?:cpp|triton)_(?:\w+?_)?fused_(?P<ops>.+?)(?:_\d+)?$")


def _nodes_by_name_tokens(name: str, graph_nodes: dict[str, tuple]) -> list[str]:
    """cpp_fused_abs_max_0 → the graph's nodes whose target ends in abs or max."""
    m = _FUSED_RE.match(name)
    if not m:
        return []
    tokens = set(m.group("ops").split("_"))
    out = []
    for node, info in graph_nodes.items():
        if len(info) < 5 or info[4] not in ("call_function", "call_method", "call_module"):
            continue
        target = re.split(r"[.:]", info[3])[-1].strip("_")
        if target and target in tokens:
            out.append(node)
    return out


class _Output:
    __slots__ = ("compile_id", "code", "mappings", "stacks")

    def __init__(self, compile_id: str, code: str) -> None:
        self.compile_id = compile_id
        self.code = code
        self.mappings: Any = None
        self.stacks: Any = None


def _json(payload: Any) -> Any:
    if isinstance(payload, str):
        try:
            return json.loads(payload)
        except ValueError:
            return None
    return payload if isinstance(payload, dict) else None


class CodeCapture(logging.Handler):
    """Collects the output code of every compile and emits `inductor_code`
    once the graphs of that compile have gone out (flush, after each call)."""

    def __init__(self, emit: Emit, classifier: FrameClassifier, keep_code: bool = True) -> None:
        super().__init__(level=logging.DEBUG)
        self._emit = emit
        self.classifier = classifier
        self.keep_code = keep_code
        self._outputs: list[_Output] = []
        self._graph_nodes: dict[str, dict[str, tuple]] = {}
        self._logger: logging.Logger | None = None
        self._old_level: int | None = None
        # compile id -> the kernels of its codes, for the profile window's join
        self.kernels: dict[str, list[dict]] = {}

    # -- installation -------------------------------------------------------
    def install(self) -> None:
        logger = logging.getLogger("torch.__trace")
        self._logger, self._old_level = logger, None
        logger.addHandler(self)
        if logger.level != logging.DEBUG:  # the capture's handler usually set it already
            self._old_level = logger.level
            logger.setLevel(logging.DEBUG)

    def uninstall(self) -> None:
        if self._logger is not None:
            self._logger.removeHandler(self)
            if self._old_level is not None:  # only a level this handler changed
                self._logger.setLevel(self._old_level)
            self._logger = None

    # -- inside torch's compile ---------------------------------------------
    def emit(self, record: logging.LogRecord) -> None:  # logging.Handler.emit
        try:
            metadata = getattr(record, "metadata", None)
            if not metadata:
                return
            if "inductor_output_code" in metadata:
                cid = compile_id_text(metadata)
                payload = getattr(record, "payload", None)
                if cid is not None and isinstance(payload, str):
                    self._outputs.append(_Output(cid, payload))
                return
            artifact = metadata.get("artifact")
            if not isinstance(artifact, dict):
                return
            name = artifact.get("name")
            if name not in (
                "inductor_provenance_tracking_node_mappings",
                "inductor_provenance_tracking_kernel_stack_traces",
            ):
                return
            cid = compile_id_text(metadata)
            target = next(
                (
                    o
                    for o in reversed(self._outputs)
                    if o.compile_id == cid
                    and (o.mappings is None if name.endswith("mappings") else o.stacks is None)
                ),
                None,
            )
            if target is None:
                return
            payload = getattr(record, "payload", None)
            if name.endswith("mappings"):
                target.mappings = payload
            else:
                target.stacks = payload
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("the inductor_output_code trace record", e)

    # -- after a call -------------------------------------------------------
    def note_graph(self, graph: dict) -> None:
        """A `graph` event as the probe sends it: node name -> (file, line, function)."""
        cid = graph.get("compile_id")
        if cid is None:
            return
        nodes = self._graph_nodes.setdefault(str(cid), {})
        for n in graph.get("nodes") or []:
            nodes[n.get("name")] = (
                n.get("file"),
                n.get("line"),
                graph.get("function"),
                str(n.get("target") or ""),
                n.get("op"),
            )

    def flush(self) -> None:
        """Emit inductor_code for every output code collected so far."""
        outputs, self._outputs = self._outputs, []
        for o in outputs:
            try:
                self._emit("inductor_code", **self.event(o))
            except Exception as e:  # not a fallback: the code of one graph is lost, said so
                self._emit(
                    "log",
                    level="warning",
                    message=f"generated code of compile {o.compile_id} not captured: "
                    f"{type(e).__name__}: {e}",
                )

    def event(self, o: _Output) -> dict:
        graph_nodes = self._graph_nodes.get(o.compile_id, {})
        kernels, source = build_kernels(
            o.code, _json(o.mappings), _json(o.stacks), graph_nodes, self.classifier
        )
        self.kernels.setdefault(o.compile_id, []).extend(kernels)
        raw = o.code.encode("utf-8", "replace")
        truncated = len(raw) > WRAPPER_CAP
        wrapper = ""
        if self.keep_code:
            wrapper = raw[:WRAPPER_CAP].decode("utf-8", "ignore") if truncated else o.code
        return {
            "compile_id": o.compile_id,
            "part": part_of(o.code),
            "wrapper": wrapper,
            "wrapper_bytes": len(raw),
            "truncated": truncated and self.keep_code,
            "fusion_source": source,
            "kernels": kernels,
        }
