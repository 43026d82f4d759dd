"""Compile time split into torch's named phases, adding up to the first call."""

from __future__ import annotations

import math

import pytest
from conftest import assert_well_formed, gallery, run_probe

from compilescope_probe.compile_phases import PHASES, CompileClock


def _check_split(ct: dict, first_iteration: dict) -> dict:
    # torch's precompiled header shows only in the compile that built it (the
    # first on a machine: CI's fresh one, whichever test compiles first).
    names = [p["name"] for p in ct["phases"] if p["name"] != "precompiled_header"]
    assert names == list(PHASES)
    seconds = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert all(v >= 0 for v in seconds.values()), seconds
    assert ct["first_call_ns"] == first_iteration["wall_ns"]
    assert math.isclose(
        sum(seconds.values()), ct["first_call_ns"] / 1e9, rel_tol=1e-9, abs_tol=1e-9
    )
    return seconds


@pytest.mark.slow
def test_inductor_phases_add_up_to_the_first_call():
    run = run_probe(
        gallery("mlp"),
        "--mode",
        "default",
        "--backend",
        "inductor",
        "--warmup",
        "2",
        "--iters",
        "3",
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    ct = run.one("compile_time")
    s = _check_split(ct, run.of("iteration")[0])
    assert "get_compilation_metrics" in ct["source"]
    assert ct["compiles"] == 1
    # Inductor on CPU: tracing, AOTAutograd and code generation all take time
    # (the C++ compiles are counted by their wall time, not their summed
    # durations, which overlap); with a header build the C++ compile phase may
    # be all header.
    for name in ("dynamo_tracing", "aot_autograd", "inductor_codegen"):
        assert s[name] > 0, (name, s)
    assert s["cpp_triton_compile"] + s.get("precompiled_header", 0) > 0, s
    assert s["cudagraph_recording"] == 0  # no CUDA graphs on CPU
    # the named phases explain most of the first call; "other" is the runtime of the call itself and glue
    assert s["other"] < 0.5 * sum(s.values()), s
    assert not ct["scaled"]
    (graph,) = run.of("graph")
    assert not run.of("graph_break")


def test_eager_mode_compiles_nothing():
    run = run_probe(gallery("mlp"), "--mode", "eager", "--warmup", "1", "--iters", "1")
    ct = run.one("compile_time")
    s = _check_split(ct, run.of("iteration")[0])
    assert s["other"] == ct["first_call_ns"] / 1e9
    assert ct["source"].startswith("none")
    assert not run.of("graph")


class _M:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _timers(dynamo_s: float, aot_s: float, inductor_s: float, triton_s: float, **more_us) -> _M:
    """A CompilationMetrics stand-in with torch's nested cumulative timers."""
    return _M(
        dynamo_cumulative_compile_time_us=int(dynamo_s * 1e6),
        aot_autograd_cumulative_compile_time_us=int(aot_s * 1e6),
        inductor_cumulative_compile_time_us=int(inductor_s * 1e6),
        triton_compile_time_us=int(triton_s * 1e6),
        **more_us,
    )


def test_split_follows_the_nesting_of_torch_timers():
    m = _timers(
        10,
        8,
        6,
        1,
        compile_time_autotune_time_us=500_000,
        runtime_triton_autotune_time_us=250_000,
        runtime_cudagraphify_time_us=125_000,
    )
    ct = CompileClock().split(12_000_000_000, [m], capture_overhead_ns=100_000_000)
    s = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert s["dynamo_tracing"] == pytest.approx(2.0)
    assert s["aot_autograd"] == pytest.approx(8.0 - 6.0 - 0.1)
    assert s["cpp_triton_compile"] == pytest.approx(1.0)
    assert s["inductor_codegen"] == pytest.approx(6.0 - 1.0 - 0.5)
    assert s["autotune"] == pytest.approx(0.75)
    assert s["cudagraph_recording"] == pytest.approx(0.125)
    assert sum(s.values()) == pytest.approx(12.0)
    assert s["other"] == pytest.approx(12.0 - (2.0 + 1.9 + 4.5 + 1.0 + 0.75 + 0.125))


def test_overlapping_compiles_count_once(monkeypatch):
    """Inductor compiles some kernels on the main thread, the rest on a thread
    pool while the main thread waits: the phase is the wall time any of them
    ran, not their summed durations (which left code generation 0)."""
    from compilescope_probe import compile_phases

    metrics: dict[str, list[float]] = {"compile_file": [9.0]}  # from an earlier compile
    now = [100.0]
    monkeypatch.setattr(compile_phases, "_torch_time_metrics", lambda: metrics)
    monkeypatch.setattr(compile_phases.time, "time_ns", lambda: int(now[0] * 1e9))

    def timed(key: str, seconds: float, end: float) -> None:
        now[0] = end
        metrics.setdefault(key, []).append(seconds)  # as torch's dynamo_timed does

    clock = CompileClock()
    clock.start()
    timed("compile_file", 1.0, 101.0)  # main thread, 100-101
    timed("compile_file", 2.0, 103.0)  # two pool threads, 101-103
    timed("compile_file", 2.0, 103.0)
    timed("async_compile.wait", 2.0, 103.0)  # the main thread waiting for them
    now[0] = 104.5
    m = _timers(6, 5, 4.5, 2)
    ct = clock.split(6_000_000_000, [m])
    s = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert s["cpp_triton_compile"] == pytest.approx(3.0)
    assert s["inductor_codegen"] == pytest.approx(1.5)
    assert sum(s.values()) == pytest.approx(6.0)
    # Without the spans (torch keeps no such dict), the durations' sum, capped
    summed = {p["name"]: p["seconds"] for p in CompileClock().split(6_000_000_000, [m])["phases"]}
    assert summed["cpp_triton_compile"] == pytest.approx(4.5)
    assert summed["inductor_codegen"] == 0.0


def test_compile_spans_union():
    from compilescope_probe.compile_phases import _union_s

    assert _union_s([(1, 3), (2, 4), (6, 7)], 0, 10) == pytest.approx(4.0)
    assert _union_s([(1, 3), (2, 4), (6, 7)], 2.5, 6.5) == pytest.approx(2.0)
    assert _union_s([(5, 9), (6, 7)], 0, 10) == pytest.approx(4.0)
    assert _union_s([], 0, 10) == 0.0


def test_split_never_goes_negative():
    m = _M(
        dynamo_cumulative_compile_time_us=3_000_000,
        aot_autograd_cumulative_compile_time_us=2_000_000,
    )
    ct = CompileClock().split(1_000_000_000, [m])
    s = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert all(v >= 0 for v in s.values())
    assert sum(s.values()) == pytest.approx(1.0)
    assert s["other"] == 0 and ct["scaled"] is True
    # proportions kept: tracing 1 s and AOTAutograd 2 s of 3 s named
    assert s["aot_autograd"] == pytest.approx(2 * s["dynamo_tracing"])


def test_compile_work_in_later_warmup_calls_is_reported():
    from conftest import fixture_model

    run = run_probe(
        fixture_model("lazy_init"), "--backend", "aot_eager", "--warmup", "3", "--iters", "1"
    )
    assert_well_formed(run)
    (first,) = run.of("compile_time")
    (warmup_end,) = [e for e in run.of("phase") if e["name"] == "warmup" and e["edge"] == "end"]
    later = warmup_end["compile_time"]
    recompiles = [e for e in run.phase_span("warmup") if e["type"] == "recompile"]
    assert len(recompiles) == 1 and "ready" in recompiles[0]["reason"]
    warmup_walls = [i["wall_ns"] for i in run.of("iteration")[1:3]]
    assert later["wall_ns"] == sum(warmup_walls)
    s = {p["name"]: p["seconds"] for p in later["phases"]}
    assert list(s) == list(PHASES)
    assert s["dynamo_tracing"] > 0 and sum(s.values()) == pytest.approx(sum(warmup_walls) / 1e9)
    assert later["compiles"] == 1
    # no later compile work in a steady model: no such field
    plain = run_probe(gallery("clean"), "--backend", "eager", "--warmup", "3", "--iters", "1")
    assert all("compile_time" not in e for e in plain.of("phase"))


def test_a_header_build_is_its_own_phase_taken_out_of_inductor():
    m = _timers(10, 9, 8, 3)
    # torch times the header as compile_file: 6 s of header take all 3 s of
    # the C++ compile, then 3 s of the 5 s of code generation
    ct = CompileClock().split(11_000_000_000, [m], header_build_ns=6_000_000_000)
    names = [p["name"] for p in ct["phases"]]
    assert names.index("precompiled_header") == names.index("cpp_triton_compile") + 1
    s = {p["name"]: p["seconds"] for p in ct["phases"]}
    assert s["precompiled_header"] == pytest.approx(6.0)
    assert s["cpp_triton_compile"] == pytest.approx(0.0)
    assert s["inductor_codegen"] == pytest.approx(2.0)
    assert s["dynamo_tracing"] == pytest.approx(1.0) and s["aot_autograd"] == pytest.approx(1.0)
    assert sum(s.values()) == pytest.approx(11.0)
    # no header built: no such phase
    plain = CompileClock().split(11_000_000_000, [m])
    assert [p["name"] for p in plain["phases"]] == list(PHASES)


@pytest.mark.slow
def test_only_the_first_compile_on_a_machine_builds_the_header(tmp_path):
    """torch keeps its precompiled header in gettempdir()/torchinductor_USER
    whatever cache folder a run gets: a private TMPDIR stands for a fresh
    machine, and its second run finds the header there, though each run sends
    its own temporary files into its own scratch folder, as under the app."""
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    runs = []
    for i in range(2):
        scratch = tmp_path / f"scratch{i}"
        scratch.mkdir()
        env = {"TMPDIR": str(system_tmp), "COMPILESCOPE_CACHE_ROOT": str(scratch)}
        args = ("--mode", "default", "--warmup", "1", "--iters", "2", "--profile-calls", "0")
        runs.append(run_probe(gallery("mlp"), *args, env=env))
    tmp_path = system_tmp
    for run in runs:
        assert run.events[-1]["status"] == "ok", run.describe()
    first, second = (
        {p["name"]: p["seconds"] for p in r.one("compile_time")["phases"]} for r in runs
    )
    if not list(tmp_path.glob("torchinductor_*/precompiled_headers/*.gch")):
        pytest.skip("this torch builds no precompiled header")
    assert first.get("precompiled_header", 0) > 0, first
    assert "precompiled_header" not in second, second
    notes = [e["message"] for e in runs[0].of("log") if "precompiled" in e["message"]]
    assert notes and "later runs skip it" in notes[0]
    assert not [e for e in runs[1].of("log") if "precompiled" in e["message"]]
