"""CUPTI record -> memory timeline / kernel summary, with synthetic records.

No CUDA and no collector library: the records are built here the way the
collector hands them over (compilescope_cupti.h), and every expected figure
is worked out from the records in the test itself.
"""

from __future__ import annotations

import ctypes
import json
import os
import random

import pytest

from compilescope_probe import cupti_loader, cupti_records
from compilescope_probe.cupti_records import (
    FLAG_ASYNC,
    FLAG_NO_TIMESTAMP,
    FLAG_PHASE_END,
    KERNEL,
    MEM_ALLOC,
    MEM_FREE,
    MEMCPY,
    MEMSET,
    PHASE,
    POOL_CREATED,
    POOL_DESTROYED,
    Record,
)

DEVICE, PINNED = 3, 2  # CUpti_ActivityMemoryKind
HTOD, DTOH = 1, 2  # CUpti_ActivityMemcpyKind
MiB = 1 << 20


def alloc(t, address, nbytes, seq=0, **kw):
    return Record(
        MEM_ALLOC,
        t,
        t,
        subkind=kw.pop("subkind", DEVICE),
        bytes=nbytes,
        address=address,
        seq=seq,
        **kw,
    )


def free(t, address, nbytes, seq=0, **kw):
    return Record(
        MEM_FREE,
        t,
        t,
        subkind=kw.pop("subkind", DEVICE),
        bytes=nbytes,
        address=address,
        seq=seq,
        **kw,
    )


def mark(t, name, edge, seq=0):
    return Record(PHASE, t, t, name=name, flags=FLAG_PHASE_END if edge == "end" else 0, seq=seq)


def kernel(start, end, name="k", graph_id=0, correlation_id=0, seq=0, stream_id=7):
    return Record(
        KERNEL,
        start,
        end,
        name=name,
        graph_id=graph_id,
        correlation_id=correlation_id,
        seq=seq,
        stream_id=stream_id,
    )


def with_seq(records):
    return [r._replace(seq=i + 1) for i, r in enumerate(records)]


# -- the wire format ------------------------------------------------------------


def test_record_layout_matches_the_c_header():
    header = os.path.join(
        os.path.dirname(__file__), "..", "..", "probe", "cupti", "compilescope_cupti.h"
    )
    text = open(header, encoding="utf-8").read()
    # Field order in the C struct, in the order RECORD packs them.
    body = text.split("typedef struct cs_cupti_record {", 1)[1].split("} cs_cupti_record;", 1)[0]
    fields = [
        line.split()[1].rstrip(";")
        for line in body.splitlines()
        if line.strip().startswith(("uint16_t", "uint32_t", "uint64_t"))
    ]
    widths = {"uint16_t": "H", "uint32_t": "I", "uint64_t": "Q"}
    codes = "".join(
        widths[line.split()[0]]
        for line in body.splitlines()
        if line.strip().startswith(tuple(widths))
    )
    assert cupti_records.RECORD.format == "=" + codes
    assert fields[:3] == ["kind", "subkind", "name_id"] and fields[-1] == "seq"
    assert (
        f"static_assert(sizeof(cs_cupti_record) == {cupti_records.RECORD.size}"
        in open(os.path.join(os.path.dirname(header), "collector.cpp"), encoding="utf-8").read()
    )


def test_encode_decode_round_trip_resolves_names():
    names = {1: "triton_poi_fused_relu_0", 2: "measure"}
    ids = {v: k for k, v in names.items()}
    originals = with_seq(
        [
            kernel(100, 250, "triton_poi_fused_relu_0", graph_id=3, correlation_id=11),
            alloc(
                90,
                0x7F00_0000_0000,
                2 * MiB,
                flags=FLAG_ASYNC,
                pool_type=1,
                pool_address=0x10,
                pool_size=64 * MiB,
                pool_utilized=2 * MiB,
            ),
            mark(80, "measure", "begin"),
            Record(MEMCPY, 300, 340, subkind=HTOD, bytes=4096, device_id=1, stream_id=2),
        ]
    )
    data = b"".join(cupti_records.encode_record(r, ids.get(r.name, 0)) for r in originals)
    assert len(data) == 96 * len(originals)
    assert cupti_records.decode_records(data, names.get) == originals


