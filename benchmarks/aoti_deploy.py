#!/usr/bin/env python3
"""The deploy column measured: the aoti setting against default, on the
gallery MLP and conv net, on CPU.

For each model, in one run of this script and on the same machine:
  1. `compilescope-cli compare MODEL --settings eager,default,aoti`: per-call
     medians (the aoti package timed from C++ by compilescope-aoti-runner),
     the first call of default (a cold compile) and of aoti (package load +
     first call), export and package times;
  2. `compilescope-cli run MODEL --settings default --warm-cache`: default's
     first call with torch's compile cache warm;
  3. in this process, the same kind of package loaded with
     torch._inductor.aoti_load_package and timed from Python with the probe's
     own loop (perf_counter_ns around each call): what Python adds per call to
     the same compiled code.
Ratios: aoti median / default median, aoti from Python / aoti from C++, and
package load + first call / default's first call (cold and warm).

    .venv/bin/python benchmarks/aoti_deploy.py --cli build/app/compilescope-cli
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "resources" / "models"


def cli_report(cli: str, args: list[str], out: Path) -> dict:
    proc = subprocess.run(
        [cli, *args, "--json", str(out)], capture_output=True, text=True, timeout=1800
    )
    if not out.exists():
        sys.exit(f"{' '.join(args)} wrote no report:\n{proc.stderr[-3000:]}")
    return json.loads(out.read_text())


def median_us(run: dict) -> float:
    return statistics.median(run["latency"]["samples_ns"]) / 1e3


def phases_s(run: dict) -> dict:
    return {p["name"]: p["ns"] / 1e9 for p in run["compile_phases"]["phases"]}


def python_package_us(model_file: Path, iters: int, threads: int) -> tuple[float, float]:
    """Median µs per call of the model's AOTInductor package called from Python,
    and the package's load time in seconds."""
    import torch

    torch.set_num_threads(threads)
    spec = importlib.util.spec_from_file_location("m", model_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.get_model().eval()
    inputs = module.get_inputs()
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    with tempfile.TemporaryDirectory() as d, torch.no_grad():
        program = torch.export.export(model, inputs, strict=False)
        path = torch._inductor.aoti_compile_and_package(program, package_path=f"{d}/m.pt2")
        t0 = time.perf_counter()
        runner = torch._inductor.aoti_load_package(path)
        load_s = time.perf_counter() - t0
        for _ in range(20):
            runner(*inputs)
        lat = []
        for _ in range(iters):
            t0 = time.perf_counter_ns()
            runner(*inputs)
            lat.append(time.perf_counter_ns() - t0)
    return statistics.median(lat) / 1e3, load_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    ap.add_argument("--iters", type=int, default=500)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--models", default="mlp,convnet")
    a = ap.parse_args()
    common = ["--warmup", "10", "--iters", str(a.iters), "--threads", str(a.threads)]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for name in a.models.split(","):
            model = GALLERY / f"{name}.py"
            report = cli_report(
                a.cli,
                ["compare", str(model), "--settings", "eager,default,aoti", *common],
                Path(d) / f"{name}.json",
            )
            runs = {r["label"]: r for r in report["runs"]}
            warm = cli_report(
                a.cli,
                ["run", str(model), "--settings", "default", "--warm-cache", *common],
                Path(d) / f"{name}-warm.json",
            )["runs"][0]
            py_us, py_load = python_package_us(model, a.iters, a.threads)
            aoti, default, eager = runs["aoti"], runs["default"], runs["eager"]
            ph = phases_s(aoti)
            rows.append(
                {
                    "model": name,
                    "eager_us": median_us(eager),
                    "default_us": median_us(default),
                    "aoti_cpp_us": median_us(aoti),
                    "aoti_python_us": py_us,
                    "aoti_over_default": median_us(aoti) / median_us(default),
                    "python_over_cpp": py_us / median_us(aoti),
                    "export_s": ph.get("export"),
                    "package_s": ph.get("package"),
                    "load_ms": ph.get("load", 0) * 1e3,
                    "python_load_ms": py_load * 1e3,
                    "aoti_first_call_ms": aoti["compile_phases"]["first_call_ns"] / 1e6,
                    "default_first_call_cold_ms": default["compile_phases"]["first_call_ns"] / 1e6,
                    "default_first_call_warm_ms": warm["compile_phases"]["first_call_ns"] / 1e6,
                }
            )
    for r in rows:
        r["first_call_vs_cold"] = r["aoti_first_call_ms"] / r["default_first_call_cold_ms"]
        r["first_call_vs_warm"] = r["aoti_first_call_ms"] / r["default_first_call_warm_ms"]
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
