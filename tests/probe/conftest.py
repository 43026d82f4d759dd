"""Helpers for the probe tests: run `python -m compilescope_probe` as core's
runner does and read its event stream back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE_PATH = ROOT / "probe"
GALLERY = ROOT / "resources" / "models"
FIXTURES = Path(__file__).resolve().parent / "models"
PROTOCOL = json.loads((PROBE_PATH / "compilescope_probe" / "protocol.json").read_text())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: compiles with Inductor (tens of seconds on a small CPU)"
    )


@dataclass
class ProbeRun:
    events: list[dict]
    stdout: str
    stderr: str
    returncode: int
    args: list[str] = field(default_factory=list)

    def of(self, type_: str) -> list[dict]:
        return [e for e in self.events if e["type"] == type_]

    def one(self, type_: str) -> dict:
        found = self.of(type_)
        assert len(found) == 1, f"expected one {type_} event, got {len(found)}\n{self.describe()}"
        return found[0]

    def calls(self, events: list[dict] | None = None) -> list[dict]:
        """Every timed call, from per-call `iteration` events and the measure
        phase's `iterations` chunks alike, in stream order."""
        return expand_calls(self.events if events is None else events)

    def errors(self) -> list[dict]:
        return self.of("error")

    def phase_span(self, name: str) -> list[dict]:
        """Events strictly between phase `name` begin and end."""
        out, inside = [], False
        for e in self.events:
            if e["type"] == "phase" and e["name"] == name:
                inside = e["edge"] == "begin"
                continue
            if inside:
                out.append(e)
        return out

    def describe(self) -> str:
        errs = [f"{e['kind']}: {e['message']}" for e in self.errors()]
        return f"args={self.args}\nrc={self.returncode}\nerrors={errs}\nstderr tail:\n{self.stderr[-3000:]}"


def expand_calls(events: list[dict]) -> list[dict]:
    out = []
    for e in events:
        if e["type"] == "iteration":
            out.append(e)
        elif e["type"] == "iterations":
            for k, (lat, wall) in enumerate(zip(e["latency_ns"], e["wall_ns"], strict=True)):
                out.append(
                    {
                        "index": e["first_index"] + k,
                        "latency_ns": lat,
                        "wall_ns": wall,
                        "warmup": False,
                        "first_call": False,
                    }
                )
    return out


def run_probe(
    model: str | Path,
    *args: str,
    python: str | None = None,
    timeout: float = 300,
    env: dict | None = None,
) -> ProbeRun:
    cmd = [python or sys.executable, "-m", "compilescope_probe", "--model", str(model), *args]
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(PROBE_PATH)
    full_env.pop("TORCH_LOGS", None)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=str(ROOT)
    )
    events = []
    for number, line in enumerate(proc.stdout.splitlines(), 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            raise AssertionError(
                f"line {number} of the event stream is not JSON: {line[:200]!r}\n{proc.stderr[-2000:]}"
            ) from None
    return ProbeRun(events, proc.stdout, proc.stderr, proc.returncode, cmd[3:])


def run_probes(jobs: list[tuple], workers: int = 2) -> list[ProbeRun]:
    """Several probe runs, two at a time: each is a separate process that
    spends most of its time single-threaded in Python, so this halves the
    wall time on a 2-core machine."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run_probe(*job), jobs))


def gallery(name: str) -> Path:
    return GALLERY / f"{name}.py"


def fixture_model(name: str) -> Path:
    return FIXTURES / f"{name}.py"


def assert_well_formed(run: ProbeRun) -> None:
    """What holds for every stream: hello first, done last, known types, t_ns monotonic."""
    assert run.events, f"no events\n{run.describe()}"
    assert run.events[0]["type"] == "hello", run.describe()
    assert run.events[0]["protocol"] == PROTOCOL["protocol"]
    assert run.events[-1]["type"] == "done", run.describe()
    known = set(PROTOCOL["events"])
    last = 0
    for e in run.events:
        assert e["type"] in known, f"event type {e['type']} is not in protocol.json"
        assert isinstance(e["t_ns"], int) and e["t_ns"] >= last, f"t_ns went backwards at {e}"
        last = e["t_ns"]
    status = run.events[-1]["status"]
    assert run.returncode == (0 if status == "ok" else 3), run.describe()


def first_call_graphs(run: ProbeRun) -> tuple[list[dict], list[dict]]:
    """Graphs and breaks compiled by the first call (the compile phase)."""
    span = run.phase_span("compile")
    return [e for e in span if e["type"] == "graph"], [
        e for e in span if e["type"] == "graph_break"
    ]


def innermost_user_location(brk: dict) -> tuple[str, int] | None:
    if brk["user_frame"] < 0:
        return None
    f = brk["frames"][brk["user_frame"]]
    return os.path.realpath(f["file"]), f["line"]
