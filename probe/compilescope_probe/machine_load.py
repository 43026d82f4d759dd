"""What the rest of the machine did while the probe measured (Linux).

The cross-check catches a disturbance that came and went during the measure
phase; a load that lasted through it slows single calls and blocks alike and
goes unseen. So the measure phase's end also carries the CPU time of the CPUs
the probe may run on (its affinity) from /proc/stat over the phase, next to
the probe's own: the difference is what other processes (and the app, which
measures its own) took there, and steal is what the hypervisor gave to other
guests.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

_TICK_NS = 1_000_000_000 // (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


@dataclass
class Snapshot:
    busy_ticks: int
    steal_ticks: int
    cpus: int
    probe_cpu_ns: int
    wall_ns: int


def parse_proc_stat(text: str, allowed: set[int] | None = None) -> tuple[int, int, int] | None:
    """(busy ticks, steal ticks, CPUs counted) over the per-CPU lines of
    /proc/stat's text, only CPUs in `allowed` when given (the probe's
    affinity: other work elsewhere does not compete with it).

    Busy is user + nice + system + irq + softirq (guest time is already in
    user); idle and iowait are not busy; steal is kept apart."""
    busy = steal = cpus = 0
    for line in text.splitlines():
        fields = line.split()
        if not fields or not fields[0].startswith("cpu") or not fields[0][3:].isdigit():
            continue
        if allowed is not None and int(fields[0][3:]) not in allowed:
            continue
        try:
            ticks = [int(x) for x in fields[1:]]
        except ValueError:
            return None
        if len(ticks) < 7:
            return None
        user, nice, system, _idle, _iowait, irq, softirq = ticks[:7]
        busy += user + nice + system + irq + softirq
        steal += ticks[7] if len(ticks) > 7 else 0
        cpus += 1
    if cpus == 0:
        return None
    return busy, steal, cpus


def _affinity() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def snapshot(path: str = "/proc/stat") -> Snapshot | None:
    """None where there is no /proc/stat (not Linux) or it reads oddly."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            parsed = parse_proc_stat(f.read(), _affinity())
    except OSError:
        return None
    if parsed is None:
        return None
    busy, steal, cpus = parsed
    return Snapshot(busy, steal, cpus, time.process_time_ns(), time.perf_counter_ns())


def between(before: Snapshot | None, after: Snapshot | None) -> dict | None:
    """The measure phase end's machine_cpu field (docs/protocol.md), None
    without both snapshots or when the CPUs came or went between them."""
    if before is None or after is None or before.cpus != after.cpus:
        return None
    return {
        "cpus": after.cpus,
        "wall_ns": after.wall_ns - before.wall_ns,
        "busy_ns": max(0, after.busy_ticks - before.busy_ticks) * _TICK_NS,
        "steal_ns": max(0, after.steal_ticks - before.steal_ticks) * _TICK_NS,
        "probe_cpu_ns": after.probe_cpu_ns - before.probe_cpu_ns,
        "tick_ns": _TICK_NS,
    }


# The host reference (docs/measuring.md, "The machine's speed"): a fixed piece
# of CPU work timed before the warmup and after the measured calls. A shared
# VM's neighbours come and go and can halve its speed for minutes: that slows
# single calls and blocks alike, and shows only as a reference that took longer
# here than before, or than in the run it is compared with.
REFERENCE_SIZE = 256  # float32 matmuls of this size, on torch's intra-op threads
REFERENCE_MATMULS = 6  # per rep: about a millisecond on one core of a 2020s CPU
REFERENCE_REPS = 7


def reference_ns(torch: Any) -> int | None:
    """The median time of one rep of the reference work; None if it failed."""
    try:
        with torch.inference_mode():
            gen = torch.Generator().manual_seed(0)
            a = torch.randn(REFERENCE_SIZE, REFERENCE_SIZE, generator=gen)
            a @ a  # its first call allocates and picks the kernel
            reps = []
            for _ in range(REFERENCE_REPS):
                t0 = time.perf_counter_ns()
                for _ in range(REFERENCE_MATMULS):
                    a @ a
                reps.append(time.perf_counter_ns() - t0)
    except Exception:  # a torch without CPU matmul: the reference is only missing
        return None
    reps.sort()
    return reps[len(reps) // 2]
