"""A load that lasts through the measure phase: does compilescope see it?

The cross-check (measure.disturbed) compares single calls with blocks of
calls; a load that lasts slows both alike. The probe's machine_cpu
(measure.busy_machine) counts what other processes took on its CPUs. This
runs a model (by default the gallery MLP, about 1 ms a call here;
benchmarks/models/large_convnet.py takes about 10 ms) in eager under three conditions, in turn within each
repeat: quiet, one busy-loop process beside it, and one per CPU. Each run is
a fresh `compilescope-cli run` with the probe's default threads; the hogs
are plain Python busy loops on the same CPUs.

usage: .venv/bin/python benchmarks/busy_machine.py [--cli build/app/compilescope-cli]
           [--model FILE.py] [--repeats 4] [--iters 1000] [--json out.json]
Prints a line per run and a table per condition: the median's shift against
quiet, and how often each finding fired.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "resources" / "models"
HOG = "while True: pass"


def run_once(cli: Path, model: Path, iters: int, hogs: int, work: Path) -> dict:
    out = work / "report.json"
    out.unlink(missing_ok=True)
    procs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
    try:
        proc = subprocess.run(
            [str(cli), "run", str(model), "--settings", "eager", "--device", "cpu"]
            + ["--warmup", "10", "--iters", str(iters), "--profile-calls", "0"]
            + ["--json", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        for p in procs:
            p.kill()
            p.wait()
    if proc.returncode != 0:
        raise SystemExit(f"compilescope-cli failed ({proc.returncode}):\n{proc.stderr}")
    report = json.loads(out.read_text())
    run = report["runs"][0]
    latency = run["latency"]
    machine = latency.get("machine_cpu") or {}
    wall = machine.get("wall_ns") or 0
    others = (machine.get("busy_ns", 0) - machine.get("probe_cpu_ns", 0)) / wall if wall else None
    rules = {f["rule"] for f in report["advice"]["findings"]}
    check = latency.get("crosscheck")
    return {
        "median_ns": latency["stats"]["median_ns"],
        "crosscheck": check["block_estimate_ns"] / latency["stats"]["median_ns"] if check else None,
        "others": others,
        "cpus": machine.get("cpus"),
        "wall_s": wall / 1e9,
        "disturbed": "measure.disturbed" in rules,
        "busy": "measure.busy_machine" in rules,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--model", default=str(GALLERY / "mlp.py"), help="a model file")
    ap.add_argument("--json")
    args = ap.parse_args()
    cpus = len(os.sched_getaffinity(0))
    conditions = [("quiet", 0), ("1 busy loop", 1), (f"{cpus} busy loops", cpus)]
    results: dict[str, list[dict]] = {name: [] for name, _ in conditions}
    with tempfile.TemporaryDirectory(prefix="busy-machine-") as work:
        for repeat in range(args.repeats):
            for name, hogs in conditions:
                r = run_once(Path(args.cli), Path(args.model), args.iters, hogs, Path(work))
                results[name].append(r)
                print(
                    f"repeat {repeat + 1} {name:>14}: median {r['median_ns'] / 1e3:8.1f} µs, "
                    f"phase {r['wall_s']:.2f} s, others {r['others']:.2f} of {r['cpus']} CPUs, "
                    f"blocks/median {r['crosscheck']:.3f}, disturbed {r['disturbed']}, "
                    f"busy {r['busy']}",
                    flush=True,
                )
    quiet = statistics.median(r["median_ns"] for r in results["quiet"])
    print(
        "\n| condition | runs | median of medians | against quiet | others (CPUs, median) "
        "| measure.disturbed | measure.busy_machine |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, _ in conditions:
        rs = results[name]
        median = statistics.median(r["median_ns"] for r in rs)
        print(
            f"| {name} | {len(rs)} | {median / 1e3:.1f} µs | {median / quiet:.2f}× "
            f"| {statistics.median(r['others'] for r in rs):.2f} "
            f"| {sum(r['disturbed'] for r in rs)}/{len(rs)} "
            f"| {sum(r['busy'] for r in rs)}/{len(rs)} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"cpus": cpus, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
