"""The recorded streams core's C++ tests replay stay valid protocol streams."""

from __future__ import annotations

import json

import pytest
from conftest import PROTOCOL, ROOT, expand_calls

STREAMS = sorted((ROOT / "tests" / "fixtures" / "streams").glob("*.jsonl"))


def test_fixture_streams_exist():
    names = {p.stem for p in STREAMS}
    assert {
        "mlp_eager_cpu",
        "mlp_default_cpu",
        "print_break_aot_eager_cpu",
        "variable_length_sweep",
    } <= names


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_fixture_stream_is_valid(path):
    assert path.stat().st_size < 300 * 1024
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert events[0]["type"] == "hello" and events[0]["protocol"] == PROTOCOL["protocol"]
    assert events[-1]["type"] == "done"
    known = set(PROTOCOL["events"])
    assert all(e["type"] in known and isinstance(e["t_ns"], int) for e in events)
    if events[-1]["status"] == "ok":
        phases = [(e["name"], e["edge"]) for e in events if e["type"] == "phase"]
        assert phases[:8] == [
            ("load", "begin"),
            ("load", "end"),
            ("compile", "begin"),
            ("compile", "end"),
            ("warmup", "begin"),
            ("warmup", "end"),
            ("measure", "begin"),
            ("measure", "end"),
        ]
        its = expand_calls(events)
        settings = events[0]["settings"]
        assert len(its) == settings["warmup"] + settings["iters"]
