"""The compile sub-phase the probe reports while torch compiles."""

from __future__ import annotations

import logging

import pytest
from conftest import assert_well_formed, gallery, run_probe

from compilescope_probe.compile_stages import (
    AOT,
    BACKEND_COMPILE,
    CODEGEN,
    TRACING,
    StageWatcher,
    stage_of,
)


def test_region_names_map_to_stages():
    assert stage_of("bytecode_tracing") == TRACING
    assert stage_of("create_aot_dispatcher_function") == AOT
    assert stage_of("GraphLowering.codegen") == CODEGEN
    assert stage_of("compile_file") == BACKEND_COMPILE
    assert stage_of("pass.post_grad_passes.remove_noop_ops") is None
    assert stage_of("something_new") is None


def test_the_watcher_emits_once_per_change_of_stage():
    events = []
    watcher = StageWatcher(lambda type_, **f: events.append((type_, f["stage"])))

    def record(name, ph="B"):
        r = logging.LogRecord("torch.__trace", logging.DEBUG, "", 0, "", None, None)
        r.metadata = {"chromium_event": {}}
        r.payload = f'{{"name": "{name}", "ph": "{ph}"}}'
        watcher.emit(r)

    for name, ph in [
        ("entire_frame_compile", "B"),
        ("bytecode_tracing", "B"),
        ("bytecode_tracing", "E"),
        ("aot_trace_joint_graph", "B"),
        ("Scheduler.codegen", "B"),
        ("unknown_region", "B"),
        ("compile_file", "B"),
        ("compile_file", "E"),
        ("Scheduler.codegen", "E"),
        ("compile_file", "B"),
        ("entire_frame_compile", "E"),
        ("entire_frame_compile", "E"),
        ("bytecode_tracing", "B"),
    ]:
        record(name, ph)
    # A kernel's C++ compiled while codegen goes on returns to codegen at its
    # end (torchvision's swin_t under dynamic=True had read "C++/Triton
    # compile" through ten minutes of Inductor's codegen); the frame's end is
    # told once, and the next compile's stage again.
    assert [s for _, s in events] == [
        TRACING,
        AOT,
        CODEGEN,
        BACKEND_COMPILE,
        CODEGEN,
        AOT,
        BACKEND_COMPILE,
        "",
        TRACING,
    ]
    assert {t for t, _ in events} == {"compile_progress"}


@pytest.mark.slow
def test_the_probe_reports_stages_while_compiling():
    run = run_probe(gallery("mlp"), "--mode", "default", "--warmup", "1", "--iters", "2")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    stages = [e["stage"] for e in run.of("compile_progress")]
    assert TRACING in stages, stages
    assert CODEGEN in stages, stages
    # Every stage comes while the first call compiles, before measuring
    # starts, and the compile's end is told before its first call's time.
    order = [e["type"] for e in run.events]
    assert order.index("compile_progress") < order.index("iteration")
    assert stages[-1] == "", stages
    last = max(i for i, e in enumerate(run.events) if e["type"] == "compile_progress")
    assert last < order.index("iteration")
