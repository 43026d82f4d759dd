#!/usr/bin/env python3
"""The profiled kernel window (issue 18) measured: what it adds to a run, and
how much of the compiled time it brings back to a source line.

For each model, `compilescope-cli compare MODEL --settings eager,default` once
(the window on, its default of 50 calls), and from the report, per setting:
  - the `profile` phase's wall time against the whole run (first phase begin
    to last phase end): the window's extra time as a fraction of the run;
  - the window's time per call against the measured median (the profiler's
    own cost per call, same run);
  - for default: kernels with FX nodes and with a user line, and the share of
    the compiled kernels' time that lands on a user line rather than on "no
    source line" (from `compilescope-cli costs`' rule: docs/kernel-cost.md).
The models: the gallery MLP and conv net, and torchvision's resnet18 (written
by others, not for this check) at a small input.

    .venv/bin/python benchmarks/profile_window.py --cli build/app/compilescope-cli
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "resources" / "models"

RESNET = """
import torch, torchvision

def get_model():
    return torchvision.models.resnet18(weights=None).eval()

def get_inputs():
    return (torch.randn(1, 3, 64, 64),)
"""


def phase_ns(run: dict, name: str) -> int:
    return sum(p["end_ns"] - p["begin_ns"] for p in run["phases"] if p["name"] == name)


def run_span_ns(run: dict) -> int:
    begins = [p["begin_ns"] for p in run["phases"] if p["begin_ns"] >= 0]
    ends = [p["end_ns"] for p in run["phases"] if p["end_ns"] >= 0]
    return max(ends) - min(begins) if begins and ends else 0


def line_coverage(run: dict) -> tuple[int, int, int, float]:
    """(kernels, with nodes, with a user line, share of timed kernel ns whose
    nodes all have a user line in the captured graph)."""
    kernels = [k for c in run.get("code", []) for k in c["kernels"]]
    with_nodes = sum(1 for k in kernels if k["nodes"])
    with_lines = sum(1 for k in kernels if k["lines"])
    lines_of = {
        (g["compile_id"], n["name"]): bool(n.get("file")) and n.get("line", 0) > 0
        for g in run["graphs"]
        for n in g["nodes"]
    }
    by_name: dict[tuple[str, str], list[dict]] = {}
    for c in run.get("code", []):
        for k in c["kernels"]:
            by_name.setdefault((c["compile_id"], k["name"]), []).append(k)
    total = placed = 0.0
    seen: dict[tuple[str, str], int] = {}
    for p in run.get("kernel_profile", {}).get("kernels", []):
        key = (p["compile_id"], p["name"])
        k_index = seen.get(key, 0)
        seen[key] = k_index + 1
        total += p["ns"]
        candidates = by_name.get(key, [])
        if k_index < len(candidates):
            nodes = candidates[k_index]["nodes"]
            if nodes:
                on_line = sum(1 for n in nodes if lines_of.get((p["compile_id"], n)))
                placed += p["ns"] * on_line / len(nodes)
    return len(kernels), with_nodes, with_lines, placed / total if total else 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        resnet = Path(tmp) / "resnet18_small.py"
        resnet.write_text(RESNET)
        models = [GALLERY / "mlp.py", GALLERY / "convnet.py", resnet]
        for model in models:
            out = Path(tmp) / (model.stem + ".json")
            cmd = [args.cli, "compare", str(model), "--settings", "eager,default"]
            cmd += ["--device", "cpu", "--warmup", "3", "--iters", "30", "--json", str(out)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if not out.exists():
                print(f"{model.stem}: no report ({proc.returncode}): {proc.stderr[-600:]}")
                return 1
            report = json.loads(out.read_text())
            for run in report["runs"]:
                label = run["label"]
                profile = run.get("kernel_profile")
                span = run_span_ns(run)
                window = phase_ns(run, "profile")
                median = (run["latency"].get("stats") or {}).get("median_ns") or 0
                if not profile or not profile["calls"]:
                    print(f"{model.stem} {label}: no profiled window ({run['status']})")
                    continue
                per_call = profile["window_ns"] / profile["calls"]
                line = (
                    f"{model.stem} {label}: profile phase {window / 1e9:.2f} s of a "
                    f"{span / 1e9:.1f} s run ({100 * window / span:.1f} %); "
                    f"{profile['calls']} calls, {per_call / 1e6:.2f} ms per call in the window "
                    f"vs a measured median of {median / 1e6:.2f} ms "
                    f"(x{per_call / median:.2f})"
                    if span and median
                    else f"{model.stem} {label}: incomplete phases"
                )
                if run.get("code"):
                    kernels, with_nodes, with_lines, placed = line_coverage(run)
                    line += (
                        f"; {kernels} kernels, {with_nodes} with FX nodes, {with_lines} with a "
                        f"user line; {100 * placed:.1f} % of the kernels' time on a user line"
                    )
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
