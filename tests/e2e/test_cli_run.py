"""compilescope-cli run: the walking skeleton end to end on CPU."""

import statistics
import subprocess
from pathlib import Path

import pytest
from conftest import GALLERY


def test_mlp_eager_and_default_on_cpu(run_cli, cli, tmp_path):
    html = tmp_path / "report.html"
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager,default",
        "--device",
        "cpu",
        "--warmup",
        "3",
        "--iters",
        "30",
        "--html",
        html,
    )
    assert result.returncode == 0, result.stderr
    assert "JSON report:" in result.stdout and "HTML report:" in result.stdout
    assert "default (2/2)" in result.stderr  # the progress line names setting and position
    report = result.report
    assert report["format"] == "compilescope.report" and report["version"] == 2
    assert report["environment"]["torch"].startswith("2.")
    assert [r["setting"]["mode"] for r in report["runs"]] == ["eager", "default"]
    for run in report["runs"]:
        assert run["status"] == "ok", run["error"]
        latency = run["latency"]
        assert len(latency["samples_ns"]) == 30
        assert len(latency["warmup_ns"]) == 3
        assert all(isinstance(v, int) and v > 0 for v in latency["samples_ns"])
        stats = latency["stats"]
        # Format version 2 rounds derived statistics to whole ns.
        assert isinstance(stats["median_ns"], int)
        assert abs(stats["median_ns"] - statistics.median(latency["samples_ns"])) <= 0.5
        assert (
            stats["min_ns"]
            <= stats["median_ns"]
            <= stats["p90_ns"]
            <= stats["p99_ns"]
            <= stats["max_ns"]
        )
        low, high = stats["median_ci95_ns"]
        assert low <= stats["median_ns"] <= high
        names = [p["name"] for p in run["phases"]]
        assert names[:2] == ["load", "compile"] and "measure" in names
    # default compiles on the first call: it costs far more than a steady-state call.
    default = report["runs"][1]["latency"]
    assert default["warmup_ns"][0] > 10 * statistics.median(default["samples_ns"])
    text = html.read_text()
    assert "<svg" in text and "eager" in text and "default" in text
    # From kernel back to line: the default setting's generated code and its
    # profiled window, with every line share adding up (docs/kernel-cost.md).
    compiled = report["runs"][1]
    (code,) = compiled["code"]
    assert code["wrapper_zlib"] and code["wrapper_bytes"] > 0
    assert code["kernels"] and all(k["nodes"] and k["lines"] for k in code["kernels"])
    graph_nodes = {n["name"] for g in compiled["graphs"] for n in g["nodes"]}
    assert all(set(k["nodes"]) <= graph_nodes for k in code["kernels"])
    profile = compiled["kernel_profile"]
    assert 0 < profile["calls"] <= 50 and "profile" in [p["name"] for p in compiled["phases"]]
    assert {k["name"] for k in profile["kernels"]} <= {k["name"] for k in code["kernels"]}
    assert "kernel_profile" in report["runs"][0] and "code" not in report["runs"][0]
    assert "Where the time goes" in text
    costs = subprocess.run(
        [str(cli), "costs", str(result.json_path)], capture_output=True, text=True
    )
    assert costs.returncode == 0, costs.stderr
    assert "mlp.py:" in costs.stdout and "hot lines" in costs.stdout
    # The MLP's three linears are modules of their own: each takes a share.
    modules = costs.stdout.split("hot modules", 1)[1]
    for layer in ("fc1", "fc2", "head"):
        assert f"  {layer}\n" in modules, modules
    assert "Hot modules" in text
    # Eager's layers too: the module frames the probe's tracer saw in the window.
    eager_costs = subprocess.run(
        [str(cli), "costs", str(result.json_path), "--setting", "eager"],
        capture_output=True,
        text=True,
    )
    assert eager_costs.returncode == 0, eager_costs.stderr
    eager_modules = eager_costs.stdout.split("hot modules", 1)[1]
    assert "share of the call's ops" in eager_modules
    for layer in ("fc1", "fc2", "head"):
        assert f"  {layer}\n" in eager_modules, eager_modules


def test_no_code_keeps_kernels_and_lines_but_not_the_code(run_cli):
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        *("--settings", "default", "--device", "cpu", "--warmup", "2", "--iters", "5"),
        *("--no-code", "--profile-calls", "0"),
    )
    assert result.returncode == 0, result.stderr
    (run,) = result.report["runs"]
    assert run["code_omitted"] == "left out with --no-code"
    (code,) = run["code"]
    assert "wrapper_zlib" not in code and code["wrapper_bytes"] > 0
    assert code["kernels"] and all(k["nodes"] and k["lines"] for k in code["kernels"])
    assert "kernel_profile" not in run
    assert "profile" not in [p["name"] for p in run["phases"]]


