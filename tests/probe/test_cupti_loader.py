"""The CUPTI collector library and its ctypes loader, on a machine without a GPU.

Builds libcompilescope_cupti.so with cmake into a temporary folder (skipped,
with the reason, where cmake or the CUDA Toolkit's CUPTI is missing) and checks
that every way of not having CUPTI ends in `None` plus a `cupti_status`
message, never an exception or a crash.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from compilescope_probe import cupti_loader, cupti_records

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PROBE = os.path.join(REPO, "probe")
SOURCE = os.path.join(PROBE, "cupti")


def _has_gpu() -> bool:
    return any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl"))


class Events(list):
    def __call__(self, type_, **fields):
        json.dumps(fields)  # what the harness writes must serialize
        self.append((type_, fields))

    def of(self, type_):
        return [f for t, f in self if t == type_]


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """(library path, build folder) of a fresh cmake build of probe/cupti."""
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed: cannot build the CUPTI collector")
    build = tmp_path_factory.mktemp("cupti-build")
    configure = subprocess.run(
        ["cmake", "-S", SOURCE, "-B", str(build), "-DCMAKE_BUILD_TYPE=Debug"],
        capture_output=True,
        text=True,
    )
    if configure.returncode != 0:
        if "CUDAToolkit" in configure.stderr or "CUPTI" in configure.stderr:
            pytest.skip("no CUDA Toolkit with CUPTI to build against:\n" + configure.stderr[-2000:])
        pytest.fail(
            "cmake configure failed:\n" + configure.stdout[-2000:] + configure.stderr[-2000:]
        )
    make = subprocess.run(
        ["cmake", "--build", str(build), "-j", "2"], capture_output=True, text=True
    )
    assert make.returncode == 0, make.stdout[-4000:] + make.stderr[-4000:]
    # The collector is built with -Wall -Wextra -Wpedantic and must stay clean.
    assert "warning:" not in make.stdout + make.stderr, make.stdout + make.stderr
    lib = build / cupti_loader.LIBRARY_NAME
    assert lib.is_file()
    return str(lib), build


def run_python(code: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter: a crash there cannot take pytest down."""
    env = dict(os.environ, PYTHONPATH=PROBE)
    env.pop(cupti_loader.ENV_LIBRARY, None)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


# -- the built library ------------------------------------------------------------


