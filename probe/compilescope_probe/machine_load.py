"""What the rest of the machine did while the probe measured (Linux).

The cross-check catches a disturbance that came and went during the measure
phase; a load that lasted through it slows single calls and blocks alike and
goes unseen. So the measure phase's end also carries the CPU time of the CPUs
the probe may run on (its affinity) from /proc/stat over the phase, next to
the probe's own: the difference is what other processes (and the app, which
measures its own) took there, and steal is what the hypervisor gave to other
guests. The probe's own includes its child processes: a recompile in the
measure phase runs the C++ compiler (and Inductor's compile workers) there,
and that is the probe's work, not another program's.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from typing import Any

_TICK_NS = 1_000_000_000 // (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


@dataclass
class Snapshot:
    busy_ticks: int
    steal_ticks: int
    cpus: int
    probe_cpu_ns: int  # the probe's threads and its child processes
    wall_ns: int
    children_cpu_ns: int = 0  # of which its child processes, reaped or alive


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


def parse_pid_stat(text: str) -> tuple[int, int] | None:
    """(parent pid, CPU ticks of the process and its reaped children) from
    /proc/PID/stat's text; None if it reads oddly. The command name in
    parentheses may hold spaces and parentheses: the fields follow the last ')'."""
    _, sep, rest = text.rpartition(")")
    fields = rest.split()
    if not sep or len(fields) < 15:
        return None
    try:
        ppid = int(fields[1])
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    except ValueError:
        return None
    return ppid, utime + stime + cutime + cstime


def descendants_ticks(stats: dict[int, tuple[int, int]], root: int) -> int:
    """The CPU ticks of every process below `root`, given each pid's
    (parent pid, ticks)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo, seen = 0, list(children.get(root, [])), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += stats[pid][1]
        todo += children.get(pid, [])
    return total


def _pid_stat(proc: str, pid: int) -> tuple[int, int] | None:
    try:
        with open(f"{proc}/{pid}/stat", encoding="ascii", errors="replace") as f:
            return parse_pid_stat(f.read())
    except OSError:  # it ended while we looked
        return None


def _children_of(proc: str, pid: int) -> list[int] | None:
    """The processes `pid`'s threads started, from /proc/PID/task/TID/children;
    None where the kernel keeps no such files."""
    try:
        tasks = os.listdir(f"{proc}/{pid}/task")
    except OSError:  # it ended while we looked
        return []
    kids: list[int] = []
    for tid in tasks:
        try:
            with open(f"{proc}/{pid}/task/{tid}/children", encoding="ascii") as f:
                kids += [int(x) for x in f.read().split()]
        except FileNotFoundError:
            if os.path.isdir(f"{proc}/{pid}/task/{tid}"):
                return None  # no children files on this kernel
        except (OSError, ValueError):
            continue
    return kids


def descendant_stats(proc: str, root: int) -> dict[int, tuple[int, int]] | None:
    """(parent pid, ticks) of every process below `root`, found by walking down
    the children files: a few reads, where reading every process's stat
    (thousands on a busy server) left the model's next calls up to 3x slower
    (the kernel's work evicts their caches). None without children files."""
    stats: dict[int, tuple[int, int]] = {}
    todo = [root]
    while todo:
        kids = _children_of(proc, todo.pop())
        if kids is None:
            return None
        for kid in kids:
            if kid in stats:
                continue
            parsed = _pid_stat(proc, kid)
            if parsed is not None:
                stats[kid] = parsed
                todo.append(kid)
    return stats


def children_cpu_ns(proc: str = "/proc") -> int:
    """CPU time of this process's child processes: those it reaped (a
    finished compiler) and, from /proc, those still alive (a compile worker
    pool) with what they reaped in turn."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = int((usage.ru_utime + usage.ru_stime) * 1e9)
    root = os.getpid()
    stats = descendant_stats(proc, root)
    if stats is None:
        stats = {}
        try:
            pids = [int(name) for name in os.listdir(proc) if name.isdigit()]
        except OSError:
            return reaped
        for pid in pids:
            parsed = _pid_stat(proc, pid)
            if parsed is not None:
                stats[pid] = parsed
    return reaped + descendants_ticks(stats, root) * _TICK_NS


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
    children = children_cpu_ns()
    own = time.process_time_ns()
    return Snapshot(busy, steal, cpus, own + children, time.perf_counter_ns(), children)


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
        "children_cpu_ns": max(0, after.children_cpu_ns - before.children_cpu_ns),
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
