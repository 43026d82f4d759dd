"""Kills the real probe with SIGKILL at chosen instants of a compilescope-cli run
and checks what is left: the report, the run's status, the calls kept, and no
process or temporary directory behind (issue 19, "Killed probes").

Used by tests/e2e/test_cli_killed_probe.py (a few instants, in CI) and by
benchmarks/killed_probes.py (50 instants). Stdlib only, but for the schema
check that the caller passes in.

An instant is aimed at a phase: a random offset within the reference run's
length of that phase, counted from the moment the CLI's live progress line
(stderr, off a terminal: one line per change, printed as the probe's phase
event is read) shows the phase begin. Timing from the CLI's start instead lets
a slower compile carry a kill meant for the sweep into the measure phase.

Every CLI run gets a private temporary root (TMPDIR), so whatever the probe,
torch or the compiler workers leave there is found; `torchinductor_*` is
torch's own shared folder (its precompiled headers go to
`gettempdir()/torchinductor_USER` whatever TORCHINDUCTOR_CACHE_DIR says), not
a per-run leak, and is not counted.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

TORCH_SHARED = "torchinductor_"


@dataclass
class Case:
    """One CLI run: a model under one setting (one probe)."""

    name: str
    model: Path
    setting: str
    warmup: int = 3
    iters: int = 100

    def argv(self, cli: Path, json_path: Path) -> list[str]:
        return [
            str(cli),
            "run",
            str(self.model),
            "--settings",
            self.setting,
            "--device",
            "cpu",
            "--warmup",
            str(self.warmup),
            "--iters",
            str(self.iters),
            "--timeout",
            "300",
            "--python",
            sys.executable,
            "--json",
            str(json_path),
        ]


@dataclass
class Window:
    phase: str  # "start" (interpreter and torch import, before load), load, compile, ...
    begin_s: float  # seconds after the CLI started
    end_s: float


@dataclass
class Outcome:
    case: str
    aim: str
    phase: str = ""  # the phase the kill landed in, read from the report
    killed: bool = False  # False: no live probe at that instant (it had ended)
    missed_phase: bool = False  # the aimed phase went by unseen; killed in the next
    kept_warmup: int = 0
    kept_measured: int = 0
    problems: list[str] = field(default_factory=list)


# -- /proc -------------------------------------------------------------------------


def proc_table() -> dict[int, tuple[int, int, str, str]]:
    """pid -> (ppid, pgid, state, cmdline) of every process readable now."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (
            int(fields[1]),
            int(fields[2]),
            fields[0],
            cmdline.decode(errors="replace"),
        )
    return table


