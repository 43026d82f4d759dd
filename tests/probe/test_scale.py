"""The batch-size walk (--batch-sizes): its events, its inputs, and each way
it stops. Models are tiny and run with one thread; the compiling runs are
marked slow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import PROBE_PATH, ROOT, assert_well_formed, gallery, run_probe, run_probes

from compilescope_probe import settings as probe_settings
from compilescope_probe.errors import ProbeError
from compilescope_probe.loader import batch_parameter
from compilescope_probe.scale import predict_peak, predict_seconds

QUICK = ("--warmup", "2", "--iters", "5", "--threads", "1")
POINT_FIELDS = {
    "type",
    "t_ns",
    "batch_size",
    "first_call_ns",
    "latency_ns",
    "peak_memory_bytes",
    "memory_kind",
    "recompiles",
}


def write_model(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text("import torch\nfrom torch import nn\n\n" + textwrap.dedent(body))
    return path


def check_point(p: dict, iters: int = 5) -> None:
    assert set(p) == POINT_FIELDS, p
    assert p["first_call_ns"] > 0
    assert len(p["latency_ns"]) == iters and all(x > 0 for x in p["latency_ns"])
    assert p["memory_kind"] == "host_rss" and p["peak_memory_bytes"] > 0
    assert p["recompiles"] >= 0


def walk_of(run) -> tuple[dict, list[dict], dict]:
    return run.one("scale_plan"), run.of("scale_point"), run.one("scale_stop")


# -- without a process ------------------------------------------------------------------
def test_batch_sizes_argument():
    s = probe_settings.parse(["--model", "m.py", "--batch-sizes", " 1, 4,16"])
    assert s.scaling and not s.scale_auto and s.scale_sizes == [1, 4, 16]
    assert s.as_event()["batch_sizes"] == "1,4,16" and s.budget_s == 300.0
    auto = probe_settings.parse(["--model", "m.py", "--batch-sizes", "AUTO", "--budget-s", "0.5"])
    assert auto.scale_auto and auto.scale_sizes == [] and auto.budget_s == 0.5
    plain = probe_settings.parse(["--model", "m.py"])
    assert not plain.scaling and "batch_sizes" not in plain.as_event()
    for bad in (["--batch-sizes", "4,1"], ["--batch-sizes", "0,2"], ["--batch-sizes", "1,x"]):
        with pytest.raises(probe_settings.BadArguments):
            probe_settings.parse(["--model", "m.py", *bad])
    with pytest.raises(probe_settings.BadArguments):
        probe_settings.parse(["--model", "m.py", "--budget-s", "0"])
    with pytest.raises(probe_settings.BadArguments):
        probe_settings.parse(["--model", "m.py", "--memory-cap-mb", "-1"])


def test_batch_parameter():
    def plain():
        pass

    def with_default(batch_size=8):
        pass

    def required(n):
        pass

    def star(*args):
        pass

    def keyword_only(*, batch_size=8):
        pass

    assert batch_parameter(plain) == (False, False)
    assert batch_parameter(with_default) == (True, False)
    assert batch_parameter(required) == (True, True)
    assert batch_parameter(star) == (True, False)
    assert batch_parameter(keyword_only) == (False, False)


def test_predicted_peak():
    mib = 1 << 20
    assert predict_peak([], 2) is None
    # one size: what it grew by, once more
    assert predict_peak([(1, 100 * mib, 130 * mib)], 2) == 160 * mib
    # two or more: the last two peaks' slope per sample, carried on
    assert predict_peak([(1, 100 * mib, 200 * mib), (2, 150 * mib, 210 * mib)], 4) == 230 * mib
    # a peak that fell predicts no growth
    assert predict_peak([(4, 0, 300 * mib), (8, 0, 250 * mib)], 16) == 250 * mib


def test_predicted_seconds():
    assert predict_seconds([]) is None
    assert predict_seconds([3.0]) == 3.0  # one size: its own time
    assert predict_seconds([2.0, 5.0]) == 12.5  # grown as it grew
    assert predict_seconds([9.0, 8.0]) == 8.0  # compile-bound: never less
    assert predict_seconds([1.0, 10.0]) == 40.0  # one jump counts 4x at most


def test_dim0_scaling_and_refusal():
    import torch

    from compilescope_probe.scale import common_batch, dim0_inputs

    x, y = torch.arange(6.0).reshape(3, 2), torch.tensor([10, 11, 12])
    inputs = ({"x": x}, [y], 7)
    assert common_batch(inputs, torch.Tensor, "m.py") == 3
    big = dim0_inputs(torch, inputs, 3, 7)
    assert big[2] == 7  # not a tensor: left as it is
    assert big[0]["x"].shape == (7, 2) and torch.equal(big[0]["x"][3:6], x)
    assert big[1][0].tolist() == [10, 11, 12, 10, 11, 12, 10]
    assert dim0_inputs(torch, inputs, 3, 3) is inputs
    for bad, why in (
        ((x, torch.zeros(4)), "differs"),
        ((x, torch.tensor(1.0)), "0-d"),
        ((3, "a"), "no tensor"),
        ((torch.zeros(0, 2),), "empty"),
    ):
        with pytest.raises(ProbeError) as e:
            common_batch(bad, torch.Tensor, "torchvision:x")
        assert e.value.kind == "no_batch_dimension" and why in e.value.message
        assert "get_inputs(batch_size)" in e.value.message


# -- the gallery MLP at 1, 4, 16 ---------------------------------------------------------
@pytest.fixture(scope="module")
def mlp_walks():
    args = ("--batch-sizes", "1,4,16", *QUICK)
    eager, default = run_probes(
        [
            (gallery("mlp"), "--mode", "eager", *args),
            (gallery("mlp"), "--mode", "default", *args),
        ]
    )
    return {"eager": eager, "default": default}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["eager", "default"])
def test_mlp_walk(mlp_walks, mode):
    run = mlp_walks[mode]
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    plan, points, stop = walk_of(run)
    assert plan == {
        "type": "scale_plan",
        "t_ns": plan["t_ns"],
        "batch_source": "dim0",  # mlp.py's get_inputs() takes no batch size
        "sizes": [1, 4, 16],
        "auto": False,
        "dynamic": False,
        "budget_s": 300.0,
        "memory_cap_bytes": plan["memory_cap_bytes"],
    }
    assert plan["memory_cap_bytes"] > 0  # 80% of MemAvailable
    assert [p["batch_size"] for p in points] == [1, 4, 16]
    for p in points:
        check_point(p)
    assert stop["reason"] == "done" and stop["batch_size"] == 0
    # every walk event inside the scale phase; no usual harness phases
    span = run.phase_span("scale")
    assert span[0]["type"] == "scale_plan" and stop in span and all(p in span for p in points)
    phases = {e["name"] for e in run.of("phase")}
    assert phases == {"load", "scale"}
    assert not run.of("iteration") and not run.of("iterations")
    if mode == "eager":
        assert all(p["recompiles"] == 0 for p in points)
        # From the fastest of the five calls: on a loaded 2-core machine (this
        # walk runs beside a compiling one) a median of five can take a stall.
        tput = [p["batch_size"] / min(p["latency_ns"]) for p in points]
        assert tput[-1] > tput[0], f"throughput does not grow: {tput}"
    else:
        # dynamic=False: each size its own compile, counted as a recompile after the first
        assert [p["recompiles"] for p in points] == [0, 1, 1]
        assert len(run.of("recompile")) == 2 and not run.of("recompile_limit")
        # the compiling first call of the first size costs more than its measured calls
        assert points[0]["first_call_ns"] > 10 * max(points[0]["latency_ns"])


@pytest.mark.slow
def test_dynamic_true_compiles_once_for_the_sizes(tmp_path):
    model = write_model(
        tmp_path,
        "small",
        """
        def get_model():
            torch.manual_seed(0)
            return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

        def get_inputs():
            return (torch.randn(2, 8),)
        """,
    )
    run = run_probe(
        model, "--backend", "aot_eager", "--dynamic", "true", "--batch-sizes", "2,4,8", *QUICK
    )
    assert_well_formed(run)
    plan, points, stop = walk_of(run)
    assert plan["dynamic"] is True and stop["reason"] == "done"
    assert [p["batch_size"] for p in points] == [2, 4, 8]
    # 2 compiles static, 4 once more as dynamic; 8 reuses that graph
    assert points[-1]["recompiles"] == 0


# -- the input contract ------------------------------------------------------------------
def test_get_inputs_batch_size_is_called(tmp_path):
    log = tmp_path / "sizes.txt"
    model = write_model(
        tmp_path,
        "takes_batch",
        f"""
        def get_model():
            return nn.Linear(8, 4)

        def get_inputs(batch_size=3):
            with open({str(log)!r}, "a") as f:
                f.write(f"{{batch_size}}\\n")
            return (torch.randn(batch_size, 8),)
        """,
    )
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "1,2,5", *QUICK)
    assert_well_formed(run)
    plan, points, stop = walk_of(run)
    assert plan["batch_source"] == "get_inputs(batch_size)"
    assert [p["batch_size"] for p in points] == [1, 2, 5] and stop["reason"] == "done"
    # get_inputs() once at load with its default, then once per size
    assert log.read_text().split() == ["3", "1", "2", "5"]
    assert run.one("model")["inputs"][0]["shape"] == [3, 8]


def test_each_sizes_last_warmup_calls_run_as_quietly_as_its_measured_ones(tmp_path):
    # Whether the capture's handler is on torch's trace logger, call by call.
    log = tmp_path / "hooks.txt"
    model = write_model(
        tmp_path,
        "notes_hooks",
        f"""
        import logging

        @torch.compiler.disable
        def note():
            hooked = any(type(h).__name__ == "_TraceHandler"
                         for h in logging.getLogger("torch.__trace").handlers)
            with open({str(log)!r}, "a") as f:
                f.write("h" if hooked else "q")

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 4)

            def forward(self, x):
                note()
                return self.lin(x)

        def get_model():
            return M()

        def get_inputs(batch_size=2):
            return (torch.randn(batch_size, 8),)
        """,
    )
    run = run_probe(
        model,
        "--mode",
        "default",
        "--backend",
        "eager",
        "--batch-sizes",
        "1,2",
        "--warmup",
        "10",
        "--iters",
        "5",
        "--threads",
        "1",
    )
    assert_well_formed(run)
    _, points, stop = walk_of(run)
    assert [p["batch_size"] for p in points] == [1, 2] and stop["reason"] == "done"
    # Per size: the first call and 5 more warmup calls hooked, the warmup's
    # last 4 (quiet_warmup_calls(10, 5)) and the 5 measured calls quiet.
    per_size = "h" * 6 + "q" * 9
    assert log.read_text() == per_size * 2


def test_get_inputs_without_a_default(tmp_path):
    model = write_model(
        tmp_path,
        "needs_batch",
        """
        def get_model():
            return nn.Linear(8, 4)

        def get_inputs(batch_size):
            return (torch.randn(batch_size, 8),)
        """,
    )
    walk, plain = run_probes(
        [
            (model, "--mode", "eager", "--batch-sizes", "2,4", *QUICK),
            (model, "--mode", "eager", *QUICK),
        ]
    )
    assert_well_formed(walk)
    assert walk.events[-1]["status"] == "ok", walk.describe()
    assert walk.one("model")["inputs"][0]["shape"] == [2, 8]  # loaded at the first size
    assert [p["batch_size"] for p in walk.of("scale_point")] == [2, 4]
    assert plain.events[-1]["status"] == "failed"
    err = plain.one("error")
    assert err["kind"] == "missing_get_inputs" and "get_inputs(batch_size=8)" in err["message"]


def test_dim0_fallback_repeats_real_rows(tmp_path):
    model = write_model(
        tmp_path,
        "two_inputs",
        """
        class Both(nn.Module):
            def forward(self, x, extra):
                assert x.shape[0] == extra["y"].shape[0]
                if x.shape[0] > 3:  # rows repeat the loaded batch of 3
                    assert torch.equal(x[3:6], x[0:3]) and torch.equal(extra["y"][3:6], extra["y"][:3])
                return x.sum(1) + extra["y"]

        def get_model():
            return Both()

        def get_inputs():
            return (torch.randn(3, 8), {"y": torch.randn(3)})
        """,
    )
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "1,2,7", *QUICK)
    assert_well_formed(run)
    plan, points, stop = walk_of(run)
    assert plan["batch_source"] == "dim0"
    assert stop["reason"] == "done", stop
    assert [p["batch_size"] for p in points] == [1, 2, 7]
    assert not run.errors()


def test_inputs_without_a_common_batch_are_refused(tmp_path):
    model = write_model(
        tmp_path,
        "no_batch",
        """
        def get_model():
            return lambda a, b: a.sum() + b.sum()

        def get_inputs():
            return (torch.randn(3, 8), torch.randn(4, 8))
        """,
    )
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "1,2", *QUICK)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "failed"
    err = run.one("error")
    assert err["kind"] == "no_batch_dimension" and err["fatal"] is True
    assert "[3, 8], [4, 8]" in err["message"] and "get_inputs(batch_size)" in err["message"]
    assert not run.of("scale_point") and not run.of("scale_plan")


# -- how a walk stops ----------------------------------------------------------------------
def test_host_memory_cap_stops_auto(tmp_path):
    # 16 MiB of input and 16 of output per sample: the walk's memory doubles
    # with the batch until the cap stops it.
    model = write_model(
        tmp_path,
        "hungry",
        """
        def get_model():
            return lambda x: x * 2

        def get_inputs(batch_size=1):
            return (torch.ones(batch_size, 4 << 20),)
        """,
    )
    cap_mb = 1500
    run = run_probe(
        model,
        "--mode",
        "eager",
        "--batch-sizes",
        "auto",
        "--memory-cap-mb",
        str(cap_mb),
        "--warmup",
        "1",
        "--iters",
        "2",
    )
    assert_well_formed(run)
    plan, points, stop = walk_of(run)
    if not points and "before batch 1" in stop["message"]:
        pytest.skip(f"this torch's probe already holds more than {cap_mb} MiB: {stop['message']}")
    assert plan["auto"] is True and plan["sizes"] == [] and plan["memory_cap_bytes"] == cap_mb << 20
    assert stop["reason"] == "memory_cap", stop
    assert run.events[-1]["status"] == "ok"
    sizes = [p["batch_size"] for p in points]
    assert sizes == [2**k for k in range(len(sizes))] and len(sizes) >= 1
    assert stop["batch_size"] in (sizes[-1], sizes[-1] * 2)
    assert "MiB" in stop["message"] and str(cap_mb) in stop["message"]
    for p in points:
        check_point(p, iters=2)
    # the kept sizes' peaks grew with the batch, and the walk never went far past the cap
    assert points[-1]["peak_memory_bytes"] > points[0]["peak_memory_bytes"]
    assert max(p["peak_memory_bytes"] for p in points) < (cap_mb + 600) << 20


def test_host_memory_cap_stops_a_size_midway(tmp_path):
    # From batch 1 the jump to 32 looks harmless (what batch 1 grew by, once
    # more); batch 32's own inputs and output pass the cap, and the walk
    # stops inside that size.
    model = write_model(
        tmp_path,
        "jump",
        """
        def get_model():
            return lambda x: x * 2

        def get_inputs(batch_size=1):
            return (torch.ones(batch_size, 4 << 20),)
        """,
    )
    cap_mb = 1300
    args = ("--warmup", "1", "--iters", "2", "--memory-cap-mb", str(cap_mb))
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "1,32", *args)
    assert_well_formed(run)
    _, points, stop = walk_of(run)
    if not points and "before batch 1" in stop["message"]:
        pytest.skip(f"this torch's probe already holds more than {cap_mb} MiB: {stop['message']}")
    assert [p["batch_size"] for p in points] == [1]
    assert stop["reason"] == "memory_cap" and stop["batch_size"] == 32, stop
    assert "during batch 32" in stop["message"], stop
    assert run.events[-1]["status"] == "ok"


def test_budget_stops_auto(tmp_path):
    model = write_model(
        tmp_path,
        "tiny",
        """
        def get_model():
            return nn.Linear(8, 8)

        def get_inputs():
            return (torch.randn(4, 8),)
        """,
    )
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "auto", "--budget-s", "0.5", *QUICK)
    assert_well_formed(run)
    plan, points, stop = walk_of(run)
    assert plan["budget_s"] == 0.5
    assert stop["reason"] == "budget", stop
    assert len(points) >= 1 and stop["batch_size"] == 2 * points[-1]["batch_size"]
    assert run.events[-1]["status"] == "ok"
    scale = [e["t_ns"] for e in run.of("phase") if e["name"] == "scale"]
    # the last size began before the budget was spent; the walk ended after it
    assert scale[1] - scale[0] < 30e9


def test_budget_is_not_overrun_by_the_next_size(tmp_path):
    # Each call sleeps 4 ms per sample: a size's time doubles with the batch,
    # so the size that would end past the budget is foreseen and not begun.
    model = write_model(
        tmp_path,
        "slow_per_sample",
        """
        import time

        class M(nn.Module):
            def forward(self, x):
                time.sleep(0.004 * x.shape[0])
                return x + 1

        def get_model():
            return M()

        def get_inputs():
            return (torch.randn(1, 4),)
        """,
    )
    budget = 2.0
    run = run_probe(
        model, "--mode", "eager", "--batch-sizes", "auto", "--budget-s", str(budget), *QUICK
    )
    assert_well_formed(run)
    _, points, stop = walk_of(run)
    assert stop["reason"] == "budget", stop
    assert "would take about" in stop["message"], stop
    scale = [e["t_ns"] for e in run.of("phase") if e["name"] == "scale"]
    # A foreseen time is an estimate (each size's fixed cost grows less than
    # its sleep): a quarter over is slack for a loaded machine. Without the
    # foresight the walk started batch 64 after ~1.8 s and ended past 3.5 s.
    assert (scale[1] - scale[0]) / 1e9 < 1.25 * budget, stop
    # 7 calls at batch 4 sleep 0.11 s: the walk got at least that far
    assert points[-1]["batch_size"] >= 4, points


def test_error_at_a_size_keeps_the_sizes_before(tmp_path):
    model = write_model(
        tmp_path,
        "breaks_at_4",
        """
        def forward(x):
            if x.shape[0] >= 4:
                raise ValueError("batch too big for this model")
            return x + 1

        def get_model():
            return forward

        def get_inputs():
            return (torch.randn(1, 8),)
        """,
    )
    run = run_probe(model, "--mode", "eager", "--batch-sizes", "1,2,4,8", *QUICK)
    assert_well_formed(run)
    _, points, stop = walk_of(run)
    assert [p["batch_size"] for p in points] == [1, 2]
    assert stop["reason"] == "error" and stop["batch_size"] == 4
    err = run.one("error")
    assert err["kind"] == "model_raised" and err["fatal"] is False
    assert "batch 4" in err["message"] and "batch too big" in err["message"]
    assert run.events[-1]["status"] == "ok"


def test_out_of_memory_ends_the_walk_keeping_the_sizes_before(tmp_path):
    # what torch raises on a CUDA out-of-memory, raised on CPU from batch 8 on
    model = write_model(
        tmp_path,
        "ooms_at_8",
        """
        def forward(x):
            if x.shape[0] >= 8:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")
            return x + 1

        def get_model():
            return forward

        def get_inputs():
            return (torch.randn(1, 8),)
        """,
    )
    walk, first = run_probes(
        [
            (model, "--mode", "eager", "--batch-sizes", "auto", *QUICK),
            (model, "--mode", "eager", "--batch-sizes", "8,16", *QUICK),
        ]
    )
    assert_well_formed(walk)
    _, points, stop = walk_of(walk)
    assert [p["batch_size"] for p in points] == [1, 2, 4]
    assert stop["reason"] == "oom" and stop["batch_size"] == 8
    assert "out of memory at batch 8" in stop["message"]
    assert walk.events[-1]["status"] == "ok" and not walk.errors()
    # nothing measured: the run failed, and the error says why
    assert_well_formed(first)
    assert not first.of("scale_point") and first.one("scale_stop")["reason"] == "oom"
    assert first.one("error")["kind"] == "out_of_memory" and first.one("error")["fatal"] is True
    assert first.events[-1]["status"] == "failed"


def test_killed_mid_walk_keeps_the_points_sent(tmp_path):
    model = write_model(
        tmp_path,
        "slow",
        """
        import time

        def forward(x):
            time.sleep(0.02)
            return x + 1

        def get_model():
            return forward

        def get_inputs():
            return (torch.randn(2, 8),)
        """,
    )
    # SIGKILLed with no app to clean up after it, the probe leaves its cache folder here.
    env = dict(os.environ, PYTHONPATH=str(PROBE_PATH), TMPDIR=str(tmp_path))
    cmd = [sys.executable, "-m", "compilescope_probe", "--model", str(model), "--mode", "eager"]
    cmd += ["--batch-sizes", "auto", *QUICK]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(ROOT)
    )
    lines = []
    try:
        deadline = time.monotonic() + 120
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, "the probe ended before any scale_point"
            lines.append(line)
            if json.loads(line)["type"] == "scale_point":
                break
        proc.send_signal(signal.SIGKILL)  # a hard kill: nothing of the probe's runs after it
        rest = proc.stdout.read()
    finally:
        proc.kill()
        proc.wait()
    events = [json.loads(x) for x in lines]
    # whatever followed: every whole line is an event, the last may be cut
    tail = rest.split(b"\n")
    for x in tail[:-1]:
        events.append(json.loads(x))
    points = [e for e in events if e["type"] == "scale_point"]
    assert points and points[0]["batch_size"] == 1
    check_point(points[0])
    assert not any(e["type"] == "done" for e in events)
