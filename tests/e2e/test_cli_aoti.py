"""The aoti setting end to end: the CLI, the probe exporting and packaging,
compilescope-aoti-runner timing the package from C++, torch on CPU."""

import json
import os
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import pytest
from conftest import GALLERY, ROOT, validate_report

VENV_PYTHON = ROOT / ".venv" / "bin" / "python"

PACKAGE_SCRIPT = """
import sys, torch
class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 4)
    def forward(self, x):
        return self.b(torch.relu(self.a(x)))
torch.manual_seed(0)
x = torch.randn(4, 8)
program = torch.export.export(Tiny().eval(), (x,), strict=False)
torch._inductor.aoti_compile_and_package(program, package_path=sys.argv[1])
torch.save([x], sys.argv[2])
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A package built elsewhere, with its inputs beside it (model.inputs.pt)."""
    folder = tmp_path_factory.mktemp("package")
    path = folder / "tiny.pt2"
    subprocess.run(
        [str(VENV_PYTHON), "-c", PACKAGE_SCRIPT, str(path), str(folder / "tiny.inputs.pt")],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return path


def phases(run):
    return {p["name"]: p["ns"] for p in run["compile_phases"]["phases"]}


def measured(run):
    return run["latency"]["samples_ns"]


def test_compare_eager_default_aoti_on_mlp_and_convnet(run_cli, tmp_path):
    for model in ("mlp.py", "convnet.py"):
        html = tmp_path / f"{model}.html"
        result = run_cli(
            "compare",
            GALLERY / model,
            "--settings",
            "eager,default,aoti",
            "--warmup",
            "3",
            "--iters",
            "30",
            "--threads",
            "1",
            "--html",
            html,
            json_name=f"{model}.json",
        )
        assert result.returncode == 0, result.stderr
        runs = {r["label"]: r for r in result.report["runs"]}
        assert list(runs) == ["eager", "default", "aoti"]
        aoti = runs["aoti"]
        assert aoti["status"] == "ok", aoti["error"]
        latencies = measured(aoti)
        assert len(latencies) == 30 and min(latencies) > 0
        named = phases(aoti)
        for name in ("export", "package", "load", "first_call"):
            assert named.get(name, 0) > 0, (name, named)
        # The first-call column is what a deployed service pays: load + first call.
        first = aoti["compile_phases"]["first_call_ns"]
        assert first == pytest.approx(named["load"] + named["first_call"], rel=0.01, abs=2000)
        # The runner's phases follow the probe's export and package.
        order = [p["name"] for p in aoti["phases"]]
        assert order.index("export") < order.index("package") < order.index("compile")
        assert order.index("compile") < order.index("warmup") < order.index("measure")
        assert "aoti" in result.stdout  # the comparison table has its row
        assert "aoti" in html.read_text()
        # The package (loaded again in Python) and torch.compile compute what eager does.
        for label in ("default", "aoti"):
            check = runs[label]["outputs_check"]
            assert check["status"] == "match", check
            assert check["worst"][0]["relative"] < check["tolerance"] / 10
        assert "outputs_check" not in runs["eager"]


def test_data_dependent_branch_cannot_export_and_breaks_under_compile(run_cli):
    model = GALLERY / "data_dependent_branch.py"
    result = run_cli(
        "compare", model, "--settings", "eager,default,aoti", "--warmup", "2", "--iters", "5"
    )
    report = result.report
    runs = {r["label"]: r for r in report["runs"]}
    failure = runs["aoti"]["export_failure"]
    line = next(
        n for n, text in enumerate(model.read_text().splitlines(), 1) if "if h.sum() > 0" in text
    )
    assert failure["category"] == "data_dependent"
    assert failure["line"] == line
    assert runs["aoti"]["status"] == "failed"
    assert runs["default"]["graph_breaks"], "torch.compile breaks where export fails"
    findings = [f for f in report["advice"]["findings"] if f["rule"].startswith("export.")]
    assert len(findings) == 1, report["advice"]["findings"]
    finding = findings[0]
    assert finding["line"] == line
    # Both, side by side: export's refusal and torch.compile's break at that line.
    assert any("breaks the graph at the same line" in e for e in finding["evidence"]), finding
    assert f"data_dependent_branch.py:{line}" in result.stdout + result.stderr


def test_a_package_built_elsewhere_runs_as_the_model(run_cli, package):
    result = run_cli("run", package, "--settings", "aoti", "--warmup", "2", "--iters", "20")
    assert result.returncode == 0, result.stderr
    (run,) = result.report["runs"]
    assert run["status"] == "ok", run["error"]
    assert len(measured(run)) == 20
    named = phases(run)
    assert "export" not in named and named["load"] > 0
    assert run["model"]["inputs"] == ["float32[4, 8]"]


def corrupt_copy(package, folder, name):
    """The package with its compiled library replaced by garbage."""
    out = folder / name
    with zipfile.ZipFile(package) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith(".so"):
                data = os.urandom(len(data) // 8)
            dst.writestr(item, data)
    (folder / name.replace(".pt2", ".inputs.pt")).write_bytes(
        (package.parent / "tiny.inputs.pt").read_bytes()
    )
    return out


def test_a_corrupt_package_gets_a_clear_error(run_cli, package, tmp_path):
    bad = corrupt_copy(package, tmp_path, "broken.pt2")
    result = run_cli("run", bad, "--settings", "aoti", "--iters", "5")
    assert result.returncode != 0
    (run,) = result.report["runs"]
    assert run["status"] == "failed"
    assert str(bad) in run["error"]["message"], run["error"]
    truncated = tmp_path / "truncated.pt2"
    truncated.write_bytes(package.read_bytes()[:1000])
    result = run_cli("run", truncated, "--settings", "aoti", "--iters", "5")
    (run,) = result.report["runs"]
    assert run["status"] == "failed"
    assert "truncated.pt2" in run["error"]["message"], run["error"]


def runner_pids():
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"compilescope-aoti-runner") and b"--continue-stream" in cmd:
            pids.append(int(entry.name))
    return pids


def test_a_runner_killed_mid_run_is_crashed_with_its_calls_kept(cli, package, tmp_path):
    json_path = tmp_path / "killed.json"
    tmp = tmp_path / "tmp"  # the app's, the probe's and the runner's TMPDIR
    tmp.mkdir()
    before = set(runner_pids())
    proc = subprocess.Popen(
        [
            str(cli),
            "run",
            str(package),
            "--settings",
            "aoti",
            "--iters",
            "50000000",
            "--json",
            str(json_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TMPDIR=str(tmp)),
    )
    try:
        deadline = time.monotonic() + 120
        runner = None
        while time.monotonic() < deadline and runner is None:
            fresh = set(runner_pids()) - before
            runner = fresh.pop() if fresh else None
            time.sleep(0.1)
        assert runner is not None, "the runner never started"
        time.sleep(3)  # well into the measure phase: chunks go out every 250 ms
        os.kill(runner, signal.SIGKILL)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    report = validate_report(json.loads(json_path.read_text()))
    (run,) = report["runs"]
    assert run["status"] == "crashed", run["error"]
    assert len(measured(run)) > 0
    assert "SIGKILL" in run["error"]["message"]
    # What libtorch unpacked for the killed runner went with the probe's work folder.
    assert not list(tmp.rglob("aotinductor_*")), sorted(map(str, tmp.rglob("*")))
