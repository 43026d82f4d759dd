"""Issue 18 without torch: the generated code's kernel list (provenance and
the comments fallback), the profiler-event analysis and the CUDA join of
CUPTI kernel records to the code's kernels by name."""

from __future__ import annotations

import json
import os
import time

import pytest

from compilescope_probe import cupti_records, generated_code, kernel_profile
from compilescope_probe.cupti_records import FLAG_PHASE_END, KERNEL, PHASE, Record
from compilescope_probe.frames import FrameClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(HERE, "..", "fixtures", "cupti", "records.json")

MODEL = "/home/u/model.py"

WRAPPER = """# AOT ID: ['0_forward']
import torch
async_compile = AsyncCompile()


cpp_fused_mul_relu_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    out_ptr0[0] = in_ptr0[0];
}
''')


triton_tem_fused_mm_1 = async_compile.triton('triton_tem_fused_mm_1', '''
def triton_tem_fused_mm_1(arg_A):
    pass
''', device_str='cuda')


async_compile.wait(globals())

class Runner:
    def call(self, args):
        arg0_1, arg1_1 = args
        buf0 = empty_strided_cpu((16, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [h], Original ATen: [aten.t, aten.addmm]
        # [Provenance debug handles] extern_kernels.addmm:1
        extern_kernels.addmm(arg1_1, arg0_1, out=buf0)
        # [Provenance debug handles] cpp_fused_mul_relu_0:2
        cpp_fused_mul_relu_0(buf0, buf1)
        # Topologically Sorted Source Nodes: [z], Original ATen: [aten.nonzero]
        buf2 = torch.ops.aten.nonzero.default(buf1)
        return (buf1, )
"""

MAPPINGS = {
    "preToPost": {"h": ["permute", "addmm"], "mul": ["mul"], "relu": ["relu"]},
    "postToPre": {"permute": ["h"], "addmm": ["h"], "mul": ["mul"], "relu": ["relu"]},
    "cppCodeToPost": {
        "cpp_fused_mul_relu_0:2": ["relu", "mul"],
        "extern_kernels.addmm:1": ["addmm"],
    },
    "postToCppCode": {},
    "version": 2.0,
}

STACKS = {
    "extern_kernels.addmm:1": [
        f'  File "{MODEL}", line 20, in forward\n    h = self.proj(x)\n        ^^^^\n'
    ],
    "cpp_fused_mul_relu_0:2": [
        f'  File "/usr/lib/python3/site-packages/torch/nn/x.py", line 3, in f\n    y\n'
        f'  File "{MODEL}", line 22, in forward\n    y = torch.relu(h * 2)\n',
        f'  File "{MODEL}", line 22, in forward\n    y = torch.relu(h * 2)\n',
    ],
}

GRAPH = {
    "h": (MODEL, 20, "forward", "torch._C._nn.linear", "call_function"),
    "mul": (MODEL, 22, "forward", "_operator.mul", "call_function"),
    "relu": (MODEL, 22, "forward", "torch.relu", "call_function"),
    "z": (MODEL, 23, "forward", "torch.nonzero", "call_function"),
    "x": (None, None, "forward", "x", "placeholder"),
}


def classifier() -> FrameClassifier:
    return FrameClassifier(MODEL)


def test_definitions_span_each_kernel_source():
    defs = generated_code.kernel_definitions(WRAPPER)
    lines = WRAPPER.split("\n")
    how, first, last = defs["cpp_fused_mul_relu_0"]
    assert how == "cpp_pybinding"
    assert lines[first - 1].startswith("cpp_fused_mul_relu_0 = ")
    assert lines[last - 1] == "''')"
    how, first, last = defs["triton_tem_fused_mm_1"]
    assert how == "triton" and lines[last - 1].startswith("''', device_str")


def test_part_and_compile_id():
    assert generated_code.part_of(WRAPPER) == "forward"
    assert generated_code.part_of("# AOT ID: ['3_backward']\n") == "backward"
    assert generated_code.part_of("import torch\n") == "inference"
    md = {"frame_id": 1, "frame_compile_id": 2, "attempt": 1}
    assert generated_code.compile_id_text(md) == "1/2"  # as str(CompileId) and the graph events
    assert generated_code.compile_id_text({}) is None