def test_self_test_of_record_conversion_passes(built):
    _, build = built
    result = subprocess.run(
        [str(build / "compilescope_cupti_selftest")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok")


def test_exports_exactly_the_c_abi(built):
    lib_path, _ = built
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm is not installed")
    out = subprocess.run(
        [nm, "-D", "--defined-only", lib_path], capture_output=True, text=True
    ).stdout
    exported = sorted(line.split()[-1] for line in out.splitlines() if " T " in line)
    header = open(os.path.join(SOURCE, "compilescope_cupti.h"), encoding="utf-8").read()
    declared = sorted(set(re.findall(r"CS_CUPTI_API [\w\s\*]+?\b(cs_cupti_\w+)\(", header)))
    assert exported == declared


def test_symbols_load_through_ctypes_and_sizes_agree(built):
    lib_path, _ = built
    lib = cupti_loader._bind(ctypes.CDLL(lib_path))
    assert lib.cs_cupti_abi_version() == cupti_loader.ABI_VERSION
    assert lib.cs_cupti_record_size() == cupti_records.RECORD.size
    assert lib.cs_cupti_stats_size() == ctypes.sizeof(cupti_loader._Stats)


def test_its_clock_is_pythons_monotonic_clock(built):
    lib = cupti_loader._bind(ctypes.CDLL(built[0]))
    before = time.monotonic_ns()
    now = lib.cs_cupti_now_ns()
    after = time.monotonic_ns()
    assert before <= now <= after


def test_calls_before_start_fail_with_a_code_and_a_message(built):
    lib = cupti_loader._bind(ctypes.CDLL(built[0]))
    assert lib.cs_cupti_mark_phase(b"measure", 0, 0) == 3  # CS_CUPTI_ERR_STATE
    assert "not started" in cupti_loader._text_from(lib.cs_cupti_last_error)
    assert lib.cs_cupti_mark_phase(b"measure", 2, 0) == 4  # edge must be 0 or 1
    assert lib.cs_cupti_get_stats(ctypes.byref(cupti_loader._Stats()), 8) == 4
    count = ctypes.c_size_t(99)
    assert lib.cs_cupti_read(None, 0, ctypes.byref(count)) == 0 and count.value == 0
    assert lib.cs_cupti_name(0) is None
    assert lib.cs_cupti_stop() == 0  # idempotent, also before start
    # The library it is bound to: a real libcupti file.
    path = cupti_loader._text_from(lib.cs_cupti_library_path)
    assert os.path.basename(path).startswith("libcupti.so") and os.path.isfile(path)


def test_header_version_is_the_one_built_against(built):
    lib = cupti_loader._bind(ctypes.CDLL(built[0]))
    st = cupti_loader._Stats()
    assert lib.cs_cupti_get_stats(ctypes.byref(st), ctypes.sizeof(st)) == 0
    cache = (built[1] / "CMakeCache.txt").read_text()
    include = None
    for var in (
        "CUDAToolkit_CUPTI_INCLUDE_DIR",
        "COMPILESCOPE_CUPTI_INCLUDE_DIR",
        "CUDAToolkit_INCLUDE_DIR",
    ):
        include = include or re.search(var + r":\w+=(.*)", cache)
    if include is None:
        pytest.skip("this cmake records no CUPTI include folder in its cache")
    version_h = open(os.path.join(include.group(1).strip(), "cupti_version.h")).read()
    expected = int(re.search(r"#define CUPTI_API_VERSION (\d+)", version_h).group(1))
    assert st.header_version == expected
    assert st.running == 0 and st.clock_mode == 0


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA device; the check is for none")
def test_start_without_a_driver_fails_cleanly_with_an_error_string(built):
    result = run_python(f"""
        import ctypes, json
        from compilescope_probe import cupti_loader
        lib = cupti_loader._bind(ctypes.CDLL({built[0]!r}))
        rc = lib.cs_cupti_start(0, 0, 0)
        st = cupti_loader._Stats(); lib.cs_cupti_get_stats(ctypes.byref(st), ctypes.sizeof(st))
        print(json.dumps({{"rc": rc, "error": cupti_loader._text_from(lib.cs_cupti_last_error),
                          "running": st.running}}))
    """)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.splitlines()[-1])
    assert out["rc"] == 2  # CS_CUPTI_ERR_NO_DRIVER
    assert "libcuda.so.1" in out["error"] and out["running"] == 0


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA device; the check is for none")
def test_start_after_torch_loaded_its_libcupti_fails_cleanly_too(built):
    # torch loads the nvidia wheel's libcupti first; the collector must bind to
    # it (one copy in the process) and still fail cleanly without a driver.
    result = run_python(f"""
        import ctypes, json
        try:
            import torch
        except ImportError:
            print(json.dumps({{"skip": "no torch"}})); raise SystemExit
        from compilescope_probe import cupti_loader
        before = cupti_loader.loaded_libcupti()
        lib = cupti_loader._bind(ctypes.CDLL({built[0]!r}))
        rc = lib.cs_cupti_start(0, 0, 0)
        print(json.dumps({{"rc": rc, "before": before, "after": cupti_loader.loaded_libcupti(),
                          "bound": cupti_loader._text_from(lib.cs_cupti_library_path)}}))
    """)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    assert out["rc"] == 2
    if out["before"]:
        # Compare files, not spellings: a venv reached through a symlink names them differently.
        def real(paths):
            return [os.path.realpath(p) for p in paths]

        assert real(out["after"]) == real(out["before"])
        assert os.path.realpath(out["bound"]) == os.path.realpath(out["before"][0])


# -- start(): every way of not collecting ---------------------------------------------


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA device")
def test_no_cuda_device_on_this_machine():
    events = Events()
    assert cupti_loader.start(events) is None
    (status,) = events.of("cupti_status")
    assert status["active"] is False
    assert status["message"].startswith(cupti_loader.NO_CUDA_MESSAGE)
    assert not events.of("log")  # no CUDA is not a problem to warn about


def _pretend_cuda(monkeypatch):
    monkeypatch.setattr(cupti_loader, "_cuda_state", lambda: (True, "", None, 0))


def test_explicit_library_path_that_does_not_exist(monkeypatch, tmp_path):
    _pretend_cuda(monkeypatch)
    events = Events()
    missing = str(tmp_path / "nope.so")
    assert cupti_loader.start(events, env={cupti_loader.ENV_LIBRARY: missing}) is None
    (status,) = events.of("cupti_status")
    assert status["active"] is False and missing in status["message"]
    assert events.of("log") and events.of("log")[0]["level"] == "warning"


def test_library_not_found_lists_where_it_looked(monkeypatch, tmp_path):
    _pretend_cuda(monkeypatch)
    monkeypatch.setattr(cupti_loader, "_package_dir", lambda: str(tmp_path / "pkg"))
    events = Events()
    assert cupti_loader.start(events, env={}) is None
    message = events.of("cupti_status")[0]["message"]
    assert "was not found" in message and str(tmp_path / "pkg") in message


def test_search_order(tmp_path, monkeypatch):
    assert cupti_loader.library_candidates({cupti_loader.ENV_LIBRARY: "/x/lib.so"}) == ["/x/lib.so"]
    found = cupti_loader.library_candidates({})
    pkg = os.path.join(PROBE, "compilescope_probe")
    assert found[:2] == [
        os.path.join(pkg, cupti_loader.LIBRARY_NAME),
        os.path.join(PROBE, cupti_loader.LIBRARY_NAME),
    ]
    assert os.path.join(REPO, "build-cupti", cupti_loader.LIBRARY_NAME) in found
    assert len(found) == len(set(found))


def test_libcupti_missing(monkeypatch, tmp_path):
    """A collector whose libcupti cannot be found: built here against a stub."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in libraries")
    stub_dir = tmp_path / "stub"
    stub_dir.mkdir()
    (tmp_path / "stub.c").write_text("int cuptiGetVersion(unsigned *v) { *v = 1; return 0; }\n")
    (tmp_path / "fake.c").write_text(
        "extern int cuptiGetVersion(unsigned *);\n"
        "int cs_cupti_abi_version(void) { unsigned v; return cuptiGetVersion(&v); }\n"
    )
    soname = "libcupti.so.99"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-o",
            str(stub_dir / soname),
            str(tmp_path / "stub.c"),
            f"-Wl,-soname,{soname}",
        ],
        check=True,
    )
    fake = tmp_path / cupti_loader.LIBRARY_NAME
    subprocess.run(
        [cc, "-shared", "-fPIC", "-o", str(fake), str(tmp_path / "fake.c"), str(stub_dir / soname)],
        check=True,
    )
    (stub_dir / soname).unlink()  # now nothing provides libcupti.so.99

    _pretend_cuda(monkeypatch)
    events = Events()
    assert cupti_loader.start(events, env={cupti_loader.ENV_LIBRARY: str(fake)}) is None
    message = events.of("cupti_status")[0]["message"]
    assert message.startswith("libcupti is missing") and soname in message


def test_wrong_library_is_refused(monkeypatch, tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    (tmp_path / "other.c").write_text("int something_else(void) { return 0; }\n")
    other = tmp_path / "other.so"
    subprocess.run(
        [cc, "-shared", "-fPIC", "-o", str(other), str(tmp_path / "other.c")], check=True
    )
    _pretend_cuda(monkeypatch)
    events = Events()
    assert cupti_loader.start(events, env={cupti_loader.ENV_LIBRARY: str(other)}) is None
    assert "not a compatible CUPTI collector" in events.of("cupti_status")[0]["message"]


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA device")
def test_start_failure_is_reported_with_the_collectors_error(built):
    # A fresh interpreter where CUDA is pretended present: the real collector
    # then refuses in cs_cupti_start (no driver) and start() says so.
    result = run_python(
        """
        import json
        from compilescope_probe import cupti_loader
        cupti_loader._cuda_state = lambda: (True, "", None, 0)
        events = []
        got = cupti_loader.start(lambda t, **f: events.append([t, f]))
        print(json.dumps({"got": got is not None, "events": events}))
    """,
        {cupti_loader.ENV_LIBRARY: built[0]},
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.splitlines()[-1])
    assert out["got"] is False
    status = [f for t, f in out["events"] if t == "cupti_status"][0]
    assert status["active"] is False
    assert status["message"].startswith("CUPTI could not start (no NVIDIA driver)")
    assert "libcuda.so.1" in status["message"]
    assert os.path.basename(status["library"]).startswith("libcupti.so")


def test_two_copies_of_libcupti_are_refused(monkeypatch, built):
    _pretend_cuda(monkeypatch)
    monkeypatch.setattr(cupti_loader, "_preload_libcupti", lambda env, torch_mod: None)
    monkeypatch.setattr(
        cupti_loader, "loaded_libcupti", lambda: ["/a/libcupti.so.13", "/b/libcupti.so.12"]
    )
    events = Events()
    assert cupti_loader.start(events, env={cupti_loader.ENV_LIBRARY: built[0]}) is None
    message = events.of("cupti_status")[0]["message"]
    assert "two copies of libcupti" in message and "/b/libcupti.so.12" in message


def test_an_unexpected_exception_still_returns_none(monkeypatch):
    def boom():
        raise RuntimeError("surprise")

    monkeypatch.setattr(cupti_loader, "_cuda_state", boom)
    events = Events()
    assert cupti_loader.start(events) is None
    assert "surprise" in events.of("cupti_status")[0]["message"]


def test_wheel_libcupti_follows_torchs_layouts(tmp_path):
    for folder, name in (("cu13", "libcupti.so.13"), ("cuda_cupti", "libcupti.so.12")):
        d = tmp_path / "nvidia" / folder / "lib"
        d.mkdir(parents=True)
        (d / name).write_bytes(b"")
    (tmp_path / "nvidia" / "cu13" / "lib" / "libcupti.so").write_bytes(b"")  # no version: skipped
    found = cupti_loader.wheel_libcupti([str(tmp_path)], cuda_major="13")
    assert [os.path.relpath(p, tmp_path) for p in found] == [
        os.path.join("nvidia", "cuda_cupti", "lib", "libcupti.so.12"),
        os.path.join("nvidia", "cu13", "lib", "libcupti.so.13"),
    ]


class StartedLib:
    """Answers like the collector does on a GPU machine, for the success path."""

    def __init__(self, version=130202, header=130001, clock_mode=1, offset=0, rc=0):
        self.stats = dict(
            cupti_version=version,
            header_version=header,
            clock_mode=clock_mode,
            clock_offset_ns=offset,
            running=1,
        )
        self.rc = rc
        self.started_with = None

    def cs_cupti_abi_version(self):
        return cupti_loader.ABI_VERSION

    def cs_cupti_record_size(self):
        return cupti_records.RECORD.size

    def cs_cupti_stats_size(self):
        return ctypes.sizeof(cupti_loader._Stats)

    def cs_cupti_library_path(self, buf, cap):
        path = b"/site-packages/nvidia/cu13/lib/libcupti.so.13"
        ctypes.memmove(buf, path + b"\0", len(path) + 1)
        return len(path)

    def cs_cupti_last_error(self, buf, cap):
        return 0

    def cs_cupti_start(self, buffer_bytes, max_records, options):
        self.started_with = (buffer_bytes, max_records, options)
        return self.rc

    def cs_cupti_get_stats(self, ref, size):
        for key, value in self.stats.items():
            setattr(ref._obj, key, value)
        return 0


def _started(monkeypatch, tmp_path, lib, env_extra=None):
    fake = tmp_path / cupti_loader.LIBRARY_NAME
    fake.write_bytes(b"")
    monkeypatch.setattr(cupti_loader, "_cuda_state", lambda: (True, "", None, 3 * 1024))
    monkeypatch.setattr(cupti_loader, "_preload_libcupti", lambda env, torch_mod: None)
    monkeypatch.setattr(cupti_loader, "loaded_libcupti", lambda: [])
    monkeypatch.setattr(cupti_loader, "_open_collector", lambda path: lib)
    events = Events()
    env = {cupti_loader.ENV_LIBRARY: str(fake), **(env_extra or {})}
    return cupti_loader.start(events, env=env), events


def test_started_collector_reports_library_version_and_clock(monkeypatch, tmp_path):
    lib = StartedLib()
    collector, events = _started(monkeypatch, tmp_path, lib, {cupti_loader.ENV_MAX_RECORDS: "1000"})
    assert isinstance(collector, cupti_loader.Collector)
    assert lib.started_with == (0, 1000, 0)
    (status,) = events.of("cupti_status")
    assert status["active"] is True and status["version"] == 130202
    assert status["library"] == "/site-packages/nvidia/cu13/lib/libcupti.so.13"
    assert status["clock"] == "callback"
    assert status["message"].startswith("CUPTI 13.2 (built with headers 13.0)")
    assert "CLOCK_MONOTONIC through CUPTI's timestamp callback" in status["message"]
    # torch held 3 KiB before the collector started: said, and used as the baseline.
    assert "3072 bytes" in status["message"] and collector.baseline_bytes == 3072
    assert not events.of("log")


def test_started_collector_warns_about_old_libcupti_offset_clock_and_profiler_env(
    monkeypatch, tmp_path
):
    lib = StartedLib(version=130001, header=130202, clock_mode=2, offset=-1_700_000_000_000)
    env = {"TORCHINDUCTOR_USE_TORCH_PROFILER_BENCHMARKER": "1"}
    collector, events = _started(monkeypatch, tmp_path, lib, env)
    assert collector is not None
    message = events.of("cupti_status")[0]["message"]
    assert "libcupti is older than the headers" in message
    assert "measured offset of -1700000000000 ns" in message
    assert "TORCHINDUCTOR_USE_TORCH_PROFILER_BENCHMARKER=1" in message


def test_start_code_and_error_come_back_in_the_message(monkeypatch, tmp_path):
    lib = StartedLib(rc=1)
    lib.cs_cupti_last_error = lambda buf, cap: (
        ctypes.memmove(buf, b"cuptiActivityEnable(X) failed: CUPTI_ERROR_Y (code 7)\0", 55),
        54,
    )[1]
    collector, events = _started(monkeypatch, tmp_path, lib)
    assert collector is None
    assert events.of("cupti_status")[0]["message"] == (
        "CUPTI could not start (CUPTI call failed): cuptiActivityEnable(X) failed: "
        "CUPTI_ERROR_Y (code 7)"
    )
