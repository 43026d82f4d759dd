"""GPU memory and kernels through CUPTI, for the probe.

Two halves:
- pure functions from collector records to the protocol's ``memory`` and
  ``kernel_summary`` payloads (no CUDA, no ctypes: tested on CPU);
- a ctypes loader for ``libcompilescope_cupti.so`` (probe/cupti) and the
  ``Collector`` the harness drives: ``start(emit)``, ``mark_phase``,
  ``summarize``, ``stop``.

Standard library only; torch is imported lazily, only to ask whether CUDA is
there. docs/cupti.md explains the record format, the clock and libcupti.
"""

from __future__ import annotations

import bisect
import ctypes
import glob
import os
import struct
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

Emit = Callable[..., None]

LIBRARY_NAME = "libcompilescope_cupti.so"
ENV_LIBRARY = "COMPILESCOPE_CUPTI_LIB"  # path of libcompilescope_cupti.so
ENV_LIBCUPTI = "COMPILESCOPE_LIBCUPTI"  # path of a libcupti to load first
ENV_MAX_RECORDS = "COMPILESCOPE_CUPTI_MAX_RECORDS"
ENV_TRACE_LIMIT = "COMPILESCOPE_GPU_TRACE_LIMIT"  # records kept in the gpu_trace event
ABI_VERSION = 1
NO_CUDA_MESSAGE = "no CUDA device: GPU memory and kernels unavailable"

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

# Settings under which Inductor benchmarks through torch.profiler (Kineto),
# which takes CUPTI's activity buffers over from the collector.
PROFILER_ENV = (
    "TORCHINDUCTOR_USE_TORCH_PROFILER_BENCHMARKER",
    "TORCHINDUCTOR_PROFILE_WITH_DO_BENCH_USING_PROFILING",
)

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


# ---------------------------------------------------------------------------
# The ctypes side.
# ---------------------------------------------------------------------------


class _Stats(ctypes.Structure):
    _fields_ = [
        ("records_total", ctypes.c_uint64),
        ("records_pending", ctypes.c_uint64),
        ("dropped_by_cupti", ctypes.c_uint64),
        ("dropped_over_cap", ctypes.c_uint64),
        ("buffers_denied", ctypes.c_uint64),
        ("buffers_completed", ctypes.c_uint64),
        ("records_ignored", ctypes.c_uint64),
        ("records_untimed", ctypes.c_uint64),
        ("buffers_truncated", ctypes.c_uint64),
        ("clock_offset_ns", ctypes.c_int64),
        ("clock_mode", ctypes.c_uint32),
        ("cupti_version", ctypes.c_uint32),
        ("header_version", ctypes.c_uint32),
        ("kinds_missing", ctypes.c_uint32),
        ("names", ctypes.c_uint32),
        ("running", ctypes.c_uint32),
    ]


CLOCK_MODES = {0: "none", 1: "callback", 2: "offset"}
_ERROR_CODES = {
    1: "CUPTI call failed",
    2: "no NVIDIA driver",
    3: "wrong state",
    4: "bad argument",
    5: "internal error",
}


