"""Pure-Python pieces of the probe, without running a model."""

from __future__ import annotations

import json
import os
import sysconfig

import pytest

from compilescope_probe import capture, fallbacks, settings
from compilescope_probe.events import EventWriter
from compilescope_probe.frames import FrameClassifier, parse_stack_text


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("L['self'].layers[0]", "layers.0"),
        ("L['self']._modules['encoder']._modules['0']", "encoder.0"),
        ("L['self'].fc1", "fc1"),
        ("L['self']", None),
        ("L['mod'].blocks[1].attn", "blocks.1.attn"),
    ],
)
def test_module_path(raw, expected):
    assert capture._module_path({"k": (raw, object)}) == expected


class _Tree:
    """named_modules() of a model: the root, blocks, blocks.1, blocks.1.fc."""

    def __init__(self) -> None:
        self.blocks, self.scaled, self.fc, self.head = object(), object(), object(), object()

    def named_modules(self):
        return [
            ("", self),
            ("blocks", self.blocks),
            ("blocks.1", self.scaled),
            ("blocks.1.fc", self.fc),
            ("head", self.head),
        ]


class _Tx:
    def __init__(self, f_locals: dict, f_globals: dict | None = None) -> None:
        self.f_locals = f_locals
        self.f_globals = f_globals or {}


def test_a_submodules_own_frame_names_its_nodes_below_its_path():
    # A break in blocks.1 runs it eagerly from its caller, so Dynamo compiles
    # its forward as a frame of its own: the node sources start at its self.
    model = _Tree()
    c = capture.Capture(lambda *_: None, None)
    c.set_model(model)
    tx = _Tx({"self": model.scaled, "x": 1})
    frame = c._frame_module(tx)
    assert frame == "blocks.1"
    assert c._node_module({"k": ("L['self'].fc", object)}, tx, frame) == "blocks.1.fc"
    assert c._node_module({}, tx, frame) == "blocks.1"  # its own forward's op
    # The root's frame: paths as they were.
    root = _Tx({"self": model})
    assert c._frame_module(root) == ""
    assert c._node_module({"k": ("L['self'].head", object)}, root, "") == "head"
    assert c._node_module({}, root, "") is None
    # A module held in another local names its own path.
    tx = _Tx({"self": model, "block": model.scaled})
    assert c._node_module({"k": ("L['block'].fc", object)}, tx, "") == "blocks.1.fc"
    # A self that is not the model's (the keyword wrapper): relative, as before.
    wrapper = _Tx({"self": object()})
    assert c._frame_module(wrapper) is None
    assert c._node_module({"k": ("L['self'].fc", object)}, wrapper, None) == "fc"


def test_a_model_without_modules_keeps_paths_relative_and_quiet():
    warned = []
    fallbacks.install(lambda *a, **k: warned.append((a, k)))
    try:
        c = capture.Capture(lambda *_: None, None)
        c.set_model(lambda x: x)  # a plain function
        assert c.module_paths == {}
        assert c._frame_module(_Tx({"self": object()})) is None
        assert c._node_module({"k": ("L['self'].fc", object)}, _Tx({}), None) == "fc"
    finally:
        fallbacks.install(None)
    assert warned == []


def test_a_resume_function_without_self_takes_the_module_running_it():
    model = _Tree()
    c = capture.Capture(lambda *_: None, None)
    c.set_model(model)

    def running_forward(self):  # the module's rewritten frame, on the live stack
        return c._frame_module(_Tx({"h": 1}))

    assert running_forward(model.scaled) == "blocks.1"
    assert running_forward(object()) is None


def test_explanation_and_hints_come_from_the_break_itself():
    reason = (
        "Failed to trace builtin operator\n"
        "  Explanation: Dynamo does not know how to trace builtin operator `print`\n"
        "  Hint: Avoid calling builtin `print`.\n"
        "  Hint: Please report an issue to PyTorch.\n\n"
        "  Developer debug context: builtin print\n\n"
        " For more details about this graph break, please visit: https://x/gb/gb0059.html"
    )
    got = capture._explanation_and_hints(reason)
    assert got["explanation"].startswith("Dynamo does not know")
    assert got["hints"] == ["Avoid calling builtin `print`.", "Please report an issue to PyTorch."]
    assert capture._gb_id(reason) == "GB0059"
    assert capture._explanation_and_hints("return_value") == {}


