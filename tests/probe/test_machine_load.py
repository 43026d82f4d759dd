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
    a = machine_load.Snapshot(100, 7, 2, 1_000, 10_000, 400)
    b = machine_load.Snapshot(150, 9, 2, 501_000, 1_000_010_000, 100_400)
    assert machine_load.between(a, b) == {
        "cpus": 2,
        "wall_ns": 1_000_000_000,
        "busy_ns": 50 * tick,
        "steal_ns": 2 * tick,
        "probe_cpu_ns": 500_000,
        "children_cpu_ns": 100_000,
        "tick_ns": tick,
    }
    assert machine_load.between(a, None) is None
    assert machine_load.between(a, machine_load.Snapshot(150, 9, 3, 0, 0)) is None


def test_a_busy_loop_shows_as_busy_time_of_this_machine():
    import time

    before = machine_load.snapshot()
    assert before is not None, "this test runs on Linux"
    start = time.process_time_ns()
    # 0.3 s of CPU, not of wall time: a loaded machine gives the loop less.
    while time.process_time_ns() - start < 300_000_000:
        pass
    field = machine_load.between(before, machine_load.snapshot())
    assert field is not None
    assert field["probe_cpu_ns"] >= 300_000_000
    # The kernel counts in ticks: coarse, not that coarse.
    assert field["busy_ns"] >= 200_000_000


def test_a_pid_stat_line_reads_past_a_command_name_with_spaces_and_parens():
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    # utime stime cutime cstime ...
    line = "4242 (cc1plus (x) y) R 17 4242 4242 0 -1 4194304 10 0 0 0 300 20 5 1 20 0 1 0\n"
    assert machine_load.parse_pid_stat(line) == (17, 300 + 20 + 5 + 1)
    assert machine_load.parse_pid_stat("4242 (short) R 17 1 2") is None
    assert machine_load.parse_pid_stat("garbage") is None


def test_descendants_are_every_process_below_the_root_not_beside_it():
    stats = {
        10: (1, 1000),  # the probe itself: not its own descendant
        11: (10, 5),  # a compile worker
        12: (11, 7),  # its compiler
        13: (12, 2),
        20: (1, 900),  # a neighbour
        21: (20, 50),
    }
    assert machine_load.descendants_ticks(stats, 10) == 5 + 7 + 2
    assert machine_load.descendants_ticks(stats, 13) == 0


def test_a_child_process_busy_loop_counts_as_the_probes_own_cpu():
    # A recompile in the measure phase runs the C++ compiler as a child: its CPU is
    # the probe's, not another program's (measure.busy_machine).
    import subprocess
    import sys

    before = machine_load.snapshot()
    assert before is not None, "this test runs on Linux"
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    subprocess.run([sys.executable, "-c", busy], check=True)
    field = machine_load.between(before, machine_load.snapshot())
    assert field is not None
    assert field["children_cpu_ns"] >= 250_000_000
    assert field["probe_cpu_ns"] >= field["children_cpu_ns"]


def test_a_live_child_process_counts_before_it_is_reaped():
    # Inductor's compile workers live for the whole run: /proc, not getrusage.
    import subprocess
    import sys
    import time

    before = machine_load.snapshot()
    assert before is not None, "this test runs on Linux"
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    child = subprocess.Popen([sys.executable, "-c", busy + "time.sleep(60)\n"])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(f"/proc/{child.pid}/stat") as f:
                parsed = machine_load.parse_pid_stat(f.read())
            if parsed and parsed[1] * machine_load._TICK_NS >= 300_000_000:
                break
            time.sleep(0.05)
        field = machine_load.between(before, machine_load.snapshot())
    finally:
        child.kill()
        child.wait()
    assert field is not None
    assert field["children_cpu_ns"] >= 250_000_000


def test_the_host_reference_is_the_median_rep_and_fails_soft():
    import torch

    ns = machine_load.reference_ns(torch)
    assert isinstance(ns, int) and ns > 0

    class NoMatmul:  # a torch whose CPU matmul raises: no reference, no crash
        def __getattr__(self, name):
            raise RuntimeError("no such op")

    assert machine_load.reference_ns(NoMatmul()) is None


def _fake_proc(root, tree, children_files=True):
    """A /proc of pid -> (parent, ticks); each process one thread (its pid)."""
    for pid, (ppid, ticks) in tree.items():
        task = root / str(pid) / "task" / str(pid)
        task.mkdir(parents=True)
        (root / str(pid) / "stat").write_text(
            f"{pid} (p {pid}) S {ppid} 1 1 0 -1 0 0 0 0 0 {ticks} 0 0 0 20 0 1 0\n"
        )
        if children_files:
            kids = " ".join(str(k) for k, (pp, _) in tree.items() if pp == pid)
            (task / "children").write_text(kids + (" " if kids else ""))


def test_descendants_are_found_down_the_children_files_without_reading_every_process(
    tmp_path,
):
    tree = {10: (1, 1000), 11: (10, 5), 12: (11, 7), 20: (1, 900), 21: (20, 50)}
    _fake_proc(tmp_path, tree)
    (tmp_path / "20" / "stat").write_text("unreadable")  # a neighbour is never read
    stats = machine_load.descendant_stats(str(tmp_path), 10)
    assert stats == {11: (10, 5), 12: (11, 7)}
    assert machine_load.descendants_ticks(stats, 10) == 12
    # A kernel without children files: None, and the caller reads every process.
    plain = tmp_path / "plain"
    _fake_proc(plain, tree, children_files=False)
    assert machine_load.descendant_stats(str(plain), 10) is None
