"""Bad input: each gives one clear error event naming the input, then done/failed."""

from __future__ import annotations

import os

import pytest
from conftest import assert_well_formed, fixture_model, gallery, run_probe

FAST = ("--backend", "aot_eager", "--warmup", "1", "--iters", "1")


def _failed_with(run, kind: str) -> dict:
    assert_well_formed(run)
    errors = run.errors()
    assert [e["kind"] for e in errors] == [kind], run.describe()
    err = errors[0]
    assert err["fatal"] is True
    assert run.events[-1]["status"] == "failed" and run.returncode == 3
    assert not run.calls() or kind in ("model_raised", "fullgraph_break")
    return err


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere" / "model.py"
    err = _failed_with(run_probe(path, *FAST), "model_not_found")
    assert str(path) in err["message"]


def test_syntax_error():
    path = fixture_model("syntax_error")
    err = _failed_with(run_probe(path, *FAST), "model_syntax_error")
    assert f"{path}:9" in err["message"]
    assert err["file"] == str(path) and err["line"] == 9
    assert "def get_inputs(:" in err["message"]


def test_no_get_model():
    path = fixture_model("no_get_model")
    err = _failed_with(run_probe(path, *FAST), "missing_get_model")
    assert str(path) in err["message"] and "get_model()" in err["message"]


def test_no_get_inputs(tmp_path):
    path = tmp_path / "only_model.py"
    path.write_text("import torch\n\ndef get_model():\n    return torch.nn.Linear(2, 2)\n")
    err = _failed_with(run_probe(path, *FAST), "missing_get_inputs")
    assert str(path) in err["message"] and "get_inputs()" in err["message"]


def test_import_error_names_the_module(tmp_path):
    path = tmp_path / "needs_pkg.py"
    path.write_text("import torch\nimport compilescope_no_such_pkg\n")
    err = _failed_with(run_probe(path, *FAST), "model_import_error")
    assert "compilescope_no_such_pkg" in err["message"] and "pip install" in err["message"]


def test_get_model_raises():
    path = fixture_model("raises_in_get_model")
    err = _failed_with(run_probe(path, *FAST), "get_model_raised")
    assert f"{path}:7" in err["message"] and "weights missing on purpose" in err["message"]
    assert "Traceback" in err["traceback"]


def test_sys_exit_in_get_model_is_said_not_swallowed(tmp_path):
    # A script's habit: exit when a config file is missing. Before, the probe
    # ended "failed" with no error event at all.
    path = tmp_path / "exits.py"
    path.write_text(
        "import sys\nimport torch\n\ndef get_model():\n    sys.exit('no config file found')\n\n"
        "def get_inputs():\n    return torch.randn(2, 4)\n"
    )
    err = _failed_with(run_probe(path, *FAST), "get_model_raised")
    assert f"called sys.exit('no config file found') at {path}:5" in err["message"], err
    assert "SystemExit" in err["traceback"]


def test_sys_exit_in_forward_keeps_what_was_measured(tmp_path):
    path = tmp_path / "exits_forward.py"
    path.write_text(
        "import sys\nimport torch\n\nclass M(torch.nn.Module):\n    calls = 0\n\n"
        "    def forward(self, x):\n        M.calls += 1\n        if M.calls > 2:\n"
        "            sys.exit(0)\n        return x * 2\n\n"
        "def get_model():\n    return M()\n\ndef get_inputs():\n    return torch.randn(2, 4)\n"
    )
    run = run_probe(path, "--mode", "eager", "--warmup", "2", "--iters", "5")
    assert_well_formed(run)
    [err] = run.errors()
    assert err["kind"] == "model_raised" and err["fatal"] is True
    assert f"called sys.exit(0) at {path}:10" in err["message"], err
    assert len(run.calls()) == 2 and run.events[-1]["status"] == "failed"


