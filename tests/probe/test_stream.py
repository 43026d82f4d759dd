"""The event stream of a normal run, on a tiny model: order, timing, isolation."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import threading
import time

import pytest
from conftest import PROBE_PATH, ROOT, assert_well_formed, fixture_model, gallery, run_probe

WARMUP, ITERS = 3, 5


@pytest.fixture(scope="module")
def tiny_run():
    # --sweep (the front ends' default) on a model without get_input_sweep(): no sweep, no news
    return run_probe(
        gallery("print_break"),
        "--backend",
        "aot_eager",
        "--warmup",
        str(WARMUP),
        "--iters",
        str(ITERS),
        "--sweep",
    )


def test_stream_is_well_formed(tiny_run):
    assert_well_formed(tiny_run)
    assert tiny_run.events[-1]["status"] == "ok", tiny_run.describe()
    assert not tiny_run.errors()


def test_hello_describes_interpreter_and_settings(tiny_run):
    hello = tiny_run.events[0]
    assert hello["python_executable"] == sys.executable
    import torch

    assert hello["torch"] == torch.__version__
    assert hello["pid"] > 0
    settings = hello["settings"]
    assert (
        settings["backend"] == "aot_eager"
        and settings["warmup"] == WARMUP
        and settings["iters"] == ITERS
    )
    assert (
        settings["mode"] == "default"
        and settings["dynamic"] == "auto"
        and settings["fullgraph"] is False
    )
    assert settings["sweep"] is True and settings["model"] == str(gallery("print_break"))
    # a fresh cache directory, removed at exit
    assert hello["cache_dir"] and not os.path.exists(hello["cache_dir"])


def test_phases_in_order(tiny_run):
    edges = [(e["name"], e["edge"]) for e in tiny_run.of("phase")]
    assert edges == [
        ("load", "begin"),
        ("load", "end"),
        ("compile", "begin"),
        ("compile", "end"),
        ("warmup", "begin"),
        ("warmup", "end"),
        ("measure", "begin"),
        ("measure", "end"),
        ("crosscheck", "begin"),
        ("crosscheck", "end"),
        ("profile", "begin"),
        ("profile", "end"),
        ("outputs", "begin"),
        ("outputs", "end"),
    ]
    assert not [e for e in tiny_run.of("log") if "get_input_sweep" in e["message"]]
    model = tiny_run.one("model")
    assert model in tiny_run.phase_span("load")
    assert model["file"] == str(gallery("print_break"))
    # named as the forward's parameter, as Dynamo's guards name it
    assert model["inputs"] == [{"shape": [16, 64], "dtype": "float32", "name": "x"}]
    assert model["parameters"] == 64 * 128 + 128 + 128 * 10 + 10
    assert model["device"] == "cpu"


def test_iterations(tiny_run):
    its = tiny_run.calls()
    assert [i["index"] for i in its] == list(range(WARMUP + ITERS))
    assert all(i["latency_ns"] > 0 and i["wall_ns"] > 0 for i in its)
    assert [i["first_call"] for i in its] == [True] + [False] * (WARMUP + ITERS - 1)
    assert [i["warmup"] for i in its] == [True] * WARMUP + [False] * ITERS
    # each call sits in its phase: the compile call, the rest of warmup, the measured calls
    assert [e["index"] for e in tiny_run.phase_span("compile") if e["type"] == "iteration"] == [0]
    assert [e["index"] for e in tiny_run.phase_span("warmup") if e["type"] == "iteration"] == list(
        range(1, WARMUP)
    )
    # the measured calls come in chunks, with no event per call
    measure = tiny_run.phase_span("measure")
    assert not [e for e in measure if e["type"] == "iteration"]
    assert len(tiny_run.calls(measure)) == ITERS
    # the compile call is the slow one
    steady = statistics.median(i["latency_ns"] for i in its[WARMUP:])
    assert its[0]["latency_ns"] > steady


def test_harness_overhead_reported(tiny_run):
    end = [e for e in tiny_run.of("phase") if e["name"] == "measure" and e["edge"] == "end"][0]
    overhead = end["harness_overhead_ns"]
    assert isinstance(overhead, int) and overhead >= 0
    steady = statistics.median(i["latency_ns"] for i in tiny_run.calls()[WARMUP:])
    assert overhead < steady, "timing an empty function cannot cost more than running the model"


def test_the_measure_end_carries_the_host_reference(tiny_run):
    # A fixed CPU workload timed before the warmup and after the measured
    # calls (docs/measuring.md, "The machine's speed").
    end = [e for e in tiny_run.of("phase") if e["name"] == "measure" and e["edge"] == "end"][0]
    ref = end["host_reference"]
    assert set(ref) == {"before_ns", "after_ns"}
    assert all(isinstance(v, int) and v > 0 for v in ref.values()), ref
    # Six 256x256 matmuls: well above a microsecond, far below a second.
    assert all(1_000 < v < 1_000_000_000 for v in ref.values()), ref


def test_compile_time_after_first_call(tiny_run):
    ct = tiny_run.one("compile_time")
    order = [e["type"] for e in tiny_run.events]
    pos = tiny_run.events.index(ct)
    compile_end = next(
        i
        for i, e in enumerate(tiny_run.events)
        if e["type"] == "phase" and e["name"] == "compile" and e["edge"] == "end"
    )
    warmup_begin = next(
        i
        for i, e in enumerate(tiny_run.events)
        if e["type"] == "phase" and e["name"] == "warmup" and e["edge"] == "begin"
    )
    assert compile_end < pos < warmup_begin, order
    assert ct["first_call_ns"] == tiny_run.of("iteration")[0]["wall_ns"]
    # aot_eager: Dynamo and AOTAutograd took time, Inductor did nothing; the parts add up
    s = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert s["dynamo_tracing"] > 0 and s["aot_autograd"] > 0
    assert s["inductor_codegen"] == s["cpp_triton_compile"] == s["autotune"] == 0
    assert sum(s.values()) == pytest.approx(ct["first_call_ns"] / 1e9)
    assert ct["compiles"] == len(tiny_run.of("graph")) == 2


def test_host_memory_sampled(tiny_run):
    samples = [s for e in tiny_run.of("memory") if e["kind"] == "host_rss" for s in e["samples"]]
    assert len(samples) >= 3
    assert all(b > 0 for _, b in samples)
    times = [t for t, _ in samples]
    assert times == sorted(times)
    hello_t, done_t = tiny_run.events[0]["t_ns"], tiny_run.events[-1]["t_ns"]
    assert hello_t <= times[0] and times[-1] <= done_t
    # importing torch and compiling grows the process well past a bare interpreter
    assert max(b for _, b in samples) > 2 * min(b for _, b in samples)


def test_cupti_status_says_why_not_on_cpu(tiny_run):
    st = tiny_run.one("cupti_status")
    assert st["active"] is False and "cpu" in st["message"]


def test_user_output_never_enters_the_stream():
    run = run_probe(fixture_model("chatty"), "--backend", "eager", "--warmup", "2", "--iters", "2")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    # every stdout line parsed as an event (run_probe checks); none is the model's text
    assert not any(line.startswith(("CHATTY", "raw write")) for line in run.stdout.splitlines())
    # exactly one done: the model's fake one went to stderr
    assert sum(1 for e in run.events if e["type"] == "done") == 1
    for text in (
        "CHATTY forward print",
        "CHATTY sys.stdout write",
        "CHATTY get_model print",
        "raw write to fd 1",
    ):
        assert text in run.stderr
    # the forward prints ran once per call (4 calls, then the cross-check's
    # blocks, then the profile phase's calls and the one that warms the
    # profiler up, then the outputs check's two eager calls and one compiled),
    # torch's compile never duplicating them
    check = run.one("crosscheck")
    blocks = check["block_calls"] * len(check["block_means_ns"])
    profiled = run.one("kernel_profile")["calls"] + 1
    assert run.stderr.count("CHATTY forward print") == 4 + blocks + profiled + 3


def test_bad_arguments():
    run = run_probe(gallery("mlp"), "--mode", "fastest", "--warmup", "0")
    assert_well_formed(run)
    err = run.one("error")
    assert err["kind"] == "bad_arguments" and "--mode" in err["message"] and err["fatal"] is True
    assert run.events[-1]["status"] == "failed" and run.returncode == 3


def test_bad_counts_are_bad_arguments():
    run = run_probe(gallery("mlp"), "--warmup", "0")
    assert run.one("error")["kind"] == "bad_arguments"
    assert "at least 1" in run.one("error")["message"]


def test_interpreter_without_torch(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    t0 = time.monotonic()
    run = run_probe(gallery("mlp"), python=python)
    assert time.monotonic() - t0 < 30
    assert_well_formed(run)
    hello = run.events[0]
    assert hello["torch"] is None and hello["python_executable"] == python
    err = run.one("error")
    assert err["kind"] == "no_torch"
    assert python in err["message"] and f'"{python}" -m pip install torch' in err["message"]
    assert run.events[-1]["status"] == "failed" and run.returncode == 3


def test_sigterm_ends_the_probe_promptly():
    env = dict(os.environ, PYTHONPATH=str(PROBE_PATH))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "compilescope_probe",
            "--model",
            str(gallery("mlp")),
            "--mode",
            "eager",
            "--warmup",
            "1",
            "--iters",
            "1000000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=str(ROOT),
    )
    import json

    cache_dir = None
    # A stream that never reaches the measured loop must fail the test, not hang it.
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        for line in proc.stdout:
            e = json.loads(line)
            if e["type"] == "hello":
                cache_dir = e["cache_dir"]
            if e["type"] == "iterations":
                break  # the first chunk of measured calls: inside the measured loop
        watchdog.cancel()
        assert proc.poll() is None, "the probe ended (or was killed) before measuring"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=10)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert elapsed < 2.0, f"took {elapsed:.1f} s to stop"
    assert rc == 128 + signal.SIGTERM
    assert cache_dir and not os.path.exists(cache_dir)