def _bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    u32, u64, size = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t
    sigs: dict[str, tuple[Any, list[Any]]] = {
        "cs_cupti_abi_version": (ctypes.c_int, []),
        "cs_cupti_record_size": (size, []),
        "cs_cupti_stats_size": (size, []),
        "cs_cupti_now_ns": (u64, []),
        "cs_cupti_start": (ctypes.c_int, [u64, u64, u32]),
        "cs_cupti_mark_phase": (ctypes.c_int, [ctypes.c_char_p, u32, u64]),
        "cs_cupti_flush": (ctypes.c_int, [ctypes.c_int]),
        "cs_cupti_pending": (size, []),
        "cs_cupti_read": (ctypes.c_int, [ctypes.c_void_p, size, ctypes.POINTER(size)]),
        "cs_cupti_name": (ctypes.c_char_p, [u32]),
        "cs_cupti_get_stats": (ctypes.c_int, [ctypes.POINTER(_Stats), size]),
        "cs_cupti_stop": (ctypes.c_int, []),
        "cs_cupti_last_error": (size, [ctypes.c_char_p, size]),
        "cs_cupti_library_path": (size, [ctypes.c_char_p, size]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)  # AttributeError names the missing symbol
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def _text_from(fn: Callable[[Any, int], int]) -> str:
    buf = ctypes.create_string_buffer(4096)
    n = fn(buf, len(buf))
    if n >= len(buf):
        buf = ctypes.create_string_buffer(n + 1)
        fn(buf, len(buf))
    return buf.value.decode("utf-8", "replace")


def _version_text(v: int) -> str:
    # 13.x: 130001 = 13.0 update 1; 12.x and older: a plain API number.
    return f"{v // 10000}.{v // 100 % 100}" if v >= 10000 else f"API {v}"


class Collector:
    """A started collector. Methods never raise."""

    def __init__(
        self,
        lib: ctypes.CDLL,
        *,
        collector_path: str,
        libcupti: str,
        started_ns: int,
        baseline_bytes: int,
        torch_mod: Any = None,
    ) -> None:
        self._lib = lib
        self.collector_path = collector_path
        self.libcupti = libcupti
        self.started_ns = started_ns
        self.baseline_bytes = baseline_bytes
        self._torch = torch_mod
        self._records: list[Record] = []
        self._names: dict[int, str | None] = {}
        self._stopped = False
        self.errors: list[str] = []
        self.trace_limit = GPU_TRACE_LIMIT

    # -- driving ------------------------------------------------------------

    def mark_phase(self, name: str, edge: str, t_ns: int | None = None) -> None:
        """Record a phase edge ('begin' or 'end'); pass the phase event's t_ns."""
        try:
            end = edge in ("end", 1, True)
            rc = self._lib.cs_cupti_mark_phase(str(name).encode(), 1 if end else 0, int(t_ns or 0))
            if rc:
                self._note(f"mark_phase({name}, {edge})", rc)
        except Exception as e:  # noqa: BLE001 - a probe must never die of its profiler
            self.errors.append(f"mark_phase: {e!r}")

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._synchronize()
            rc = self._lib.cs_cupti_stop()
            if rc:
                self._note("stop", rc)
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"stop: {e!r}")

    def stats(self) -> dict[str, int]:
        st = _Stats()
        if self._lib.cs_cupti_get_stats(ctypes.byref(st), ctypes.sizeof(st)):
            return {}
        return {name: getattr(st, name) for name, _ in _Stats._fields_}

    def records(self) -> list[Record]:
        """Every record so far (flush first to get the latest)."""
        self._drain()
        return list(self._records)

    def summarize(self, emit: Emit, measured_iterations: int) -> None:
        """Emit `memory` (device) and `kernel_summary` for the measure phase."""
        try:
            self._synchronize()
            rc = self._lib.cs_cupti_flush(1)
            if rc:
                self._note("flush", rc)
            records = self.records()
            stats = self.stats()
            dropped = int(stats.get("dropped_by_cupti", 0)) + int(stats.get("dropped_over_cap", 0))
            windows = phase_windows(records)
            memory = device_memory_timeline(records, self.baseline_bytes, self.started_ns)
            fields: dict[str, Any] = {
                "kind": "device",
                "source": "cupti",
                "samples": memory.samples,
                "peak": memory.peak,
                "phase_peaks": phase_peaks(memory.samples, windows),
                "baseline": self.baseline_bytes,
                "unknown_frees": memory.unknown_frees,
                "dropped": dropped,
            }
            if memory.pools:
                fields["pools"] = memory.pools
            emit("memory", **fields)
            summary = kernel_summary(records, windows, measured_iterations, dropped=dropped)
            emit("kernel_summary", **summary)
            emit("gpu_trace", **gpu_trace(records, windows, limit=self.trace_limit))
            for warning in self._warnings(stats, summary, records, windows):
                emit("log", level="warning", message=warning)
        except Exception as e:  # noqa: BLE001
            emit("log", level="warning", message=f"CUPTI summary failed: {e!r}")

    # -- internals -----------------------------------------------------------

    def _warnings(
        self,
        stats: Mapping[str, int],
        summary: Mapping[str, Any],
        records: Sequence[Record],
        windows: Mapping[str, Any],
    ) -> list[str]:
        out = []
        lost = summary.get("dropped", 0)
        if lost:
            out.append(
                f"CUPTI dropped {lost} activity records: GPU memory and kernel figures undercount"
            )
        if stats.get("buffers_denied"):
            out.append(
                f"{stats['buffers_denied']} CUPTI buffer requests could not be met "
                "(out of host memory): records were lost"
            )
        if stats.get("buffers_truncated"):
            out.append(
                f"{stats['buffers_truncated']} CUPTI buffers held a record that could not "
                "be read; the records after it in each were lost uncounted"
            )
        if summary.get("untimed"):
            out.append(
                f"{summary['untimed']} GPU records came without timestamps and are left "
                "out of the phase figures"
            )
        if summary.get("kernel_records") and windows.get("measure") and not summary["top"]:
            out.append(
                "kernel records exist but none fall inside the measure phase: CUPTI "
                f"timestamps may be on another clock (clock mode "
                f"{CLOCK_MODES.get(stats.get('clock_mode', 0))})"
            )
        out.extend(self.errors)
        return out

    def _note(self, what: str, rc: int) -> None:
        self.errors.append(
            f"CUPTI collector {what}: {_ERROR_CODES.get(rc, rc)}: "
            f"{_text_from(self._lib.cs_cupti_last_error)}"
        )

    def _synchronize(self) -> None:
        # CUPTI's flush does not wait for the GPU.
        try:
            if self._torch is not None and self._torch.cuda.is_initialized():
                self._torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"torch.cuda.synchronize: {e!r}")

    def _name(self, name_id: int) -> str | None:
        if name_id not in self._names:
            raw = self._lib.cs_cupti_name(name_id)
            self._names[name_id] = raw.decode("utf-8", "replace") if raw is not None else None
        return self._names[name_id]

    def _drain(self, chunk: int = 1 << 16) -> None:
        buf = ctypes.create_string_buffer(chunk * RECORD.size)
        count = ctypes.c_size_t(0)
        while True:
            if self._lib.cs_cupti_read(buf, chunk, ctypes.byref(count)):
                self._note("read", 3)
                return
            n = count.value
            if n == 0:
                return
            self._records.extend(decode_records(buf.raw[: n * RECORD.size], self._name))
            if n < chunk:
                return