def test_provenance_kernels():
    kernels, source = generated_code.build_kernels(WRAPPER, MAPPINGS, STACKS, GRAPH, classifier())
    assert source == "provenance"
    by = {k["name"]: k for k in kernels}
    assert [k["name"] for k in kernels[:2]] == ["extern_kernels.addmm", "cpp_fused_mul_relu_0"]
    addmm, fused = by["extern_kernels.addmm"], by["cpp_fused_mul_relu_0"]
    assert addmm["kind"] == "extern" and addmm["handle"] == 1 and addmm["first_line"] == 0
    assert addmm["nodes"] == ["h"]
    assert addmm["lines"] == [
        {"file": MODEL, "line": 20, "function": "forward", "code": "h = self.proj(x)"}
    ]
    assert fused["kind"] == "cpp" and fused["handle"] == 2 and fused["first_line"] > 0
    assert fused["nodes"] == ["relu", "mul"]
    # user frames only, each line once
    assert [(ln["file"], ln["line"]) for ln in fused["lines"]] == [(MODEL, 22)]
    assert by["triton_tem_fused_mm_1"]["kind"] == "template"  # defined, never mapped


def test_comments_fallback():
    kernels, source = generated_code.build_kernels(WRAPPER, None, None, GRAPH, classifier())
    assert source == "comments"
    by = {k["name"]: k for k in kernels}
    assert by["extern_kernels.addmm"]["nodes"] == ["h"]
    # no comment before the C++ kernel: the ops its name lists
    assert sorted(by["cpp_fused_mul_relu_0"]["nodes"]) == ["mul", "relu"]
    assert by["cpp_fused_mul_relu_0"]["lines"][0]["line"] == 22
    fallback = by["torch.ops.aten.nonzero.default"]
    assert fallback["kind"] == "fallback" and fallback["nodes"] == ["z"]
    # the handles come from the wrapper's own provenance comments, where it has them
    assert [by[n]["handle"] for n in ("extern_kernels.addmm", "cpp_fused_mul_relu_0")] == [1, 2]
    assert fallback["handle"] == -1


def test_no_nodes_anywhere_is_none():
    code = (
        "# AOT ID: ['0_inference']\nclass Runner:\n    def call(self, args):\n        return args\n"
    )
    assert generated_code.build_kernels(code, None, None, {}, classifier()) == ([], "none")


def test_no_code_and_cap(monkeypatch):
    events = []
    cc = generated_code.CodeCapture(lambda t, **f: events.append(f), classifier(), keep_code=False)
    cc._outputs.append(generated_code._Output("0/0", WRAPPER))
    cc.flush()
    (ev,) = events
    assert ev["wrapper"] == "" and ev["wrapper_bytes"] == len(WRAPPER.encode())
    assert ev["truncated"] is False and ev["kernels"]
    monkeypatch.setattr(generated_code, "WRAPPER_CAP", 100)
    cc = generated_code.CodeCapture(lambda t, **f: events.append(f), classifier())
    cc._outputs.append(generated_code._Output("0/0", WRAPPER))
    cc.flush()
    assert events[-1]["truncated"] is True and len(events[-1]["wrapper"].encode()) <= 100
    assert events[-1]["wrapper_bytes"] == len(WRAPPER.encode())


class _Rec:
    def __init__(self, metadata, payload=None):
        self.metadata = metadata
        self.payload = payload


def test_handler_pairs_provenance_with_its_output_code():
    events = []
    cc = generated_code.CodeCapture(lambda t, **f: events.append(f), classifier())
    md = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    cc.emit(_Rec({"inductor_output_code": {"filename": "x.py"}, **md}, WRAPPER))
    cc.emit(
        _Rec(
            {"artifact": {"name": "inductor_provenance_tracking_node_mappings"}, **md},
            json.dumps(MAPPINGS),
        )
    )
    cc.emit(
        _Rec(
            {"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces"}, **md},
            json.dumps(STACKS),
        )
    )
    cc.emit(_Rec({"artifact": {"name": "something_else"}, **md}, "x"))
    cc.flush()
    (ev,) = events
    assert ev["compile_id"] == "0/0" and ev["fusion_source"] == "provenance"
    assert cc.kernels["0/0"][0]["name"] == "extern_kernels.addmm"


# -- the profiler events ------------------------------------------------------

