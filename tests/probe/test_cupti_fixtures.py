"""tests/fixtures/cupti: a synthetic collector run and the events it gives.

`records.json` is a hand-made run shaped like reduce-overhead on one GPU:
weights loaded, an autotune buffer during compile, a CUDA-graph pool during
warmup, then four measured iterations of an input copy plus one graph launch
of three kernels (two overlapping on side streams). `events.jsonl` holds the
`cupti_status`, `memory`, `kernel_summary` and `gpu_trace` events the probe
emits for it, for core and the GUI to replay without a GPU.

The test recomputes the events from the records, so the file cannot drift
from the code; after a deliberate change run
`PYTHONPATH=probe python tests/probe/test_cupti_fixtures.py --regenerate` from
the repository root and review the diff.
"""

from __future__ import annotations

import json
import os
import sys

from compilescope_probe import cupti_loader, cupti_records

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "cupti")

RECORDS = os.path.join(FIXTURES, "records.json")
EVENTS = os.path.join(FIXTURES, "events.jsonl")
MiB = 1 << 20
STARTED_NS = 1_000_000_000
MEASURED = 4
DROPPED = 0


def load_records() -> list[cupti_records.Record]:
    with open(RECORDS, encoding="utf-8") as f:
        rows = json.load(f)["records"]
    return [cupti_records.Record(**row) for row in rows]


def make_events(records: list[cupti_records.Record]) -> list[dict]:
    events: list[dict] = []

    def emit(type_, **fields):
        # As the probe writes them: t_ns is when the probe emitted the event.
        events.append({"type": type_, "t_ns": STARTED_NS + 8_000_000 + len(events), **fields})

    cupti_loader._status(
        emit,
        True,
        "CUPTI 13.2 (built with headers 13.0); timestamps on CLOCK_MONOTONIC "
        "through CUPTI's timestamp callback",
        library="/opt/nvidia/cu13/lib/libcupti.so.13",
        version=130202,
        clock="callback",
        collector="/opt/compilescope/libcompilescope_cupti.so",
    )
    windows = cupti_records.phase_windows(records)
    memory = cupti_records.device_memory_timeline(records, 0, STARTED_NS)
    emit(
        "memory",
        kind="device",
        source="cupti",
        samples=memory.samples,
        peak=memory.peak,
        phase_peaks=cupti_records.phase_peaks(memory.samples, windows),
        baseline=0,
        unknown_frees=memory.unknown_frees,
        dropped=DROPPED,
    )
    emit(
        "kernel_summary",
        **cupti_records.kernel_summary(records, windows, MEASURED, dropped=DROPPED),
    )
    emit("gpu_trace", **cupti_records.gpu_trace(records, windows))
    return events