# -- loading ------------------------------------------------------------------


def _package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def library_candidates(env: Mapping[str, str] | None = None) -> list[str]:
    """Where start() looks for libcompilescope_cupti.so, in order."""
    env = os.environ if env is None else env
    if env.get(ENV_LIBRARY):
        return [env[ENV_LIBRARY]]  # explicit: no fallback
    pkg = _package_dir()
    probe_dir = os.path.dirname(pkg)
    found = [os.path.join(pkg, LIBRARY_NAME), os.path.join(probe_dir, LIBRARY_NAME)]
    repo = os.path.dirname(os.path.dirname(probe_dir))
    if os.path.isfile(os.path.join(repo, "probe", "cupti", "CMakeLists.txt")):
        found += [
            os.path.join(repo, "build", "probe", "cupti", LIBRARY_NAME),
            os.path.join(repo, "build-cupti", LIBRARY_NAME),
            os.path.join(repo, "probe", "cupti", "build", LIBRARY_NAME),
        ]
        found += sorted(glob.glob(os.path.join(repo, "build*", "probe", "cupti", LIBRARY_NAME)))
        found += sorted(glob.glob(os.path.join(repo, "build*", LIBRARY_NAME)))
    unique: list[str] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def loaded_libcupti() -> list[str]:
    """Distinct libcupti files mapped into this process."""
    paths: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    path = parts[5].strip()
                    if os.path.basename(path).startswith("libcupti.so") and path not in paths:
                        paths.append(path)
    except OSError:
        pass
    return paths