def test_frame_classifier(tmp_path):
    model = tmp_path / "model.py"
    model.write_text("")
    c = FrameClassifier(str(model))
    assert c.is_user(str(model))
    assert c.is_user(str(tmp_path / "helper.py"))  # next to the model
    assert not c.is_user(os.path.join(sysconfig.get_paths()["stdlib"], "json", "encoder.py"))
    assert not c.is_user("/x/lib/python3.11/site-packages/torch/nn/modules/module.py")
    assert not c.is_user("<frozen importlib._bootstrap>")
    assert c.is_user("/home/someone/project/train.py")
    # A site-packages reached through a symlink is installed code all the same.
    real = tmp_path / "elsewhere" / "transformers"
    real.mkdir(parents=True)
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "site-packages").symlink_to(tmp_path / "elsewhere")
    linked = tmp_path / "env" / "site-packages" / "transformers" / "modeling_utils.py"
    assert not FrameClassifier("/home/u/model.py").is_user(str(linked))


def test_parse_stack_text():
    text = '  File "/a/m.py", line 12, in forward\n    y = f(x)\n  File "/a/h.py", line 3, in f\n    return x\n'
    frames = parse_stack_text(text)
    assert [(f.filename, f.lineno, f.name) for f in frames] == [
        ("/a/m.py", 12, "forward"),
        ("/a/h.py", 3, "f"),
    ]


def test_settings_defaults_and_errors():
    s = settings.parse(["--model", "m.py"])
    assert (s.mode, s.backend, s.dynamic, s.device, s.autocast) == (
        "default",
        "inductor",
        "auto",
        "auto",
        "none",
    )
    assert s.dynamic_value is None and s.compiled
    assert settings.parse(["--model", "m.py", "--dynamic", "false"]).dynamic_value is False
    for bad in (
        ["--model", "m.py", "--iters", "x"],
        ["--mode", "eager"],
        ["--model", "m.py", "--device", "tpu"],
        ["--model", "m.py", "--warmup", "0"],
        ["--model", " "],
    ):
        with pytest.raises(settings.BadArguments):
            settings.parse(bad)


def test_event_writer_lines(tmp_path):
    r, w = os.pipe()
    writer = EventWriter(w)
    writer.emit("log", level="info", message="line\nbreak", value=float("nan"), shape=(1, 2))
    writer.emit("done", status="ok")
    os.close(w)
    data = os.read(r, 65536).decode()
    os.close(r)
    lines = data.splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["type"] == "log" and first["message"] == "line\nbreak" and first["value"] is None
    assert first["shape"] == [1, 2] and isinstance(first["t_ns"], int)


def test_an_event_after_a_child_cut_its_line_starts_a_line_of_its_own():
    # The AOTInductor runner writes to the same pipe; SIGKILLed mid-chunk it
    # leaves half a line, which the probe's error event used to join.
    r, w = os.pipe()
    writer = EventWriter(w)
    os.write(w, b'{"type": "iterations", "t_ns": 1, "latency_ns": [10, 1')
    writer.end_foreign_line()
    writer.emit("error", kind="runner_crashed", message="killed by SIGKILL")
    os.close(w)
    lines = os.read(r, 65536).decode().splitlines()
    os.close(r)
    assert len(lines) == 2
    assert json.loads(lines[1])["kind"] == "runner_crashed"


def test_event_writer_survives_a_closed_reader():
    r, w = os.pipe()
    os.close(r)
    writer = EventWriter(w)
    import signal

    old = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        writer.emit("log", level="info", message="nobody listens")
        writer.emit("done", status="ok")
    finally:
        signal.signal(signal.SIGPIPE, old)
        os.close(w)
    assert writer.closed


def test_exc_summary_cuts_a_kilobyte_line_and_says_how_much_is_left():
    from compilescope_probe.errors import SUMMARY_CHARS, exc_summary

    words = " ".join(f"word{i}" for i in range(200))
    summary = exc_summary(RuntimeError(f"{words}\nmore"))
    assert summary.startswith("RuntimeError: word0 word1")
    assert summary.endswith(f"… ({len(words) - SUMMARY_CHARS:,} more characters)")
    assert len(summary) < SUMMARY_CHARS + 60
    assert exc_summary(ValueError("short\nsecond line")) == "ValueError: short"


