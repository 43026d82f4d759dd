"""Killed probes, the long form (issue 19): compilescope-cli's probe SIGKILLed at
50 random instants across its phases (start, load, compile, warmup, measure,
sweep, and the profile phase after measure), each instant a random offset into
its phase timed from the moment the CLI's progress line shows the phase begin.
Each time the report must be written and valid, the run `crashed` with
the calls already read, and no process nor temporary folder left behind.

usage: .venv/bin/python benchmarks/killed_probes.py [--cli build/app/compilescope-cli]
           [--count 50] [--seed N]
Prints one line per instant and a summary; exits 1 on any failure. The CI form
is tests/e2e/test_cli_killed_probe.py (8 instants).
"""

import argparse
import collections
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import probe_killer  # noqa: E402
from conftest import validate_report  # noqa: E402

GALLERY = ROOT / "resources" / "models"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(ROOT / "build" / "app" / "compilescope-cli"))
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    args = ap.parse_args()
    print(f"seed {args.seed}", flush=True)
    rng = random.Random(args.seed)
    cases = [
        probe_killer.Case("mlp-eager", GALLERY / "mlp.py", "eager"),
        probe_killer.Case("mlp-default", GALLERY / "mlp.py", "default"),
        probe_killer.Case("variable_length-default", GALLERY / "variable_length.py", "default"),
    ]
    per_case = [args.count // len(cases) + (i < args.count % len(cases)) for i in range(len(cases))]
    phases = collections.Counter()
    failed = 0
    killed = 0
    as_aimed = 0
    with tempfile.TemporaryDirectory(prefix="killed-probes-") as work:
        for case, count in zip(cases, per_case):
            windows = probe_killer.reference(Path(args.cli), case, Path(work))
            print(case.name, " ".join(f"{w.phase} {w.begin_s:.1f}-{w.end_s:.1f}s" for w in windows))
            for aim in probe_killer.plan(windows, count, rng):
                o = probe_killer.kill_once(Path(args.cli), case, aim, Path(work), validate_report)
                print(probe_killer.describe(o), flush=True)
                killed += o.killed
                failed += bool(o.problems)
                if o.killed:
                    landed = o.phase.split(" ")[0]
                    phases[landed] += 1
                    as_aimed += landed == aim.phase
    print(
        f"{killed} probes killed of {args.count} instants; in phases {dict(phases)} "
        f"({as_aimed} in the phase aimed at); "
        f"{failed} failed (seed {args.seed})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
