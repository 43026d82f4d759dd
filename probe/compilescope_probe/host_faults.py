"""The probe's own page faults and kernel CPU over the measure phase.

A model whose buffers the C library's malloc gives back to the OS when they
are freed (glibc unmaps a large block, or trims the heap's top) takes every
page of them again on the next call: the kernel faults it in and zeroes it.
torchvision's ResNet-18 compiled on CPU took about 4,800 such faults per call
here, 13.7 ms of the kernel's CPU, and ran 1.3x slower than eager, which took
none; with malloc told to keep the memory it ran as fast as eager
(docs/measuring.md, "Page faults"). The counts come from getrusage, read once
before and once after the measured calls: nothing runs between the calls.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

# malloc's tunables that decide whether freed memory goes back to the OS.
MALLOC_ENV = (
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "MALLOC_ARENA_MAX",
    "GLIBC_TUNABLES",
    "MALLOC_CONF",  # jemalloc's
    "TCMALLOC_RELEASE_RATE",
)
# A replacement allocator is a preloaded library: its file name says which.
ALLOCATORS = ("jemalloc", "tcmalloc", "mimalloc")


@dataclass
class Counts:
    minor: int
    major: int
    sys_ns: int
    wall_ns: int


def counts() -> Counts:
    """This process's faults and kernel CPU so far, all its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return Counts(
        usage.ru_minflt, usage.ru_majflt, int(usage.ru_stime * 1e9), time.perf_counter_ns()
    )


def allocator(maps_text: str | None) -> str:
    """ "jemalloc", "tcmalloc" or "mimalloc" when one of them is mapped into the
    process (LD_PRELOAD, or linked), "glibc" when none is, "" when the maps
    cannot be read (not Linux)."""
    if maps_text is None:
        return ""
    for line in maps_text.splitlines():
        fields = line.split()
        name = os.path.basename(fields[-1]) if fields else ""
        for candidate in ALLOCATORS:
            if name.startswith(f"lib{candidate}"):
                return candidate
    return "glibc"


def maps() -> str | None:
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def between(before: Counts, after: Counts, calls: int) -> dict | None:
    """The measure end's host_faults field (docs/protocol.md); None without calls."""
    if calls <= 0:
        return None
    env = {name: os.environ[name] for name in MALLOC_ENV if name in os.environ}
    return {
        "calls": calls,
        "minor": max(0, after.minor - before.minor),
        "major": max(0, after.major - before.major),
        "sys_cpu_ns": max(0, after.sys_ns - before.sys_ns),
        "wall_ns": max(0, after.wall_ns - before.wall_ns),
        "page_bytes": resource.getpagesize(),
        "allocator": allocator(maps()),
        "malloc_env": env,
    }
