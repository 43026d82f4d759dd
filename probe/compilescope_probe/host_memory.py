"""A background sampler of the process's resident set size (host memory)."""

from __future__ import annotations

import os
import threading
import time

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def read_rss_bytes() -> int | None:
    # /proc/self/statm: size resident shared ... in pages; one short read.
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


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
