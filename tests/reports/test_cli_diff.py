"""`compilescope-cli diff A.json B.json [--threshold PCT]`: the text and the exit
codes CI gates on (0 no regression, 3 a regression beyond the threshold,
1 bad input), on hand-made reports with a known regression."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

MS = 1_000_000


def _run(label_mode: str, median_ns: int, breaks: list[tuple[str, int, str]], peak: int) -> dict:
    """A run as the writer lays it out, latencies spread evenly around the median."""
    measured = [
        median_ns - median_ns // 100 + (2 * (median_ns // 100) * i) // 199 for i in range(200)
    ]
    warmup = [2000 * MS, median_ns, median_ns]
    iterations = [
        {
            "index": i,
            "latency_ns": ns,
            "wall_ns": ns,
            "t_ns": 1000 + i,
            "warmup": i < 3,
            "first_call": i == 0,
        }
        for i, ns in enumerate(warmup + measured)
    ]

    def frame(f, line):
        return {
            "file": f,
            "line": line,
            "function": "forward",
            "code": "x = x.item()",
            "user": True,
        }

    return {
        "label": label_mode,
        "setting": {
            "mode": label_mode,
            "backend": "inductor",
            "dynamic": "auto",
            "fullgraph": False,
            "device": "cpu",
            "autocast": "none",
            "warmup": 3,
            "iters": 200,
            "sweep": False,
            "warm_cache": False,
        },
        "status": "ok",
        "error": None,
        "exit_code": 0,
        "probe": {
            "protocol": 1,
            "probe_version": "0.1.0",
            "python": "3.11.2",
            "python_executable": "/usr/bin/python3",
            "torch": "2.15.0",
            "cuda": "",
            "device": "cpu",
            "device_name": "cpu",
            "cpu": "x86",
            "host": "h",
            "platform": "Linux",
        },
        "model": {
            "spec": "/m/model.py",
            "file": "/m/model.py",
            "name": "Model",
            "parameters": 10,
            "inputs": [],
        },
        "stream": {
            "hello": True,
            "done": True,
            "done_status": "ok",
            "first_t_ns": 1,
            "last_t_ns": 5000,
        },
        "phases": [],
        "latency": {
            "samples_ns": measured,
            "warmup_ns": warmup,
            "iterations": iterations,
            "harness_overhead_ns": 80,
            "stats": None,
        },
        "graphs": [],
        "graph_breaks": [
            {
                "index": i,
                "reason": reason,
                "gb_type": "",
                "frames": [frame(f, line)],
                "user_frame": 0,
                "graph_before": i,
                "graph_after": i + 1,
            }
            for i, (f, line, reason) in enumerate(breaks)
        ],
        "recompiles": [],
        "compile_phases": {
            "phases": [{"name": "other", "ns": 2000 * MS}],
            "first_call_ns": 2000 * MS,
            "source": "",
        },
        "memory": {
            "series": [
                {"kind": "host_rss", "samples": [[1, peak // 2], [2, peak]], "phase_peaks": {}}
            ],
            "stats": [],
            "cupti": {"active": False, "message": "cpu"},
        },
        "kernels": None,
        "logs": [],
        "console": "",
        "parse_problems": [],
        "unknown_events": [],
    }


def _report(runs: list[dict], torch: str) -> dict:
    return {
        "format": "compilescope.report",
        "version": 2,
        "generator": "test_cli_diff.py",
        "created": "2026-11-30T00:00:00Z",
        "model": {
            "spec": "/m/model.py",
            "file": "/m/model.py",
            "name": "Model",
            "parameters": 10,
            "inputs": [],
        },
        "environment": {
            "python": "3.11.2",
            "torch": torch,
            "cuda": "",
            "device": "cpu",
            "cpu": "x86",
            "host": "h",
            "platform": "Linux",
        },
        "runs": runs,
    }


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, reports_dir: Path) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("diff")
    before = _report(
        [
            _run("eager", 10 * MS, [], 100 << 20),
            _run("default", 5 * MS, [("/a/model.py", 12, "print")], 200 << 20),
        ],
        "2.14.0",
    )
    # After: default 25% slower and a new .item() break; eager unchanged.
    after = copy.deepcopy(before)
    after["environment"]["torch"] = "2.15.0"
    after["runs"][1] = _run(
        "default",
        5 * MS * 125 // 100,
        [("/b/model.py", 12, "print"), ("/b/model.py", 30, "Tensor.item()")],
        200 << 20,
    )
    paths = {}
    for name, doc in {"a": before, "b": after, "a_copy": copy.deepcopy(before)}.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    # Hand-made, but they must be valid reports: the schema test checks them too.
    (reports_dir / "cli_diff_a.json").write_text(json.dumps(before))
    (reports_dir / "cli_diff_b.json").write_text(json.dumps(after))
    paths["not_json"] = folder / "not_json.json"
    paths["not_json"].write_text("this is not json")
    paths["not_report"] = folder / "package.json"
    paths["not_report"].write_text(json.dumps({"name": "x", "version": "1.0"}))
    paths["truncated"] = folder / "truncated.json"
    paths["truncated"].write_text(json.dumps(before)[:500])
    return paths


def diff(cli: Path, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cli), "diff", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def test_regression_beyond_the_threshold_exits_3(cli: Path, reports: dict[str, Path]) -> None:
    result = diff(cli, reports["a"], reports["b"], "--threshold", "10")
    assert result.returncode == 3, result.stdout + result.stderr
    out = result.stdout
    assert "torch: 2.14.0 → 2.15.0" in out
    assert "+25.0%  REGRESSION" in out
    assert "new break in B:  model.py:30 forward: Tensor.item()" in out
    assert "2 regressions beyond the threshold" in out
    assert "default: median latency +25.0%" in out
    assert "default: graph breaks 1 → 2" in out


def test_regression_within_the_threshold_still_fails_on_a_new_break(
    cli: Path, reports: dict[str, Path]
) -> None:
    result = diff(cli, reports["a"], reports["b"], "--threshold", "30")
    assert result.returncode == 3, result.stdout
    assert "1 regression beyond the threshold" in result.stdout
    assert "+25.0%  REGRESSION" not in result.stdout


def test_same_report_exits_0(cli: Path, reports: dict[str, Path]) -> None:
    result = diff(cli, reports["a"], reports["a_copy"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no regression beyond the threshold" in result.stdout


def test_the_other_way_round_is_an_improvement(cli: Path, reports: dict[str, Path]) -> None:
    result = diff(cli, reports["b"], reports["a"], "--threshold", "10")
    assert result.returncode == 0, result.stdout
    assert "better" in result.stdout
    assert "gone in B:       model.py:30" in result.stdout


@pytest.mark.parametrize(
    "bad, message",
    [
        ("not_json", "not valid JSON"),
        ("not_report", "not a compilescope report"),
        ("truncated", "ends early"),
        ("missing", "does not exist"),
    ],
)
def test_bad_input_exits_1_with_a_message(
    cli: Path, reports: dict[str, Path], bad: str, message: str
) -> None:
    path = reports.get(bad, Path("/nonexistent/report.json"))
    result = diff(cli, reports["a"], path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert message in result.stderr
    assert str(path) in result.stderr


@pytest.mark.parametrize(
    "args",
    [[], ["only_one.json"], ["a", "b", "--threshold", "lots"], ["a", "b", "--threshold", "-5"]],
)
def test_bad_arguments_exit_1(cli: Path, args: list[str]) -> None:
    result = diff(cli, *args)
    assert result.returncode == 1
    assert "usage" in result.stderr