def wheel_libcupti(
    search_path: Sequence[str] | None = None, cuda_major: str | None = None
) -> list[str]:
    """libcupti copies shipped by nvidia-* wheels on sys.path, torch's layout."""
    found: list[str] = []
    folders = ["cuda_cupti"] + ([f"cu{cuda_major}"] if cuda_major else [])
    for root in search_path if search_path is not None else sys.path:
        for folder in folders:
            found += sorted(
                glob.glob(os.path.join(root, "nvidia", folder, "lib", "libcupti.so.*[0-9]"))
            )
    return found


def _cuda_state() -> tuple[bool, str, Any, int]:
    """(usable, why not, torch module, bytes torch already reserved)."""
    try:
        import torch  # noqa: PLC0415 - only when asked, the probe may run without torch
    except Exception as e:  # noqa: BLE001
        return False, f"{NO_CUDA_MESSAGE} (torch cannot be imported: {e})", None, 0
    try:
        if not torch.cuda.is_available():
            return False, f"{NO_CUDA_MESSAGE} (torch.cuda.is_available() is False)", torch, 0
        reserved = int(torch.cuda.memory_reserved()) if torch.cuda.is_initialized() else 0
    except Exception as e:  # noqa: BLE001
        return False, f"{NO_CUDA_MESSAGE} ({e})", torch, 0
    return True, "", torch, reserved


def _preload_libcupti(env: Mapping[str, str], torch_mod: Any) -> str | None:
    """Load (RTLD_GLOBAL) the libcupti the collector should bind to.

    The collector's DT_NEEDED libcupti.so.N is satisfied by any loaded library
    with that soname, so the copy torch loaded wins as long as it is loaded
    first. Returns the path loaded, or None to let the dynamic linker search.
    """
    explicit = env.get(ENV_LIBCUPTI)
    if explicit:
        ctypes.CDLL(explicit, mode=ctypes.RTLD_GLOBAL)
        return explicit
    already = loaded_libcupti()
    if already:
        ctypes.CDLL(already[0], mode=ctypes.RTLD_GLOBAL)
        return already[0]
    major = None
    version = getattr(getattr(torch_mod, "version", None), "cuda", None)
    if isinstance(version, str) and version:
        major = version.split(".")[0]
    for path in wheel_libcupti(cuda_major=major):
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            return path
        except OSError:
            continue
    return None


def _open_collector(path: str) -> Any:
    return _bind(ctypes.CDLL(path))


def _status(emit: Emit, active: bool, message: str, **extra: Any) -> None:
    emit(
        "cupti_status", active=active, message=message, library=extra.pop("library", None), **extra
    )


def _fail(emit: Emit, message: str, warn: bool = True, **extra: Any) -> None:
    _status(emit, False, message, **extra)
    if warn:
        emit(
            "log",
            level="warning",
            message=f"{message}; the run goes on with torch's allocator counters alone",
        )


def start(emit: Emit, env: Mapping[str, str] | None = None) -> Collector | None:
    """Start CUPTI collection, or say in a cupti_status event why not. Never raises."""
    try:
        return _start(emit, os.environ if env is None else env)
    except Exception as e:  # noqa: BLE001
        try:
            _fail(emit, f"CUPTI collector not started: internal error: {e!r}")
        except Exception:  # noqa: BLE001
            pass
        return None