CODE_KERNELS = {
    "0/0": [
        {"name": "extern_kernels.addmm", "kind": "extern", "handle": 1},
        {"name": "cpp_fused_abs_max_0", "kind": "cpp", "handle": 2},
        {"name": "extern_kernels.addmm", "kind": "extern", "handle": 3},
    ],
    "1/0": [{"name": "cpp_fused_mul_relu_0", "kind": "cpp", "handle": 1}],
}


def _call(t: int) -> list[tuple]:
    """One call of a model with a break: graph 0/0, an eager .item(), graph 1/0."""
    m = kernel_profile.CALL_MARK
    return [
        (m, t, t + 1000, 1),
        ("TorchDynamo Cache Lookup", t + 5, t + 10, 1),
        ("Torch-Compiled Region: 0/0", t + 10, t + 990, 1),
        ("## Call CompiledFxGraph abc ##", t + 20, t + 400, 1),
        ("aten::addmm", t + 30, t + 130, 1),
        ("aten::expand", t + 31, t + 40, 1),
        ("graph_0_cpp_fused_abs_max_0", t + 140, t + 190, 1),
        ("aten::addmm", t + 200, t + 350, 1),
        ("aten::item", t + 420, t + 500, 1),
        ("aten::_local_scalar_dense", t + 430, t + 490, 1),
        ("Torch-Compiled Region: 1/0", t + 510, t + 980, 1),
        ("## Call CompiledFxGraph def ##", t + 520, t + 970, 1),
        ("graph_1_cpp_fused_mul_relu_0", t + 530, t + 930, 1),
    ]


def test_analyse_kernels_wrappers_and_eager():
    rows = _call(0) + _call(2000)
    fields = kernel_profile.analyse(
        rows, CODE_KERNELS, lambda t: (MODEL, 21, "forward") if 400 <= t % 2000 < 510 else None
    )
    got = [(k["compile_id"], k["name"], k["ns"], k["count"]) for k in fields["kernels"]]
    # the two addmm children of graph 0/0 are the two extern kernels, in handle
    # order: one entry each (the first took 100 ns a call, the second 150), in
    # call-site order, so the k-th entry of a name is its k-th call site
    assert got == [
        ("0/0", "cpp_fused_abs_max_0", 100, 2),
        ("0/0", "extern_kernels.addmm", 200, 2),
        ("0/0", "extern_kernels.addmm", 300, 2),
        ("1/0", "cpp_fused_mul_relu_0", 800, 2),
    ]
    wrappers = {w["compile_id"]: w["ns"] for w in fields["wrappers"]}
    assert wrappers == {"0/0": 2 * (380 - 300), "1/0": 2 * (450 - 400)}
    assert fields["eager_ns"] == 160 and fields["call_ns"] == 2000
    (line,) = fields["eager"]
    assert (line["file"], line["line"], line["function"], line["ns"]) == (MODEL, 21, "forward", 160)


CUSTOM_OP = "torch.ops.lib.grouped.default"
CUSTOM_OP_CODE = {
    "0/0": [
        {"name": "extern_kernels.mm", "kind": "extern", "handle": 1},
        {"name": "cpp_fused_relu_0", "kind": "cpp", "handle": 2},
        {"name": CUSTOM_OP, "kind": "fallback", "handle": 3},
        {"name": "cpp_fused_tanh_1", "kind": "cpp", "handle": 4},
        {"name": "extern_kernels.mm", "kind": "extern", "handle": 5},
        {"name": CUSTOM_OP, "kind": "fallback", "handle": 6},
    ]
}


def _custom_op_call(t: int) -> list[tuple]:
    """A graph calling a custom op written in Python twice: the profiler
    records the ops of its body (two matmuls, a slice) as the graph call's
    own children, and nothing for the op itself."""
    return [
        ("Torch-Compiled Region: 0/0", t, t + 1000, 1),
        ("## Call CompiledFxGraph abc ##", t, t + 1000, 1),
        ("aten::mm", t + 10, t + 60, 1),
        ("graph_0_cpp_fused_relu_0", t + 70, t + 90, 1),
        ("aten::slice", t + 100, t + 110, 1),  # the op's first call
        ("aten::mm", t + 120, t + 200, 1),
        ("aten::mm", t + 250, t + 390, 1),
        ("graph_0_cpp_fused_tanh_1", t + 400, t + 450, 1),
        ("aten::mm", t + 460, t + 500, 1),
        ("aten::mm", t + 600, t + 700, 1),  # its second, last in the graph
    ]


