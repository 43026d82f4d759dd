#!/usr/bin/env python3
"""What a remote target costs: compilescope-cli on ssh://127.0.0.1 against the
same CLI run locally, on loopback, against a private sshd
(tests/support/sshd_fixture.py).

Per repetition, local and remote interleaved (the order alternates from one
repetition to the next, so a machine that gets busier favours neither side):
  - `run` of one setting locally;
  - `run` of one setting remotely with an empty remote cache (connect, probe
    copy, model copy): the first run;
  - the same again with the probe already there: a later run;
  - `compare` of N settings locally and remotely: one session, one connection.
Figures, each the median over the repetitions of a difference measured in
that repetition:
  first run extra   = remote first wall - local wall
  later run extra   = remote later wall - local wall
  per-setting extra = (remote compare wall - local compare wall) / N
  latency ratio     = median of the remote runs' medians / the local runs'
On a busy machine torch's import in each probe wanders by a second or more,
which the wall-time differences carry; so the script also reads the CLI's
progress lines and reports what a remote setting adds without it: the time
to the first setting's first progress line (connect, copies, the probe's
start) and, for a later setting of a compare, from "starting a fresh probe"
to its first progress line.
Goals (issue 14): first run < 2 s extra, later < 0.3 s, ratio within 2%.

Run with the project venv, e.g.
    .venv/bin/python benchmarks/remote_overhead.py --cli build/app/compilescope-cli
    .venv/bin/python benchmarks/remote_overhead.py --quick    # a smoke run
Exit status: 0 when every goal is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cores, cpu_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import sshd_fixture  # noqa: E402 - found through the path above

GOALS = {"first_extra_s": 2.0, "later_extra_s": 0.3, "ratio": 0.02}


PROGRESS = re.compile(r"\((\d+)/\d+\) — ")  # "[ 50%] eager (2/4) — running  00:00"
STARTING = re.compile(r"^\[(\d+)/\d+\] .*: starting a fresh probe")


def cli_run(cli: str, command: str, args: argparse.Namespace, settings: str, sshd=None):
    """One CLI invocation: (wall seconds, the report's runs, marks read off its stderr).

    marks: "first_progress_s", from the start to the first setting's first progress
    line (remote: connect, probe and model copy, then the ssh command, its shell and
    the interpreter's start); "spawn_s", for each later setting of a compare, from its
    "starting a fresh probe" to its first progress line. Both leave out torch's
    import, the noisiest part of a run on a busy machine."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            cli,
            command,
            str(args.model),
            "--settings",
            settings,
            "--device",
            "cpu",
            "--threads",
            str(args.threads),
            "--warmup",
            str(args.warmup),
            "--iters",
            str(args.iters),
            "--python",
            sys.executable,  # on loopback the remote interpreter is this one too
            "--json",
            str(out),
        ]
        if sshd is not None:
            cmd += ["--target", sshd.target, "--ssh-config", str(sshd.client_config)]
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1
        )
        stderr, starts, progress = [], {}, {}
        for line in proc.stderr:
            now = time.perf_counter() - started
            stderr.append(line)
            if m := STARTING.match(line):
                starts[int(m.group(1))] = now
            elif m := PROGRESS.search(line):
                progress.setdefault(int(m.group(1)), now)
        proc.wait(timeout=1800)
        wall = time.perf_counter() - started
        if proc.returncode != 0 or not out.exists():
            raise SystemExit(
                f"{' '.join(cmd)}\nfailed ({proc.returncode}):\n{''.join(stderr)[-3000:]}"
            )
        runs = json.loads(out.read_text())["runs"]
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        raise SystemExit(f"{bad[0]['label']}: {bad[0]['status']}: {bad[0]['error']}")
    marks = {
        "first_progress_s": progress[1],
        "spawn_s": [progress[k] - starts[k] for k in sorted(starts) if k > 1 and k in progress],
    }
    return wall, runs, marks