def test_decode_rejects_a_partial_record():
    with pytest.raises(ValueError):
        cupti_records.decode_records(b"\0" * 95, lambda i: None)


# -- memory timeline ------------------------------------------------------------


def test_alloc_free_pairing_gives_bytes_held_over_time():
    records = with_seq(
        [alloc(10, 0xA, 100), alloc(20, 0xB, 50), free(30, 0xA, 100), free(40, 0xB, 50)]
    )
    mem = cupti_records.device_memory_timeline(records, start_ns=5)
    assert mem.samples == [[5, 0], [10, 100], [20, 150], [30, 50], [40, 0]]
    assert mem.peak == 150
    assert mem.unknown_frees == 0


def test_free_uses_the_allocated_size_not_the_free_records_size():
    records = with_seq([alloc(10, 0xA, 100), free(20, 0xA, 0)])
    assert cupti_records.device_memory_timeline(records).samples == [[10, 100], [20, 0]]


def test_free_of_an_unknown_address_is_counted_and_never_goes_negative():
    records = with_seq([alloc(10, 0xA, 100), free(20, 0xDEAD, 4096), free(30, 0xA, 100)])
    mem = cupti_records.device_memory_timeline(records)
    assert mem.unknown_frees == 1 and mem.unknown_free_bytes == 4096
    assert [s[1] for s in mem.samples] == [100, 100, 0]


def test_unknown_frees_come_out_of_the_baseline_held_before_start():
    # 300 bytes were held before CUPTI started; one of those blocks is freed.
    records = with_seq([free(20, 0xBEEF, 200), alloc(30, 0xA, 50)])
    mem = cupti_records.device_memory_timeline(records, baseline=300, start_ns=0)
    assert mem.samples == [[0, 300], [20, 100], [30, 150]]
    # A free bigger than what is left of the baseline stops at zero.
    mem = cupti_records.device_memory_timeline(with_seq([free(20, 0xBEEF, 500)]), baseline=300)
    assert mem.samples == [[20, 0]]


def test_out_of_order_buffers_give_the_same_timeline():
    # Records as the GPU produced them, then delivered in shuffled buffers:
    # arrival order (seq) no longer follows time.
    timeline = [
        alloc(10, 0xA, 100),
        alloc(15, 0xB, 30),
        free(20, 0xA, 100),
        alloc(25, 0xC, 70),
        free(30, 0xB, 30),
        alloc(35, 0xA, 10),
        free(40, 0xC, 70),
    ]
    expected = cupti_records.device_memory_timeline(with_seq(timeline))
    shuffled = list(timeline)
    random.Random(5).shuffle(shuffled)
    assert [r.start_ns for r in shuffled] != sorted(r.start_ns for r in shuffled)
    got = cupti_records.device_memory_timeline(with_seq(shuffled))
    assert got.samples == expected.samples
    assert got.peak == expected.peak == 130  # 100 + 30 at t=15, then 30 + 70 = 100 at t=25
    assert got.unknown_frees == 0


def test_same_timestamp_uses_arrival_order_and_one_sample():
    records = [alloc(10, 0xA, 100, seq=1), free(10, 0xA, 100, seq=2), alloc(10, 0xB, 40, seq=3)]
    mem = cupti_records.device_memory_timeline(records)
    assert mem.samples == [[10, 40]]
    assert mem.peak == 40 and mem.unknown_frees == 0


def test_allocation_at_a_live_address_replaces_it():
    # The free between the two was dropped: do not count the address twice.
    mem = cupti_records.device_memory_timeline(with_seq([alloc(10, 0xA, 100), alloc(20, 0xA, 60)]))
    assert mem.samples == [[10, 100], [20, 60]]
    assert mem.reused_addresses == 1


def test_host_memory_and_untimed_records_are_left_out():
    records = with_seq(
        [
            alloc(10, 0xA, 100),
            alloc(20, 0xB, 999, subkind=PINNED),
            alloc(0, 0xC, 555)._replace(flags=FLAG_NO_TIMESTAMP),
        ]
    )
    mem = cupti_records.device_memory_timeline(records)
    assert mem.samples == [[10, 100]]


