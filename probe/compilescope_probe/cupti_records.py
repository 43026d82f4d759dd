"""CUPTI collector records into protocol events: pure functions from the
records ``libcompilescope_cupti.so`` (probe/cupti) hands over to the
protocol's ``memory``, ``kernel_summary`` and ``gpu_trace`` payloads.

No CUDA, no ctypes: tested on CPU. cupti_loader.py loads the library and
drives it. docs/cupti.md explains the record format and the clock.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ENV_TRACE_LIMIT = "COMPILESCOPE_GPU_TRACE_LIMIT"  # records kept in the gpu_trace event

# Record kinds and flags: compilescope_cupti.h.
KERNEL, MEMCPY, MEMSET, MEM_ALLOC, MEM_FREE = 1, 2, 3, 4, 5
POOL_CREATED, POOL_DESTROYED, POOL_TRIMMED, PHASE = 6, 7, 8, 9
FLAG_ASYNC, FLAG_NO_TIMESTAMP, FLAG_PHASE_END = 1, 2, 4

# CUpti_ActivityMemoryKind values that live on the device.
DEVICE_MEMORY_KINDS = frozenset({3, 4, 6})  # DEVICE, ARRAY, DEVICE_STATIC
POOL_TYPE_LOCAL = 1
MEMCPY_KINDS = {
    1: "htod",
    2: "dtoh",
    3: "htoa",
    4: "atoh",
    5: "atoa",
    6: "atod",
    7: "dtoa",
    8: "dtod",
    9: "htoh",
    10: "ptop",
}

# cs_cupti_record: 96 bytes, native order, no padding.
RECORD = struct.Struct("=HHIQQQQQQQIIIIIIQ")
assert RECORD.size == 96

TOP_KERNELS = 20
GPU_TRACE_LIMIT = 20000  # records in one gpu_trace event (~1 MB of JSON)
MIB = 1 << 20


class Record(NamedTuple):
    """One collector record, the name resolved. Timestamps: monotonic ns."""

    kind: int
    start_ns: int = 0
    end_ns: int = 0
    name: str | None = None
    subkind: int = 0
    bytes: int = 0
    address: int = 0
    pool_address: int = 0
    pool_size: int = 0
    pool_utilized: int = 0
    device_id: int = 0
    stream_id: int = 0
    correlation_id: int = 0
    graph_id: int = 0
    flags: int = 0
    pool_type: int = 0
    seq: int = 0

    @property
    def timed(self) -> bool:
        return not self.flags & FLAG_NO_TIMESTAMP


# ---------------------------------------------------------------------------
# Pure functions: records in, protocol payloads out.
# ---------------------------------------------------------------------------


def decode_records(
    data: bytes | bytearray | memoryview, name_of: Callable[[int], str | None]
) -> list[Record]:
    """Unpack cs_cupti_record structs; name ids go through name_of."""
    if len(data) % RECORD.size:
        raise ValueError(f"{len(data)} bytes is not a whole number of {RECORD.size}-byte records")
    out = []
    for (
        kind,
        subkind,
        name_id,
        start,
        end,
        nbytes,
        address,
        pool_address,
        pool_size,
        pool_utilized,
        device,
        stream,
        correlation,
        graph,
        flags,
        pool_type,
        seq,
    ) in RECORD.iter_unpack(data):
        out.append(
            Record(
                kind,
                start,
                end,
                name_of(name_id) if name_id else None,
                subkind,
                nbytes,
                address,
                pool_address,
                pool_size,
                pool_utilized,
                device,
                stream,
                correlation,
                graph,
                flags,
                pool_type,
                seq,
            )
        )
    return out


def encode_record(r: Record, name_id: int = 0) -> bytes:
    """The inverse of decode_records for one record (fixtures and tests)."""
    return RECORD.pack(
        r.kind,
        r.subkind,
        name_id,
        r.start_ns,
        r.end_ns,
        r.bytes,
        r.address,
        r.pool_address,
        r.pool_size,
        r.pool_utilized,
        r.device_id,
        r.stream_id,
        r.correlation_id,
        r.graph_id,
        r.flags,
        r.pool_type,
        r.seq,
    )


def _order(r: Record) -> tuple[int, int]:
    # Buffers arrive out of order: time first, arrival to break ties.
    return (r.start_ns, r.seq)


def phase_windows(
    records: Iterable[Record], open_end_ns: int | None = None
) -> dict[str, list[tuple[int, int]]]:
    """{phase: [(begin_ns, end_ns), ...]} from the phase marks.

    A phase begun and never ended (the probe died) runs to open_end_ns, or to
    the last timestamp among the records. An end without a begin is ignored.
    """
    records = list(records)
    marks = sorted((r for r in records if r.kind == PHASE and r.name), key=_order)
    opened: dict[str, int] = {}
    windows: dict[str, list[tuple[int, int]]] = {}
    for m in marks:
        if m.flags & FLAG_PHASE_END:
            begin = opened.pop(m.name, None)
            if begin is not None:
                windows.setdefault(m.name, []).append((begin, m.start_ns))
        else:
            opened[m.name] = m.start_ns
    if opened:
        last = open_end_ns
        if last is None:
            last = max((max(r.start_ns, r.end_ns) for r in records if r.timed), default=0)
        for name, begin in opened.items():
            if last > begin:
                windows.setdefault(name, []).append((begin, last))
    for spans in windows.values():
        spans.sort()
    return windows


@dataclass
class DeviceMemory:
    samples: list[list[int]] = field(default_factory=list)  # [t_ns, bytes held]
    peak: int = 0
    unknown_frees: int = 0  # frees of addresses never seen allocated
    unknown_free_bytes: int = 0
    reused_addresses: int = 0  # an allocation at a live address: its free was lost
    pools: dict[str, int] = field(default_factory=dict)  # pool address (hex) -> last size


def device_memory_timeline(
    records: Iterable[Record], baseline: int = 0, start_ns: int | None = None
) -> DeviceMemory:
    """Bytes the process holds on the device over time.

    held = baseline + live cudaMalloc-style allocations
           + max(sum of pool sizes, live stream-ordered allocations)
    baseline is memory held before the collector started (CUPTI never saw it
    allocated); frees of unknown addresses are taken out of it. Host memory
    kinds (pinned, pageable) and managed memory are left out.
    """
    mem = sorted(
        (
            r
            for r in records
            if r.timed
            and (
                (r.kind in (MEM_ALLOC, MEM_FREE) and r.subkind in DEVICE_MEMORY_KINDS)
                or r.kind in (POOL_CREATED, POOL_DESTROYED, POOL_TRIMMED)
            )
        ),
        key=_order,
    )
    out = DeviceMemory()
    live: dict[tuple[int, int], int] = {}
    pooled_live: dict[tuple[int, int], tuple[int, tuple[int, int]]] = {}  # -> (bytes, pool)
    pools: dict[tuple[int, int], int] = {}
    base = max(0, baseline)
    direct = pooled = 0

    def held() -> int:
        return base + direct + max(sum(pools.values()), pooled)

    if start_ns is not None:
        out.samples.append([start_ns, held()])
    for r in mem:
        key = (r.device_id, r.address)
        pool_key = (r.device_id, r.pool_address)
        in_pool = bool(r.pool_type) or bool(r.flags & FLAG_ASYNC)
        if r.kind == MEM_ALLOC and in_pool:
            pooled += r.bytes - pooled_live.pop(key, (0, pool_key))[0]
            pooled_live[key] = (r.bytes, pool_key)
        elif r.kind == MEM_ALLOC:
            previous = live.get(key)
            if previous is not None:
                out.reused_addresses += 1
                direct -= previous
            live[key] = r.bytes
            direct += r.bytes
        elif r.kind == MEM_FREE and in_pool:
            entry = pooled_live.pop(key, None)
            if entry is None:
                out.unknown_frees += 1
                out.unknown_free_bytes += r.bytes
            else:
                pooled -= entry[0]
        elif r.kind == MEM_FREE:
            size = live.pop(key, None)
            if size is None:
                out.unknown_frees += 1
                out.unknown_free_bytes += r.bytes
                base -= min(base, r.bytes)
            else:
                direct -= size
        elif r.kind == POOL_DESTROYED:
            # Whatever still lived in the pool went with it.
            pools.pop(pool_key, None)
            for k in [k for k, (_, owner) in pooled_live.items() if owner == pool_key]:
                pooled -= pooled_live.pop(k)[0]
        else:  # created, trimmed
            pools[pool_key] = r.pool_size
        if r.kind in (MEM_ALLOC, MEM_FREE) and r.pool_type == POOL_TYPE_LOCAL and r.pool_size:
            pools[pool_key] = r.pool_size
        now = held()
        if out.samples and out.samples[-1][0] == r.start_ns:
            out.samples[-1][1] = now
        else:
            out.samples.append([r.start_ns, now])
    out.peak = max((s[1] for s in out.samples), default=0)
    out.pools = {hex(address): size for (_, address), size in pools.items()}
    return out


def phase_peaks(
    samples: Sequence[Sequence[int]], windows: Mapping[str, Sequence[tuple[int, int]]]
) -> dict[str, int]:
    """Peak bytes held inside each phase, counting what was held as it began."""
    times = [s[0] for s in samples]
    peaks: dict[str, int] = {}
    for name, spans in windows.items():
        best = None
        for begin, end in spans:
            i = bisect.bisect_right(times, begin) - 1
            if i >= 0:
                best = samples[i][1] if best is None else max(best, samples[i][1])
            j = bisect.bisect_right(times, end)
            for k in range(max(i + 1, 0), j):
                best = samples[k][1] if best is None else max(best, samples[k][1])
        if best is not None:
            peaks[name] = best
    return peaks


def union_ns(intervals: Iterable[tuple[int, int]], lo: int, hi: int) -> int:
    """Length of the union of intervals, clipped to [lo, hi)."""
    clipped = sorted((max(a, lo), min(b, hi)) for a, b in intervals if min(b, hi) > max(a, lo))
    total = 0
    cur_a = cur_b = None
    for a, b in clipped:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def _inside(t: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(begin <= t < end for begin, end in spans)


def _transfer_totals(records: Sequence[Record]) -> dict[str, Any]:
    by_kind: dict[str, int] = {}
    for r in records:
        label = MEMCPY_KINDS.get(r.subkind, "other") if r.kind == MEMCPY else None
        if label:
            by_kind[label] = by_kind.get(label, 0) + r.bytes
    totals: dict[str, Any] = {
        "count": len(records),
        "bytes": sum(r.bytes for r in records),
        "total_ns": sum(max(0, r.end_ns - r.start_ns) for r in records),
    }
    if by_kind:
        totals["bytes_by_kind"] = by_kind
    return totals


def kernel_summary(
    records: Iterable[Record],
    windows: Mapping[str, Sequence[tuple[int, int]]],
    measured_iterations: int,
    dropped: int = 0,
    phase: str = "measure",
    top_n: int = TOP_KERNELS,
) -> dict[str, Any]:
    """The kernel_summary payload for one phase (the measure phase by default).

    A record belongs to the phase when it starts inside one of its windows.
    Launches are what the host issued: a kernel run outside a CUDA graph is
    one launch, and all nodes of one graph launch (same graph id, same
    correlation id) together are one.
    """
    records = list(records)
    spans = list(windows.get(phase, ()))
    in_phase = [r for r in records if r.timed and _inside(r.start_ns, spans)]
    kernels = [r for r in in_phase if r.kind == KERNEL]
    graph_launches = {
        (r.graph_id, r.correlation_id)
        for r in in_phase
        if r.graph_id and r.kind in (KERNEL, MEMCPY, MEMSET)
    }
    launches = sum(1 for k in kernels if not k.graph_id) + len(graph_launches)
    gpu_ns = sum(max(0, k.end_ns - k.start_ns) for k in kernels)
    wall_ns = sum(end - begin for begin, end in spans)
    busy_ns = sum(
        union_ns(((k.start_ns, k.end_ns) for k in kernels), begin, end) for begin, end in spans
    )
    iters = measured_iterations if measured_iterations and measured_iterations > 0 else None

    by_name: dict[str, list[int]] = {}
    for k in kernels:
        entry = by_name.setdefault(k.name or "<unnamed kernel>", [0, 0])
        entry[0] += 1
        entry[1] += max(0, k.end_ns - k.start_ns)
    top = sorted(by_name.items(), key=lambda item: (-item[1][1], item[0]))[:top_n]

    summary: dict[str, Any] = {
        "iterations": iters or 0,
        "launches_per_iter": round(launches / iters, 3) if iters else None,
        "kernels_per_iter": round(len(kernels) / iters, 3) if iters else None,
        "gpu_ns_per_iter": round(gpu_ns / iters) if iters else None,
        "busy_fraction": round(busy_ns / wall_ns, 4) if wall_ns > 0 else None,
        "top": [
            {"name": name, "count": count, "total_ns": total, "mean_ns": total // count}
            for name, (count, total) in top
        ],
        "memcpy": _transfer_totals([r for r in in_phase if r.kind == MEMCPY]),
        "memset": _transfer_totals([r for r in in_phase if r.kind == MEMSET]),
        "dropped": dropped,
        "phase": phase,
        "window_ns": wall_ns,
        "kernel_records": sum(1 for r in records if r.kind == KERNEL),
        "untimed": sum(1 for r in records if not r.timed and r.kind in (KERNEL, MEMCPY, MEMSET)),
    }
    if not spans:
        summary["note"] = f"no '{phase}' phase marks reached the collector"
    return summary


def gpu_trace(
    records: Iterable[Record],
    windows: Mapping[str, Sequence[tuple[int, int]]],
    phase: str = "measure",
    limit: int = GPU_TRACE_LIMIT,
) -> dict[str, Any]:
    """The gpu_trace payload: the phase's first `limit` kernel, memcpy and memset
    records (by start time) as compact rows for a timeline export.

    rows: [kind, start_ns, end_ns, stream, name_index, bytes]; names holds each
    name once (memcpy and memset rows are named "memcpy htod", "memset").
    truncated counts the phase's records left out by the limit.
    """
    spans = list(windows.get(phase, ()))
    picked = sorted(
        (
            r
            for r in records
            if r.timed and r.kind in (KERNEL, MEMCPY, MEMSET) and _inside(r.start_ns, spans)
        ),
        key=_order,
    )
    kept = picked[: max(0, limit)]
    names: list[str] = []
    index: dict[str, int] = {}
    rows = []
    for r in kept:
        if r.kind == KERNEL:
            name = r.name or "<unnamed kernel>"
        elif r.kind == MEMCPY:
            name = f"memcpy {MEMCPY_KINDS.get(r.subkind, 'other')}"
        else:
            name = "memset"
        if name not in index:
            index[name] = len(names)
            names.append(name)
        rows.append(
            [
                r.kind,
                r.start_ns,
                max(r.start_ns, r.end_ns),
                r.stream_id,
                index[name],
                r.bytes if r.kind != KERNEL else 0,
            ]
        )
    return {
        "phase": phase,
        "names": names,
        "records": rows,
        "truncated": len(picked) - len(kept),
        "limit": limit,
    }


def trace_limit(env: Mapping[str, str]) -> int:
    """COMPILESCOPE_GPU_TRACE_LIMIT, or the default when unset or not a number >= 0."""
    try:
        value = int(env.get(ENV_TRACE_LIMIT, "") or GPU_TRACE_LIMIT)
    except ValueError:
        return GPU_TRACE_LIMIT
    return value if value >= 0 else GPU_TRACE_LIMIT
