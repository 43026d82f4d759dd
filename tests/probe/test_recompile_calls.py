"""Which call a recompile happened in (`call_index`): exact where the probe
reports each call, found by time among the quietly measured calls."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import assert_well_formed, expand_calls, fixture_model, run_probe

from compilescope_probe import harness


def _buffer(walls, gap, start=1_000, chunks=()):
    """A buffer as measure_calls leaves it: each call `gap` ns after the one
    before (the loop's own steps), an anchor at the start, after each call
    index in `chunks` and at the end. Returns it and the calls' true starts."""
    buf = harness.CallBuffer(len(walls), lambda *a: None)
    buf.wall[:] = walls
    buf.timed = len(walls)
    t = start
    starts = []
    buf.anchors.append((0, t))
    for i, w in enumerate(walls):
        starts.append(t)
        t += w + gap
        if i + 1 in chunks:
            buf.anchors.append((i + 1, t))
    buf.anchors.append((len(walls), t))
    return buf, starts


def _periodic_guard_run(iters: int, *extra: str):
    """periodic_guard.py (a guard that fails every 20 calls) under the eager
    backend, 21 warmup calls, `iters` measured ones."""
    return run_probe(
        fixture_model("periodic_guard"),
        *("--backend", "eager", "--warmup", "21", "--iters", str(iters), *extra),
    )


def test_a_compile_is_found_in_the_call_whose_wall_holds_it():
    walls = [10] * 30 + [5_000] + [10] * 30
    buf, starts = _buffer(walls, gap=3)
    # The estimate runs 90 ns early by call 30: the compile still lands in it.
    assert harness.locate_call(buf, starts[30] + 2, 4_900) == 30


def test_calls_slower_than_the_compile_elsewhere_do_not_take_it():
    walls = [10, 9_000, 10, 10, 6_000, 10, 10]
    buf, starts = _buffer(walls, gap=2)
    assert harness.locate_call(buf, starts[4] + 1, 5_500) == 4
    assert harness.locate_call(buf, starts[1] + 1, 8_800) == 1


def test_anchors_after_chunks_bound_the_drift():
    walls = [100] * 1_000
    walls[700] = 50_000
    buf, starts = _buffer(walls, gap=40, chunks=(250, 500, 750))
    assert harness.locate_call(buf, starts[700] + 5, 48_000) == 700


def test_outside_the_loop_or_with_no_call_long_enough_there_is_no_call():
    walls = [10, 5_000, 10]
    buf, starts = _buffer(walls, gap=1)
    assert harness.locate_call(buf, starts[0] - 100, 1_000) is None
    assert harness.locate_call(buf, buf.anchors[-1][1] + 10, 1_000) is None
    assert harness.locate_call(buf, starts[2] + 5, 4_000) is None, "call 2 is too short"


def test_compile_locator_reads_both_generations_of_torchs_metrics():
    buf = harness.CallBuffer(3, lambda *a: None)
    harness.measure_calls(lambda fn, x: (1, 1), None, (), 3, lambda *a: None, buffer=buf)
    locate = harness.compile_locator(buf, first_index=7)
    # A compile long before the loop began falls in no call, whichever clock it uses.
    assert locate(SimpleNamespace(start_time_us=1, duration_us=10)) is None
    assert locate(SimpleNamespace(start_time=1.0, entire_frame_compile_time_s=1e-5)) is None
    assert locate(SimpleNamespace()) is None, "no time from torch: no call"


def test_recompiles_name_their_calls_in_a_run():
    # 21 warmup calls then 60 measured: torch recompiles as the counter
    # crosses each multiple of 20, at 0-based calls 19 (a warmup call in the
    # quiet tail, 13-20, found by time like the measured ones) and 39, 59, 79.
    run = _periodic_guard_run(60)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    calls = {c["index"]: c for c in expand_calls(run.events)}
    located = [r["call_index"] for r in run.of("recompile") if "call_index" in r]
    assert located == [19, 39, 59, 79], run.describe()
    assert calls[19]["warmup"] and not calls[39]["warmup"]
    measured = sorted(c["latency_ns"] for c in calls.values() if not c["warmup"])
    for index in located[1:]:
        assert calls[index]["latency_ns"] > 5 * measured[len(measured) // 2], "a compile is slow"


def test_the_blocks_compiles_are_reported_in_their_own_phase():
    # After 60 measured calls the cross-check's blocks call on: the guard
    # flips at calls 100, 120, 140 (recompiles) and 160 (torch's limit of 8
    # variants). With no profiled window after the blocks, those compiles,
    # their graphs and the limit hit were once lost.
    run = _periodic_guard_run(60, "--profile-calls", "0")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert not [e for e in run.of("phase") if e["name"] == "profile"]
    blocks = run.phase_span("crosscheck")
    assert run.one("crosscheck") in blocks
    in_blocks = [e for e in blocks if e["type"] == "recompile"]
    assert len(in_blocks) >= 1, run.describe()
    assert all("call_index" not in e for e in in_blocks), "the blocks' calls have no numbers"
    graphs = [e["index"] for e in run.of("graph")]
    assert graphs == list(range(len(graphs))), "no graph index skipped"
    assert len(graphs) == 1 + len(run.of("recompile")), "a graph per compile"
    limit = run.of("recompile_limit")
    assert limit and all(e in blocks for e in limit)


def test_a_limit_hit_among_the_measured_calls_names_its_frame_and_call():
    # The guard flips for the 8th time at call 159, a measured call: torch
    # refuses to compile again. The quiet loop does not hear torch's log, so
    # the frame and the call come from its CompilationMetrics.
    run = _periodic_guard_run(150, "--profile-calls", "0")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    limit = run.one("recompile_limit")
    assert limit in run.phase_span("measure")
    assert limit["function"] == "torch_dynamo_resume_in_forward_at_25"
    assert limit["file"].endswith("periodic_guard.py") and limit["line"] == 25
    assert limit["call_index"] == 159, limit
    assert limit["input_shapes"] == "[2, 8]"
    assert "self.level == 7" in limit["reason"]
