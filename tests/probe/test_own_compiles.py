"""The model's own torch.compile calls, undone on load (own_compiles.py).

torch.compile wraps lazily: building these wrappers compiles nothing, so
the unit tests here stay quick."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, run_probe

torch = pytest.importorskip("torch")

from compilescope_probe import own_compiles  # noqa: E402


def undo(model, namespace=None):
    undone = own_compiles.undo(torch, model, namespace)
    return undone.model, undone.calls


def test_a_model_that_compiles_nothing_comes_back_as_it_was():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    back, found = undo(model, {"torch": torch, "helper": len})
    assert back is model and found == []


def test_get_model_returning_torch_compile_gives_the_module_inside_and_its_mode():
    inner = torch.nn.Linear(2, 2)
    back, found = undo(torch.compile(inner, mode="max-autotune-no-cudagraphs", dynamic=True))
    assert back is inner
    assert found == [
        {
            "where": "get_model()",
            "how": "torch.compile",
            "backend": "inductor",
            "mode": "max-autotune-no-cudagraphs",
            "dynamic": True,
            "fullgraph": False,
            "call": 'torch.compile(mode="max-autotune-no-cudagraphs", dynamic=True)',
        }
    ]


def test_a_compiled_function_model_gives_the_function():
    def forward(x):
        return x + 1

    back, found = undo(torch.compile(forward, backend="aot_eager", fullgraph=True))
    assert back is forward
    assert found[0]["backend"] == "aot_eager" and found[0]["mode"] is None
    assert found[0]["call"] == 'torch.compile(backend="aot_eager", fullgraph=True)'


def test_options_beyond_a_mode_are_listed():
    _, found = undo(torch.compile(torch.nn.Linear(2, 2), options={"epilogue_fusion": False}))
    assert found[0]["mode"] == "default"
    assert found[0]["call"] == 'torch.compile(options={"epilogue_fusion": False})'


def test_module_compile_and_compiled_children_are_undone_by_module_path():
    blocks = torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)])
    blocks[1].compile(mode="reduce-overhead")
    head = torch.nn.Linear(2, 2)
    model = torch.nn.Sequential(blocks, torch.compile(head))
    back, found = undo(model)
    assert back is model
    assert [(f["where"], f["how"], f["mode"]) for f in found] == [
        ("0.1", "Module.compile", "reduce-overhead"),
        ("1", "torch.compile", "default"),
    ]
    assert blocks[1]._compiled_call_impl is None
    assert model[1] is head
    assert not any("_orig_mod" in name for name, _ in model.named_modules())


def test_a_forward_compiled_onto_the_instance_is_taken_off_it():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    model[0].forward = torch.compile(model[0].forward, mode="reduce-overhead")
    model.helper = torch.compile(len)
    back, found = undo(model)
    assert [(f["where"], f["how"], f["mode"]) for f in found] == [
        ("helper", "attribute", "default"),
        ("0.forward", "attribute", "reduce-overhead"),
    ]
    assert "forward" not in vars(model[0]) and model[0].forward.__func__ is torch.nn.Linear.forward
    assert model.helper is len


def test_decorated_methods_and_functions_are_restored_and_disabled_ones_kept():
    def plain(x):
        return x * 2

    compiled = torch.compile(plain)
    disabled = torch._dynamo.disable(plain)

    class Net(torch.nn.Module):
        @torch.compile(dynamic=False)
        def forward(self, x):
            return x

    original_forward = Net.__dict__["forward"]._torchdynamo_orig_callable
    namespace = {"helper": compiled, "kept": disabled, "Net": Net}
    _, found = undo(Net(), namespace)
    assert [(f["where"], f["how"]) for f in found] == [
        ("Net.forward", "decorator"),
        ("helper", "decorator"),
    ]
    assert Net.__dict__["forward"] is original_forward
    assert namespace["helper"] is plain and namespace["kept"] is disabled


def test_mode_eager_runs_a_model_that_compiles_itself_uncompiled():
    run = run_probe(
        FIXTURES / "compiles_itself.py",
        "--mode", "eager", "--warmup", "1", "--iters", "3", "--profile-calls", "3",
    )  # fmt: skip
    assert run.returncode == 0, run.describe()
    model = run.one("model")
    assert model["name"] == "compiles_itself (Sequential)"
    assert [(c["where"], c["how"], c["mode"]) for c in model["own_compiles"]] == [
        ("get_model()", "torch.compile", "max-autotune-no-cudagraphs"),
        ("1", "Module.compile", "reduce-overhead"),
        ("scaled_gelu", "decorator", "default"),
    ]
    # Before the undo, the compiled regions ran here with kernels of their own.
    assert run.one("kernel_profile")["kernels"] == []


def test_mode_as_written_compiles_each_call_again_where_the_file_made_it():
    run = run_probe(
        FIXTURES / "compiles_parts.py",
        "--mode",
        "as-written",
        "--warmup",
        "2",
        "--iters",
        "3",
        "--profile-calls",
        "2",
    )
    assert run.returncode == 0, run.describe()
    calls = run.one("model")["own_compiles"]
    assert [(c["where"], c["how"], c["backend"]) for c in calls] == [
        ("1", "Module.compile", "aot_eager"),
        ("doubled", "decorator", "eager"),
    ]
    # Each call's graphs reach the probe's capture, under the call's own backend:
    # doubled alone (Block 0 runs uncompiled), and Block 1 whole, doubled inlined.
    graphs = run.of("graph")
    assert len(graphs) == 2, [g["function"] for g in graphs]
    # Named by the frames they compiled: the helper, and Block.forward of
    # blocks.1 (Dynamo steps over torch's _call_impl into the user's forward).
    assert sorted(g["function"] for g in graphs) == ["doubled", "forward"], graphs
    assert {g["file"] for g in graphs} == {str(FIXTURES / "compiles_parts.py")}
    assert {g["compile_id"] for g in graphs} == {"0/0", "1/0"}
    assert run.one("outputs_check")["status"] == "match"


def test_mode_as_written_on_a_file_that_compiles_nothing_says_so():
    run = run_probe(FIXTURES / "submodule_break.py", "--mode", "as-written", "--iters", "2")
    err = run.one("error")
    assert err["kind"] == "bad_arguments"
    assert "makes none" in err["message"] and "mode eager" in err["message"]
