"""Timing one call of the model: wall clock on CPU, CUDA events on GPU.

A call's span ends after its output is dropped: a loop `y = model(x)` frees
each output as it goes, and so do the blocks of the cross-check and
torch.utils.benchmark. Dropping it after the span left out what freeing an
output costs (docs/BENCHMARKS.md, "The output's free").
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any, Callable


class CpuTimer:
    def __call__(self, fn: Callable[..., Any], inputs: tuple) -> tuple[int, int]:
        """(latency, wall) of one call, its output dropped inside the span."""
        t0 = time.perf_counter_ns()
        fn(*inputs)
        t1 = time.perf_counter_ns()
        return t1 - t0, t1 - t0

    def block(self, fn: Callable[..., Any], inputs: tuple, calls: int) -> int:
        """Wall time of `calls` calls back to back."""
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn(*inputs)
        return time.perf_counter_ns() - t0


class CudaTimer:
    """CUDA events around the call, synchronized; wall time from the host
    clock around the same span (launch + wait)."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def __call__(self, fn: Callable[..., Any], inputs: tuple) -> tuple[int, int]:
        self.torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        self.start.record()
        fn(*inputs)  # the output's free goes back to the caching allocator, on the host
        self.end.record()
        self.end.synchronize()
        t1 = time.perf_counter_ns()
        latency = int(self.start.elapsed_time(self.end) * 1e6)
        return latency, t1 - t0

    def block(self, fn: Callable[..., Any], inputs: tuple, calls: int) -> int:
        self.torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn(*inputs)
        self.torch.cuda.synchronize()
        return time.perf_counter_ns() - t0


# The timed loops run inside a frame this many slots (8 bytes each) large.
# CPython 3.11 and later keep frames in 16 KiB chunks, and a call that does
# not fit in the current chunk maps a new one, which is unmapped again when
# that call returns. A loop whose callee's frames straddle a chunk's end pays
# an mmap, a munmap and a page fault each time the stack crosses it (CPython
# gh-142183, fixed by a cached chunk only in later 3.13 and 3.14 releases):
# DeepLabV3 on the 2-core VM crossed 67 times a call and ran 10-20% slower,
# and whether it did depended only on how deep the probe's own loop sat. A
# frame this large never fits in what is left of the current chunk, so it
# opens a new one sized for it plus at least 8,000 bytes, rounded up to a
# power of two: 128 KiB, leaving about 72 KiB for the loop and the model.
STACK_HEADROOM_SLOTS = 7200


def _stack_headroom_trampoline(slots: int) -> Callable[..., Any]:
    names = "=".join(f"_{i}" for i in range(slots))
    # Assigned, not only declared, so no optimizer can drop the locals.
    source = f"def on_fresh_stack_chunk(run, *args):\n    {names} = None\n    return run(*args)\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<compilescope stack headroom>", "exec"), namespace)
    return namespace["on_fresh_stack_chunk"]


# on_fresh_stack_chunk(run, *args) returns run(*args), called at the start of
# a fresh stack chunk: what it times is the same however deep its caller is.
on_fresh_stack_chunk = _stack_headroom_trampoline(STACK_HEADROOM_SLOTS)


def _empty(*_args: Any) -> None:
    return None


def harness_overhead_ns(timer: Callable, inputs: tuple, calls: int = 200) -> int:
    """Median time the loop reports for a function that does nothing."""
    return on_fresh_stack_chunk(_harness_overhead_ns, timer, inputs, calls)


def _harness_overhead_ns(timer: Callable, inputs: tuple, calls: int) -> int:
    for _ in range(10):
        timer(_empty, inputs)
    samples = [timer(_empty, inputs)[0] for _ in range(calls)]
    return int(statistics.median(samples))


# The measure phase sends what it timed at most this often (docs/protocol.md).
CHUNK_NS = 250_000_000

Send = Callable[[int, list, list], None]


class CallBuffer:
    """The measured calls timed so far, in preallocated lists. What is timed
    but not yet sent can still be sent by a signal handler (flush), so a probe
    stopped mid-phase (a timeout, a cancel) keeps the calls it measured."""

    def __init__(self, iters: int, send: Send) -> None:
        self.latency = [0] * iters
        self.wall = [0] * iters
        self.timed = 0
        self.sent = 0
        self.send = send
        # (call, perf_counter_ns just before it), at the start, after each
        # chunk and at the end: where the calls lay in time, for locate_call.
        self.anchors: list[tuple[int, int]] = []

    def flush(self) -> None:
        first, end = self.sent, self.timed
        if end > first:
            self.sent = end
            self.send(first, self.latency[first:end], self.wall[first:end])


# At most this many of the warmup's last calls run quietly, as the measured
# calls do (Probe.warm_quietly, Walk.measure), and never more than half of the
# calls after the first: the first later calls keep the hooks, where
# recompiles, CUDA-graph recording and lazy initialisation happen.
QUIET_WARMUP_CALLS = 8


