"""tests/fixtures/cupti/run_*.jsonl: whole probe streams of synthetic GPU runs.

The GUI's Memory and Kernels tabs and the Chrome trace export need what a GPU
run gives around the CUPTI events: hello, phases, iterations, torch's
memory_stats at each phase edge, host RSS, done. No GPU was at hand, so these
streams are built here from `records.json` (see test_cupti_fixtures.py):

- run_reduce_overhead.jsonl: the records as they are (one CUDA-graph launch
  of three kernels per iteration, a 32 MiB graph pool from warmup on);
- run_default.jsonl: the same kernels launched one by one, no graph pool.

The CUPTI events come from the probe's own functions over the records; the
torch counters are derived from the same device timeline (reserved = bytes
held, as the caching allocator's segments are what CUPTI sees); iterations,
latencies and host RSS are invented but consistent with the phases. Every
number is synthetic: these files test code, they measure nothing.

After a deliberate change, from the repository root:
`PYTHONPATH=probe python tests/probe/test_cupti_run_streams.py --regenerate`,
and review the diff.
"""

from __future__ import annotations

import json
import os
import sys

from test_cupti_fixtures import FIXTURES, MEASURED, STARTED_NS, MiB, load_records

from compilescope_probe import cupti_records

HERE = os.path.dirname(os.path.abspath(__file__))


US = 1_000
MS = 1_000_000
GRAPH_POOL_ADDRESS = 0x7F0020000000
MODES = ("reduce-overhead", "default")


def stream_path(mode: str) -> str:
    return os.path.join(FIXTURES, f"run_{mode.replace('-', '_')}.jsonl")


def records_for(mode: str) -> list[cupti_records.Record]:
    records = load_records()
    if mode == "reduce-overhead":
        return records
    # Without CUDA graphs: every kernel is its own launch, and no graph pool.
    out = []
    for r in records:
        if r.kind == cupti_records.MEM_ALLOC and r.address == GRAPH_POOL_ADDRESS:
            continue
        if r.graph_id:
            r = r._replace(graph_id=0, correlation_id=10_000 + r.seq)
        out.append(r)
    return out


def held_at(samples: list[list[int]], t: int) -> int:
    held = 0
    for when, value in samples:
        if when > t:
            break
        held = value
    return held


def most_held(samples: list[list[int]], begin: int, end: int) -> int:
    best = held_at(samples, begin)
    for when, value in samples:
        if begin < when <= end:
            best = max(best, value)
    return best