def test_a_sum_of_ninety_terms_keeps_its_comparison_in_view():
    # torchvision's SSD under torch.export: one term per class's kept boxes,
    # the expression printed twice, then every symbol: 20 KB on one line.
    from compilescope_probe.errors import exc_summary, shorten_symbolic

    expression = " + ".join(f"4*Min(300, u{i})" for i in range(90))
    symbols = ", ".join(f"u{i}" for i in range(90))
    line = (
        f"Could not guard on data-dependent expression {expression} > 4000 "
        f"(unhinted: {expression} > 4000).  (Size-like symbols: {symbols})"
    )
    short = "Could not guard on data-dependent expression 4*Min(300, u0) + 4*Min(300, u1) + … + "
    short += "4*Min(300, u89) (90 terms) > 4000."
    assert shorten_symbolic(line) == short
    assert exc_summary(RuntimeError(line + "\nmore")) == f"RuntimeError: {short}"
    # Each operator is kept; a short sum and parentheses of other words stay as written.
    assert (
        shorten_symbolic("u0 - u1 + u2 + u3 + u4 + u5 - u6 > 0") == "u0 - u1 + … - u6 (7 terms) > 0"
    )
    assert shorten_symbolic("Eq(s0*s1 + 2*s2 - 3, u0)") == "Eq(s0*s1 + 2*s2 - 3, u0)"
    assert shorten_symbolic("size (batch) != 3") == "size (batch) != 3"


def test_an_export_failure_in_library_code_is_placed_in_the_library():
    from compilescope_probe.errors import installed_package, library_location

    lib = "/x/lib/python3.11/site-packages"
    assert installed_package(f"{lib}/torchvision/ops/boxes.py") == "torchvision"
    assert installed_package(f"{lib}/six.py") == "six"
    assert installed_package("/home/u/model.py") is None

    def raise_from(*files: str) -> BaseException:
        # A traceback through these files, outermost first, as non-strict
        # export leaves it: the probe, the library's Python, torch's guard.
        source = "def f(depth):\n    if depth == 0:\n        raise RuntimeError('guard')\n"
        source += "    return g(depth - 1)\n"
        chain = None
        for file in reversed(files):
            scope: dict = {"g": chain}
            exec(compile(source, file, "exec"), scope)
            chain = scope["f"]
        try:
            chain(len(files) - 1)
        except RuntimeError as e:
            return e
        raise AssertionError("did not raise")

    e = raise_from(
        "/opt/compilescope/probe/compilescope_probe/aoti.py",
        f"{lib}/torchvision/models/detection/ssd.py",
        f"{lib}/torchvision/ops/boxes.py",
        f"{lib}/torch/fx/experimental/symbolic_shapes.py",
        f"{lib}/sympy/core/relational.py",
    )
    assert library_location(e) == (f"{lib}/torchvision/ops/boxes.py", 4)
    # Torch's frames alone name no place.
    assert library_location(raise_from(f"{lib}/torch/export/_trace.py")) is None


def test_a_library_models_compile_failure_is_placed_in_the_library():
    import traceback

    from compilescope_probe.errors import compiled_code_location

    lib = "/x/lib/python3.11/site-packages"
    classifier = FrameClassifier("/home/u/model.py")
    error = RuntimeError("Could not guard on data-dependent expression u0 > 4000")
    # As torch attaches the stack of the code it was compiling to its errors:
    # the model's forward in torchvision, the failing helper, torch's own frame.
    error.user_stack = [
        traceback.FrameSummary(f"{lib}/torchvision/models/detection/ssd.py", 404, "forward"),
        traceback.FrameSummary(f"{lib}/torchvision/ops/boxes.py", 86, "batched_nms"),
        traceback.FrameSummary(f"{lib}/torch/_ops.py", 1200, "__call__"),
    ]
    assert compiled_code_location(error, classifier) == (f"{lib}/torchvision/ops/boxes.py", 86)
    # A frame of the user's own stays first choice.
    error.user_stack.insert(1, traceback.FrameSummary("/home/u/model.py", 12, "forward"))
    assert compiled_code_location(error, classifier) == ("/home/u/model.py", 12)
    # Nothing attached: no place to name.
    assert compiled_code_location(RuntimeError("boom"), classifier) is None


def test_a_nodes_place_is_never_the_probes_own_wrapper():
    # nn.TransformerEncoder called by keyword: the node's stack trace held
    # only the probe's KeywordCall line (torch's own frames are left out of
    # it), and the fused op's time went to "loader.py:130".
    import traceback

    from compilescope_probe import loader
    from compilescope_probe.frames import innermost_user

    classifier = FrameClassifier("/home/u/model.py")
    wrapper = traceback.FrameSummary(loader.__file__, 130, "forward")
    library = traceback.FrameSummary("/x/site-packages/fakelib/blocks.py", 15, "forward")
    assert innermost_user([wrapper], classifier) is None
    assert innermost_user([wrapper, library], classifier) is library
    user = traceback.FrameSummary("/home/u/model.py", 9, "forward")
    assert innermost_user([wrapper, user, library], classifier) is user
    assert innermost_user([], classifier) is None


