"""The measure end's host_faults: the probe's page faults and kernel CPU over
the measured calls (docs/measuring.md, "Page faults")."""

from conftest import assert_well_formed, fixture_model, gallery, run_probes

from compilescope_probe import host_faults

ITERS = 20


def measure_end(run) -> dict:
    return [e for e in run.of("phase") if e["name"] == "measure" and e["edge"] == "end"][0]


def test_the_allocator_is_the_one_mapped_into_the_process():
    glibc = "7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    jemalloc = "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
    assert host_faults.allocator(glibc) == "glibc"
    assert host_faults.allocator(glibc + jemalloc) == "jemalloc"
    assert host_faults.allocator(glibc + "7f-80 r-xp 0 0:0 3 /opt/libtcmalloc_minimal.so.4\n") == (
        "tcmalloc"
    )
    assert host_faults.allocator("7f-80 rw-p 0 0:0 0\n") == "glibc"  # an anonymous mapping
    assert host_faults.allocator(None) == ""


def test_between_counts_the_difference_and_names_the_tunables_set(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1073741824")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    before = host_faults.Counts(minor=100, major=1, sys_ns=5_000, wall_ns=1_000)
    after = host_faults.Counts(minor=4_196, major=1, sys_ns=2_005_000, wall_ns=9_000)
    field = host_faults.between(before, after, calls=4)
    assert field["calls"] == 4
    assert (field["minor"], field["major"], field["sys_cpu_ns"], field["wall_ns"]) == (
        4_096,
        0,
        2_000_000,
        8_000,
    )
    assert field["page_bytes"] > 0
    assert field["malloc_env"] == {"MALLOC_TRIM_THRESHOLD_": "1073741824"}
    assert host_faults.between(before, after, calls=0) is None


def test_a_model_that_maps_its_buffer_each_call_faults_each_call_and_a_plain_one_does_not():
    fresh, plain = run_probes(
        [
            (
                fixture_model("fresh_pages"),
                "--mode",
                "eager",
                "--warmup",
                "3",
                "--iters",
                str(ITERS),
            ),
            (gallery("mlp"), "--mode", "eager", "--warmup", "3", "--iters", str(ITERS)),
        ]
    )
    for run in (fresh, plain):
        assert_well_formed(run)
    faults = measure_end(fresh)["host_faults"]
    assert faults["calls"] == ITERS
    pages = (40 << 20) // faults["page_bytes"]
    # Every page of the 40 MiB buffer, on every measured call.
    assert faults["minor"] >= 0.9 * pages * ITERS, faults
    assert faults["sys_cpu_ns"] > 0, faults
    assert faults["allocator"] == "glibc", faults
    quiet = measure_end(plain)["host_faults"]
    assert quiet["calls"] == ITERS
    assert quiet["minor"] < 0.01 * pages * ITERS, quiet