def test_same_address_on_two_devices_is_two_allocations():
    records = with_seq(
        [
            alloc(10, 0xA, 100, device_id=0),
            alloc(20, 0xA, 50, device_id=1),
            free(30, 0xA, 100, device_id=0),
        ]
    )
    assert [s[1] for s in cupti_records.device_memory_timeline(records).samples] == [100, 150, 50]


def test_stream_ordered_allocations_count_the_pool_not_twice():
    pool = dict(pool_type=1, pool_address=0x5000)
    records = with_seq(
        [
            Record(
                POOL_CREATED,
                5,
                5,
                pool_type=1,
                pool_address=0x5000,
                address=0x5000,
                pool_size=32 * MiB,
            ),
            alloc(10, 0xA, 4 * MiB, flags=FLAG_ASYNC, pool_size=32 * MiB, **pool),
            alloc(20, 0xB, 40 * MiB, flags=FLAG_ASYNC, pool_size=64 * MiB, **pool),
            free(30, 0xB, 40 * MiB, flags=FLAG_ASYNC, pool_size=64 * MiB, **pool),
            Record(POOL_DESTROYED, 40, 40, pool_type=1, pool_address=0x5000, address=0x5000),
        ]
    )
    mem = cupti_records.device_memory_timeline(records)
    # The pool's own size is what the process holds; allocations live inside it.
    assert [s[1] for s in mem.samples] == [32 * MiB, 32 * MiB, 64 * MiB, 64 * MiB, 0]
    assert mem.pools == {}


def test_stream_ordered_allocations_without_pool_sizes_still_count():
    records = with_seq(
        [
            alloc(10, 0xA, 4 * MiB, flags=FLAG_ASYNC),
            alloc(20, 0xB, 1 * MiB, flags=FLAG_ASYNC),
            free(30, 0xA, 0, flags=FLAG_ASYNC),
        ]
    )
    assert [s[1] for s in cupti_records.device_memory_timeline(records).samples] == [
        4 * MiB,
        5 * MiB,
        MiB,
    ]


# -- phases ---------------------------------------------------------------------


def test_phase_windows_pair_begin_and_end():
    records = with_seq(
        [
            mark(100, "load", "begin"),
            mark(200, "load", "end"),
            mark(300, "measure", "begin"),
            mark(400, "measure", "end"),
            mark(500, "sweep", "end"),
        ]
    )  # an end without a begin is ignored
    assert cupti_records.phase_windows(records) == {"load": [(100, 200)], "measure": [(300, 400)]}


def test_a_phase_never_ended_runs_to_the_last_record():
    records = with_seq([mark(100, "measure", "begin"), kernel(150, 900)])
    assert cupti_records.phase_windows(records) == {"measure": [(100, 900)]}
    assert cupti_records.phase_windows(records, open_end_ns=500) == {"measure": [(100, 500)]}


def test_a_phase_repeated_gives_several_windows():
    records = with_seq(
        [
            mark(300, "measure", "begin"),
            mark(400, "measure", "end"),
            mark(100, "measure", "begin"),
            mark(200, "measure", "end"),
        ]
    )
    assert cupti_records.phase_windows(records) == {"measure": [(100, 200), (300, 400)]}


def test_phase_peaks_include_what_was_held_when_the_phase_began():
    samples = [[10, 100], [20, 500], [30, 200], [50, 250], [70, 50]]
    windows = {"compile": [(15, 35)], "measure": [(40, 60)], "load": [(0, 5)], "done": [(80, 90)]}
    peaks = cupti_records.phase_peaks(samples, windows)
    # compile: 100 held at 15, 500 at 20, 200 at 30 -> 500
    # measure: 200 held at 40, 250 at 50 -> 250; load: nothing known yet; done: 50 held
    assert peaks == {"compile": 500, "measure": 250, "done": 50}


# -- kernels --------------------------------------------------------------------


def test_union_of_overlapping_nested_and_clipped_intervals():
    intervals = [(0, 10), (5, 15), (20, 30), (22, 25), (40, 60)]
    assert cupti_records.union_ns(intervals, 0, 100) == 15 + 10 + 20
    assert cupti_records.union_ns(intervals, 8, 50) == (15 - 8) + 10 + (50 - 40)
    assert cupti_records.union_ns([], 0, 100) == 0


