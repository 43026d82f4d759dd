"""Does a call's span have to include dropping its output?

The probe times single calls and then, as a cross-check, blocks of calls back
to back (harness.block_means, as torch.utils.benchmark does). In a block every
output is freed inside the timed span; the single-call span used to end before
the output was dropped. This times, in one process and one thread, the same
model three ways per repeat: single calls with the output freed after the
span, single calls with it freed inside (harness.CpuTimer today), and blocks.
It prints each single-call median over the block median of the same repeat:
the closer to 1, the more the single calls measure what the blocks do.

usage: .venv/bin/python benchmarks/output_free.py [--repeats 7] [--calls 1000] [--json out.json]
Models: a Linear(8, 8) on 2×8 (a few µs: where a free is a visible share) and
a 256-512-256 MLP on 32×256 (a few hundred µs), under torch.no_grad() as the
probe calls them.
"""

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "probe"))

import torch  # noqa: E402

from compilescope_probe.harness import CpuTimer, block_means  # noqa: E402


def freed_after(fn, inputs: tuple) -> int:
    """The old span: the output outlives the clock."""
    t0 = time.perf_counter_ns()
    out = fn(*inputs)
    t1 = time.perf_counter_ns()
    del out
    return t1 - t0


def models() -> dict:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))
    return {
        "linear_8": (torch.nn.Linear(8, 8), (torch.randn(2, 8),)),
        "mlp_256": (mlp, (torch.randn(32, 256),)),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    torch.set_num_threads(1)
    timer = CpuTimer()
    results = {}
    gc.disable()  # as the probe measures
    with torch.no_grad():
        for name, (model, inputs) in models().items():
            for _ in range(200):
                model(*inputs)
            after, inside, blocks = [], [], []
            for _ in range(args.repeats):
                a = statistics.median(freed_after(model, inputs) for _ in range(args.calls))
                b = statistics.median(timer(model, inputs)[0] for _ in range(args.calls))
                _, means = block_means(timer, model, inputs, b, 100_000_000)
                m = statistics.median(means)
                after.append(a / m)
                inside.append(b / m)
                blocks.append(m)
            results[name] = {"after": after, "inside": inside, "block_ns": blocks}
            print(
                f"{name}: blocks {statistics.median(blocks) / 1e3:.1f} µs; single calls / blocks: "
                f"freed after the span {statistics.median(after):.3f} "
                f"({min(after):.2f}–{max(after):.2f}), freed inside "
                f"{statistics.median(inside):.3f} ({min(inside):.2f}–{max(inside):.2f})"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