# A value no shell would pass through unquoted: it must reach the probe as written.
ODD_VALUE = "dirty_decay_ms:0 'quoted' \"double\" $HOME `id`;"


def test_env_reaches_every_probe_and_a_settings_own_only_its_own(run_cli):
    # A setting's own value holding the list's separators goes in double quotes.
    own = 'eager:env=MALLOC_ARENA_MAX=2:env=MALLOC_TOP_PAD_="1:2,3"'
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        *("--settings", f"eager,{own}", "--env", f"MALLOC_CONF={ODD_VALUE}"),
        *("--device", "cpu", "--warmup", "2", "--iters", "5", "--no-sweep", "--profile-calls", "0"),
    )
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["environment"]["probe_environment"] == {"MALLOC_CONF": ODD_VALUE}
    plain, tuned = report["runs"]
    assert plain["label"] == "eager"
    assert tuned["label"] == 'eager MALLOC_ARENA_MAX=2 MALLOC_TOP_PAD_="1:2,3"'
    assert tuned["setting"]["environment"] == {"MALLOC_ARENA_MAX": "2", "MALLOC_TOP_PAD_": "1:2,3"}
    # What the probe itself found in its environment (host_faults' malloc_env).
    assert plain["latency"]["host_faults"]["malloc_env"] == {"MALLOC_CONF": ODD_VALUE}
    assert tuned["latency"]["host_faults"]["malloc_env"] == {
        "MALLOC_CONF": ODD_VALUE,
        "MALLOC_ARENA_MAX": "2",
        "MALLOC_TOP_PAD_": "1:2,3",
    }
    assert "probe environment: MALLOC_CONF=" in result.stderr


@pytest.mark.parametrize(
    "args, says",
    [
        (("--env", "PYTHONPATH=/elsewhere"), "PYTHONPATH is set by compilescope"),
        (("--env", "NO_VALUE"), "is not NAME=VALUE"),
        (("--settings", "eager:dynamic=true"), "eager takes only autocast= and env=NAME=VALUE"),
        (("--settings", 'eager:env=A="1:2'), "is not closed"),
    ],
)
def test_a_variable_that_cannot_be_set_is_a_bad_argument(run_cli, args, says):
    result = run_cli("run", GALLERY / "mlp.py", *args)
    assert result.returncode == 1
    assert says in result.stderr


def test_model_file_not_found_is_a_bad_argument(run_cli, tmp_path):
    result = run_cli("run", tmp_path / "missing.py", "--settings", "eager")
    assert result.returncode == 1
    assert "missing.py" in result.stderr


def test_unknown_setting_is_a_bad_argument(run_cli):
    result = run_cli("run", GALLERY / "mlp.py", "--settings", "eager,fastest")
    assert result.returncode == 1
    assert "fastest" in result.stderr


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_failing_models_are_reported_and_exit_2(run_cli, tmp_path):
    broken = write(tmp_path / "broken.py", "def get_model(:\n    pass\n")
    result = run_cli("run", broken, "--settings", "eager", "--iters", "3")
    assert result.returncode == 2
    run = result.report["runs"][0]
    assert run["status"] == "failed"
    assert run["error"]["kind"] == "model_syntax_error"
    assert "broken.py" in run["error"]["message"]

    raises = write(
        tmp_path / "raises.py",
        (
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        raise ValueError('bad input shape')\n"
            "def get_model():\n    return M()\n"
            "def get_inputs():\n    return (torch.randn(2, 2),)\n"
        ),
    )
    result = run_cli("run", raises, "--settings", "eager", "--iters", "3", json_name="raises.json")
    assert result.returncode == 2
    error = result.report["runs"][0]["error"]
    assert error["kind"] == "model_raised"
    assert "raises.py" in error["message"] and "bad input shape" in error["message"]
    # The advice says it too, at the line that raised, not "nothing to fix".
    (finding,) = [f for f in result.report["advice"]["findings"] if f["rule"] == "failure.run"]
    assert "the model raises ValueError at raises.py:4" in finding["title"]
    assert finding["file"].endswith("raises.py") and finding["line"] == 4