def make_stream(mode: str) -> list[dict]:
    records = records_for(mode)
    windows = cupti_records.phase_windows(records)
    timeline = cupti_records.device_memory_timeline(records, 0, STARTED_NS)
    samples = timeline.samples
    events: list[dict] = []

    def emit(type_, t_ns, **fields):
        events.append({"type": type_, "t_ns": t_ns, **fields})

    emit(
        "hello",
        STARTED_NS - 200 * US,
        protocol=1,
        probe_version="0.1.0",
        pid=4242,
        python="3.11.2",
        python_executable="/opt/venv/bin/python",
        torch="2.15.0+cu132",
        cuda="13.2",
        device="cuda:0",
        device_name="synthetic GPU (test fixture)",
        cpu="synthetic CPU",
        host="fixture",
        platform="Linux",
        settings={
            "mode": mode,
            "backend": "inductor",
            "dynamic": "auto",
            "fullgraph": False,
            "device": "cuda",
            "autocast": "none",
            "warmup": 3,
            "iters": MEASURED,
            "sweep": False,
            "warm_cache": False,
        },
    )
    emit(
        "cupti_status",
        STARTED_NS,
        active=True,
        message="CUPTI 13.2 (built with headers 13.0); timestamps on CLOCK_MONOTONIC through "
        "CUPTI's timestamp callback",
        library="/opt/nvidia/cu13/lib/libcupti.so.13",
        version=130202,
        clock="callback",
        collector="/opt/compilescope/libcompilescope_cupti.so",
    )

    # torch's counters at each edge, resetting the peaks at each begin as the probe does.
    allocated_after = {
        "load": 21 * MiB,
        "compile": 21 * MiB,
        "warmup": 38 * MiB,
        "measure": 38 * MiB,
    }
    if mode != "reduce-overhead":
        allocated_after.update(warmup=21 * MiB, measure=21 * MiB)
    state = {"allocated": 0, "peak_allocated": 0, "reset_ns": STARTED_NS}

    def edge(name: str, which: str, t: int) -> None:
        emit("phase", t, name=name, edge=which)
        if which == "end":
            state["allocated"] = allocated_after[name]
        state["peak_allocated"] = max(state["peak_allocated"], state["allocated"])
        emit(
            "memory_stats",
            t,
            phase=name,
            edge=which,
            allocated=state["allocated"],
            reserved=held_at(samples, t),
            peak_allocated=state["peak_allocated"],
            peak_reserved=most_held(samples, state["reset_ns"], t),
        )
        if which == "begin":
            state["reset_ns"] = t
            state["peak_allocated"] = state["allocated"]

    rss: list[list[int]] = []
    rss_level = {
        "load": 900 * MiB,
        "compile": 1150 * MiB,
        "warmup": 1210 * MiB,
        "measure": 1210 * MiB,
    }

    def host_rss(name: str, begin: int, end: int) -> None:
        first = 1 if rss else 0  # phases touch: the last sample of one is the first of the next
        base = rss[-1][1] if rss else 850 * MiB
        steps = (end - begin) // (250 * US)
        fresh = [
            [begin + i * 250 * US, base + (rss_level[name] - base) * i // steps]
            for i in range(first, steps + 1)
        ]
        rss.extend(fresh)
        emit("memory", end, kind="host_rss", samples=fresh)

    latency = {"reduce-overhead": 180 * US, "default": 235 * US}[mode]  # GPU time of one call
    index = 0
    for name in ("load", "compile", "warmup", "measure"):
        ((begin, end),) = windows[name]
        edge(name, "begin", begin)
        if name == "load":
            emit(
                "model",
                begin + 100 * US,
                spec="/opt/models/mlp.py",
                file="/opt/models/mlp.py",
                name="mlp (MLP)",
                parameters=1585162,
                inputs=[{"shape": [32, 512], "dtype": "float32"}],
                sweep=False,
            )
        elif name == "compile":
            emit(
                "iteration",
                end - 50 * US,
                index=0,
                latency_ns=end - begin - 100 * US,
                wall_ns=end - begin - 90 * US,
                warmup=True,
                first_call=True,
            )
            index = 1
        elif name == "warmup":
            for t in (begin + 450 * US, begin + 900 * US):
                emit(
                    "iteration",
                    t,
                    index=index,
                    latency_ns=latency + 40 * US,
                    wall_ns=latency + 60 * US,
                    warmup=True,
                    first_call=False,
                )
                index += 1
        else:
            for i in range(MEASURED):  # back to back, 250 µs apart, as the kernels are
                emit(
                    "iteration",
                    begin + (i + 1) * 250 * US - 1 * US,
                    index=index,
                    latency_ns=latency + 3 * US * i,
                    wall_ns=latency + 3 * US * i + 5 * US,
                    warmup=False,
                    first_call=False,
                )
                index += 1
        edge(name, "end", end)
        host_rss(name, begin, end)
        if name == "compile":
            emit(
                "compile_time",
                end,
                phases=[
                    {"name": "dynamo_tracing", "seconds": 0.0008},
                    {"name": "inductor_codegen", "seconds": 0.0012},
                    {"name": "other", "seconds": 0.0005},
                ],
                first_call_ns=end - begin - 100 * US,
                source="synthetic",
            )

    # What Collector.summarize emits at the end of the run, from the probe's own code.
    dropped = 0
    emit(
        "memory",
        STARTED_NS + 8 * MS,
        kind="device",
        source="cupti",
        samples=samples,
        peak=timeline.peak,
        phase_peaks=cupti_records.phase_peaks(samples, windows),
        baseline=0,
        unknown_frees=timeline.unknown_frees,
        dropped=dropped,
    )
    emit(
        "kernel_summary",
        STARTED_NS + 8 * MS + 1,
        **cupti_records.kernel_summary(records, windows, MEASURED, dropped=dropped),
    )
    emit("gpu_trace", STARTED_NS + 8 * MS + 2, **cupti_records.gpu_trace(records, windows))
    emit("done", STARTED_NS + 8 * MS + 3, status="ok")
    return events


def read_stream(mode: str) -> list[dict]:
    with open(stream_path(mode), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_stream_files_match_what_the_code_computes():
    for mode in MODES:
        assert read_stream(mode) == make_stream(mode), mode


def test_streams_are_in_protocol_and_time_order():
    with open(
        os.path.join(HERE, "..", "..", "probe", "compilescope_probe", "protocol.json"),
        encoding="utf-8",
    ) as f:
        known = set(json.load(f)["events"])
    for mode in MODES:
        events = read_stream(mode)
        assert {e["type"] for e in events} <= known
        times = [e["t_ns"] for e in events]
        assert times == sorted(times), mode
        assert events[0]["type"] == "hello" and events[-1] == {**events[-1], "type": "done"}


def test_reduce_overhead_launches_less_and_holds_the_graph_pool():
    summary = {m: next(e for e in read_stream(m) if e["type"] == "kernel_summary") for m in MODES}
    assert summary["reduce-overhead"]["launches_per_iter"] == 2  # copy + one graph launch
    assert summary["default"]["launches_per_iter"] == 4  # every kernel on its own
    assert summary["default"]["gpu_ns_per_iter"] == summary["reduce-overhead"]["gpu_ns_per_iter"]
    peaks = {
        m: next(e for e in read_stream(m) if e["type"] == "memory" and e["kind"] == "device")[
            "phase_peaks"
        ]
        for m in MODES
    }
    assert peaks["reduce-overhead"]["measure"] - peaks["default"]["measure"] == 32 * MiB


def test_torch_peak_reserved_at_each_end_matches_the_cupti_phase_peak():
    # What gpu-check.sh checks on a real GPU holds in the synthetic streams by construction.
    for mode in MODES:
        events = read_stream(mode)
        peaks = next(e for e in events if e["type"] == "memory" and e["kind"] == "device")
        for s in (e for e in events if e["type"] == "memory_stats" and e["edge"] == "end"):
            assert s["peak_reserved"] == peaks["phase_peaks"][s["phase"]], (mode, s["phase"])


def regenerate() -> None:
    for mode in MODES:
        with open(stream_path(mode), "w", encoding="utf-8") as f:
            for event in make_stream(mode):
                f.write(json.dumps(event) + "\n")
        print(f"wrote {stream_path(mode)}")


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        regenerate()