def read_events() -> list[dict]:
    with open(EVENTS, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_events_file_matches_what_the_code_computes():
    assert read_events() == make_events(load_records())


def test_fixture_figures_by_hand():
    events = {e["type"]: e for e in read_events()}
    memory, summary = events["memory"], events["kernel_summary"]
    # Weights 20 + 2 MiB from load on; a 64 MiB autotune buffer comes and goes in
    # compile; the 32 MiB graph pool arrives in warmup; a 1 MiB block freed in
    # measure was allocated before the collector started (unknown free).
    assert memory["phase_peaks"] == {
        "load": 22 * MiB,
        "compile": 86 * MiB,
        "warmup": 54 * MiB,
        "measure": 54 * MiB,
    }
    assert memory["peak"] == 86 * MiB and memory["unknown_frees"] == 1
    # Per iteration: the input copy plus one graph launch; 4 kernels run.
    assert summary["launches_per_iter"] == 2 and summary["kernels_per_iter"] == 4
    # Kernels per iteration: copy 10 us, node0 40 us, node1 30 us, node2 30 us
    # (node1 and node2 overlap by 20 us): 110 us of kernel time, 90 us busy.
    assert summary["gpu_ns_per_iter"] == 110_000
    assert summary["busy_fraction"] == round(4 * 90_000 / 1_000_000, 4)
    assert summary["top"][0] == {
        "name": "triton_per_fused_native_layer_norm_0",
        "count": 4,
        "total_ns": 160_000,
        "mean_ns": 40_000,
    }
    assert summary["memcpy"]["bytes"] == 4 * 4096


def _build_records() -> list[dict]:
    """The scenario, written out. Only used to regenerate records.json."""
    ms = 1_000_000
    us = 1_000
    t0 = STARTED_NS
    out: list[dict] = []

    def add(kind, start, end=None, **kw):
        out.append(dict(kind=kind, start_ns=start, end_ns=start if end is None else end, **kw))

    def phase(name, begin, end):
        add(cupti_records.PHASE, begin, name=name)
        add(cupti_records.PHASE, end, name=name, flags=cupti_records.FLAG_PHASE_END)

    dev = 3  # CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
    phase("load", t0 + 1 * ms, t0 + 2 * ms)
    add(
        cupti_records.MEM_ALLOC,
        t0 + 1 * ms + 100 * us,
        subkind=dev,
        bytes=20 * MiB,
        address=0x7F0000000000,
    )
    add(
        cupti_records.MEM_ALLOC,
        t0 + 1 * ms + 200 * us,
        subkind=dev,
        bytes=2 * MiB,
        address=0x7F0002000000,
    )
    phase("compile", t0 + 2 * ms, t0 + 5 * ms)
    add(cupti_records.MEM_ALLOC, t0 + 3 * ms, subkind=dev, bytes=64 * MiB, address=0x7F0010000000)
    add(
        cupti_records.KERNEL,
        t0 + 3 * ms + 10 * us,
        t0 + 3 * ms + 60 * us,
        name="triton_mm_autotune_0",
        correlation_id=5,
    )
    add(cupti_records.MEM_FREE, t0 + 4 * ms, subkind=dev, bytes=64 * MiB, address=0x7F0010000000)
    phase("warmup", t0 + 5 * ms, t0 + 6 * ms)
    add(
        cupti_records.MEM_ALLOC,
        t0 + 5 * ms + 500 * us,
        subkind=dev,
        bytes=32 * MiB,
        address=0x7F0020000000,
    )
    phase("measure", t0 + 6 * ms, t0 + 7 * ms)
    for i in range(MEASURED):
        base = t0 + 6 * ms + i * 250 * us
        corr = 100 + 2 * i
        add(
            cupti_records.MEMCPY,
            base + 1 * us,
            base + 5 * us,
            subkind=1,
            bytes=4096,
            correlation_id=corr - 1,
        )
        add(
            cupti_records.KERNEL,
            base + 10 * us,
            base + 20 * us,
            name="triton_poi_fused_copy_0",
            correlation_id=corr,
        )
        add(
            cupti_records.KERNEL,
            base + 30 * us,
            base + 70 * us,
            name="triton_per_fused_native_layer_norm_0",
            graph_id=3,
            correlation_id=corr + 1,
            stream_id=8,
        )
        add(
            cupti_records.KERNEL,
            base + 70 * us,
            base + 100 * us,
            name="triton_poi_fused_gelu_1",
            graph_id=3,
            correlation_id=corr + 1,
            stream_id=9,
        )
        add(
            cupti_records.KERNEL,
            base + 80 * us,
            base + 110 * us,
            name="triton_poi_fused_add_2",
            graph_id=3,
            correlation_id=corr + 1,
            stream_id=10,
        )
    add(
        cupti_records.MEM_FREE,
        t0 + 6 * ms + 900 * us,
        subkind=dev,
        bytes=1 * MiB,
        address=0x7E0000000000,
    )
    # Buffers arrive out of order: seq follows a shuffled delivery, not time.
    order = sorted(range(len(out)), key=lambda i: (i % 3, i))
    for seq, i in enumerate(order, 1):
        out[i]["seq"] = seq
    return out


def regenerate() -> None:
    os.makedirs(FIXTURES, exist_ok=True)
    with open(RECORDS, "w", encoding="utf-8") as f:  # one record a line, for reading diffs
        f.write(
            '{"about": "synthetic CUPTI collector records; see tests/probe/test_cupti_fixtures.py",\n'
            ' "records": [\n  '
        )
        f.write(",\n  ".join(json.dumps(r) for r in _build_records()))
        f.write("\n]}\n")
    with open(EVENTS, "w", encoding="utf-8") as f:
        for event in make_events(load_records()):
            f.write(json.dumps(event) + "\n")


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        regenerate()
        print(f"wrote {RECORDS} and {EVENTS}")
