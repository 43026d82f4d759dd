"""The CUDA-side wiring of the probe, exercised with stand-ins on a CPU machine:
the CUDA-event timer, the CUPTI collector hooks and memory_stats at phase edges."""

from __future__ import annotations

import os
import types

from compilescope_probe.harness import CudaTimer, harness_overhead_ns
from compilescope_probe.main import Probe
from compilescope_probe.settings import parse


class _Recorder:
    def __init__(self):
        self.events = []
        self.busy = False
        self.closed = False

    def emit(self, type_, **fields):
        self.events.append({"type": type_, **fields})

    def log(self, level, message):
        self.emit("log", level=level, message=message)


class _FakeEvent:
    clock = 0.0

    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        _FakeEvent.clock += 1.5  # ms between two records
        self.t = _FakeEvent.clock

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return other.t - self.t


def _fake_torch():
    calls = {"sync": 0, "reset": 0}
    cuda = types.SimpleNamespace(
        Event=_FakeEvent,
        synchronize=lambda: calls.__setitem__("sync", calls["sync"] + 1),
        memory_stats=lambda: {
            "allocated_bytes.all.current": 10,
            "reserved_bytes.all.current": 20,
            "allocated_bytes.all.peak": 30,
            "reserved_bytes.all.peak": 40,
        },
        reset_peak_memory_stats=lambda: calls.__setitem__("reset", calls["reset"] + 1),
    )
    return types.SimpleNamespace(cuda=cuda), calls


def test_cuda_timer_uses_events_for_latency_and_the_host_clock_for_wall():
    torch, calls = _fake_torch()
    timer = CudaTimer(torch)
    seen = []
    latency, wall = timer(lambda x: seen.append(x + 1), (1,))
    assert seen == [2]
    assert latency == 1_500_000  # 1.5 ms between the two event records
    assert wall > 0 and calls["sync"] == 1
    assert harness_overhead_ns(timer, (), calls=5) == 1_500_000


class _FakeCollector:
    def __init__(self):
        self.calls = []

    def mark_phase(self, name, edge):
        self.calls.append(("mark", name, edge))

    def summarize(self, emit, measured_iterations):
        self.calls.append(("summarize", measured_iterations))
        emit("kernel_summary", iterations=measured_iterations)

    def stop(self):
        self.calls.append(("stop",))


def test_phase_edges_reach_cupti_and_memory_stats():
    writer = _Recorder()
    probe = Probe(writer, parse(["--model", "m.py", "--device", "cuda"]))
    probe.torch, calls = _fake_torch()
    probe.device = types.SimpleNamespace(type="cuda")
    probe.cupti = _FakeCollector()
    with probe.phase("measure") as end:
        end["harness_overhead_ns"] = 7
    probe.measured = 3
    probe.finish()
    assert probe.cupti.calls == [
        ("mark", "measure", "begin"),
        ("mark", "measure", "end"),
        ("summarize", 3),
        ("stop",),
    ]
    stats = [e for e in writer.events if e["type"] == "memory_stats"]
    assert [(e["phase"], e["edge"]) for e in stats] == [("measure", "begin"), ("measure", "end")]
    assert stats[0]["allocated"] == 10 and stats[0]["peak_reserved"] == 40
    assert calls["reset"] == 1  # peaks reset at each phase begin
    phase_end = [e for e in writer.events if e["type"] == "phase" and e["edge"] == "end"][0]
    assert phase_end["harness_overhead_ns"] == 7
    assert any(e["type"] == "kernel_summary" for e in writer.events)


def test_cupti_module_is_asked_only_on_cuda(monkeypatch):
    writer = _Recorder()
    probe = Probe(writer, parse(["--model", "m.py"]))
    probe.device = types.SimpleNamespace(type="cpu")
    probe.start_cupti()
    (status,) = [e for e in writer.events if e["type"] == "cupti_status"]
    assert status["active"] is False and "cpu" in status["message"]
    assert probe.cupti is None

    writer = _Recorder()
    probe = Probe(writer, parse(["--model", "m.py", "--no-cupti"]))
    probe.device = types.SimpleNamespace(type="cuda")
    probe.start_cupti()
    (status,) = [e for e in writer.events if e["type"] == "cupti_status"]
    assert "--no-cupti" in status["message"] and probe.cupti is None


def test_cupti_collector_start_is_called_on_cuda(monkeypatch):
    import compilescope_probe

    started = []
    fake = types.ModuleType("compilescope_probe.cupti_loader")
    fake.start = lambda emit: started.append(emit) or _FakeCollector()
    monkeypatch.setitem(__import__("sys").modules, "compilescope_probe.cupti_loader", fake)
    monkeypatch.setattr(compilescope_probe, "cupti_loader", fake, raising=False)
    writer = _Recorder()
    probe = Probe(writer, parse(["--model", "m.py"]))
    probe.device = types.SimpleNamespace(type="cuda")
    probe.start_cupti()
    assert len(started) == 1 and isinstance(probe.cupti, _FakeCollector)


def test_cache_dir_is_fresh_and_removed():
    writer = _Recorder()
    probe = Probe(writer, parse(["--model", "m.py"]))
    saved = {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    try:
        probe.setup_cache()
        assert os.path.isdir(probe.cache_dir)
        assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == probe.cache_dir
        assert os.environ["TRITON_CACHE_DIR"].startswith(probe.cache_dir)
        probe.cleanup_cache()
        assert not os.path.exists(probe.cache_dir)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
