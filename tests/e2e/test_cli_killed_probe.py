"""Killed probes (issue 19): compilescope-cli keeps a valid report, a crashed
run with the calls already read, and leaves no process nor temporary folder,
whatever instant the probe is SIGKILLed at (tests/support/probe_killer.py).

The CI form: 8 instants, the phases taken in turn (each instant a random
offset into its phase, timed from the moment the CLI's progress shows that
phase begin), over the gallery MLP (eager:
start, load, compile, warmup, measure) and the variable-length model under
default (compile, warmup, measure and the sweep of get_input_sweep()).
COMPILESCOPE_KILL_SEED replays a failure; benchmarks/killed_probes.py runs 50.
"""

import os
import random
import sys

from conftest import GALLERY, ROOT, validate_report

sys.path.insert(0, str(ROOT / "tests" / "support"))
import probe_killer  # noqa: E402 - found through the path above

# Each case with the phases its 4 instants are drawn in (the load phase, a few
# ms, is left to the long form).
CASES = [
    (
        probe_killer.Case("mlp-eager", GALLERY / "mlp.py", "eager"),
        ["start", "compile", "warmup", "measure"],
    ),
    (
        probe_killer.Case("variable_length-default", GALLERY / "variable_length.py", "default"),
        ["compile", "warmup", "measure", "sweep"],
    ),
]


def test_probe_killed_at_random_instants(cli, tmp_path):
    seed = int(os.environ.get("COMPILESCOPE_KILL_SEED", random.randrange(1 << 30)))
    print(f"COMPILESCOPE_KILL_SEED={seed}")
    rng = random.Random(seed)
    failures = []
    for case, phases in CASES:
        windows = probe_killer.reference(cli, case, tmp_path)
        for aim in probe_killer.plan(windows, 4, rng, phases):
            outcome = probe_killer.kill_once(cli, case, aim, tmp_path, validate_report)
            print(probe_killer.describe(outcome))
            if outcome.problems:
                failures.append(probe_killer.describe(outcome))
    assert not failures, f"seed {seed}:\n" + "\n".join(failures)