def test_analyse_gives_an_unrecorded_custom_op_the_ops_between_its_neighbours():
    rows = _custom_op_call(0) + _custom_op_call(5000)
    fields = kernel_profile.analyse(rows, CUSTOM_OP_CODE)
    got = [(k["name"], k["ns"], k["count"]) for k in fields["kernels"]]
    # its body's matmuls are not the code's extern matmuls, which keep their
    # own (50 ns and 40 ns a call)
    assert got == [
        ("cpp_fused_relu_0", 2 * 20, 2),
        ("cpp_fused_tanh_1", 2 * 50, 2),
        ("extern_kernels.mm", 2 * 50, 2),
        ("extern_kernels.mm", 2 * 40, 2),
        (CUSTOM_OP, 2 * (10 + 80 + 140), 2),  # its body's ops between relu and tanh
        (CUSTOM_OP, 2 * 100, 2),  # after the last kernel of the code
    ]
    # the Python between its ops is the wrapper's, as in an eager module's time
    assert fields["wrappers"] == [{"compile_id": "0/0", "ns": 2 * (1000 - 490)}]


def test_analyse_matches_a_recorded_custom_op_by_name():
    code = {
        "0/0": [
            {"name": "extern_kernels.mm", "kind": "extern", "handle": 1},
            {"name": "torch.ops.torchvision.nms.default", "kind": "fallback", "handle": 2},
        ]
    }
    rows = [
        ("Torch-Compiled Region: 0/0", 0, 1000, 1),
        ("## Call CompiledFxGraph abc ##", 0, 1000, 1),
        ("aten::mm", 10, 60, 1),
        ("torchvision::nms", 100, 900, 1),
        ("aten::sort", 110, 300, 1),  # inside the op: not a child of the graph call
    ]
    got = [(k["name"], k["ns"]) for k in kernel_profile.analyse(rows, code)["kernels"]]
    assert got == [("extern_kernels.mm", 50), ("torch.ops.torchvision.nms.default", 800)]


def test_analyse_eager_model():
    m = kernel_profile.CALL_MARK
    rows = [(m, 0, 100, 1), ("aten::linear", 10, 60, 1), ("aten::addmm", 20, 50, 1)]
    fields = kernel_profile.analyse(rows, {}, lambda t: None)
    assert fields["kernels"] == [] and fields["eager_ns"] == 50 and fields["eager"] == []


def test_analyse_gives_an_op_the_line_running_at_its_midpoint():
    # Line 53 ran from 0, line 54 from 1000, line 55 from 9000. The op of
    # line 54 starts 300 ns "before" its line on the profiler's clock (the
    # clocks agree only to some microseconds); it cannot span a line change,
    # so its midpoint lies inside its own line.
    m = kernel_profile.CALL_MARK
    rows = [(m, 0, 10_000, 1), ("torchvision::nms", 700, 8_700, 1)]
    lines = [(0, 53), (1000, 54), (9000, 55)]

    def locate(t):
        line = [n for start, n in lines if start <= t][-1]
        return (MODEL, line, "nms")

    (line,) = kernel_profile.analyse(rows, {}, locate)["eager"]
    assert (line["line"], line["ns"]) == (54, 8_000)


def test_analyse_gives_an_op_the_module_running_at_its_midpoint():
    m = kernel_profile.CALL_MARK
    rows = [
        (m, 0, 10_000, 1),
        ("aten::linear", 100, 900, 1),  # in encoder
        ("aten::relu", 1_100, 1_300, 1),  # the model's own forward
        ("aten::linear", 2_000, 2_600, 1),  # in decoder
        ("aten::add", 9_000, 9_100, 1),  # after the model's last exit: no module
    ]
    spans = [(0, ""), (50, "encoder"), (1000, ""), (1900, "decoder"), (2700, ""), (8000, None)]

    def locate_module(t):
        return [module for start, module in spans if start <= t][-1]

    fields = kernel_profile.analyse(rows, {}, None, locate_module)
    assert fields["eager_modules"] == [
        {"module": "encoder", "ns": 800},
        {"module": "decoder", "ns": 600},
        {"module": "", "ns": 200},
    ]
    assert fields["eager_ns"] == 1_700  # the op in no module counts here only
    # Without a module locator (a model that is no nn.Module) there is no such field.
    assert "eager_modules" not in kernel_profile.analyse(rows, {}, None)