def test_a_whole_traceback_as_a_breaks_stack_starts_at_the_compiled_forward():
    # transformers' Reformer under torch 2.15: one break's stack came as the
    # whole Python traceback, runpy and the probe's harness first, and the
    # library rule offered to disable "_run_code, called at <frozen runpy>".
    import traceback

    from compilescope_probe import harness
    from compilescope_probe.frames import break_stack

    lib = "/x/lib/python3.11/site-packages"
    module = f"{lib}/torch/nn/modules/module.py"
    reformer = f"{lib}/transformers/models/reformer/modeling_reformer.py"
    whole = [
        traceback.FrameSummary("<frozen runpy>", 198, "_run_module_as_main"),
        traceback.FrameSummary(harness.__file__, 21, "__call__"),
        traceback.FrameSummary(module, 1787, "_wrapped_call_impl"),
        traceback.FrameSummary(module, 1798, "_call_impl"),
        traceback.FrameSummary(reformer, 2222, "forward"),
        traceback.FrameSummary(module, 1787, "_wrapped_call_impl"),
        traceback.FrameSummary(reformer, 2028, "forward"),
    ]
    assert [(fs.filename, fs.lineno) for fs in break_stack(whole)] == [
        (reformer, 2222),
        (reformer, 2028),
    ]
    # Dynamo's own stacks are left as they are, a break in module.py's hooks too.
    traced = [whole[4], whole[6]]
    assert break_stack(traced) == traced
    hooks = [whole[4], traceback.FrameSummary(module, 1825, "_call_impl")]
    assert break_stack(hooks) == hooks


def test_guard_failures_of_a_code_object_that_holds_a_dict_constant():
    # A code object's hash takes its constants; Dynamo's rewrites may hold a
    # dict there. The guard failures are grouped by the code all the same.
    import types

    def forward(x):
        return x

    code = forward.__code__.replace(co_consts=(*forward.__code__.co_consts, {"a": 1}))
    events = []
    c = capture.Capture(lambda kind, **fields: events.append((kind, fields)), None)
    c.guard_fail_fn(types.SimpleNamespace(orig_code=code, reason="x.size()[0] == 2"))
    c.guard_fail_fn(types.SimpleNamespace(orig_code=code, reason="x.dtype"))
    c._emit_recompiles([], None)  # no CompilationMetrics: an older torch's path
    recompiles = [f for kind, f in events if kind == "recompile"]
    assert [(r["function"], r["reasons"]) for r in recompiles] == [
        ("forward", ["x.size()[0] == 2", "x.dtype"])
    ]


def test_a_break_met_again_is_one_break_in_a_library_too():
    """Breaks with no graph behind them come from torch's trace artifacts:
    the same break, met again where its frame ran on its own, is dropped
    also where no frame is the user's (transformers' EnCodec: 2 of its
    branches counted twice); a break in a loop skips a frame each time, and
    each skipped frame stays a break; torch's "WON'T CONVERT" log of a
    backend's exception is none."""
    lib = "/opt/site-packages/pkg/mod.py"
    events = []
    c = capture.Capture(
        lambda kind, **fields: events.append((kind, fields)), FrameClassifier("/m/model.py")
    )

    def artifact(cid, reason, line=150):
        payload = (
            f"Graph break in user code at {lib}:{line}\nGraph Break Reason: {reason}\n\n"
            f'User code traceback:\n  File "{lib}", line {line}, in _pad1d\n'
        )
        c._on_break_artifact(cid, payload, None)

    c.begin_call("[1, 4, 30]")
    branch = "Data-dependent branching\n  Explanation: Detected data-dependent branching"
    artifact("1/0", branch)
    artifact("2/0", branch)
    for skipped in ("encode", "forward", "encode"):
        artifact("3/0", f"graph break in loop\n  frame skipped: {skipped} ({lib} line 524)")
    c._on_break_artifact("4/0", f"WON'T CONVERT _pad1d {lib} line 138\ndue to:", ValueError())
    c.end_call([])
    breaks = [f for kind, f in events if kind == "graph_break"]
    assert [(b["gb_type"], "encode" in b["reason"]) for b in breaks] == [
        ("Data-dependent branching", False),
        ("graph break in loop", True),
        ("graph break in loop", False),
    ]
