"""compilescope-aoti-runner on a real AOTInductor package: the event stream it
writes, its errors, its signals. ctest's aoti_runner_pytest sets
COMPILESCOPE_AOTI_RUNNER to the built runner (and COMPILESCOPE_AOTI_STREAM_OUT
to where the stream of a good run is saved, for core's EventParser test)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROTOCOL = json.loads((ROOT / "probe" / "compilescope_probe" / "protocol.json").read_text())
RUNNER = os.environ.get("COMPILESCOPE_AOTI_RUNNER", "")

pytestmark = pytest.mark.skipif(
    not RUNNER or not os.access(RUNNER, os.X_OK),
    reason="COMPILESCOPE_AOTI_RUNNER does not name a built compilescope-aoti-runner "
    "(ctest's aoti_runner_pytest sets it where torch was found at configure time)",
)

WARMUP = 3
ITERS = 50


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A tiny MLP packaged with aoti_compile_and_package (~20 s), and its inputs."""
    torch = pytest.importorskip("torch")
    saved = os.environ.get("COMPILESCOPE_AOTI_STREAM_OUT")
    if saved:  # never a stale stream from an earlier run for the replay test
        Path(saved).unlink(missing_ok=True)
    out = tmp_path_factory.mktemp("aoti")
    code = f"""
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
x = torch.randn(4, 8)
ep = torch.export.export(model, (x,))
torch._inductor.aoti_compile_and_package(ep, package_path={str(out / "mlp.pt2")!r})
torch.save([x], {str(out / "inputs.pt")!r})
torch.save([x, x], {str(out / "two_inputs.pt")!r})
torch.save([torch.randn(4, 9)], {str(out / "wide_inputs.pt")!r})
torch.save({{"x": x}}, {str(out / "dict_inputs.pt")!r})
"""
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(out / "cache"))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=out, timeout=300)
    return {"dir": out, "pt2": out / "mlp.pt2", "inputs": out / "inputs.pt", "torch": torch}


def run(*args: str, timeout: float = 120) -> tuple[int, list[dict], str]:
    p = subprocess.run(
        [RUNNER, *args], capture_output=True, timeout=timeout, text=True, check=False
    )
    return p.returncode, parse(p.stdout), p.stderr


def parse(text: str) -> list[dict]:
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    for e in events:
        assert e["type"] in PROTOCOL["events"], e
        assert isinstance(e["t_ns"], int)
    return events


