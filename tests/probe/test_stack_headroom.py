"""The timed loops run on a fresh interpreter stack chunk, so how deep the
probe's own loop sits never decides whether the calls straddle a chunk's end
(harness.on_fresh_stack_chunk). A call that pushes a new chunk maps fresh
memory and touches it: one page fault or more each time, which is how these
tests see a crossing."""

from __future__ import annotations

import resource
import sys

import pytest

from compilescope_probe import harness

CALLS = 200
# A pad frame is about 100 bytes: this many cover more than two 16 KiB chunks.
DEPTHS = range(0, 400)


def _leaf() -> int:
    return 1


def _work() -> int:
    # Goes one frame deeper and back twenty times a call: a chunk's end
    # between the two depths is crossed twenty times.
    total = 0
    for _ in range(20):
        total += _leaf()
    return total


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _at_depth(depth: int, run, *args):
    if depth:
        return _at_depth(depth - 1, run, *args)
    return run(*args)


def _plain_loop() -> float:
    before = _faults()
    for _ in range(CALLS):
        _work()
    return (_faults() - before) / CALLS


class _FaultCountingTimer(harness.CpuTimer):
    """The probe's timer, counting page faults from its first call to its
    last: opening the fresh chunk and the loop's own lists are not a call's."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.last = 0

    def _count(self, time_it, *args):
        if self.first is None:
            self.first = _faults()
        result = time_it(*args)
        self.last = _faults()
        return result

    def __call__(self, fn, inputs):
        return self._count(super().__call__, fn, inputs)

    def block(self, fn, inputs, calls):
        return self._count(super().block, fn, inputs, calls)


def _measured() -> float:
    timer = _FaultCountingTimer()
    harness.measure_calls(timer, _work, (), CALLS, lambda *a: None)
    return (timer.last - timer.first) / CALLS


def _blocks() -> float:
    timer = _FaultCountingTimer()
    # Blocks of CALLS calls each, the fewest blocks (no budget).
    per_call_ns = harness.BLOCK_MIN_NS / CALLS
    calls, means = harness.block_means(timer, _work, (), per_call_ns, 0)
    return (timer.last - timer.first) / (calls * len(means))


def _by_depth(run) -> dict[int, float]:
    _at_depth(0, run)  # the first run's own allocations
    return {depth: _at_depth(depth, run) for depth in DEPTHS}


@pytest.mark.skipif(
    not (3, 11) <= sys.version_info[:2] < (3, 13),
    reason="frames live in stack chunks from 3.11; later 3.13 releases cache a chunk",
)
def test_a_plain_loop_crosses_a_chunk_end_at_some_depth():
    """Shows the tests below can fail: the same loop, not on a fresh chunk,
    faults on every call at some depth."""
    worst = max(_by_depth(_plain_loop).values())
    assert worst >= 0.9


def test_measured_calls_cross_no_chunk_end_at_any_depth():
    faulting = {d: f for d, f in _by_depth(_measured).items() if f >= 0.05}
    assert faulting == {}


def test_blocks_cross_no_chunk_end_at_any_depth():
    faulting = {d: f for d, f in _by_depth(_blocks).items() if f >= 0.05}
    assert faulting == {}


def test_the_trampoline_passes_arguments_and_the_result_through():
    assert harness.on_fresh_stack_chunk(lambda a, b: (b, a), 1, 2) == (2, 1)
    with pytest.raises(ZeroDivisionError):
        harness.on_fresh_stack_chunk(lambda: 1 / 0)
