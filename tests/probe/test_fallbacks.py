"""capture_warning: a fallback taken because torch lacks something the probe
reads is said once per site per run, with the torch it happened under."""

from __future__ import annotations

import pytest
import torch
import torch._dynamo.utils
from conftest import assert_well_formed, fixture_model, run_probe

from compilescope_probe import fallbacks
from compilescope_probe.compile_phases import CompileClock, MetricsFeed

WHAT = "torch._dynamo.utils.cumulative_time_spent_ns"


@pytest.fixture
def warnings():
    events: list[dict] = []
    fallbacks.install(lambda type_, **fields: events.append({"type": type_, **fields}))
    yield events
    fallbacks.install(None)


def test_a_missing_torch_attribute_is_one_warning_however_often_read(monkeypatch, warnings):
    monkeypatch.delattr(torch._dynamo.utils, "cumulative_time_spent_ns")
    clock = CompileClock()
    for _ in range(3):  # as the probe does: once per phase, more with recompiles
        clock.start()
        ct = clock.split(1_000_000, [], 0)
    assert ct["phases"]  # the split still happens, from what is left
    assert warnings == [
        {
            "type": "capture_warning",
            "what": WHAT,
            "error": "AttributeError: torch._dynamo.utils has no attribute "
            "'cumulative_time_spent_ns'",
            "torch": torch.__version__,
        }
    ]


def test_each_site_warns_once_and_a_new_run_starts_afresh(monkeypatch, warnings):
    monkeypatch.delattr(torch._dynamo.utils, "get_compilation_metrics")
    monkeypatch.delattr(torch._dynamo.utils, "cumulative_time_spent_ns")
    MetricsFeed()
    MetricsFeed()
    CompileClock().start()
    assert [e["what"] for e in warnings] == ["torch._dynamo.utils.get_compilation_metrics", WHAT]
    again: list[str] = []
    fallbacks.install(lambda type_, **fields: again.append(fields["what"]))
    CompileClock().start()
    CompileClock().start()
    assert again == [WHAT]


def test_the_error_text_is_bounded():
    text = fallbacks.error_text(RuntimeError("x" * 1000))
    assert text.startswith("RuntimeError: xxx") and len(text) == fallbacks.ERROR_LIMIT


def test_nothing_is_said_when_torch_has_everything(warnings):
    feed = MetricsFeed()
    assert feed.available
    clock = CompileClock()
    clock.start()
    clock.split(1_000_000, feed.take(), 0)
    assert warnings == []


def test_the_probe_stream_carries_one_capture_warning():
    run = run_probe(
        fixture_model("old_torch"), "--backend", "eager", "--warmup", "3", "--iters", "3"
    )
    assert_well_formed(run)
    (warning,) = run.of("capture_warning")
    assert warning["what"] == "torch._dynamo.utils.get_compilation_metrics"
    assert warning["torch"] == torch.__version__
    assert warning["error"].startswith("AttributeError: ")
    assert run.events[-1]["status"] == "ok"  # a fallback, not a failure
