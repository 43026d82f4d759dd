"""hello's torch_env: the torch-relevant variables the probe started with."""

from __future__ import annotations

import os

from conftest import assert_well_formed, fixture_model, gallery, run_probe

from compilescope_probe.hostinfo import TORCH_ENV_MAX_VALUE, torch_environment


def test_picks_the_variables_that_change_torch():
    env = {
        "TORCHINDUCTOR_FREEZING": "1",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        "OMP_NUM_THREADS": "4",
        "LD_PRELOAD": "/usr/lib/libjemalloc.so.2",
        "HOME": "/home/someone",
        "PATH": "/usr/bin",
        "MY_TORCH_THING": "x",  # the prefix must start the name
        "CUDA_HOME": "/usr/local/cuda",  # where, not how
        "TORCH_HOME": "/cache/torch",
    }
    assert list(torch_environment(env)) == [
        "LD_PRELOAD",
        "OMP_NUM_THREADS",
        "PYTORCH_CUDA_ALLOC_CONF",
        "TORCHINDUCTOR_FREEZING",
    ]


def test_cuts_a_long_value():
    found = torch_environment({"TORCH_LOGS": "x" * (TORCH_ENV_MAX_VALUE + 10)})
    assert len(found["TORCH_LOGS"]) == TORCH_ENV_MAX_VALUE + 1
    assert found["TORCH_LOGS"].endswith("…")


def test_hello_reports_the_callers_variables_not_the_probes_own():
    # TORCH_COMPILE_DISABLE turns torch.compile off: the probe still runs the
    # model, and the stream shows nothing compiled and no break.
    run = run_probe(
        gallery("mlp"),
        "--warmup",
        "2",
        "--iters",
        "3",
        env={"TORCH_COMPILE_DISABLE": "1", "TORCHINDUCTOR_CACHE_DIR": "/nonexistent/shell-cache"},
    )
    assert_well_formed(run)
    hello = run.events[0]
    assert hello["torch_env"]["TORCH_COMPILE_DISABLE"] == "1"
    # The shell's cache folder is what the user set; the probe's fresh one
    # replaces it (hello's cache_dir), and hello names the shell's.
    assert hello["torch_env"]["TORCHINDUCTOR_CACHE_DIR"] == "/nonexistent/shell-cache"
    assert hello["cache_dir"] != "/nonexistent/shell-cache"
    if "TRITON_CACHE_DIR" not in os.environ:  # the probe sets it, after hello's snapshot
        assert "TRITON_CACHE_DIR" not in hello["torch_env"]
    assert run.events[-1]["status"] == "ok", run.describe()
    assert not run.of("graph") and not run.of("graph_break")
    compile_time = run.of("compile_time")[0]
    assert compile_time["source"] == "none"
    # The variable's switch, seen from inside torch.
    assert compile_time["dynamo_off"] == "torch._dynamo.config.disable = True"


def test_hello_of_bad_arguments_has_them_too():
    run = run_probe(gallery("mlp"), "--warmup", "0", env={"TORCHDYNAMO_DISABLE": "1"})
    assert run.events[0]["torch_env"]["TORCHDYNAMO_DISABLE"] == "1"


def test_a_stance_set_by_the_model_file_is_named():
    run = run_probe(fixture_model("eager_stance"), "--warmup", "2", "--iters", "3")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert not run.of("graph") and not run.of("graph_break")
    assert run.of("compile_time")[0]["dynamo_off"] == 'torch.compiler.set_stance("force_eager")'


def test_a_compiled_model_has_no_dynamo_off():
    run = run_probe(gallery("mlp"), "--backend", "eager", "--warmup", "2", "--iters", "3")
    assert run.of("graph"), run.describe()
    assert "dynamo_off" not in run.of("compile_time")[0]