def test_analyse_times_each_graph_call_by_the_module_that_ran_it():
    # Graph 1/0 runs twice a call, once from blocks.0's frame and once from
    # blocks.1's: Dynamo reuses a module's graph for every module of its class.
    m = kernel_profile.CALL_MARK
    rows = [
        (m, 0, 1_000, 1),
        ("Torch-Compiled Region: 1/0", 10, 300, 1),
        ("## Call CompiledFxGraph abc ##", 20, 220, 1),
        ("graph_1_cpp_fused_relu_0", 30, 200, 1),
        ("Torch-Compiled Region: 1/0", 400, 900, 1),
        ("## Call CompiledFxGraph abc ##", 410, 810, 1),
        ("graph_1_cpp_fused_relu_0", 420, 800, 1),
    ]
    spans = [(0, ""), (5, "blocks.0"), (350, "blocks.1"), (950, "")]

    def locate_module(t):
        return [module for start, module in spans if start <= t][-1]

    fields = kernel_profile.analyse(rows, {}, None, locate_module)
    assert fields["graph_calls"] == [
        {"compile_id": "1/0", "module": "blocks.0", "ns": 200, "count": 1},
        {"compile_id": "1/0", "module": "blocks.1", "ns": 400, "count": 1},
    ]
    assert "graph_calls" not in kernel_profile.analyse(rows, {}, None)


class _NoUserFiles:
    def is_user(self, filename: str) -> bool:
        return False