def test_cuda_asked_for_on_a_machine_without_it(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    path = tmp_path / "gpu_inputs.py"
    path.write_text(
        "import torch\n\ndef get_model():\n    return torch.nn.Linear(4, 4)\n\n"
        "def get_inputs():\n    return torch.randn(2, 4, device='cuda')\n"
    )
    err = _failed_with(run_probe(path, *FAST), "get_model_raised")
    assert f"get_inputs() in {path} asks for CUDA at {path}:7" in err["message"], err
    assert "leave the device to compilescope" in err["message"]


@pytest.mark.parametrize("mode", ["eager", "default"])
def test_model_raises_in_forward(mode):
    path = fixture_model("raises_in_forward")
    err = _failed_with(run_probe(path, "--mode", mode, *FAST), "model_raised")
    assert f"{path}:14" in err["message"] and "broken on purpose" in err["message"]
    assert err["file"] == str(path) and err["line"] == 14
    assert "ValueError" in err["traceback"]


def test_model_raises_inside_torch_op():
    path = fixture_model("shape_mismatch")
    err = _failed_with(run_probe(path, *FAST), "model_raised")
    # the innermost frame of the user's own code, not torch's
    assert f"{path}:13" in err["message"]


def test_an_input_that_is_not_a_tensor_is_named_with_its_conversion(tmp_path):
    # get_inputs() giving a NumPy array: torch's TypeError names the type, the
    # message names the input and the call that makes it a tensor.
    path = tmp_path / "numpy_inputs.py"
    path.write_text(
        "import numpy as np\nimport torch\n\n\n"
        "def get_model():\n    return torch.nn.Linear(8, 2)\n\n\n"
        "def get_inputs():\n    return (np.ones((4, 8), dtype='float32'),)\n"
    )
    err = _failed_with(run_probe(path, "--mode", "eager", *FAST), "model_raised")
    assert "must be Tensor, not numpy.ndarray" in err["message"], err
    assert (
        "get_inputs() gives input 0 as a numpy.ndarray, and torch takes tensors: return "
        "torch.from_numpy(array) from get_inputs() instead." in err["message"]
    ), err


def test_no_cuda():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA, so --device cuda is not an error here")
    err = _failed_with(run_probe(gallery("mlp"), "--device", "cuda", *FAST), "no_cuda")
    assert "--device cuda" in err["message"] and "--device cpu" in err["message"]


def test_missing_compiler_is_named_before_compiling():
    run = run_probe(
        gallery("mlp"), "--warmup", "1", "--iters", "1", env={"PATH": "/nonexistent", "CXX": ""}
    )
    err = _failed_with(run, "no_compiler")
    assert "g++" in err["message"] and "aot_eager" in err["message"]
    assert not run.of("phase") or all(p["name"] == "load" for p in run.of("phase"))


def test_fullgraph_break_is_an_error_with_the_break():
    path = gallery("print_break")
    run = run_probe(path, "--fullgraph", *FAST)
    err = _failed_with(run, "fullgraph_break")
    line = next(
        i
        for i, text in enumerate(path.read_text().splitlines(), 1)
        if text.strip().startswith("print(")
    )
    assert f"{path}:{line}" in err["message"]
    brk = err["graph_break"]
    uf = brk["frames"][brk["user_frame"]]
    assert os.path.realpath(uf["file"]) == str(path) and uf["line"] == line
    assert brk["gb_type"] and brk["gb_type"] in err["message"]
    assert not run.of("graph") and not run.of(
        "graph_break"
    )  # fullgraph: nothing compiled; the break is the error


def test_out_of_memory_keeps_what_was_measured():
    run = run_probe(
        fixture_model("oom_in_forward"), "--mode", "eager", "--warmup", "1", "--iters", "5"
    )
    assert_well_formed(run)
    err = run.one("error")
    assert err["kind"] == "out_of_memory" and "simulated" in err["message"]
    assert run.events[-1]["status"] == "failed"
    # two calls ran before memory ran out; their iterations are in the stream
    assert [i["index"] for i in run.calls()] == [0, 1]


def test_a_data_dependent_size_under_fullgraph_is_not_called_a_torch_bug():
    path = fixture_model("data_dependent_size")
    run = run_probe(path, "--mode", "default", "--fullgraph", *FAST)
    err = _failed_with(run, "compile_failed")
    assert f"while compiling {path}:13" in err["message"], err["message"]
    assert "depends on tensor values" in err["message"]
    assert "report it to PyTorch" not in err["message"]


def test_a_failure_dynamo_meets_under_every_backend_is_called_dynamos():
    path = fixture_model("traced_numpy_fails")
    run = run_probe(path, "--mode", "default", "--warmup", "1", "--iters", "1")
    err = _failed_with(run, "compile_failed")
    assert f"while compiling {path}:12" in err["message"], err["message"]
    assert err["stage"] == "dynamo", err
    assert [c["backend"] for c in err["stage_checks"]] == ["eager"]
    assert err["stage_checks"][0]["ok"] is False
    assert "0-dimensional arrays" in err["stage_checks"][0]["error"]
    assert "@torch.compiler.disable" in err["message"]
    # The tries' own graphs are not the run's: one graph, the failed compile's.
    assert len(run.of("graph")) == 1, [g["compile_id"] for g in run.of("graph")]


def test_a_failure_inside_inductor_only_says_aot_eager_runs():
    path = fixture_model("inductor_fails")
    run = run_probe(path, "--mode", "default", "--warmup", "1", "--iters", "1")
    err = _failed_with(run, "compile_failed")
    assert err["stage"] == "backend", err
    assert err["stage_checks"] == [
        {"backend": "eager", "ok": True, "error": ""},
        {"backend": "aot_eager", "ok": True, "error": ""},
    ]
    assert "backends eager and aot_eager run it, so inductor itself fails" in err["message"]
    assert "--backend aot_eager runs meanwhile" in err["message"]


def test_the_ladder_stops_at_the_first_backend_that_fails():
    from compilescope_probe.compile_triage import failing_stage

    class Dynamo:
        resets = 0

        def reset(self):
            Dynamo.resets += 1

    class FakeTorch:
        _dynamo = Dynamo()

    tried = []

    def fails_under(failing):
        def compile_call(backend):
            tried.append(backend)
            if backend in failing:
                raise ValueError(f"no {backend}")

        return compile_call

    found = failing_stage(FakeTorch, fails_under({"aot_eager"}), "inductor")
    assert found["stage"] == "aot_autograd" and tried == ["eager", "aot_eager"]
    assert found["checks"][1] == {
        "backend": "aot_eager",
        "ok": False,
        "error": "ValueError: no aot_eager",
    }
    assert Dynamo.resets == 2
    tried.clear()
    # Below any backend but Inductor only Dynamo is known to sit.
    assert failing_stage(FakeTorch, fails_under(set()), "cudagraphs")["stage"] == "backend"
    assert tried == ["eager"]
    assert failing_stage(FakeTorch, fails_under({"eager"}), "eager") is None


def test_a_stance_set_inside_forward_says_where_to_set_it_instead():
    # torch refuses to trace set_stance: the model's own mistake, not torch's bug.
    path = fixture_model("stance_in_forward")
    err = _failed_with(run_probe(path, "--mode", "default", *FAST), "compile_failed")
    assert f"while compiling {path}:12" in err["message"], err["message"]
    assert "set the stance around the call" in err["message"]
    assert "report it to PyTorch" not in err["message"]


def test_other_forbidden_callables_are_named():
    from compilescope_probe.failures import forbidden_remedy

    text = "Attempt to trace forbidden callable <built-in function my_hook>"
    assert "torch forbids calling my_hook inside compiled code" in forbidden_remedy(text)
    assert forbidden_remedy("Could not guard on data-dependent expression u0") is None