def of(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


def base_args(package: dict, **over: str) -> list[str]:
    args = {
        "--package": str(package["pt2"]),
        "--inputs": str(package["inputs"]),
        "--device": "cpu",
        "--warmup": str(WARMUP),
        "--iters": str(ITERS),
    }
    args.update(over)
    return [w for kv in args.items() for w in kv]


def test_version_names_the_torch_it_was_built_against() -> None:
    torch = pytest.importorskip("torch")
    p = subprocess.run([RUNNER, "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 1
    v = json.loads(lines[0])
    init = (ROOT / "probe" / "compilescope_probe" / "__init__.py").read_text()
    version = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    assert version and v["runner"] == version.group(1)
    # "Same torch": the release, without the local build tag (+cu132, +cpu).
    assert v["torch"] == torch.__version__.split("+")[0]
    assert v["protocol"] == PROTOCOL["protocol"]
    assert isinstance(v["cuda"], bool)


def test_a_full_stream_on_cpu(package: dict) -> None:
    rc, events, stderr = run(
        *base_args(package), "--prior-phase", "export=2.5", "--prior-phase", "package=21.9"
    )
    assert rc == 0, stderr
    types = [e["type"] for e in events]
    assert types[0] == "hello" and types[-1] == "done"
    assert events[-1]["status"] == "ok"
    hello = events[0]
    assert hello["protocol"] == PROTOCOL["protocol"]
    assert hello["runner"] == "aoti"
    assert hello["torch"] == package["torch"].__version__.split("+")[0]
    assert hello["settings"]["mode"] == "aoti"
    assert hello["settings"]["warmup"] == WARMUP and hello["settings"]["iters"] == ITERS
    assert hello["device"] == "cpu"
    times = [e["t_ns"] for e in events]
    assert times == sorted(times)
    assert not of(events, "error")

    edges = [(e["name"], e["edge"]) for e in of(events, "phase")]
    assert edges == [
        ("compile", "begin"),
        ("compile", "end"),
        ("warmup", "begin"),
        ("warmup", "end"),
        ("measure", "begin"),
        ("measure", "end"),
        ("crosscheck", "begin"),
        ("crosscheck", "end"),
    ]
    measure_end = of(events, "phase")[5]
    assert measure_end["harness_overhead_ns"] >= 0
    machine = measure_end["machine_cpu"]
    assert machine["cpus"] >= 1 and machine["wall_ns"] > 0 and machine["probe_cpu_ns"] > 0
    faults = measure_end["host_faults"]
    assert faults["calls"] == ITERS and faults["allocator"] == "glibc", faults
    assert faults["minor"] >= 0 and faults["sys_cpu_ns"] >= 0 and faults["page_bytes"] > 0
    held = measure_end["host_held"]
    assert held["counter"] == "malloc" and held["calls"] == ITERS, held
    assert held["begin_bytes"] > 0 and held["end_bytes"] > 0

    single = of(events, "iteration")
    assert [e["index"] for e in single] == list(range(WARMUP))
    assert single[0]["first_call"] and all(not e["first_call"] for e in single[1:])
    assert all(e["warmup"] and e["latency_ns"] > 0 and e["wall_ns"] > 0 for e in single)
    # The first call sits in compile, the rest in warmup, as the probe does it.
    i_compile_end = events.index(of(events, "phase")[1])
    assert events.index(single[0]) < i_compile_end
    assert all(events.index(e) > i_compile_end for e in single[1:])

    chunks = of(events, "iterations")
    assert chunks
    latencies = [x for c in chunks for x in c["latency_ns"]]
    walls = [x for c in chunks for x in c["wall_ns"]]
    assert len(latencies) == ITERS == len(walls)
    assert all(x > 0 for x in latencies)
    index = WARMUP
    for c in chunks:
        assert c["first_index"] == index
        index += len(c["latency_ns"])
    # Nothing between the measured calls: no event inside the measure phase but the chunks.
    begin = events.index(of(events, "phase")[4])
    end = events.index(measure_end)
    assert {e["type"] for e in events[begin + 1 : end]} <= {"iterations"}

    ct = of(events, "compile_time")
    assert len(ct) == 1
    names = [p["name"] for p in ct[0]["phases"]]
    assert names == ["export", "package", "load", "first_call"]
    seconds = {p["name"]: p["seconds"] for p in ct[0]["phases"]}
    assert seconds["export"] == 2.5 and seconds["package"] == 21.9
    assert seconds["load"] > 0 and seconds["first_call"] > 0
    assert ct[0]["first_call_ns"] == pytest.approx(
        (seconds["load"] + seconds["first_call"]) * 1e9, rel=1e-6, abs=2
    )
    assert "AOTIModelPackageLoader" in ct[0]["source"]

    cross = of(events, "crosscheck")
    assert len(cross) == 1 and cross[0]["block_calls"] >= 1 and cross[0]["block_means_ns"]
    # In its own phase, after the measure phase.
    assert events.index(of(events, "phase")[6]) < events.index(cross[0])
    assert events.index(cross[0]) < events.index(of(events, "phase")[7])
    cross_held = of(events, "phase")[7]["host_held"]
    blocks = cross[0]["block_calls"] * len(cross[0]["block_means_ns"])
    assert cross_held["counter"] == "malloc" and cross_held["calls"] == blocks, cross_held
    # A compiled package keeps nothing per call: well under the advice's 1 KiB.
    for window in (held, cross_held):
        per_call = (window["end_bytes"] - window["begin_bytes"]) / window["calls"]
        assert per_call < 1024, window

    rss = [s for e in of(events, "memory") if e["kind"] == "host_rss" for s in e["samples"]]
    assert rss and all(len(s) == 2 and s[1] > 0 for s in rss)
    # Sampled at the edges: inside the measure phase too, though the sampler paused.
    m0, m1 = of(events, "phase")[4]["t_ns"], measure_end["t_ns"]
    assert any(m0 <= s[0] <= m1 for s in rss)

    load_ms = seconds["load"] * 1e3
    per_call_us = sorted(latencies)[len(latencies) // 2] / 1e3
    print(f"aoti runner: load {load_ms:.2f} ms, median call {per_call_us:.1f} us")

    saved = os.environ.get("COMPILESCOPE_AOTI_STREAM_OUT")
    if saved:
        Path(saved).write_text("".join(json.dumps(e) + "\n" for e in events))


def test_continue_stream_writes_on_the_given_fd_without_hello_or_done(package: dict) -> None:
    r, w = os.pipe()
    try:
        p = subprocess.run(
            [RUNNER, *base_args(package, **{"--iters": "5"}), "--events-fd", str(w)]
            + ["--continue-stream", "--threads", "1"],
            capture_output=True,
            text=True,
            pass_fds=(w,),
            timeout=120,
        )
        os.close(w)
        w = -1
        with os.fdopen(r, "r") as f:
            r = -1
            events = parse(f.read())
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""  # nothing on stdout when events go elsewhere
    types = {e["type"] for e in events}
    assert "hello" not in types and "done" not in types
    assert sum(len(c["latency_ns"]) for c in of(events, "iterations")) == 5


def expect_fatal(rc: int, events: list[dict], kind: str, names: Path) -> dict:
    assert rc == 3
    errors = of(events, "error")
    assert len(errors) == 1, events
    e = errors[0]
    assert e["kind"] == kind and e["fatal"] is True and e["traceback"] == ""
    assert str(names) in e["message"], e["message"]
    assert events[0]["type"] == "hello"
    assert events[-1]["type"] == "done" and events[-1]["status"] == "failed"
    return e


@pytest.mark.parametrize("damage", ["truncated", "random", "empty", "missing"])
def test_a_bad_package_is_an_error_naming_it(package: dict, damage: str, tmp_path: Path) -> None:
    bad = tmp_path / f"{damage}.pt2"
    data = package["pt2"].read_bytes()
    if damage == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    elif damage == "random":
        bad.write_bytes(os.urandom(4096))
    elif damage == "empty":
        bad.write_bytes(b"")
    rc, events, _ = run(*base_args(package, **{"--package": str(bad)}))
    e = expect_fatal(rc, events, "model_not_found" if damage == "missing" else "bad_package", bad)
    if damage != "missing":
        assert "aoti_compile_and_package" in e["message"]


@pytest.mark.parametrize("damage", ["missing", "random", "not_tensors"])
def test_bad_inputs_are_an_error_naming_the_file(
    package: dict, damage: str, tmp_path: Path
) -> None:
    bad = tmp_path / f"{damage}.pt"
    if damage == "random":
        bad.write_bytes(os.urandom(2048))
    elif damage == "not_tensors":
        bad = package["dir"] / "dict_inputs.pt"
    rc, events, _ = run(*base_args(package, **{"--inputs": str(bad)}))
    e = expect_fatal(rc, events, "bad_inputs", bad)
    assert "torch.save" in e["message"]


@pytest.mark.parametrize("inputs", ["two_inputs.pt", "wide_inputs.pt"])
def test_inputs_the_package_rejects(package: dict, inputs: str) -> None:
    bad = package["dir"] / inputs
    rc, events, _ = run(*base_args(package, **{"--inputs": str(bad)}))
    e = expect_fatal(rc, events, "model_raised", package["pt2"])
    assert str(bad) in e["message"]
    assert "Exception raised from" not in e["message"]  # libtorch's words, not its backtrace


def test_no_measured_calls(package: dict) -> None:
    rc, events, stderr = run(*base_args(package, **{"--iters": "0"}))
    assert rc == 0, stderr
    assert not of(events, "iterations") and not of(events, "crosscheck")
    assert [e["name"] for e in of(events, "phase")][-1] == "measure"
    assert len(of(events, "iteration")) == WARMUP


def test_a_cuda_device_that_is_not_there(package: dict) -> None:
    torch = package["torch"]
    device = f"cuda:{torch.cuda.device_count() + 3}"
    rc, events, _ = run(*base_args(package, **{"--device": device}))
    assert rc == 3
    (e,) = of(events, "error")
    assert e["kind"] == "no_cuda" and device in e["message"]


def test_bad_arguments_exit_2_with_usage(package: dict) -> None:
    rc, events, stderr = run("--package", str(package["pt2"]), "--device", "cpu")
    assert rc == 2
    assert "usage:" in stderr and "--inputs" in stderr
    (e,) = events
    assert e["type"] == "error" and e["kind"] == "bad_arguments" and e["fatal"]
    rc, _, stderr = run(*base_args(package, **{"--warmup": "0"}))
    assert rc == 2 and "--warmup" in stderr


def test_an_events_fd_that_is_not_open(package: dict) -> None:
    rc, events, stderr = run(*base_args(package), "--events-fd", "97")
    assert rc == 2 and "--events-fd 97 is not an open descriptor" in stderr
    assert not events


def start_long_run(package: dict, tmp: Path) -> tuple[subprocess.Popen, list[str]]:
    """A run with far more measured calls than the test waits for; returns once
    the first `iterations` chunk has been read. libtorch unpacks the package
    under `tmp` (TMPDIR), where a killed runner leaves it."""
    p = subprocess.Popen(
        [RUNNER, *base_args(package, **{"--iters": "100000000"})],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, TMPDIR=str(tmp)),
    )
    lines: list[str] = []
    deadline = time.monotonic() + 120
    assert p.stdout is not None
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if json.loads(line)["type"] == "iterations":
            return p, lines
    p.kill()
    pytest.fail("no iterations chunk within 120 s:\n" + "".join(lines))


def test_sigkill_mid_measure_keeps_the_chunks_already_written(
    package: dict, tmp_path: Path
) -> None:
    p, lines = start_long_run(package, tmp_path)
    # Read on while it runs, as core does: a reader that stops lets the pipe fill.
    assert p.stdout is not None
    stdout = p.stdout
    reader = threading.Thread(target=lambda: lines.append(stdout.read()), daemon=True)
    reader.start()
    time.sleep(0.6)  # a couple more chunks
    p.kill()
    p.wait(timeout=30)
    reader.join(timeout=30)
    text = "".join(lines)
    # Every whole line is JSON; only a line cut by the kill itself, the last,
    # may lack its newline (core reports it as a partial line).
    whole = text[: text.rfind("\n") + 1]
    events = parse(whole)
    chunks = of(events, "iterations")
    assert len(chunks) >= 2
    assert all(c["latency_ns"] and all(x > 0 for x in c["latency_ns"]) for c in chunks)
    assert not of(events, "done")
    # The unpacked package stays, in the TMPDIR given: the probe runs the
    # runner with its work folder as TMPDIR, and removes that folder.
    assert [d.name.startswith("aotinductor_") for d in tmp_path.iterdir()] == [True]


def test_sigterm_mid_measure_sends_the_calls_not_yet_sent(package: dict, tmp_path: Path) -> None:
    p, lines = start_long_run(package, tmp_path)
    time.sleep(0.1)  # inside the next 250 ms: calls timed, not yet sent
    p.send_signal(signal.SIGTERM)
    rest, _ = p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM
    events = parse("".join(lines) + rest)
    chunks = of(events, "iterations")
    assert len(chunks) >= 2  # the first, and the flush of what followed
    assert of(events, "log")[-1]["message"].endswith(f"signal {int(signal.SIGTERM)}")
    index = chunks[0]["first_index"]
    for c in chunks:
        assert c["first_index"] == index
        index += len(c["latency_ns"])