def _start(emit: Emit, env: Mapping[str, str]) -> Collector | None:
    usable, why, torch_mod, reserved = _cuda_state()
    if not usable:
        _fail(emit, why, warn=False)
        return None

    candidates = library_candidates(env)
    path = next((p for p in candidates if os.path.isfile(p)), None)
    if path is None:
        if env.get(ENV_LIBRARY):
            _fail(emit, f"{ENV_LIBRARY} names {env[ENV_LIBRARY]}, which does not exist")
        else:
            _fail(
                emit,
                f"the CUPTI collector {LIBRARY_NAME} was not found (looked in: "
                f"{', '.join(candidates)}); build it with "
                "`cmake -S probe/cupti -B build-cupti && cmake --build build-cupti`",
            )
        return None

    try:
        preloaded = _preload_libcupti(env, torch_mod)
    except OSError as e:
        _fail(emit, f"libcupti could not be loaded: {e}")
        return None

    try:
        lib = _open_collector(path)
    except OSError as e:
        text = str(e)
        if "libcupti" in text:
            _fail(
                emit,
                f"libcupti is missing, so the CUPTI collector cannot load: {text}; "
                "install the CUDA Toolkit's CUPTI or the nvidia-cuda-cupti wheel, or set "
                f"{ENV_LIBCUPTI}",
                library=preloaded,
            )
        else:
            _fail(emit, f"the CUPTI collector {path} cannot be loaded: {text}", library=preloaded)
        return None
    except AttributeError as e:
        _fail(emit, f"{path} is not a compatible CUPTI collector: {e}")
        return None

    if (
        lib.cs_cupti_abi_version() != ABI_VERSION
        or lib.cs_cupti_record_size() != RECORD.size
        or lib.cs_cupti_stats_size() != ctypes.sizeof(_Stats)
    ):
        _fail(
            emit,
            f"{path} speaks collector ABI {lib.cs_cupti_abi_version()}, this probe "
            f"speaks {ABI_VERSION}: rebuild it from this source tree",
        )
        return None

    bound = _text_from(lib.cs_cupti_library_path) or preloaded
    copies = loaded_libcupti()
    if len(copies) > 1:
        _fail(
            emit,
            "two copies of libcupti are loaded in this process ("
            + ", ".join(copies)
            + "): CUPTI would be driven twice. Rebuild the collector against the "
            "libcupti torch loads (COMPILESCOPE_CUPTI_ROOT, see docs/cupti.md)",
            library=bound,
        )
        return None

    max_records = int(env.get(ENV_MAX_RECORDS, "0") or 0)
    started_ns = time.monotonic_ns()
    rc = lib.cs_cupti_start(0, max_records, 0)
    if rc:
        _fail(
            emit,
            f"CUPTI could not start ({_ERROR_CODES.get(rc, rc)}): "
            f"{_text_from(lib.cs_cupti_last_error)}",
            library=bound,
        )
        return None

    collector = Collector(
        lib,
        collector_path=path,
        libcupti=bound,
        started_ns=started_ns,
        baseline_bytes=reserved,
        torch_mod=torch_mod,
    )
    collector.trace_limit = trace_limit(env)
    st = collector.stats()
    version = int(st.get("cupti_version", 0))
    header = int(st.get("header_version", 0))
    clock = CLOCK_MODES.get(st.get("clock_mode", 0), "none")
    words = [f"CUPTI {_version_text(version)} (built with headers {_version_text(header)})"]
    if version and header and version < header:
        words.append(
            "libcupti is older than the headers the collector was built with: "
            "records may be misread"
        )
    if clock == "callback":
        words.append("timestamps on CLOCK_MONOTONIC through CUPTI's timestamp callback")
    else:
        words.append(
            f"timestamps shifted onto CLOCK_MONOTONIC by a measured offset of "
            f"{st.get('clock_offset_ns', 0)} ns"
        )
    if st.get("kinds_missing"):
        words.append("some record kinds are unavailable: " + _text_from(lib.cs_cupti_last_error))
    clashing = [name for name in PROFILER_ENV if env.get(name) == "1"]
    if clashing:
        words.append(
            f"{', '.join(clashing)}=1 makes Inductor benchmark through torch.profiler, "
            "which takes CUPTI's records over: figures after autotuning may be missing"
        )
    if reserved:
        words.append(
            f"torch held {reserved} bytes on the device before CUPTI started; they "
            "are counted as a baseline"
        )
    _status(
        emit, True, "; ".join(words), library=bound, version=version, clock=clock, collector=path
    )
    return collector
