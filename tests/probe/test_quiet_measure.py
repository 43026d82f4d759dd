"""The quiet measure phase: chunked sending and the block-timing cross-check,
on the harness functions and on a tiny model run."""

from __future__ import annotations

import os
import re
import time

import pytest
from conftest import assert_well_formed, gallery, run_probe

from compilescope_probe import harness
from compilescope_probe.host_memory import RssSampler


class FakeTimer:
    """Each call 'takes' `ns` on a fake clock that the chunking also reads."""

    def __init__(self, ns: int, raise_at: int | None = None) -> None:
        self.ns = ns
        self.calls = 0
        self.raise_at = raise_at

    def __call__(self, fn, inputs):
        if self.raise_at is not None and self.calls == self.raise_at:
            raise RuntimeError("boom")
        self.calls += 1
        return self.ns + self.calls, self.ns, None

    def block(self, fn, inputs, calls):
        self.calls += calls
        return self.ns * calls


def test_chunks_cover_every_call_in_order(monkeypatch):
    sent = []
    now = [0]

    def clock():
        now[0] += 100_000_000  # 100 ms per reading: a chunk every few calls
        return now[0]

    monkeypatch.setattr(harness.time, "perf_counter_ns", clock)
    lat = harness.measure_calls(
        FakeTimer(1000), None, (), 10, lambda f, a, b: sent.append((f, list(a), list(b)))
    )
    assert len(sent) > 2, "a slow loop sends more than one chunk"
    assert [c[0] for c in sent] == [sum(len(c[1]) for c in sent[:k]) for k in range(len(sent))]
    assert [x for c in sent for x in c[1]] == lat == [1001 + i for i in range(10)]
    assert all(len(c[1]) == len(c[2]) for c in sent)


def test_fast_loop_sends_one_chunk_at_the_end():
    sent = []
    harness.measure_calls(FakeTimer(5), None, (), 50, lambda f, a, b: sent.append((f, len(a))))
    assert sent == [(0, 50)]


def test_a_call_that_raises_sends_what_was_timed_first():
    sent = []
    with pytest.raises(RuntimeError):
        harness.measure_calls(
            FakeTimer(5, raise_at=3), None, (), 10, lambda f, a, b: sent.append((f, list(a)))
        )
    assert sent == [(0, [6, 7, 8])]


def test_block_size_and_budget():
    t = FakeTimer(200_000)  # 200 us per call: 50 calls make 10 ms
    calls, means = harness.block_means(t, None, (), 200_000.0, 10**12)
    assert calls == 50
    assert len(means) == harness.BLOCKS_MAX and all(m == 200_000 for m in means)
    # a call slower than a block: one call per block; a zero budget: the
    # fewest blocks that still get a verdict
    calls, means = harness.block_means(FakeTimer(5 * 10**7), None, (), 5e7, 0)
    assert calls == 1 and len(means) == harness.BLOCKS_MIN == 3


def test_block_means_stop_at_the_budget():
    def slow(*_):
        time.sleep(0.002)

    calls, means = harness.block_means(harness.CpuTimer(), slow, (), 2e6, 60_000_000)
    assert calls == 5
    assert harness.BLOCKS_MIN <= len(means) < harness.BLOCKS_MAX
    assert all(m >= 2e6 for m in means)


def test_a_first_block_past_the_budget_still_gets_the_fewest_blocks_for_a_verdict():
    # The per-call median promised 1 ms calls (10 per block); a disturbance
    # holds the first call for 30 ms, and that block alone outlasts the budget.
    held = []

    def disturbed(*_):
        if not held:
            held.append(True)
            time.sleep(0.03)

    calls, means = harness.block_means(harness.CpuTimer(), disturbed, (), 1e6, 15_000_000)
    assert calls == 10
    assert len(means) == harness.BLOCKS_MIN
    assert means[0] >= 3e6 > means[1]


