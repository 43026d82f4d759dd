"""A load that lasts through the measure phase: the cross-check cannot see it
(single calls and blocks slow alike), the probe's machine_cpu does."""

import os
import subprocess
import sys

from conftest import GALLERY

HOG = "while True: pass"


def pinned_to(cpu):
    return lambda: os.sched_setaffinity(0, {cpu})


def test_another_process_on_the_probes_cpu_is_named(run_cli, cli):
    # Probe and hog on one CPU: they share it whatever the machine's size and
    # whatever else the test suite runs beside this test.
    cpu = min(os.sched_getaffinity(0))
    hog = subprocess.Popen([sys.executable, "-c", HOG], preexec_fn=pinned_to(cpu))
    try:
        result = run_cli(
            "run",
            GALLERY / "mlp.py",
            "--settings",
            "eager",
            "--device",
            "cpu",
            "--threads",
            "1",
            "--warmup",
            "3",
            "--iters",
            "400",
            "--profile-calls",
            "0",
            prefix=["taskset", "-c", str(cpu)],
        )
    finally:
        hog.kill()
        hog.wait()
    assert result.returncode == 0, result.stderr
    run = result.report["runs"][0]
    machine = run["latency"]["machine_cpu"]
    assert machine["cpus"] == 1
    assert machine["wall_ns"] >= 500_000_000, "the phase must be long enough to judge"
    others = (machine["busy_ns"] - machine["probe_cpu_ns"]) / machine["wall_ns"]
    assert others >= 0.3, machine  # the hog had about half the CPU
    findings = [
        f for f in result.report["advice"]["findings"] if f["rule"] == "measure.busy_machine"
    ]
    assert len(findings) == 1, result.report["advice"]["findings"]
    assert "other processes kept" in findings[0]["evidence"][0]
    assert "the rest of the machine: other processes kept" in result.stderr
    assert "the probe shared its CPUs" in result.stderr
