#!/usr/bin/env python3
"""Is compilescope's steady-state median right? A cross-check against
torch.utils.benchmark.

For each gallery model (MLP, conv net) and setting (eager, default) this
runs `compilescope-cli run` (a fresh probe, as the app does) and, in this
process, `torch.utils.benchmark.Timer(...).blocked_autorange()` on the same
model, inputs and setting, one right after the other so that both see the
same machine; the order alternates from round to round so a machine that
gets busier or quieter does not favour one side. The verdict uses the median
over rounds of compilescope median / Timer median, which must be within
--tolerance of 1.

The two estimate the same thing only on a quiet machine: compilescope takes
the median of single calls, blocked_autorange the median of block means
(blocks of several calls). Where the process is often preempted, a block
mean carries the lost time slices and a single-call median does not. The
script prints each side's spread (p90/median of the single calls) so a
disagreement can be told apart from noise.

Both sides use the same number of intra-op threads (--threads, default 1):
torch.utils.benchmark.Timer runs single-threaded unless told otherwise, and
on a shared machine two OpenMP threads that wait on each other at every
barrier make both timings swing by factors from one second to the next.

Run with the project venv (it needs torch), e.g.
    .venv/bin/python benchmarks/accuracy.py --cli build/app/compilescope-cli
Exit status: 0 when every model/setting agrees within the tolerance, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "resources" / "models"
SETTINGS = ("eager", "default")


def load_gallery(name: str):
    path = GALLERY / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"accuracy_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def compilescope_stats(cli: str, model: Path, setting: str, args: argparse.Namespace) -> dict:
    """Latency statistics of one setting from a compilescope-cli run (its JSON report)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            cli,
            "run",
            str(model),
            "--settings",
            setting,
            "--device",
            "cpu",
            "--warmup",
            str(args.warmup),
            "--iters",
            str(args.iters),
            "--python",
            sys.executable,
            "--json",
            str(out),
        ]
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))  # the probe's torch threads
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
        if proc.returncode != 0 or not out.exists():
            raise SystemExit(f"compilescope-cli failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        report = json.loads(out.read_text())
    run = report["runs"][0]
    if run["status"] != "ok":
        raise SystemExit(f"{model.name} {run['label']}: {run['status']}: {run['error']}")
    return run["latency"]["stats"]


class TimerSide:
    """The same model, inputs and setting, timed by torch.utils.benchmark."""

    def __init__(self, name: str, module, warmup: int, threads: int) -> None:
        import torch

        self.torch = torch
        self.threads = threads
        torch.manual_seed(0)
        self.model = module.get_model().eval()
        inputs = module.get_inputs()
        self.inputs = inputs if isinstance(inputs, tuple) else (inputs,)
        self.fns = {"eager": self.model}
        with torch.no_grad():
            compiled = torch.compile(self.model)  # mode default, as the probe compiles it
            for _ in range(max(1, warmup)):
                compiled(*self.inputs)
        self.fns["default"] = compiled
        self.name = name

    def measure(self, setting: str, min_run_time: float):
        from torch.utils import benchmark

        timer = benchmark.Timer(
            stmt="fn(*inputs)",
            globals={"fn": self.fns[setting], "inputs": self.inputs},
            label=self.name,
            sub_label=setting,
            num_threads=self.threads,
        )
        with self.torch.no_grad():  # the probe measures inference under no_grad too
            self.fns[setting](*self.inputs)
            measurement = timer.blocked_autorange(min_run_time=min_run_time)
        return measurement


def fmt(ns: float) -> str:
    return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    parser.add_argument("--models", default="mlp,convnet")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument(
        "--min-run-time", type=float, default=2.0, help="seconds per blocked_autorange"
    )
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads on both sides")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    if not Path(args.cli).exists():
        print(
            f"{args.cli} does not exist: build first (scripts/build.sh) or pass --cli",
            file=sys.stderr,
        )
        return 2

    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    machine = {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_before": os.getloadavg(),
    }
    print(
        f"# {machine['cpu']}, {machine['cores']} cores, torch {machine['torch']} "
        f"({machine['torch_threads']} threads), load {machine['load_before'][0]:.1f}",
        flush=True,
    )

    rows = []
    for name in args.models.split(","):
        path, module = load_gallery(name)
        timer_side = TimerSide(name, module, args.warmup, args.threads)
        for r in range(args.rounds):
            started = time.time()
            for setting in SETTINGS:
                if r % 2 == 0:
                    mine = compilescope_stats(args.cli, path, setting, args)
                    m = timer_side.measure(setting, args.min_run_time)
                else:
                    m = timer_side.measure(setting, args.min_run_time)
                    mine = compilescope_stats(args.cli, path, setting, args)
                tm = m.median * 1e9
                ratio = mine["median_ns"] / tm
                rows.append(
                    {
                        "model": name,
                        "setting": setting,
                        "round": r + 1,
                        "compilescope_ns": mine["median_ns"],
                        "compilescope_mean_ns": mine["mean_ns"],
                        "compilescope_spread": mine["p90_ns"] / mine["median_ns"],
                        "timer_ns": tm,
                        "timer_number_per_run": m.number_per_run,
                        "timer_blocks": len(m.times),
                        "ratio": ratio,
                        "load": os.getloadavg()[0],
                    }
                )
                print(
                    f"{name:8} {setting:8} round {r + 1}: compilescope median {fmt(mine['median_ns']):>10} "
                    f"(mean {fmt(mine['mean_ns'])}, p90/median {rows[-1]['compilescope_spread']:.2f})  "
                    f"Timer {fmt(tm):>10} ({m.number_per_run} calls/block)  ratio {ratio:.3f}  "
                    f"(load {rows[-1]['load']:.1f}, {time.time() - started:.0f} s)",
                    flush=True,
                )

    print(
        "\n| model | setting | compilescope median | Timer median | ratio (median of rounds) | rounds | verdict |"
    )
    print("|---|---|---|---|---|---|---|")
    ok = True
    summary = []
    for name in args.models.split(","):
        for setting in SETTINGS:
            mine = [x for x in rows if x["model"] == name and x["setting"] == setting]
            ratio = statistics.median(x["ratio"] for x in mine)
            within = abs(ratio - 1) <= args.tolerance
            ok &= within
            summary.append({"model": name, "setting": setting, "ratio": ratio, "within": within})
            print(
                f"| {name} | {setting} | {fmt(statistics.median(x['compilescope_ns'] for x in mine))} | "
                f"{fmt(statistics.median(x['timer_ns'] for x in mine))} | {ratio:.3f} | "
                f"{', '.join(format(x['ratio'], '.3f') for x in mine)} | "
                f"{'within' if within else 'OUTSIDE'} {args.tolerance:.0%} |"
            )
    machine["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": machine, "rows": rows, "summary": summary}, indent=1)
        )
    if ok:
        print(
            f"\nPASS: compilescope's median within {args.tolerance:.0%} of torch.utils.benchmark "
            f"for every model and setting"
        )
    else:
        print(f"\nFAIL: some medians differ by more than {args.tolerance:.0%}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