def descendants(root: int, table: dict[int, tuple[int, int, str, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_rest) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def find_probe(cli_pid: int) -> int | None:
    table = proc_table()
    for pid in descendants(cli_pid, table):
        if "-m compilescope_probe" in table[pid][3] and table[pid][2] != "Z":
            return pid
    return None


def leftovers(cli_pid: int, probe_pid: int | None) -> list[str]:
    """Processes still in the probe's group, or still below the CLI."""
    table = proc_table()
    left = set(descendants(cli_pid, table))
    if probe_pid:
        left |= {pid for pid, (_pp, pgid, _s, _c) in table.items() if pgid == probe_pid}
    return [f"{pid} ({table[pid][3][:80]})" for pid in sorted(left) if pid in table]


def temp_leftovers(tmp_root: Path) -> list[str]:
    return sorted(p.name for p in tmp_root.iterdir() if not p.name.startswith(TORCH_SHARED))


# -- runs ----------------------------------------------------------------------------


def _env(tmp_root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env["TMPDIR"] = str(tmp_root)
    return env


def reference(cli: Path, case: Case, workdir: Path) -> list[Window]:
    """One unkilled run: where each phase lies, in seconds after the CLI started."""
    tmp_root = workdir / f"{case.name}-reference-tmp"
    tmp_root.mkdir(parents=True, exist_ok=True)
    json_path = workdir / f"{case.name}-reference.json"
    start_ns = time.monotonic_ns()
    proc = subprocess.run(
        case.argv(cli, json_path), env=_env(tmp_root), capture_output=True, text=True, timeout=600
    )
    end_s = (time.monotonic_ns() - start_ns) / 1e9
    if proc.returncode != 0:
        raise RuntimeError(f"the reference run of {case.name} failed:\n{proc.stderr[-3000:]}")
    run = json.loads(json_path.read_text())["runs"][0]
    # The probe's t_ns is CLOCK_MONOTONIC, the clock of time.monotonic_ns() here.
    windows = []
    previous = 0.0
    for p in run["phases"]:
        begin, end = (p["begin_ns"] - start_ns) / 1e9, (p["end_ns"] - start_ns) / 1e9
        if not windows:
            windows.append(Window("start", 0.0, begin))
        windows.append(Window(p["name"], begin, end))
        previous = end
    windows.append(Window("finish", previous, end_s))
    shutil.rmtree(tmp_root, ignore_errors=True)
    return windows


@dataclass
class Aim:
    """Where to kill: `offset_s` seconds after `phase` is seen to begin in the
    CLI's live progress lines ("start": after the CLI started)."""

    phase: str
    offset_s: float

    def __str__(self) -> str:
        return f"{self.offset_s:.2f} s into {self.phase}"


def plan(
    windows: list[Window], count: int, rng: random.Random, phases: list[str] | None = None
) -> list[Aim]:
    """`count` aims: phases taken in turn (so each is hit), an offset drawn
    uniformly within the reference run's length of each; `phases` names the ones
    to take (all but "finish" when None)."""
    usable = [w for w in windows if w.phase != "finish" and (not phases or w.phase in phases)]
    return [
        Aim(w.phase, rng.uniform(0.0, max(w.end_s - w.begin_s, 0.001)))
        for w in (usable[i % len(usable)] for i in range(count))
    ]


# The CLI's progress text (off a terminal, one line each time it changes, the
# moment the probe's phase event is read) -> the probe's phase.
PROGRESS_PHASES = [
    ("starting the interpreter", "start"),
    ("importing torch", "start"),
    ("still importing torch", "start"),
    ("loading the model", "load"),
    ("compiling", "compile"),
    ("first call", "compile"),
    ("warmup", "warmup"),
    ("measuring", "measure"),
    ("cross-checking", "crosscheck"),
    ("profiling", "profile"),
    ("comparing the outputs", "outputs"),
    ("input sweep", "sweep"),
    ("batch-size walk", "scale"),
]


def progress_phase(line: str) -> str | None:
    """The phase a progress line shows ("[ 40%] mlp default (1/1) — warmup 1/3
    00:04"), None for any other line."""
    if not line.startswith("[") or " — " not in line:
        return None
    text = line.split(" — ", 1)[1].strip()
    for prefix, phase in PROGRESS_PHASES:
        if text.startswith(prefix):
            return phase
    return None


class ProgressWatch:
    """Reads the CLI's stderr on a thread; notes when each phase was first shown."""

    def __init__(self, stream) -> None:
        self.seen: dict[str, int] = {}  # phase -> time.monotonic_ns() first shown
        self.order: list[str] = []
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            now = time.monotonic_ns()
            self.lines.append(line)
            phase = progress_phase(line)
            if phase and phase not in self.seen:
                self.seen[phase] = now
                self.order.append(phase)

    def text(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.lines)


PHASE_ORDER = [
    "start",
    "load",
    "compile",
    "warmup",
    "measure",
    "crosscheck",
    "profile",
    "outputs",
    "sweep",
    "scale",
]


def anchor_ns(watch: ProgressWatch, phase: str, start_ns: int) -> tuple[int | None, bool]:
    """When the aim's phase began: (time, False) once its line is seen; a later
    phase's line seen first means it went by between two reads (load, a few ms,
    often does): (that line's time, True), killed at once."""
    if phase == "start":
        return start_ns, False
    if phase in watch.seen:
        return watch.seen[phase], False
    rank = PHASE_ORDER.index(phase) if phase in PHASE_ORDER else len(PHASE_ORDER)
    later = [watch.seen[p] for p in watch.order if p in PHASE_ORDER[rank + 1 :]]
    return (min(later), True) if later else (None, False)


def kill_once(cli: Path, case: Case, aim: Aim, workdir: Path, validate) -> Outcome:
    """Runs `case`, SIGKILLs its probe where `aim` says, checks what is left."""
    out = Outcome(case.name, str(aim))
    tmp_root = workdir / "tmp-root"
    shutil.rmtree(tmp_root, ignore_errors=True)
    tmp_root.mkdir(parents=True)
    json_path = workdir / "killed.json"
    json_path.unlink(missing_ok=True)
    start_ns = time.monotonic_ns()
    cli_proc = subprocess.Popen(
        case.argv(cli, json_path),
        env=_env(tmp_root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    watch = ProgressWatch(cli_proc.stderr)
    probe_pid = None
    kill_ns = 0
    while cli_proc.poll() is None:
        pid = find_probe(cli_proc.pid)
        probe_pid = pid or probe_pid
        now = time.monotonic_ns()
        anchor, passed = anchor_ns(watch, aim.phase, start_ns)
        if passed:
            out.missed_phase = True
        deadline = None if anchor is None else anchor + (0 if passed else int(aim.offset_s * 1e9))
        if pid and deadline is not None and now >= deadline:
            try:
                os.kill(pid, signal.SIGKILL)
                out.killed = True
                kill_ns = time.monotonic_ns()
            except ProcessLookupError:
                pass
            break
        if not pid and probe_pid:  # it started and ended before the instant
            break
        near = deadline is not None and now >= deadline - 50_000_000
        time.sleep(0.002 if near or deadline is None else 0.01)
    try:
        cli_proc.wait(timeout=300)
    except subprocess.TimeoutExpired:
        cli_proc.kill()
        cli_proc.wait()
        out.problems.append("the CLI did not end within 300 s of the kill")
    stderr = watch.text()
    if not out.killed:
        out.phase = "after the probe ended"
        shutil.rmtree(tmp_root, ignore_errors=True)
        return out

    # No process left: the CLI has exited, so look for the probe's group and for
    # anything reparented from it.
    left = leftovers(cli_proc.pid, probe_pid)
    for _ in range(40):
        if not left:
            break
        time.sleep(0.05)
        left = leftovers(cli_proc.pid, probe_pid)
    if left:
        out.problems.append(f"processes left behind: {left}")
    temps = temp_leftovers(tmp_root)
    if temps:
        out.problems.append(f"temporary files left in the temp root: {temps}")
    shutil.rmtree(tmp_root, ignore_errors=True)

    if cli_proc.returncode != 2:
        out.problems.append(f"the CLI exited with {cli_proc.returncode}, not 2:\n{stderr[-2000:]}")
    if not json_path.exists():
        out.problems.append("no report was written")
        return out
    try:
        doc = validate(json.loads(json_path.read_text()))
    except Exception as e:  # noqa: BLE001 - any schema or JSON failure is the finding
        out.problems.append(f"the report is not valid: {str(e)[:500]}")
        return out
    run = doc["runs"][0]
    phases = run["phases"]
    out.phase = phases[-1]["name"] if phases else "start"
    if phases and phases[-1]["end_ns"] >= 0 and phases[-1]["end_ns"] < kill_ns:
        out.phase += " (after its end)"
    if run["status"] != "crashed":
        out.problems.append(f"status {run['status']}, not crashed")
    if "killed" not in ((run.get("error") or {}).get("message") or ""):
        out.problems.append(f"the error does not say the probe was killed: {run.get('error')}")
    latency = run["latency"]
    out.kept_warmup = len(latency["warmup_ns"])
    out.kept_measured = len(latency["samples_ns"])
    measure = next((p for p in phases if p["name"] == "measure"), None)
    if measure is not None and out.kept_warmup != case.warmup:
        out.problems.append(
            f"the measure phase had begun but {out.kept_warmup} of {case.warmup} warmup calls were kept"
        )
    # Chunks of measured calls go out every 250 ms: a kill well after the phase
    # began must find some kept.
    if (
        measure is not None
        and kill_ns - measure["begin_ns"] > 600_000_000
        and not out.kept_measured
    ):
        out.problems.append("killed 0.6 s into the measure phase, yet no measured call was kept")
    if out.kept_measured > case.iters:
        out.problems.append(f"{out.kept_measured} measured calls kept, more than {case.iters}")
    return out


def describe(o: Outcome) -> str:
    state = "ok" if not o.problems else "FAILED: " + "; ".join(o.problems)
    if not o.killed:
        return f"{o.case}, {o.aim}: probe had ended, not killed"
    missed = " (went by unseen: killed at the next phase's line)" if o.missed_phase else ""
    return (
        f"{o.case}, {o.aim}{missed}, landed in {o.phase}: kept {o.kept_warmup} warmup + "
        f"{o.kept_measured} measured calls: {state}"
    )