def ssh_command_s(sshd, repeats: int = 10) -> float:
    """Median wall time of `ssh HOST true` over an open shared connection: what one
    remote command costs before compilescope does anything (the host's login shell
    starts for each, rc files included)."""
    control = Path(tempfile.mkdtemp()) / "cm"
    base = ["ssh", "-F", str(sshd.client_config), "-o", f"ControlPath={control}"]
    master = ["-o", "ControlMaster=auto", "-o", "ControlPersist=60"]
    subprocess.run(base + master + ["127.0.0.1", "true"], check=True, capture_output=True)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(base + ["127.0.0.1", "true"], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    subprocess.run(base + ["-O", "exit", "127.0.0.1"], capture_output=True)
    shutil.rmtree(control.parent, ignore_errors=True)
    return statistics.median(times)


def sessions(sshd) -> int:
    """How many commands sshd has started (its VERBOSE log says each)."""
    return sshd.log_path.read_text(errors="replace").count("Starting session:")


def pwd_shell() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"


def login_shell_s(repeats: int = 10) -> float:
    """Median start of the user's shell as sshd runs a command with it: Debian's bash
    reads ~/.bashrc when SSH_CLIENT is set, whatever the command."""
    env = dict(os.environ, SSH_CLIENT="127.0.0.1 40000 22", SHLVL="0")
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([pwd_shell(), "-c", "true"], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def medians(runs) -> list:
    return [r["latency"]["stats"]["median_ns"] for r in runs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    parser.add_argument("--model", default=str(ROOT / "benchmarks" / "models" / "medium_mlp.py"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--settings", type=int, default=4, help="N, settings in one compare")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads, both sides")
    parser.add_argument("--quick", action="store_true", help="2 repeats, 30 calls: a smoke run")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.iters, args.warmup = 2, 30, 3
    if not Path(args.cli).exists():
        print(f"{args.cli} does not exist: build first or pass --cli", file=sys.stderr)
        return 2

    import torch

    machine = {
        "cpu": cpu_name(),
        "cores": cores(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "ssh": subprocess.run(["ssh", "-V"], capture_output=True, text=True).stderr.strip(),
        "load_before": os.getloadavg(),
    }
    print(
        f"# {machine['cpu']}, {machine['cores']} cores, torch {machine['torch']}, "
        f"{machine['ssh']}, load {machine['load_before'][0]:.1f}; {args.repeats} repeats, "
        f"model {Path(args.model).name}, {args.iters} calls, {args.threads} thread(s)"
        + (" (--quick: a smoke run, not a measurement)" if args.quick else ""),
        flush=True,
    )
    compare_settings = ",".join(["eager"] * args.settings)
    rows = []
    with sshd_fixture.Sshd() as sshd:
        remote_cache = sshd.cache_dir / "compilescope"
        for r in range(args.repeats):

            def local():
                wall, runs, marks = cli_run(args.cli, "run", args, "eager")
                wall_n, runs_n, marks_n = cli_run(args.cli, "compare", args, compare_settings)
                return {
                    "run_s": wall,
                    "compare_s": wall_n,
                    "first_progress_s": marks["first_progress_s"],
                    "spawn_s": marks_n["spawn_s"],
                    "medians_ns": medians(runs) + medians(runs_n),
                }

            def remote():
                shutil.rmtree(remote_cache, ignore_errors=True)  # the first run's empty cache
                counts = [sessions(sshd)]
                first, runs_first, marks_first = cli_run(args.cli, "run", args, "eager", sshd)
                counts.append(sessions(sshd))
                later, runs, marks = cli_run(args.cli, "run", args, "eager", sshd)
                counts.append(sessions(sshd))
                wall_n, runs_n, marks_n = cli_run(args.cli, "compare", args, compare_settings, sshd)
                counts.append(sessions(sshd))
                return {
                    "first_s": first,
                    "run_s": later,
                    "compare_s": wall_n,
                    "first_first_progress_s": marks_first["first_progress_s"],
                    "first_progress_s": marks["first_progress_s"],
                    "spawn_s": marks_n["spawn_s"],
                    "medians_ns": medians(runs_first + runs) + medians(runs_n),
                    # Remote commands (one login shell each) per CLI run.
                    "commands": [b - a for a, b in zip(counts, counts[1:])],
                }

            local_first = r % 2 == 0
            if local_first:
                loc, rem = local(), remote()
            else:
                rem = remote()
                loc = local()
            spawn_extra = statistics.median(rem["spawn_s"]) - statistics.median(loc["spawn_s"])
            row = {
                "repeat": r + 1,
                "local_first": local_first,
                "local": loc,
                "remote": rem,
                "first_extra_s": rem["first_s"] - loc["run_s"],
                "later_extra_s": rem["run_s"] - loc["run_s"],
                "per_setting_extra_s": (rem["compare_s"] - loc["compare_s"]) / args.settings,
                # The same, from the CLI's own progress lines: torch's import left out.
                "first_start_extra_s": rem["first_first_progress_s"] - loc["first_progress_s"],
                "later_start_extra_s": rem["first_progress_s"] - loc["first_progress_s"],
                "spawn_extra_s": spawn_extra,
                "ssh_true_s": ssh_command_s(sshd),
                "login_shell_s": login_shell_s(),
                "load": os.getloadavg()[0],
            }
            rows.append(row)
            print(
                f"repeat {r + 1} ({'local' if local_first else 'remote'} first): local run "
                f"{loc['run_s']:.2f} s, remote first {rem['first_s']:.2f} s, later "
                f"{rem['run_s']:.2f} s; compare x{args.settings} local {loc['compare_s']:.2f} s, "
                f"remote {rem['compare_s']:.2f} s; to the first progress line: first "
                f"{row['first_start_extra_s']:+.3f} s, later "
                f"{row['later_start_extra_s']:+.3f} s; a later setting's start "
                f"{spawn_extra:+.3f} s; one ssh command {row['ssh_true_s']:.3f} s "
                f"(load {row['load']:.1f})",
                flush=True,
            )

    def med(key):
        return statistics.median(x[key] for x in rows)

    local_ns = [m for row in rows for m in row["local"]["medians_ns"]]
    remote_ns = [m for row in rows for m in row["remote"]["medians_ns"]]
    summary = {
        key: med(key)
        for key in (
            "first_extra_s",
            "later_extra_s",
            "per_setting_extra_s",
            "first_start_extra_s",
            "later_start_extra_s",
            "spawn_extra_s",
            "ssh_true_s",
            "login_shell_s",
        )
    }
    summary["local_run_s"] = statistics.median(x["local"]["run_s"] for x in rows)
    summary["local_median_ns"] = statistics.median(local_ns)
    summary["remote_median_ns"] = statistics.median(remote_ns)
    summary["ratio"] = summary["remote_median_ns"] / summary["local_median_ns"]
    verdicts = {
        "first_extra_s": summary["first_extra_s"] < GOALS["first_extra_s"],
        "later_extra_s": summary["later_extra_s"] < GOALS["later_extra_s"],
        # A setting inside a compare is a "later" setting too.
        "per_setting_extra_s": summary["per_setting_extra_s"] < GOALS["later_extra_s"],
        # The same without torch's import.
        "first_start_extra_s": summary["first_start_extra_s"] < GOALS["first_extra_s"],
        "later_start_extra_s": summary["later_start_extra_s"] < GOALS["later_extra_s"],
        "spawn_extra_s": summary["spawn_extra_s"] < GOALS["later_extra_s"],
        "ratio": abs(summary["ratio"] - 1) <= GOALS["ratio"],
    }

    def ok(key):
        return "meets" if verdicts[key] else "MISSES"

    print("\n| figure | measured | goal | verdict |")
    print("|---|---|---|---|")
    print(
        f"| first run, extra wall time | {summary['first_extra_s']:.2f} s | < 2 s "
        f"| {ok('first_extra_s')} |"
    )
    print(
        f"| later run, extra wall time | {summary['later_extra_s']:.2f} s | < 0.3 s "
        f"| {ok('later_extra_s')} |"
    )
    print(
        f"| per setting in a compare of {args.settings} | {summary['per_setting_extra_s']:.3f} s "
        f"| < 0.3 s | {ok('per_setting_extra_s')} |"
    )
    print(
        f"| first run, to the first progress line | {summary['first_start_extra_s']:.3f} s "
        f"| < 2 s | {ok('first_start_extra_s')} |"
    )
    print(
        f"| later run, to the first progress line | {summary['later_start_extra_s']:.3f} s "
        f"| < 0.3 s | {ok('later_start_extra_s')} |"
    )
    print(
        f"| a later setting of a compare, to its first progress line "
        f"| {summary['spawn_extra_s']:.3f} s | < 0.3 s | {ok('spawn_extra_s')} |"
    )
    print(
        f"| latency median, remote / local | {summary['ratio']:.3f} "
        f"({summary['remote_median_ns'] / 1e3:.1f} / {summary['local_median_ns'] / 1e3:.1f} µs) "
        f"| within 2% | {ok('ratio')} |"
    )
    print(f"\nlocal `run` of one setting: {summary['local_run_s']:.2f} s (median)")
    print(
        f"one `ssh HOST true` over the shared connection: {summary['ssh_true_s']:.3f} s "
        "(median; the host's login shell and its rc files start for each command)"
    )
    first_cmds, later_cmds, compare_cmds = rows[-1]["remote"]["commands"]
    print(
        f"remote commands per CLI run: first {first_cmds}, later {later_cmds}, compare of "
        f"{args.settings} {compare_cmds}; the login shell ({pwd_shell()}) starts in "
        f"{summary['login_shell_s']:.3f} s here (median, rc files included)"
    )
    summary["commands"] = {"first": first_cmds, "later": later_cmds, "compare": compare_cmds}
    machine["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": machine,
                    "args": {k: str(v) for k, v in vars(args).items()},
                    "rows": rows,
                    "summary": summary,
                    "verdicts": verdicts,
                },
                indent=1,
            )
        )
    return 0 if all(verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
