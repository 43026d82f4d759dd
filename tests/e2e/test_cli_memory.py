"""compilescope-cli on CPU: host memory through the run, GPU panels' reason, --trace."""

import json

from conftest import GALLERY, ROOT

PHASES = ("load", "compile", "warmup", "measure", "crosscheck", "profile")
NO_CUDA = "no CUDA device: GPU memory and kernels unavailable"


def test_cpu_run_has_host_rss_inside_its_phases_and_a_chrome_trace(run_cli, tmp_path):
    trace_path = tmp_path / "trace.json"
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager",
        "--device",
        "cpu",
        "--warmup",
        "3",
        "--iters",
        "20",
        "--trace",
        trace_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Chrome trace:" in result.stdout
    run = result.report["runs"][0]
    assert run["status"] == "ok", run["error"]

    # Host RSS sampled through the run, on the same clock as the phases.
    series = {s["kind"]: s for s in run["memory"]["series"]}
    assert set(series) == {"host_rss"}, "a CPU run has no device series"
    samples = series["host_rss"]["samples"]
    assert all(isinstance(t, int) and isinstance(b, int) and b > 0 for t, b in samples)
    spans = {p["name"]: (p["begin_ns"], p["end_ns"]) for p in run["phases"]}
    for name in PHASES:
        begin, end = spans[name]
        assert 0 < begin <= end
        inside = [b for t, b in samples if begin <= t <= end]
        assert inside, f"no host RSS sample inside the {name} phase"
    assert run["stream"]["first_t_ns"] <= min(t for t, _ in samples) <= run["stream"]["last_t_ns"]
    # Importing torch and running the model holds more than a bare interpreter.
    assert max(b for _, b in samples) > 50 * (1 << 20)

    # The GPU parts say why they are empty.
    assert run["kernels"] is None and run["gpu_trace"] is None
    assert run["memory"]["cupti"]["active"] is False
    assert run["memory"]["cupti"]["message"]

    # The trace: Perfetto's required fields on every event, the run's phases and calls.
    trace = json.loads(trace_path.read_text())
    events = trace["traceEvents"]
    for e in events:
        assert {"ph", "name", "pid", "tid"} <= set(e), e
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
        if e["ph"] == "C":
            assert all(isinstance(v, (int, float)) for v in e["args"].values()), e
    timed = [e["ts"] for e in events if e["ph"] != "M"]
    assert timed == sorted(timed)
    tracks = {
        e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
    }
    phase_tid = next(t for t, n in tracks.items() if n == "phases")
    call_tid = next(t for t, n in tracks.items() if n == "calls")
    assert [e["name"] for e in events if e["ph"] == "X" and e["tid"] == phase_tid] == list(PHASES)
    calls = [e for e in events if e["ph"] == "X" and e["tid"] == call_tid]
    assert len(calls) == 3 + 20
    assert sum(1 for e in events if e["ph"] == "C" and e["name"] == "host memory (RSS)") == len(
        samples
    )
    assert not any("GPU" in n for n in tracks.values())
    process = next(e for e in events if e["ph"] == "M" and e["name"] == "process_name")
    assert process["args"]["name"] == "eager (ok)"


def test_a_model_that_keeps_each_output_is_told_so_with_eager_as_the_witness(run_cli):
    # The clean gallery model's advice (test_cli_advice.py) has no such finding.
    result = run_cli(
        "run",
        ROOT / "tests" / "probe" / "models" / "keeps_outputs.py",
        "--settings",
        "eager,default",
        "--backend",
        "aot_eager",
        "--device",
        "cpu",
        "--warmup",
        "2",
        "--iters",
        "10",
    )
    assert result.returncode == 0, result.stderr
    runs = result.report["runs"]
    for run in runs:
        held = run["latency"]["host_held"]
        assert held["measure"]["calls"] == 10 and held["crosscheck"]["calls"] >= 1
    found = [f for f in result.report["advice"]["findings"] if f["rule"] == "memory.growth"]
    assert len(found) == 1, found
    f = found[0]
    assert (
        f["title"].startswith("The model keeps 64.")
        and "(eager and default/aot_eager)" in f["title"]
    )
    assert f["tab"] == "Memory" and f["severity"] == "warning"
    assert f["evidence"][0].startswith("eager: malloc's bytes in use grew 64.")
    assert "collections.deque" in f["remedy"]
    assert "The model keeps 64." in result.stdout