def test_line_tracer_names_the_innermost_module_from_its_frames():
    import sys

    import torch

    seen: list[tuple[str, int]] = []

    class Probe(torch.nn.Module):
        """Notes the time inside its forward, as an op there would run."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def forward(self, x):
            seen.append((self.name, time.time_ns()))
            return x

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Probe("inner")

        def forward(self, x):
            x = self.inner(x)
            seen.append(("block", time.time_ns()))  # back in the block
            return x

    model = torch.nn.Sequential(Probe("first"), Block())
    tracer = kernel_profile.LineTracer(_NoUserFiles(), model=model)
    before = sys.gettrace()
    tracer.start()
    try:
        model(torch.randn(2))
    finally:
        tracer.stop()
    assert sys.gettrace() is before
    assert [(name, tracer.module_at(t)) for name, t in seen] == [
        ("first", "0"),
        ("inner", "1.inner"),
        ("block", "1"),
    ]
    assert tracer.module_times == sorted(tracer.module_times)
    assert tracer.modules[-1] is None  # after the model returned
    assert tracer.module_at(tracer.module_times[0] - 1) is None
    # Stopped, it notes nothing more.
    noted = len(tracer.modules)
    model(torch.randn(2))
    assert len(tracer.modules) == noted
    # Without a model it notes no module.
    plain = kernel_profile.LineTracer(_NoUserFiles())
    plain.start()
    try:
        model(torch.randn(2))
    finally:
        plain.stop()
    assert plain.modules == [] and plain.module_at(time.time_ns()) is None


class _OneFile:
    def __init__(self, path: str) -> None:
        self.path = os.path.realpath(path)

    def is_user(self, filename: str) -> bool:
        return os.path.realpath(filename) == self.path


def test_line_tracer_forgets_the_line_of_a_function_that_returned_into_torch(tmp_path):
    # A model that is torch's nn.Sequential: after the user's module returns,
    # the Linear runs with no user frame below it; its ops are no line's.
    import importlib.util

    import torch

    source = tmp_path / "mine.py"
    source.write_text(
        "import torch\n\n\nclass Mine(torch.nn.Module):\n    def forward(self, x):\n"
        "        return x * 2\n"
    )
    spec = importlib.util.spec_from_file_location("mine", source)
    mine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mine)
    model = torch.nn.Sequential(mine.Mine(), torch.nn.Linear(2, 2))
    tracer = kernel_profile.LineTracer(_OneFile(str(source)))
    tracer.start()
    try:
        model(torch.randn(2))
    finally:
        tracer.stop()
    assert [loc[1] for loc in tracer.locs[:-1]] == [6], tracer.locs
    assert tracer.locs[-1] is None
    assert tracer.at(time.time_ns()) is None


def test_dynamo_never_compiles_the_tracer_itself():
    # A break in a loop makes Dynamo run forward eagerly with its frame hook
    # still on: the trace function's own frames, called by CPython as Python
    # frames, were traced and broke on time.time_ns() (seen on SSDlite).
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    class Inner(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            return self.fc(x)

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            out = []
            for i in range(3):
                y = self.inner(x[i : i + 1])
                out.append(y + torch.nonzero(y > 0).shape[0])  # a break in a loop
            return torch.cat(out)

    torch._dynamo.reset()
    model = Model()
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(3, 8)
    compiled(x)
    before = dict(counters["graph_break"])
    tracer = kernel_profile.LineTracer(_NoUserFiles(), model=model)
    tracer.start()
    try:
        compiled(x)
    finally:
        tracer.stop()
    new = [k for k, v in counters["graph_break"].items() if before.get(k) != v]
    assert new == [], new
    assert "inner" in tracer.modules  # it did trace the module frames


def test_clock_offset_is_the_mean_of_both_edges():
    assert (
        kernel_profile.clock_offset([1010, 2010], [1990, 2990], [(0, 1000), (1000, 2000)]) == 1000
    )
    assert kernel_profile.clock_offset([1], [], [(0, 1)]) is None


def test_clock_offset_is_the_profilers_trace_start_where_it_brackets_every_mark():
    # Marks begin 40 after their starts and end 10 before their ends: the
    # edges' mean would put the offset 15 early.
    starts, ends, marks = [1040 - 40, 2040 - 40], [1990 + 10, 2990 + 10], [(40, 990), (1040, 1990)]
    assert kernel_profile.clock_offset(starts, ends, marks) == 985
    assert kernel_profile.clock_offset(starts, ends, marks, trace_start=1000) == 1000
    # A trace start that puts a mark outside its call is not this clock's.
    assert kernel_profile.clock_offset(starts, ends, marks, trace_start=1050) == 985


def test_this_torchs_profiler_times_are_on_the_wall_clock_from_its_trace_start():
    import time

    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    starts, ends = [], []
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            starts.append(time.time_ns())
            with record_function(kernel_profile.CALL_MARK):
                torch.ones(64).sum()
            ends.append(time.time_ns())
    marks = sorted(
        (kernel_profile._ns(e.time_range.start), kernel_profile._ns(e.time_range.end))
        for e in prof.events()
        if e.name == kernel_profile.CALL_MARK
    )
    trace_start = kernel_profile._trace_start_ns(prof)
    assert trace_start is not None
    assert kernel_profile.clock_offset(starts, ends, marks, trace_start) == trace_start


def test_a_torch_without_the_trace_start_says_so_and_the_offset_is_estimated():
    from compilescope_probe import fallbacks

    said: list[dict] = []
    fallbacks.install(lambda type_, **fields: said.append(fields))
    try:
        assert kernel_profile._trace_start_ns(object()) is None
    finally:
        fallbacks.install(None)
    assert [w["what"] for w in said] == [
        "torch.profiler.profile().profiler.kineto_results.trace_start_ns"
    ]


# -- the CUDA join ------------------------------------------------------------


def _fixture_records() -> list[Record]:
    with open(RECORDS, encoding="utf-8") as f:
        rows = json.load(f)["records"]
    return [Record(**row) for row in rows]


def test_cupti_join_by_kernel_name():
    records = _fixture_records()
    t = 1_010_000_000
    seq = 1000
    extra = [
        Record(PHASE, t, t, "profile", seq=seq),
        Record(PHASE, t + 1_000_000, t + 1_000_000, "profile", flags=FLAG_PHASE_END, seq=seq + 1),
    ]
    for i in range(2):  # two profiled calls
        base = t + 100_000 + i * 300_000
        for j, (name, ns) in enumerate(
            [
                ("triton_poi_fused_copy_0", 10_000),
                ("triton_per_fused_native_layer_norm_0", 40_000),
                ("triton_poi_fused_gelu_1", 30_001),
                ("sm90_xmma_gemm_f32f32", 50_000),
            ]
        ):
            s = base + j * 60_000
            extra.append(Record(KERNEL, s, s + ns, name, seq=seq + 10 + i * 10 + j))
    code = {
        "0/0": [
            {"name": "triton_poi_fused_copy_0"},
            {"name": "triton_per_fused_native_layer_norm_0"},
            {"name": "triton_poi_fused_gelu_1"},
        ],
        "1/0": [{"name": "triton_poi_fused_gelu_1"}],
    }
    all_records = records + extra
    windows = cupti_records.phase_windows(all_records)
    got = kernel_profile.cupti_kernels(all_records, windows, code)
    by = {(k["compile_id"], k["name"]): k for k in got}
    # the measure phase's kernels of the fixture are outside the window
    assert sum(k["count"] for k in got) == 8
    assert by[("0/0", "triton_per_fused_native_layer_norm_0")]["ns"] == 80_000
    assert by[("0/0", "triton_poi_fused_copy_0")] == {
        "compile_id": "0/0",
        "name": "triton_poi_fused_copy_0",
        "ns": 20_000,
        "count": 2,
    }
    # a name two graphs define: split evenly, marked ambiguous
    a, b = by[("0/0", "triton_poi_fused_gelu_1")], by[("1/0", "triton_poi_fused_gelu_1")]
    assert a["ambiguous"] and b["ambiguous"]
    assert a["ns"] + b["ns"] == 60_002 and abs(a["ns"] - b["ns"]) <= 1
    assert a["count"] == b["count"] == 1
    # a library kernel no graph defines keeps no compile id
    assert by[("", "sm90_xmma_gemm_f32f32")]["ns"] == 100_000
    assert "ambiguous" not in by[("", "sm90_xmma_gemm_f32f32")]


def test_cupti_join_without_profile_marks():
    assert kernel_profile.cupti_kernels(_fixture_records(), {}, {}) == []


def test_cupti_join_on_a_phase_still_open():
    """On CUDA the kernels are read before the profile phase ends: the window
    runs from its begin mark to the time the probe gives."""
    records = [
        Record(PHASE, 100, 100, "profile", seq=1),
        Record(KERNEL, 150, 170, "triton_poi_fused_relu_0", seq=2),
        Record(KERNEL, 250, 260, "triton_poi_fused_relu_0", seq=3),  # after the CUPTI calls
    ]
    windows = cupti_records.phase_windows(records, open_end_ns=200)
    got = kernel_profile.cupti_kernels(
        records, windows, {"0/0": [{"name": "triton_poi_fused_relu_0"}]}
    )
    assert got == [{"compile_id": "0/0", "name": "triton_poi_fused_relu_0", "ns": 20, "count": 1}]


OLD_WRAPPER = """
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: /tmp/x.py
# Source Nodes: [relu], Original ATen: [aten.relu]
triton_poi_fused_relu_0 = async_compile.triton('triton_', '''
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    args.clear()
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided_cuda((16, ), (1, ), torch.float32)
        # Source Nodes: [act], Original ATen: [aten.relu]
        stream0 = get_raw_stream(0)
        triton_poi_fused_relu_0.run(arg0_1, buf0, 16, grid=grid(16), stream=stream0)
    return (buf0, )
"""


def test_comments_fallback_on_an_older_wrapper():
    """Older torch: call() at module level, `# Source Nodes:` comments, Triton
    kernels launched with .run(...)."""
    # a node the kernel's name does not give away: only the comment names it
    graph = {"act": (MODEL, 22, "forward", "my_activation", "call_function")}
    kernels, source = generated_code.build_kernels(OLD_WRAPPER, None, None, graph, classifier())
    assert source == "comments"
    (k,) = kernels
    assert k["name"] == "triton_poi_fused_relu_0" and k["kind"] == "triton"
    assert k["nodes"] == ["act"] and k["lines"][0]["line"] == 22
    assert generated_code.part_of(OLD_WRAPPER) == "inference"


# Stands in for torch's nn.Sequential: library code that calls the user's
# modules one after another and then runs an op of its own.
_LIBRARY = {}
exec(
    compile(
        "import time\n"
        "def run_all(fns, stamps):\n"
        "    for f in fns:\n"
        "        f()\n"
        "    stamps.append(time.time_ns())\n",
        "/x/lib/python3.11/site-packages/fakenn/container.py",
        "exec",
    ),
    _LIBRARY,
)


def _user_module():
    return 1


def _user_forward(stamps):
    _LIBRARY["run_all"]([_user_module], stamps)  # the line the library's own op belongs to
    return 2


def test_line_tracer_gives_the_library_containers_work_to_the_line_that_called_it():
    tracer = kernel_profile.LineTracer(FrameClassifier(__file__))
    stamps: list[int] = []
    tracer.start()
    try:
        _user_forward(stamps)
    finally:
        tracer.stop()
    file, line, function = tracer.at(stamps[0])
    assert os.path.realpath(file) == os.path.realpath(__file__)
    # Not _user_module's last line, which ran before: the caller of the container.
    assert function == "_user_forward", (file, line, function)
    assert "run_all" in open(__file__).read().splitlines()[line - 1]


def test_line_tracer_follows_a_library_models_package_when_given_it():
    root = "/x/lib/python3.11/site-packages/fakenn"
    plain = kernel_profile.LineTracer(FrameClassifier(__file__))
    assert not plain.is_traced(root + "/container.py")
    model = kernel_profile.LineTracer(FrameClassifier(__file__), model_root=root)
    assert model.is_traced(root + "/container.py") and model.is_traced(__file__)
    assert not model.is_traced(root + "x/other.py")  # a sibling package, not this one
    assert not model.is_traced("/x/lib/python3.11/site-packages/torch/nn/modules/module.py")


# Stands in for Dynamo's rewrite of a user function: it calls a compiled
# graph (`__compiled_fn_*`, library code here) under the function's first
# line, then runs on. A body on the def line gives that line its events.
_GRAPH = {}
exec(
    compile(
        "import time\ndef call(stamps):\n    stamps.append(time.time_ns())\n",
        "/x/lib/python3.11/site-packages/fakenn/graph.py",
        "exec",
    ),
    _GRAPH,
)


def _rewritten(source: str):
    scope = {"__compiled_fn_stub": _GRAPH["call"]}
    exec(compile(source, os.path.join(HERE, "rewritten.py"), "exec"), scope)
    return scope["forward"]


def _traced_call(forward):
    tracer = kernel_profile.LineTracer(FrameClassifier(__file__))
    stamps: list[int] = []
    tracer.start()
    try:
        forward(stamps)
    finally:
        tracer.stop()
    return tracer, stamps


def test_line_tracer_gives_a_rewrites_def_line_to_its_next_line():
    forward = _rewritten(
        "def forward(stamps): __compiled_fn_stub(stamps); return (\n"
        "    len(stamps))  # the op the graph broke on\n"
    )
    assert kernel_profile.is_dynamo_rewrite(forward.__code__)
    assert not kernel_profile.is_dynamo_rewrite(_user_forward.__code__)
    tracer, stamps = _traced_call(forward)
    # The graph ran under the def line: it goes to the line after.
    assert tracer.at(stamps[0])[1:] == (2, "forward"), tracer.locs


def test_line_tracer_keeps_a_rewrites_def_line_when_the_frame_returns_first():
    forward = _rewritten("def forward(stamps): __compiled_fn_stub(stamps)\n")
    tracer, stamps = _traced_call(forward)
    # not this test's line, which the return records next
    assert tracer.at(stamps[0])[1:] == (1, "forward"), tracer.locs


def test_line_tracer_takes_code_objects_that_hold_a_dict_constant():
    # Dynamo's rewrite of a function can carry a dict among its constants,
    # and a code object's hash takes its constants: transformers' BigBird
    # failed the profiled window with "unhashable type: 'dict'".
    import torch

    forward = _rewritten("def forward(self, stamps): __compiled_fn_stub(stamps); return 1\n")
    code = forward.__code__.replace(co_consts=(*forward.__code__.co_consts, {"a": 1}))
    with pytest.raises(TypeError):
        hash(code)
    forward.__code__ = code
    model = torch.nn.Linear(2, 2)
    tracer = kernel_profile.LineTracer(FrameClassifier(__file__), model=model)
    stamps: list[int] = []
    tracer.start()
    try:
        forward(model, stamps)
        forward(model, stamps)  # the second time from what the tracer kept
    finally:
        tracer.stop()
    assert [tracer.module_at(t) for t in stamps] == ["", ""]
    assert [tracer.at(t)[1:] for t in stamps] == [(1, "forward")] * 2, tracer.locs