def test_busy_fraction_counts_overlapping_kernels_once():
    # One measure window of 1000 ns and two streams whose kernels overlap.
    records = with_seq(
        [
            mark(1000, "measure", "begin"),
            kernel(1100, 1500, "a", stream_id=1),
            kernel(1300, 1700, "b", stream_id=2),
            kernel(1800, 1900, "a", stream_id=1),
            mark(2000, "measure", "end"),
        ]
    )
    s = cupti_records.kernel_summary(
        records, cupti_records.phase_windows(records), measured_iterations=2
    )
    assert s["busy_fraction"] == pytest.approx((1700 - 1100 + 100) / 1000)
    assert s["gpu_ns_per_iter"] == (400 + 400 + 100) / 2
    assert s["launches_per_iter"] == s["kernels_per_iter"] == 1.5
    assert s["top"] == [
        {"name": "a", "count": 2, "total_ns": 500, "mean_ns": 250},
        {"name": "b", "count": 1, "total_ns": 400, "mean_ns": 400},
    ]


def test_only_kernels_starting_in_the_measure_phase_count():
    records = with_seq(
        [
            mark(0, "warmup", "begin"),
            kernel(10, 20, "warm"),
            mark(100, "warmup", "end"),
            mark(100, "measure", "begin"),
            kernel(150, 250, "hot"),
            kernel(190, 260, "late"),  # starts inside, ends after: clipped for busy
            mark(200, "measure", "end"),
            kernel(300, 400, "after"),
        ]
    )
    s = cupti_records.kernel_summary(
        records, cupti_records.phase_windows(records), measured_iterations=1
    )
    assert {t["name"] for t in s["top"]} == {"hot", "late"}
    assert s["busy_fraction"] == pytest.approx((200 - 150) / 100)
    assert s["kernel_records"] == 4


def test_graph_replays_count_one_launch_per_graph_launch():
    # Two iterations: each copies an input (a plain kernel) and replays a
    # graph of three kernels; one graph launch = one correlation id.
    records = [mark(0, "measure", "begin")]
    for it, corr in ((0, 50), (1, 60)):
        base = 100 + it * 1000
        records.append(kernel(base, base + 10, "copy_input", correlation_id=corr - 1))
        for n in range(3):
            records.append(
                kernel(
                    base + 20 + n * 30,
                    base + 40 + n * 30,
                    f"node{n}",
                    graph_id=7,
                    correlation_id=corr,
                )
            )
    records.append(mark(3000, "measure", "end"))
    s = cupti_records.kernel_summary(
        with_seq(records), cupti_records.phase_windows(with_seq(records)), 2
    )
    assert s["kernels_per_iter"] == 4
    assert s["launches_per_iter"] == 2  # the copy + one graph launch


def test_memcpy_and_memset_totals_in_the_phase():
    records = with_seq(
        [
            mark(0, "measure", "begin"),
            Record(MEMCPY, 10, 30, subkind=HTOD, bytes=1000),
            Record(MEMCPY, 40, 45, subkind=DTOH, bytes=8),
            Record(MEMSET, 50, 52, bytes=64),
            mark(100, "measure", "end"),
            Record(MEMCPY, 200, 300, subkind=HTOD, bytes=5),
        ]
    )
    s = cupti_records.kernel_summary(records, cupti_records.phase_windows(records), 1)
    assert s["memcpy"] == {
        "count": 2,
        "bytes": 1008,
        "total_ns": 25,
        "bytes_by_kind": {"htod": 1000, "dtoh": 8},
    }
    assert s["memset"] == {"count": 1, "bytes": 64, "total_ns": 2}


def test_dropped_and_untimed_records_are_reported():
    records = with_seq(
        [
            mark(0, "measure", "begin"),
            kernel(10, 20),
            kernel(0, 0)._replace(flags=FLAG_NO_TIMESTAMP),
            mark(100, "measure", "end"),
        ]
    )
    s = cupti_records.kernel_summary(records, cupti_records.phase_windows(records), 1, dropped=17)
    assert s["dropped"] == 17
    assert s["untimed"] == 1
    assert s["kernels_per_iter"] == 1


