"""The measure and crosscheck ends' host_held: malloc's bytes in use before and
after the same calls (docs/measuring.md, "Memory kept per call")."""

from conftest import assert_well_formed, fixture_model, gallery, run_probes

from compilescope_probe import host_faults
from compilescope_probe.host_memory import MallocHeld, held_window

ITERS = 20
KEPT_PER_CALL = 256 * 64 * 4  # keeps_outputs.py's output


def phase_end(run, name: str) -> dict:
    return [e for e in run.of("phase") if e["name"] == name and e["edge"] == "end"][0]


def test_the_counter_sees_a_kept_buffer_byte_for_byte_and_a_freed_one_not_at_all():
    held = MallocHeld(host_faults.allocator(host_faults.maps()))
    before = held.read()
    assert before is not None and before > 0
    kept = bytearray(1 << 20)  # above malloc's mmap threshold: a block of its own
    grown = held.read() - before
    # The counter is the whole process's: another thread of the test process
    # may free or take a few KiB between the two reads (CI once saw 14 KiB freed).
    assert abs(grown - (1 << 20)) < 64 << 10
    del kept
    assert held.read() - before < 64 << 10


def test_another_allocator_or_no_window_reads_nothing():
    assert MallocHeld("jemalloc").read() is None
    assert MallocHeld("").read() is None
    held = MallocHeld("glibc")
    assert held_window(held, None, 5) is None
    assert held_window(held, held.read(), 0) is None
    window = held_window(held, 100, 3)
    assert window["counter"] == "malloc" and window["calls"] == 3
    assert window["begin_bytes"] == 100 and window["end_bytes"] > 0


def test_a_model_that_keeps_each_output_grows_by_it_per_call_and_a_plain_one_does_not():
    keeps, plain = run_probes(
        [
            (fixture_model("keeps_outputs"), "--mode", "eager", "--iters", str(ITERS)),
            (gallery("mlp"), "--mode", "eager", "--iters", str(ITERS)),
        ]
    )
    for run in (keeps, plain):
        assert_well_formed(run)
    for name in ("measure", "crosscheck"):
        window = phase_end(keeps, name)["host_held"]
        assert window["counter"] == "malloc"
        calls = window["calls"]
        assert calls == ITERS if name == "measure" else calls >= 1
        per_call = (window["end_bytes"] - window["begin_bytes"]) / calls
        assert KEPT_PER_CALL <= per_call < 1.25 * KEPT_PER_CALL, (name, window)

        window = phase_end(plain, name)["host_held"]
        per_call = (window["end_bytes"] - window["begin_bytes"]) / window["calls"]
        assert abs(per_call) < 1024, (name, window)
    crosscheck = keeps.one("crosscheck")
    assert phase_end(keeps, "crosscheck")["host_held"]["calls"] == crosscheck["block_calls"] * len(
        crosscheck["block_means_ns"]
    )