def test_tiny_model_run_sends_chunks_and_a_crosscheck():
    run = run_probe(
        gallery("mlp"), "--mode", "eager", "--warmup", "2", "--iters", "30", "--threads", "1"
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    chunks = run.of("iterations")
    assert chunks and all(e in run.phase_span("measure") for e in chunks)
    assert [c["index"] for c in run.calls()] == list(range(32))
    check = run.one("crosscheck")
    assert check not in run.phase_span("measure"), "block timing stays out of the measure phase"
    assert check["block_calls"] >= 1 and check["block_means_ns"]
    assert all(m > 0 for m in check["block_means_ns"])
    assert run.one("model")["intra_op_threads"] == 1
    assert run.events[0]["cpu_affinity"]
    # no host RSS sample falls strictly inside the measure phase but the edges' own
    begin, end = [e["t_ns"] for e in run.of("phase") if e["name"] == "measure"]
    samples = [t for m in run.of("memory") for t, _ in m["samples"] if begin < t < end]
    assert len(samples) <= 2


def test_a_paused_sampler_takes_no_sample_until_resumed():
    sampler = RssSampler(interval_s=0.001)
    if not sampler.available:
        pytest.skip("no RSS reading on this OS")
    sampler.start()
    try:
        time.sleep(0.05)
        sampler.pause()
        sampler.drain()  # what was taken before pause() returned
        time.sleep(0.05)
        assert sampler.drain() == []
        sampler.resume()
        time.sleep(0.05)
        assert sampler.drain()
    finally:
        sampler.stop()


def test_calls_timed_but_not_sent_can_be_flushed_from_outside():
    # What the probe's signal handler does when a timeout or cancel stops it mid-phase.
    sent = []
    buffer = harness.CallBuffer(10, lambda f, a, b: sent.append((f, list(a))))

    class Stop(BaseException):
        pass

    def timer(_fn, _inputs):
        if buffer.timed == 4:
            buffer.flush()  # the handler runs while the 5th call hangs
            raise Stop
        return (buffer.timed + 1, 1)

    with pytest.raises(Stop):
        harness.measure_calls(timer, None, (), 10, buffer.send, buffer=buffer)
    assert sent == [(0, [1, 2, 3, 4])], "flushed once, never sent twice"


def test_the_fewest_blocks_are_the_fewest_core_judges():
    header = os.path.join(
        os.path.dirname(__file__), "..", "..", "core", "analysis", "measurement_check.h"
    )
    with open(header, encoding="utf-8") as f:
        m = re.search(r"kMinCrosscheckBlocks = (\d+);", f.read())
    assert m and int(m.group(1)) == harness.BLOCKS_MIN


def test_a_calls_span_includes_dropping_its_output():
    # A loop `y = model(x)` frees every output, and so do the cross-check's blocks:
    # a span that ends before the free reads low against them on small models.
    import time

    class SlowToFree:
        def __del__(self):
            time.sleep(0.02)

    latency, wall = harness.CpuTimer()(SlowToFree, ())
    assert latency >= 20_000_000 and wall == latency


def test_the_warmups_last_calls_run_quietly():
    from compilescope_probe.harness import QUIET_WARMUP_CALLS, quiet_warmup_calls

    assert quiet_warmup_calls(10, 100) == 4  # half of the 9 after the first
    assert quiet_warmup_calls(100, 100) == QUIET_WARMUP_CALLS
    assert quiet_warmup_calls(2, 100) == 0 and quiet_warmup_calls(3, 100) == 1
    assert quiet_warmup_calls(10, 0) == 0  # nothing measured: nothing to prepare


def test_a_run_with_a_quiet_warmup_tail_reports_every_warmup_call():
    run = run_probe(
        gallery("mlp"), "--mode", "eager", "--warmup", "10", "--iters", "30", "--threads", "1"
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    calls = run.calls()
    assert [c["index"] for c in calls] == list(range(40))
    assert [c["warmup"] for c in calls] == [True] * 10 + [False] * 30
    warmup = [e for e in run.phase_span("warmup") if e["type"] == "iteration"]
    assert len(warmup) == 9 and all(e["warmup"] for e in warmup)