def test_no_measure_phase_or_no_iterations_gives_nulls_not_zeros():
    records = with_seq([kernel(10, 20)])
    s = cupti_records.kernel_summary(records, cupti_records.phase_windows(records), 0)
    assert s["launches_per_iter"] is None and s["gpu_ns_per_iter"] is None
    assert s["busy_fraction"] is None
    assert "measure" in s["note"]


def test_top_is_cut_at_top_n_by_total_time():
    records = [mark(0, "measure", "begin")]
    records += [kernel(10 + i * 100, 10 + i * 100 + i + 1, f"k{i}") for i in range(30)]
    records.append(mark(10_000, "measure", "end"))
    s = cupti_records.kernel_summary(
        with_seq(records), cupti_records.phase_windows(with_seq(records)), 1, top_n=5
    )
    assert [t["name"] for t in s["top"]] == ["k29", "k28", "k27", "k26", "k25"]


# -- gpu_trace: the measure phase's records for the timeline export ---------------


def test_gpu_trace_keeps_the_measure_phase_in_time_order_with_names_once():
    records = with_seq(
        [
            mark(0, "measure", "begin"),
            kernel(50, 60, "b", stream_id=9),
            Record(MEMCPY, 5, 9, subkind=HTOD, bytes=4096, stream_id=7),
            kernel(20, 40, "a", stream_id=7),
            kernel(70, 80, "a", stream_id=7),
            Record(MEMSET, 85, 86, bytes=64, stream_id=7),
            mark(100, "measure", "end"),
            kernel(150, 160, "after"),
        ]
    )
    t = cupti_records.gpu_trace(records, cupti_records.phase_windows(records))
    names = t["names"]
    rows = [
        [kind, start, end, stream, names[i], nbytes]
        for kind, start, end, stream, i, nbytes in t["records"]
    ]
    assert rows == [
        [MEMCPY, 5, 9, 7, "memcpy htod", 4096],
        [KERNEL, 20, 40, 7, "a", 0],
        [KERNEL, 50, 60, 9, "b", 0],
        [KERNEL, 70, 80, 7, "a", 0],
        [MEMSET, 85, 86, 7, "memset", 64],
    ]
    assert sorted(names) == ["a", "b", "memcpy htod", "memset"]  # each name once
    assert t["truncated"] == 0 and t["phase"] == "measure"
    json.dumps(t)


def test_gpu_trace_is_capped_and_counts_what_it_left_out():
    records = [mark(0, "measure", "begin")]
    records += [kernel(10 + i * 10, 15 + i * 10, f"k{i % 3}") for i in range(50)]
    records.append(mark(10_000, "measure", "end"))
    records = with_seq(records)
    t = cupti_records.gpu_trace(records, cupti_records.phase_windows(records), limit=20)
    assert len(t["records"]) == 20 and t["truncated"] == 30 and t["limit"] == 20
    assert [r[1] for r in t["records"]] == [10 + i * 10 for i in range(20)]  # the first 20


def test_gpu_trace_without_a_measure_phase_or_untimed_records_is_empty():
    records = with_seq([kernel(10, 20), kernel(0, 0)._replace(flags=FLAG_NO_TIMESTAMP)])
    t = cupti_records.gpu_trace(records, cupti_records.phase_windows(records))
    assert t["records"] == [] and t["names"] == [] and t["truncated"] == 0


def test_trace_limit_from_the_environment():
    assert cupti_records.trace_limit({}) == cupti_records.GPU_TRACE_LIMIT
    assert cupti_records.trace_limit({cupti_records.ENV_TRACE_LIMIT: "5"}) == 5
    assert cupti_records.trace_limit({cupti_records.ENV_TRACE_LIMIT: "0"}) == 0
    assert (
        cupti_records.trace_limit({cupti_records.ENV_TRACE_LIMIT: "lots"})
        == cupti_records.GPU_TRACE_LIMIT
    )
    assert (
        cupti_records.trace_limit({cupti_records.ENV_TRACE_LIMIT: "-3"})
        == cupti_records.GPU_TRACE_LIMIT
    )


