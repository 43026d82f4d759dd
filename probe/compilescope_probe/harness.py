"""Timing one call of the model: wall clock on CPU, CUDA events on GPU."""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable


class CpuTimer:
    def __call__(self, fn: Callable[..., Any], inputs: tuple) -> tuple[int, int, Any]:
        t0 = time.perf_counter_ns()
        out = fn(*inputs)
        t1 = time.perf_counter_ns()
        return t1 - t0, t1 - t0, out


class CudaTimer:
    """CUDA events around the call, synchronized; wall time from the host
    clock around the same span (launch + wait)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def __call__(self, fn: Callable[..., Any], inputs: tuple) -> tuple[int, int, Any]:
        self.torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        self.start.record()
        out = fn(*inputs)
        self.end.record()
        self.end.synchronize()
        t1 = time.perf_counter_ns()
        latency = int(self.start.elapsed_time(self.end) * 1e6)
        return latency, t1 - t0, out


def _empty(*_args: Any) -> None:
    return None


def harness_overhead_ns(timer: Callable, inputs: tuple, calls: int = 200) -> int:
    """Median time the loop reports for a function that does nothing."""
    for _ in range(10):
        timer(_empty, inputs)
    samples = [timer(_empty, inputs)[0] for _ in range(calls)]
    return int(statistics.median(samples))
