"""Does a per-call median depend on how deep the timing loop sits?

CPython 3.11 and later keep frames in 16 KiB chunks; a call that does not fit
in the current chunk maps a new one, unmapped again when the call returns. A
loop whose callee's Python frames straddle a chunk's end pays an mmap, a
munmap and a page fault each time the stack crosses it (CPython gh-142183).
So a model timed by a loop at one depth can be slower than the same model
timed one frame deeper. The probe's loops run on a fresh chunk
(harness.on_fresh_stack_chunk); this shows what that changes.

For each model (compiled under the given mode, all cores, torch.no_grad()),
at every depth in a range that spans more than a chunk, one process times
`--calls` calls two ways, back to back: a plain loop at that depth (what a
harness or a user's loop does) and harness.measure_calls called at that depth
(the probe's loop). Per depth it counts the page faults per call. It prints:
at how many depths each loop faulted a page or more per call, the plain
loop's median at those depths over its median at the others (the cost of a
crossing), the same at the depth where it faulted most (a chunk's end in a
loop of the model's, crossed on every pass), and the probe loop's median at
every depth over the plain loop's at the clean depths (1.0: the probe
measures what a loop that crosses no chunk end measures, at any depth).

The allocator's own page faults vary from call to call on some models (glibc
maps and trims large buffers as its thresholds adapt), which would hide a
crossing's: the script runs itself with both thresholds fixed
(MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_: docs/measuring.md, "Page
faults"), so the faults left are the stack's.

usage: .venv/bin/python benchmarks/stack_depth.py [--model FILE ...] [--mode default]
       [--calls 10] [--depths 200] [--json out.json]
A model file defines get_model() and get_inputs() (a tuple or a dict), as for
compilescope;
without --model, benchmarks/models/large_convnet.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

from machine import cores, cpu_name

# Large enough that glibc keeps every buffer of these models in its heap;
# set before torch loads, so the whole run has them.
QUIET_ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "1073741824"}
if any(os.environ.get(k) != v for k, v in QUIET_ALLOCATOR.items()):
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **QUIET_ALLOCATOR})

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "probe"))

import torch  # noqa: E402

from compilescope_probe.harness import CpuTimer, measure_calls  # noqa: E402

# One step is one small frame (about 100 bytes), so 200 steps span more
# than one 16 KiB chunk: every position of a chunk's end is met.
DEFAULT_DEPTHS = 200
# Past the compile and the allocator's first growth.
WARMUP_CALLS = 20


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def at_depth(depth: int, run, *args):
    if depth:
        return at_depth(depth - 1, run, *args)
    return run(*args)


def plain_loop(fn, inputs: tuple, calls: int) -> tuple[float, float]:
    """(median ns, faults per call) of a loop that is not on a fresh chunk."""
    before = faults()
    ns = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        fn(*inputs)
        ns.append(time.perf_counter_ns() - t0)
    return statistics.median(ns), (faults() - before) / calls


class FaultCountingTimer(CpuTimer):
    """The probe's timer, counting page faults from its first call to its
    last: opening the fresh chunk (once per loop) is not a call's."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.last = 0

    def __call__(self, fn, inputs: tuple) -> tuple[int, int]:
        if self.first is None:
            self.first = faults()
        r = super().__call__(fn, inputs)
        self.last = faults()
        return r


def probe_loop(fn, inputs: tuple, calls: int) -> tuple[float, float]:
    timer = FaultCountingTimer()
    ns = measure_calls(timer, fn, inputs, calls, lambda *a: None)
    return statistics.median(ns), (timer.last - timer.first) / calls


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model, inputs = module.get_model().eval(), module.get_inputs()
    if isinstance(inputs, dict):  # keyword inputs: one frame more for both loops
        return (lambda: model(**inputs)), ()
    return model, tuple(inputs)


def bench(path: Path, mode: str, calls: int, depths: int) -> dict:
    model, inputs = load(path)
    fn = torch.compile(model, mode=None if mode == "default" else mode)
    for _ in range(WARMUP_CALLS):
        fn(*inputs)
    rows = []
    for depth in range(depths):
        plain_ns, plain_faults = at_depth(depth, plain_loop, fn, inputs, calls)
        probe_ns, probe_faults = at_depth(depth, probe_loop, fn, inputs, calls)
        rows.append([depth, plain_ns, plain_faults, probe_ns, probe_faults])
    # The model's own faults (the allocator's) are the same at every depth:
    # a crossing is a page a call above the fewest seen.
    baseline = min(min(r[2], r[4]) for r in rows)
    crossing = [r for r in rows if r[2] >= baseline + 1]
    clean = [r for r in rows if r[2] < baseline + 1]
    clean_ns = statistics.median(r[1] for r in clean) if clean else float("nan")
    probe_ratio = [r[3] / clean_ns for r in rows]
    worst = max(rows, key=lambda r: r[2])
    result = {
        "model": str(path),
        "mode": mode,
        "calls": calls,
        "depths": depths,
        "rows": rows,
        "plain_crossing_depths": len(crossing),
        "probe_crossing_depths": sum(1 for r in rows if r[4] >= baseline + 1),
        "baseline_faults_per_call": baseline,
        "plain_faults_per_call_crossing": (
            statistics.median(r[2] for r in crossing) - baseline if crossing else 0
        ),
        "plain_crossing_over_clean": (
            statistics.median(r[1] for r in crossing) / clean_ns if crossing else None
        ),
        "worst_depth": worst[0],
        "worst_faults_per_call": worst[2] - baseline,
        "worst_plain_over_clean": worst[1] / clean_ns,
        "worst_probe_over_clean": worst[3] / clean_ns,
        "probe_over_plain_clean": statistics.median(probe_ratio),
        "probe_over_plain_clean_range": [min(probe_ratio), max(probe_ratio)],
        "plain_clean_ns": clean_ns,
    }
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, action="append")
    ap.add_argument("--mode", default="default")
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--depths", type=int, default=DEFAULT_DEPTHS)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    paths = args.model or [ROOT / "benchmarks" / "models" / "large_convnet.py"]
    machine = (
        f"{cores()} cores ({cpu_name()}), Python {platform.python_version()}, "
        f"torch {torch.__version__}"
    )
    print(machine)
    results = []
    with torch.no_grad():
        for path in paths:
            r = bench(path, args.mode, args.calls, args.depths)
            results.append(r)
            lo, hi = r["probe_over_plain_clean_range"]
            crossing = r["plain_crossing_over_clean"]
            print(
                f"{path.name} ({args.mode}, plain loop {r['plain_clean_ns'] / 1e6:.3f} ms where it "
                f"crossed no chunk end): the plain loop faulted at "
                f"{r['plain_crossing_depths']} of {args.depths} depths "
                f"(median {r['plain_faults_per_call_crossing']:.0f} faults a call more"
                + (f", {crossing:.3f}× its clean median" if crossing else "")
                + f"); at its worst depth ({r['worst_depth']}, "
                f"{r['worst_faults_per_call']:.0f} faults a call more) it ran "
                f"{r['worst_plain_over_clean']:.2f}× its clean median, the probe's loop there "
                f"{r['worst_probe_over_clean']:.2f}×. The probe's loop faulted at "
                f"{r['probe_crossing_depths']} depths and ran "
                f"{r['probe_over_plain_clean']:.3f}× the plain loop's clean median "
                f"(depths {lo:.2f}–{hi:.2f})"
            )
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
