"""The measure end's machine_cpu: /proc/stat over the phase, next to the probe's own CPU."""

from compilescope_probe import machine_load

STAT = """cpu  100 0 50 1000 5 1 2 7 0 0
cpu0 60 0 30 500 2 1 1 3 0 0
cpu1 40 0 20 500 3 0 1 4 0 0
intr 12345
ctxt 999
"""


def test_busy_is_user_nice_system_irq_softirq_and_steal_apart():
    assert machine_load.parse_proc_stat(STAT) == (60 + 30 + 1 + 1 + 40 + 20 + 1, 3 + 4, 2)


def test_only_the_cpus_the_probe_may_run_on_count():
    assert machine_load.parse_proc_stat(STAT, {1}) == (40 + 20 + 1, 4, 1)
    assert machine_load.parse_proc_stat(STAT, {5}) is None


def test_odd_text_reads_as_nothing():
    assert machine_load.parse_proc_stat("") is None
    assert machine_load.parse_proc_stat("cpu0 1 2 x 4 5 6 7\n") is None
    assert machine_load.parse_proc_stat("cpu0 1 2 3\n") is None


def test_between_two_snapshots_in_nanoseconds():
    tick = machine_load._TICK_NS
    a = machine_load.Snapshot(100, 7, 2, 1_000, 10_000)
    b = machine_load.Snapshot(150, 9, 2, 501_000, 1_000_010_000)
    assert machine_load.between(a, b) == {
        "cpus": 2,
        "wall_ns": 1_000_000_000,
        "busy_ns": 50 * tick,
        "steal_ns": 2 * tick,
        "probe_cpu_ns": 500_000,
        "tick_ns": tick,
    }
    assert machine_load.between(a, None) is None
    assert machine_load.between(a, machine_load.Snapshot(150, 9, 3, 0, 0)) is None


def test_a_busy_loop_shows_as_busy_time_of_this_machine():
    import time

    before = machine_load.snapshot()
    assert before is not None, "this test runs on Linux"
    # 0.3 s of CPU, not of wall time: a loaded machine gives the loop less.
    while time.process_time_ns() - before.probe_cpu_ns < 300_000_000:
        pass
    field = machine_load.between(before, machine_load.snapshot())
    assert field is not None
    assert field["probe_cpu_ns"] >= 300_000_000
    # The kernel counts in ticks: coarse, not that coarse.
    assert field["busy_ns"] >= 200_000_000


def test_the_host_reference_is_the_median_rep_and_fails_soft():
    import torch

    ns = machine_load.reference_ns(torch)
    assert isinstance(ns, int) and ns > 0

    class NoMatmul:  # a torch whose CPU matmul raises: no reference, no crash
        def __getattr__(self, name):
            raise RuntimeError("no such op")

    assert machine_load.reference_ns(NoMatmul()) is None
