#!/usr/bin/env python3
"""Is compilescope's steady-state median right? A cross-check against
torch.utils.benchmark.

For three model sizes (about 20 µs, 200 µs and 5 ms per call on one CPU core:
benchmarks/models/, none of them tuned to), at 1 thread and at all cores, in
eager and default, this runs `compilescope-cli run` (a fresh probe, as the app
does) and, in this process, `torch.utils.benchmark.Timer(...).blocked_autorange()`
on the same model, inputs, setting and thread count, one right after the
other so that both see the same machine. The order alternates from repeat to
repeat, and every cell is measured once per repeat before any is measured
again, so a machine that gets busier or quieter favours no side and no cell.

Per cell it reports the ratio compilescope median / Timer median (medians over
the repeats), each side's spread over the repeats ((max - min) / median of the
repeat medians), the probe's own cross-check (median of block means, a
blocked_autorange inside the probe) and the app's CPU time while the probe
measured. Targets (docs/BENCHMARKS.md): the ratio within 2% for the 200 µs
and 5 ms models and within 5% for the 20 µs model, and compilescope's spread
no wider than the Timer's.

--models also takes gallery names, paths to model files (`x.py` with
get_model/get_inputs) and `torchvision:NAME` (built by the probe's own loader:
random weights, the input its weights were made for), i.e. models nobody wrote
for this check; their target is 5% under 100 µs a call, else 2%.

Run with the project venv (it needs torch), on an idle machine, e.g.
    .venv/bin/python benchmarks/accuracy.py --cli build/app/compilescope-cli
    .venv/bin/python benchmarks/accuracy.py --quick      # a smoke run: does it work
Exit status: 0 when every cell meets its targets, 1 otherwise.
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
from collections.abc import Mapping
from pathlib import Path

from machine import cores, cpu_name

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "benchmarks" / "models"
# Model -> the ratio target: the 20 µs model gets 5%, the others 2%.
TARGETS = {"small_mlp": 0.05, "medium_mlp": 0.02, "large_convnet": 0.02}
# Any other model (torchvision:NAME, a gallery one) by its Timer median: a
# call under this gets 5%, a longer one 2%.
SHORT_CALL_NS = 100_000


def ratio_target(name: str, timer_ns: float) -> float:
    return TARGETS.get(name, 0.05 if timer_ns < SHORT_CALL_NS else 0.02)


def load_model(name: str):
    """(spec for compilescope-cli, model, inputs tuple). A name from
    benchmarks/models or the gallery is a .py file; `torchvision:NAME` is built
    by the probe's own loader, so both sides time the same model on the same
    input shape (random weights, as the probe has)."""
    import torch

    if name.startswith("torchvision:"):
        sys.path.insert(0, str(ROOT / "probe"))
        from compilescope_probe.loader import load_torchvision, seed_all

        seed_all()  # the probe's seed: the same random weights and input
        loaded = load_torchvision(name.split(":", 1)[1])
        return name, loaded.model, tuple(loaded.inputs)
    path = Path(name).resolve() if name.endswith(".py") else MODELS / f"{name}.py"
    if not path.exists():
        path = ROOT / "resources" / "models" / f"{name}.py"  # a gallery model by name
    if not path.exists():
        raise SystemExit(
            f"{name}: no such model file (a .py path, a gallery name, torchvision:NAME)"
        )
    spec = importlib.util.spec_from_file_location(f"accuracy_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model = module.get_model().eval()
    inputs = module.get_inputs()
    if isinstance(inputs, Mapping):
        # Keyword inputs (a Hugging Face model's): called as the probe calls them.
        sys.path.insert(0, str(ROOT / "probe"))
        from compilescope_probe.loader import keyword_call

        return str(path), keyword_call(model, tuple(inputs)).eval(), tuple(inputs.values())
    return str(path), model, inputs if isinstance(inputs, tuple) else (inputs,)


def compilescope_run(
    cli: str, model: str, setting: str, threads: int, args: argparse.Namespace
) -> dict:
    """One setting through compilescope-cli: its run from the JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            cli,
            "run",
            model,
            "--settings",
            setting,
            "--device",
            "cpu",
            "--threads",
            str(threads),
            "--warmup",
            str(args.warmup),
            "--iters",
            str(args.iters),
            "--python",
            sys.executable,
            "--json",
            str(out),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if not out.exists():
            raise SystemExit(f"compilescope-cli failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        report = json.loads(out.read_text())
    run = report["runs"][0]
    if run["status"] != "ok":
        raise SystemExit(f"{model} {run['label']}: {run['status']}: {run['error']}")
    return run


class TimerSide:
    """The same model, inputs and setting, timed by torch.utils.benchmark."""

    def __init__(self, model, inputs: tuple, warmup: int) -> None:
        import torch

        self.torch = torch
        self.model = model
        self.inputs = inputs
        self.warmup = warmup
        self.fns = {"eager": self.model}

    def fn(self, setting: str):
        if setting not in self.fns:
            with self.torch.no_grad():
                compiled = self.torch.compile(self.model)  # mode default, as the probe's
                for _ in range(max(1, self.warmup)):
                    compiled(*self.inputs)
            self.fns[setting] = compiled
        return self.fns[setting]

    def median_ns(self, setting: str, threads: int, min_run_time: float) -> float:
        from torch.utils import benchmark

        fn = self.fn(setting)
        timer = benchmark.Timer(
            stmt="fn(*inputs)",
            globals={"fn": fn, "inputs": self.inputs},
            num_threads=threads,
        )
        if str(ROOT / "probe") not in sys.path:
            sys.path.insert(0, str(ROOT / "probe"))
        from compilescope_probe.harness import on_fresh_stack_chunk

        with self.torch.no_grad():  # the probe measures inference under no_grad too
            fn(*self.inputs)
            # On a fresh stack chunk, as the probe's loops: at some depths a
            # model's calls straddle a chunk's end and pay for it on every
            # call (docs/measuring.md, "The interpreter's stack").
            result = on_fresh_stack_chunk(
                lambda: timer.blocked_autorange(min_run_time=min_run_time)
            )
            return result.median * 1e9


def faults_per_call(faults: dict | None) -> float | None:
    if not faults or not faults.get("calls"):
        return None
    return (faults["minor"] + faults["major"]) / faults["calls"]


def fmt(ns: float) -> str:
    return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"


def spread(values: list[float]) -> float:
    """(max - min) / median: how far the repeats' medians wander."""
    return (max(values) - min(values)) / statistics.median(values) if len(values) > 1 else 0.0


def parse_threads(text: str) -> list[int]:
    return [cores() if t == "all" else int(t) for t in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    parser.add_argument("--models", default=",".join(TARGETS))
    parser.add_argument("--settings", default="eager,default")
    parser.add_argument("--threads", default="1,all", help="intra-op threads, both sides")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument(
        "--min-run-time", type=float, default=2.0, help="seconds per blocked_autorange"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 2 repeats, 1 thread, 30 calls, 0.3 s per Timer; no verdict to record",
    )
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.iters, args.warmup, args.min_run_time = 2, 30, 3, 0.3
        args.threads = "1"
    if not Path(args.cli).exists():
        print(
            f"{args.cli} does not exist: build first (scripts/build.sh) or pass --cli",
            file=sys.stderr,
        )
        return 2

    import torch

    models = args.models.split(",")
    settings = args.settings.split(",")
    threads = parse_threads(args.threads)
    machine = {
        "cpu": cpu_name(),
        "cores": cores(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_before": os.getloadavg(),
    }
    print(
        f"# {machine['cpu']}, {machine['cores']} cores, torch {machine['torch']}, "
        f"load {machine['load_before'][0]:.1f}; {args.repeats} repeats"
        + (" (--quick: a smoke run, not a measurement)" if args.quick else ""),
        flush=True,
    )

    sides = {}
    paths = {}
    for name in models:
        paths[name], model, inputs = load_model(name)
        sides[name] = TimerSide(model, inputs, args.warmup)
    cells = [(m, s, t) for m in models for s in settings for t in threads]
    rows = []
    for r in range(args.repeats):
        for k, (name, setting, n) in enumerate(cells):
            started = time.time()
            first_cli = (r + k) % 2 == 0  # alternate within a repeat and across repeats
            if first_cli:
                run = compilescope_run(args.cli, paths[name], setting, n, args)
                timer_ns = sides[name].median_ns(setting, n, args.min_run_time)
            else:
                timer_ns = sides[name].median_ns(setting, n, args.min_run_time)
                run = compilescope_run(args.cli, paths[name], setting, n, args)
            latency = run["latency"]
            mine = latency["stats"]["median_ns"]
            check = latency.get("crosscheck") or {}
            row = {
                "model": name,
                "setting": setting,
                "threads": n,
                "repeat": r + 1,
                "compilescope_first": first_cli,
                "compilescope_ns": mine,
                "timer_ns": timer_ns,
                "ratio": mine / timer_ns,
                "block_estimate_ns": check.get("block_estimate_ns"),
                "app_cpu_measure_ns": latency.get("app_cpu_measure_ns", -1),
                "probe_threads": run["probe"].get("threads", -1),
                # The probe's page faults per measured call (docs/measuring.md,
                # "Page faults"): the Timer's process may keep memory the probe's does not.
                "faults_per_call": faults_per_call(latency.get("host_faults")),
                "load": os.getloadavg()[0],
            }
            rows.append(row)
            block = fmt(row["block_estimate_ns"]) if row["block_estimate_ns"] else "—"
            print(
                f"{name:13} {setting:7} {n:2} thr, repeat {r + 1}: compilescope {fmt(mine):>10} "
                f"Timer {fmt(timer_ns):>10} ratio {row['ratio']:.3f}; probe blocks {block}, "
                f"app CPU {fmt(max(row['app_cpu_measure_ns'], 0))}, "
                f"{row['faults_per_call'] or 0:.0f} page faults per call "
                f"(load {row['load']:.1f}, {time.time() - started:.0f} s)",
                flush=True,
            )

    print(
        "\n| model | setting | threads | compilescope median | Timer median | ratio | target "
        "| compilescope spread | Timer spread | probe blocks | app CPU / measure | verdict |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    summary = []
    for name, setting, n in cells:
        mine = [x for x in rows if (x["model"], x["setting"], x["threads"]) == (name, setting, n)]
        cs = [x["compilescope_ns"] for x in mine]
        tm = [x["timer_ns"] for x in mine]
        ratio = statistics.median(cs) / statistics.median(tm)
        target = ratio_target(name, statistics.median(tm))
        cs_spread, tm_spread = spread(cs), spread(tm)
        within = abs(ratio - 1) <= target
        steady = cs_spread <= tm_spread
        ok &= within and steady
        blocks = [x["block_estimate_ns"] for x in mine if x["block_estimate_ns"]]
        cpu = [x["app_cpu_measure_ns"] for x in mine if x["app_cpu_measure_ns"] >= 0]
        summary.append(
            {
                "model": name,
                "setting": setting,
                "threads": n,
                "ratio": ratio,
                "target": target,
                "compilescope_spread": cs_spread,
                "timer_spread": tm_spread,
                "within": within,
                "spread_ok": steady,
            }
        )
        verdict = []
        if not within:
            verdict.append(f"ratio off by {abs(ratio - 1) - target:.1%} beyond target")
        if not steady:
            verdict.append("spread wider than Timer's")
        print(
            f"| {name} | {setting} | {n} | {fmt(statistics.median(cs))} | "
            f"{fmt(statistics.median(tm))} | {ratio:.3f} | ±{target:.0%} | {cs_spread:.1%} | "
            f"{tm_spread:.1%} | {fmt(statistics.median(blocks)) if blocks else '—'} | "
            f"{fmt(statistics.median(cpu)) if cpu else '—'} | "
            f"{'; '.join(verdict) if verdict else 'meets both'} |"
        )
    # Paired: within one repeat the two sides ran seconds apart, so a machine
    # that changed speed between repeats moves both alike.
    print(
        "\n| model | setting | threads | compilescope / its own blocks | range "
        "| compilescope / Timer | range |"
    )
    print("|---|---|---|---|---|---|---|")
    for (name, setting, n), cell in zip(cells, summary):
        mine = [x for x in rows if (x["model"], x["setting"], x["threads"]) == (name, setting, n)]
        own = [
            x["compilescope_ns"] / x["block_estimate_ns"] for x in mine if x["block_estimate_ns"]
        ]
        paired = [x["ratio"] for x in mine]
        cell["paired_ratio"] = statistics.median(paired)
        cell["own_blocks_ratio"] = statistics.median(own) if own else None
        print(
            f"| {name} | {setting} | {n} | "
            + (f"{statistics.median(own):.3f} | {min(own):.2f}–{max(own):.2f}" if own else "— | —")
            + f" | {statistics.median(paired):.3f} | {min(paired):.2f}–{max(paired):.2f} |"
        )
    machine["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": machine, "rows": rows, "summary": summary}, indent=1)
        )
    if ok:
        print("\nPASS: every cell within its ratio target, with a spread no wider than the Timer's")
    else:
        print("\nFAIL: some cells miss a target (see the verdict column)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