def test_interpreter_without_torch_says_how_to_install(run_cli, tmp_path):
    venv = tmp_path / "bare"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    result = run_cli("run", GALLERY / "mlp.py", "--settings", "eager", "--python", python)
    assert result.returncode == 2
    error = result.report["runs"][0]["error"]
    assert error["kind"] == "no_torch"
    assert str(python) in error["message"] and "pip install torch" in error["message"]


def test_missing_interpreter_is_a_failed_setting(run_cli, tmp_path):
    result = run_cli(
        "run", GALLERY / "mlp.py", "--settings", "eager", "--python", tmp_path / "nope"
    )
    assert result.returncode == 2
    assert "nope" in result.report["runs"][0]["error"]["message"]


def test_probe_hang_becomes_timeout_with_what_it_measured(run_cli, tmp_path):
    hang = write(
        tmp_path / "hang.py",
        (
            "import time, torch\n"
            "calls = 0\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        global calls\n"
            "        calls += 1\n"
            "        if calls > 8:\n"
            "            time.sleep(3600)\n"
            "        return x + 1\n"
            "def get_model():\n    return M()\n"
            "def get_inputs():\n    return (torch.randn(2, 2),)\n"
        ),
    )
    result = run_cli(
        "run", hang, "--settings", "eager", "--warmup", "2", "--iters", "50", "--timeout", "20"
    )
    assert result.returncode == 2
    run = result.report["runs"][0]
    assert run["status"] == "timeout"
    assert len(run["latency"]["samples_ns"]) == 6  # 8 calls ran: 2 warmup + 6 measured


def test_probe_crash_keeps_iterations(run_cli, tmp_path):
    # A hard crash (no Python left to flush) keeps every chunk the probe sent:
    # calls of 100 ms, chunks at least every 250 ms, so at most the last 3 are lost.
    crash = write(
        tmp_path / "crash.py",
        (
            "import os, time, torch\n"
            "calls = 0\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        global calls\n"
            "        calls += 1\n"
            "        if calls > 10:\n"
            "            os._exit(9)\n"
            "        time.sleep(0.1)\n"
            "        return x * 2\n"
            "def get_model():\n    return M()\n"
            "def get_inputs():\n    return (torch.randn(2, 2),)\n"
        ),
    )
    result = run_cli("run", crash, "--settings", "eager", "--warmup", "2", "--iters", "50")
    assert result.returncode == 2
    run = result.report["runs"][0]
    assert run["status"] == "crashed"
    kept = len(run["latency"]["samples_ns"])
    assert 5 <= kept <= 8  # 8 measured calls ran before the crash
    assert f"{kept} measured iterations" in run["error"]["message"]


def _sweep_run(run_cli, *extra):
    return run_cli(
        "run",
        GALLERY / "variable_length.py",
        "--settings",
        "default",
        "--backend",
        "eager",
        "--device",
        "cpu",
        "--warmup",
        "1",
        "--iters",
        "3",
        *extra,
    )


def test_a_model_with_a_sweep_gets_it_by_default(run_cli):
    result = _sweep_run(run_cli)
    assert result.returncode == 0, result.stderr
    (run,) = result.report["runs"]
    assert run["setting"]["sweep"] is True
    sweeps = [p for p in run["phases"] if p["name"] == "sweep"]
    assert len(sweeps) == 1 and sweeps[0]["end_ns"] > sweeps[0]["begin_ns"], run["phases"]
    # The summary says that it ran and how long it took.
    line = next(x for x in result.stderr.splitlines() if x.startswith("input sweep:"))
    assert "default/eager ran the model's get_input_sweep() in " in line, line
    assert line.split(" in ")[1].split()[1] in ("ns", "µs", "ms", "s"), line


def test_no_sweep_skips_it(run_cli):
    result = _sweep_run(run_cli, "--no-sweep")
    assert result.returncode == 0, result.stderr
    (run,) = result.report["runs"]
    assert run["setting"]["sweep"] is False
    assert "sweep" not in [p["name"] for p in run["phases"]]
    assert "input sweep:" not in result.stderr


def test_a_model_without_a_sweep_runs_none_and_says_nothing(run_cli):
    result = run_cli(
        "run", GALLERY / "mlp.py", "--settings", "eager", "--device", "cpu", "--iters", "3"
    )
    assert result.returncode == 0, result.stderr
    assert "sweep" not in [p["name"] for p in result.report["runs"][0]["phases"]]
    assert "input sweep" not in result.stderr and "get_input_sweep" not in result.stderr