# -- the collector object, over a stand-in for the ctypes library ----------------


class FakeLib:
    """Implements the collector's C functions the way ctypes would call them."""

    def __init__(self, records, names, stats=None):
        self.names = names
        ids = {v: k for k, v in names.items()}
        self.data = b"".join(cupti_records.encode_record(r, ids.get(r.name, 0)) for r in records)
        self.stats = stats or {}
        self.calls = []

    def cs_cupti_flush(self, forced):
        self.calls.append(("flush", forced))
        return 0

    def cs_cupti_read(self, buf, capacity, count_ref):
        n = min(capacity, len(self.data) // 96)
        ctypes.memmove(buf, self.data[: n * 96], n * 96)
        self.data = self.data[n * 96 :]
        count_ref._obj.value = n
        return 0

    def cs_cupti_name(self, name_id):
        name = self.names.get(name_id)
        return name.encode() if name is not None else None

    def cs_cupti_get_stats(self, ref, size):
        for key, value in self.stats.items():
            setattr(ref._obj, key, value)
        return 0

    def cs_cupti_mark_phase(self, name, edge, t_ns):
        self.calls.append(("mark", name, edge, t_ns))
        return 0

    def cs_cupti_stop(self):
        self.calls.append(("stop",))
        return 0

    def cs_cupti_last_error(self, buf, cap):
        return 0


def test_summarize_emits_memory_and_kernel_summary_and_warns_about_drops():
    records = with_seq(
        [
            mark(0, "load", "begin"),
            alloc(10, 0xA, 3 * MiB),
            mark(20, "load", "end"),
            mark(30, "measure", "begin"),
            kernel(40, 60, "k"),
            alloc(45, 0xB, MiB),
            free(50, 0xB, MiB),
            mark(100, "measure", "end"),
        ]
    )
    lib = FakeLib(
        records,
        {1: "load", 2: "measure", 3: "k"},
        stats={
            "dropped_by_cupti": 2,
            "dropped_over_cap": 1,
            "clock_mode": 1,
            "buffers_truncated": 1,
        },
    )
    col = cupti_loader.Collector(
        lib, collector_path="x", libcupti="y", started_ns=0, baseline_bytes=0
    )
    events = []
    col.summarize(lambda type_, **f: events.append((type_, f)), measured_iterations=1)
    kinds = [e[0] for e in events]
    assert kinds[:3] == ["memory", "kernel_summary", "gpu_trace"]
    trace = events[2][1]
    assert [trace["names"][r[4]] for r in trace["records"]] == ["k"]
    memory = events[0][1]
    assert memory["kind"] == "device"
    assert memory["phase_peaks"] == {"load": 3 * MiB, "measure": 4 * MiB}
    assert memory["samples"][0] == [0, 0]
    summary = events[1][1]
    assert summary["dropped"] == 3 and summary["kernels_per_iter"] == 1
    warnings = [f["message"] for t, f in events if t == "log"]
    assert any("dropped 3" in w for w in warnings)
    assert any("1 CUPTI buffers held a record that could not be read" in w for w in warnings)
    assert ("flush", 1) in lib.calls
    json.dumps(events)  # everything emitted must be JSON-serializable


def test_mark_phase_passes_edge_and_time_and_stop_is_idempotent():
    lib = FakeLib([], {})
    col = cupti_loader.Collector(
        lib, collector_path="x", libcupti="y", started_ns=0, baseline_bytes=0
    )
    col.mark_phase("measure", "begin", 123)
    col.mark_phase("measure", "end")
    col.stop()
    col.stop()
    assert lib.calls == [("mark", b"measure", 0, 123), ("mark", b"measure", 1, 0), ("stop",)]


def test_summarize_never_raises():
    class Broken(FakeLib):
        def cs_cupti_read(self, *a):
            raise RuntimeError("boom")

    col = cupti_loader.Collector(
        Broken([], {}), collector_path="x", libcupti="y", started_ns=0, baseline_bytes=0
    )
    events = []
    col.summarize(lambda type_, **f: events.append((type_, f)), 1)
    assert events and events[-1][0] == "log" and "boom" in events[-1][1]["message"]
