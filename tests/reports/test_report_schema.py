"""Every report the tests produced (core_tests, make_hostile_report, the CLI
tests: see tests/core/report_capture.h and FIXTURES_SETUP cs_test_reports)
is valid against resources/report.schema.json, with durations as integers."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest


def _validator(schema: dict) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _float_durations(value: object, path: str = "$") -> list[str]:
    """Paths of *_ns values (and compile phase "ns") written as floats: "1.0" is valid JSON Schema
    "integer" but not what the format promises."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}"
            if (key.endswith("_ns") or key == "ns") and (
                isinstance(item, float)
                or (isinstance(item, list) and any(isinstance(v, float) for v in item))
            ):
                found.append(here)
            found += _float_durations(item, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _float_durations(item, f"{path}[{i}]")
    return found


def _produced(reports_dir: Path) -> list[Path]:
    return sorted(reports_dir.glob("*.json"))


def test_schema_is_a_valid_draft_2020_12_schema(schema: dict) -> None:
    _validator(schema)


def test_every_report_the_tests_wrote_is_valid(schema: dict, reports_dir: Path) -> None:
    validator = _validator(schema)
    produced = _produced(reports_dir)
    names = {p.stem for p in produced}
    # The producers this test depends on (ctest FIXTURES_REQUIRED) must have run.
    for expected in (
        "core_sample",
        "from_v1",
        "diff_before",
        "diff_after",
        "hostile",
        "cli_diff_a",
    ):
        assert expected in names, f"{expected}.json missing from {reports_dir}: did its test run?"
    problems = []
    for path in produced:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for error in validator.iter_errors(doc):
            problems.append(f"{path.name}: {error.json_path}: {error.message[:200]}")
        problems += [f"{path.name}: {p} is a float" for p in _float_durations(doc)]
    assert not problems, "\n".join(problems[:40])


def test_the_schema_rejects_what_the_format_forbids(schema: dict, reports_dir: Path) -> None:
    validator = _validator(schema)
    good = json.loads((reports_dir / "core_sample.json").read_text())
    assert validator.is_valid(good)
    breakages = {
        "duration as a string": lambda d: d["runs"][0]["latency"]["samples_ns"].__setitem__(
            0, "1000"
        ),
        "unknown status": lambda d: d["runs"][0].__setitem__("status", "great"),
        "version 1 compile phase": lambda d: d["runs"][0]["compile_phases"]["phases"].__setitem__(
            0, {"name": "dynamo_tracing", "seconds": 0.25}
        ),
        "missing run field": lambda d: d["runs"][0].pop("graph_breaks"),
        "wrong format": lambda d: d.__setitem__("format", "something.else"),
        "negative bytes": lambda d: d["runs"][0]["memory"]["series"][0]["samples"].__setitem__(
            0, [1, -5]
        ),
        "a field nobody documented": lambda d: d["runs"][0].__setitem__("surprise", 1),
    }
    for name, breakage in breakages.items():
        doc = copy.deepcopy(good)
        breakage(doc)
        assert not validator.is_valid(doc), f"the schema accepts: {name}"
    floaty = copy.deepcopy(good)
    floaty["runs"][0]["latency"]["samples_ns"][0] = 1000.0
    assert _float_durations(floaty), "a float duration went unnoticed"


def test_committed_fixture_reports_are_current_or_older(
    schema: dict, fixtures_dir_path: Path
) -> None:
    validator = _validator(schema)
    for path in sorted((fixtures_dir_path / "reports").glob("*.json")):
        doc = json.loads(path.read_text())
        assert doc["format"] == "compilescope.report"
        if doc["version"] == schema["properties"]["version"]["const"]:
            errors = [e.message for e in validator.iter_errors(doc)]
            assert not errors, f"{path.name}: {errors[:5]}"
        else:
            assert 1 <= doc["version"] < schema["properties"]["version"]["const"], path.name


@pytest.fixture
def fixtures_dir_path(fixtures: Path) -> Path:
    return fixtures