def quiet_warmup_calls(warmup: int, iters: int) -> int:
    if iters <= 0:
        return 0
    return min(QUIET_WARMUP_CALLS, max(warmup - 1, 0) // 2)


def measure_calls(
    timer: Callable,
    fn: Callable[..., Any],
    inputs: tuple,
    iters: int,
    send: Send,
    *,
    chunk_ns: int = CHUNK_NS,
    buffer: CallBuffer | None = None,
) -> list[int]:
    """Times `iters` calls into preallocated lists and nothing else: no event
    per call. `send(first, latencies, walls)` gets them in chunks, at most every
    `chunk_ns` and at the end; if a call raises, what was timed before it is
    sent first. Pass `buffer` to reach the calls from outside (a signal
    handler). Returns the latencies. The loop runs on a fresh stack chunk
    (on_fresh_stack_chunk)."""
    buf = buffer if buffer is not None else CallBuffer(iters, send)
    return on_fresh_stack_chunk(_measure_calls, timer, fn, inputs, iters, buf, chunk_ns)


def _measure_calls(
    timer: Callable,
    fn: Callable[..., Any],
    inputs: tuple,
    iters: int,
    buf: CallBuffer,
    chunk_ns: int,
) -> list[int]:
    latency = buf.latency
    wall = buf.wall
    clock = time.perf_counter_ns
    last = clock()
    buf.anchors.append((0, last))
    try:
        for i in range(iters):
            r = timer(fn, inputs)
            latency[i] = r[0]
            wall[i] = r[1]
            buf.timed = i + 1
            now = clock()
            if now - last >= chunk_ns:
                buf.flush()
                last = clock()
                buf.anchors.append((i + 1, last))
    finally:
        buf.anchors.append((buf.timed, clock()))
        buf.flush()  # the rest at the end, or what was timed before a call raised
    return latency


def locate_call(buf: CallBuffer, at_ns: int, lasted_ns: int) -> int | None:
    """The measured call (0-based) in which something began at `at_ns`
    (perf_counter clock) and ran for `lasted_ns`: a compile in the loop.

    Between two anchors a call's start is estimated from the first one plus
    the walls before it; the loop's own steps (the slack: the anchors' gap
    less the walls) make a true start later than its estimate, never earlier.
    So the call is the last one estimated to start by `at_ns` that could
    still hold it and whose wall could hold the compile. None outside the
    loop or when no call fits."""
    anchors = buf.anchors
    for k in range(len(anchors) - 1):
        (first, start), (end_call, end) = anchors[k], anchors[k + 1]
        if not start <= at_ns < end:
            continue
        slack = max(end - start - sum(buf.wall[first:end_call]), 0)
        # perf_counter and the epoch clock torch stamps compiles with may tick
        # apart a little: a wall must hold most of the compile, not all of it.
        need = int(lasted_ns * 0.95)
        found = None
        for call in range(first, end_call):
            if start > at_ns:
                break
            if buf.wall[call] >= need and at_ns <= start + buf.wall[call] + slack:
                found = call
            start += buf.wall[call]
        return found
    return None


def compile_locator(buf: CallBuffer, first_index: int) -> Callable[[Any], int | None]:
    """Maps a compile's CompilationMetrics to the `iteration` index of the
    measured call it ran in, by the epoch time torch stamped it with
    (start_time_us and duration_us; start_time and entire_frame_compile_time_s
    before torch 2.6). None when torch gave no time."""
    epoch_minus_perf = time.time_ns() - time.perf_counter_ns()

    def locate(metrics: Any) -> int | None:
        start_us = getattr(metrics, "start_time_us", None)
        lasted_us = getattr(metrics, "duration_us", None)
        if start_us is None:
            seconds = getattr(metrics, "start_time", None)
            start_us = int(seconds * 1e6) if isinstance(seconds, (int, float)) else None
        if lasted_us is None:
            seconds = getattr(metrics, "entire_frame_compile_time_s", None)
            lasted_us = int(seconds * 1e6) if isinstance(seconds, (int, float)) else 0
        if not isinstance(start_us, int):
            return None
        call = locate_call(buf, start_us * 1000 - epoch_minus_perf, max(int(lasted_us), 0) * 1000)
        return None if call is None else first_index + call

    return locate


# Block timing as torch.utils.benchmark's blocked_autorange does it.
BLOCK_MIN_NS = 10_000_000
BLOCKS_MAX = 20
# core's kMinCrosscheckBlocks: fewer get no verdict, so these many are timed
# even past the budget (a disturbed first block can eat all of it).
BLOCKS_MIN = 3
BLOCKS_BUDGET_NS = 500_000_000


def block_means(
    timer: Any, fn: Callable[..., Any], inputs: tuple, per_call_ns: float, budget_ns: int
) -> tuple[int, list[float]]:
    """Times blocks of calls, each long enough (>= BLOCK_MIN_NS by the per-call
    estimate) that the clock's cost vanishes, until BLOCKS_MAX blocks or
    min(BLOCKS_BUDGET_NS, budget_ns) have passed; at least BLOCKS_MIN blocks.
    Returns (calls per block, mean ns per call of each block). The blocks
    run on a fresh stack chunk, as the measured calls do."""
    calls = max(1, math.ceil(BLOCK_MIN_NS / max(per_call_ns, 1.0)))
    budget = min(BLOCKS_BUDGET_NS, max(budget_ns, 0))
    return calls, on_fresh_stack_chunk(_block_means, timer, fn, inputs, calls, budget)


def _block_means(
    timer: Any, fn: Callable[..., Any], inputs: tuple, calls: int, budget: int
) -> list[float]:
    means: list[float] = []
    start = time.perf_counter_ns()
    while len(means) < BLOCKS_MAX:
        means.append(timer.block(fn, inputs, calls) / calls)
        if len(means) >= BLOCKS_MIN and time.perf_counter_ns() - start >= budget:
            break
    return means
