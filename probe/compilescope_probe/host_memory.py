"""Host memory: a background sampler of the resident set size, its peak, and
malloc's bytes in use."""

from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Callable

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def read_rss_bytes() -> int | None:
    # /proc/self/statm: size resident shared ... in pages; one short read.
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def mem_available_bytes() -> int | None:
    """MemAvailable of /proc/meminfo: what the kernel could give without swapping."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _status_bytes(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class _Mallinfo2(ctypes.Structure):
    # glibc's struct mallinfo2 (2.33+): every field a size_t.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


class MallocHeld:
    """The bytes glibc's malloc has handed out and not had back: its arenas'
    chunks in use plus its mmapped blocks (mallinfo2). Unlike RSS it does not
    move when malloc reuses a freed chunk or returns pages to the OS, so a
    tensor a model keeps per call shows in it byte for byte (a 64x32 float
    tensor kept per call: 8 KiB per call, where RSS moved 4 KiB in 50 calls).
    About 2.5 us per read; no system call. `read()` is None where the counter
    says nothing about the process's memory: no glibc 2.33+, or another
    allocator (jemalloc, tcmalloc, mimalloc) mapped in, which serves malloc
    itself."""

    counter = "malloc"

    def __init__(self, allocator: str) -> None:
        self._call: Callable[[], _Mallinfo2] | None = None
        if allocator != "glibc":
            return
        try:
            fn = ctypes.CDLL(None).mallinfo2
        except (OSError, AttributeError):
            return
        fn.restype = _Mallinfo2
        fn.argtypes = []
        self._call = fn

    def read(self) -> int | None:
        if self._call is None:
            return None
        info = self._call()
        return int(info.uordblks + info.hblkhd)


def held_window(held: MallocHeld, begin: int | None, calls: int) -> dict | None:
    """A phase end's host_held field (docs/protocol.md): what malloc held
    before and after `calls` calls at the same inputs; None when not read."""
    end = held.read()
    if begin is None or end is None or calls <= 0:
        return None
    return {"counter": held.counter, "calls": calls, "begin_bytes": begin, "end_bytes": end}


class PeakRss:
    """The most resident memory the process held since `reset()`.

    Linux keeps that figure itself (VmHWM in /proc/self/status), and writing
    5 to /proc/self/clear_refs resets it to the current RSS (Linux 4.0+), so
    the peak is exact however short it was and needs no sampling thread. Where
    the reset is refused, VmHWM would be the peak of the whole process (it
    never goes down), so the peak is the most `note()` was given since the
    reset instead: the RSS sampler's samples, one every ~20 ms, and the edges."""

    def __init__(self) -> None:
        self.exact = False
        self._sampled = 0
        self._lock = threading.Lock()

    def reset(self) -> None:
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
            self.exact = _status_bytes("VmHWM") is not None
        except OSError:
            self.exact = False
        with self._lock:
            self._sampled = read_rss_bytes() or 0

    def note(self, rss: int) -> None:
        with self._lock:
            if rss > self._sampled:
                self._sampled = rss

    def peak(self) -> int | None:
        now = read_rss_bytes()
        if now is not None:
            self.note(now)
        if self.exact:
            hwm = _status_bytes("VmHWM")
            if hwm is not None:
                return max(hwm, self._sampled)
        return self._sampled or None


class RssSampler:
    """Samples RSS every `interval_s` on a daemon thread; `drain()` hands back
    the samples taken since the last drain as [t_ns, bytes] pairs."""

    def __init__(self, interval_s: float = 0.02) -> None:
        self.interval_s = interval_s
        self._samples: list[list[int]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._running = threading.Event()  # cleared while paused
        self._running.set()
        # Held while the thread samples: pause() waits for a sample in flight,
        # so none is taken once pause() has returned.
        self._gate = threading.Lock()
        self._thread: threading.Thread | None = None
        self.available = read_rss_bytes() is not None
        # Called with every sample's bytes (on the sampler's thread, or the
        # caller's for sample_now): the batch-size walk's memory cap watch.
        self.listener: Callable[[int], None] | None = None

    def start(self) -> None:
        if not self.available or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="compilescope-rss", daemon=True)
        self._thread.start()

    def sample_now(self) -> None:
        rss = read_rss_bytes()
        if rss is not None:
            with self._lock:
                self._samples.append([time.monotonic_ns(), rss])
            listener = self.listener
            if listener is not None:
                listener(rss)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            # Paused: sleep until resumed, so the thread never takes the GIL
            # while the model is being timed.
            self._running.wait()
            if self._stop.is_set():
                return
            with self._gate:
                if self._running.is_set():
                    self.sample_now()

    def pause(self) -> None:
        with self._gate:
            self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def drain(self) -> list[list[int]]:
        with self._lock:
            out, self._samples = self._samples, []
        return out

    def stop(self) -> None:
        self._stop.set()
        self._running.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
