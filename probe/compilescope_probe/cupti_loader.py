"""The probe's side of ``libcompilescope_cupti.so`` (probe/cupti): a ctypes
loader and the ``Collector`` the harness drives: ``start(emit)``,
``mark_phase``, ``summarize``, ``stop``. cupti_records.py turns what it
collects into events.

Standard library only; torch is imported lazily, only to ask whether CUDA is
there. docs/cupti.md explains the record format, the clock and libcupti.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable

from .cupti_records import (
    GPU_TRACE_LIMIT,
    RECORD,
    Record,
    decode_records,
    device_memory_timeline,
    gpu_trace,
    kernel_summary,
    phase_peaks,
    phase_windows,
    trace_limit,
)

Emit = Callable[..., None]

LIBRARY_NAME = "libcompilescope_cupti.so"
ENV_LIBRARY = "COMPILESCOPE_CUPTI_LIB"  # path of libcompilescope_cupti.so
ENV_LIBCUPTI = "COMPILESCOPE_LIBCUPTI"  # path of a libcupti to load first
ENV_MAX_RECORDS = "COMPILESCOPE_CUPTI_MAX_RECORDS"
ABI_VERSION = 1
NO_CUDA_MESSAGE = "no CUDA device: GPU memory and kernels unavailable"

# Settings under which Inductor benchmarks through torch.profiler (Kineto),
# which takes CUPTI's activity buffers over from the collector.
PROFILER_ENV = (
    "TORCHINDUCTOR_USE_TORCH_PROFILER_BENCHMARKER",
    "TORCHINDUCTOR_PROFILE_WITH_DO_BENCH_USING_PROFILING",
)


class _Stats(ctypes.Structure):
    _fields_ = [
        ("records_total", ctypes.c_uint64),
        ("records_pending", ctypes.c_uint64),
        ("dropped_by_cupti", ctypes.c_uint64),
        ("dropped_over_cap", ctypes.c_uint64),
        ("buffers_denied", ctypes.c_uint64),
        ("buffers_completed", ctypes.c_uint64),
        ("records_ignored", ctypes.c_uint64),
        ("records_untimed", ctypes.c_uint64),
        ("buffers_truncated", ctypes.c_uint64),
        ("clock_offset_ns", ctypes.c_int64),
        ("clock_mode", ctypes.c_uint32),
        ("cupti_version", ctypes.c_uint32),
        ("header_version", ctypes.c_uint32),
        ("kinds_missing", ctypes.c_uint32),
        ("names", ctypes.c_uint32),
        ("running", ctypes.c_uint32),
    ]


CLOCK_MODES = {0: "none", 1: "callback", 2: "offset"}
_ERROR_CODES = {
    1: "CUPTI call failed",
    2: "no NVIDIA driver",
    3: "wrong state",
    4: "bad argument",
    5: "internal error",
}


def _bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    u32, u64, size = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t
    sigs: dict[str, tuple[Any, list[Any]]] = {
        "cs_cupti_abi_version": (ctypes.c_int, []),
        "cs_cupti_record_size": (size, []),
        "cs_cupti_stats_size": (size, []),
        "cs_cupti_now_ns": (u64, []),
        "cs_cupti_start": (ctypes.c_int, [u64, u64, u32]),
        "cs_cupti_mark_phase": (ctypes.c_int, [ctypes.c_char_p, u32, u64]),
        "cs_cupti_flush": (ctypes.c_int, [ctypes.c_int]),
        "cs_cupti_pending": (size, []),
        "cs_cupti_read": (ctypes.c_int, [ctypes.c_void_p, size, ctypes.POINTER(size)]),
        "cs_cupti_name": (ctypes.c_char_p, [u32]),
        "cs_cupti_get_stats": (ctypes.c_int, [ctypes.POINTER(_Stats), size]),
        "cs_cupti_stop": (ctypes.c_int, []),
        "cs_cupti_last_error": (size, [ctypes.c_char_p, size]),
        "cs_cupti_library_path": (size, [ctypes.c_char_p, size]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)  # AttributeError names the missing symbol
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def _text_from(fn: Callable[[Any, int], int]) -> str:
    buf = ctypes.create_string_buffer(4096)
    n = fn(buf, len(buf))
    if n >= len(buf):
        buf = ctypes.create_string_buffer(n + 1)
        fn(buf, len(buf))
    return buf.value.decode("utf-8", "replace")


def _version_text(v: int) -> str:
    # 13.x: 130001 = 13.0 update 1; 12.x and older: a plain API number.
    return f"{v // 10000}.{v // 100 % 100}" if v >= 10000 else f"API {v}"


class Collector:
    """A started collector. Methods never raise."""

    def __init__(
        self,
        lib: ctypes.CDLL,
        *,
        collector_path: str,
        libcupti: str,
        started_ns: int,
        baseline_bytes: int,
        torch_mod: Any = None,
    ) -> None:
        self._lib = lib
        self.collector_path = collector_path
        self.libcupti = libcupti
        self.started_ns = started_ns
        self.baseline_bytes = baseline_bytes
        self._torch = torch_mod
        self._records: list[Record] = []
        self._names: dict[int, str | None] = {}
        self._stopped = False
        self.errors: list[str] = []
        self.trace_limit = GPU_TRACE_LIMIT

    # -- driving ------------------------------------------------------------

    def mark_phase(self, name: str, edge: str, t_ns: int | None = None) -> None:
        """Record a phase edge ('begin' or 'end'); pass the phase event's t_ns."""
        try:
            end = edge in ("end", 1, True)
            rc = self._lib.cs_cupti_mark_phase(str(name).encode(), 1 if end else 0, int(t_ns or 0))
            if rc:
                self._note(f"mark_phase({name}, {edge})", rc)
        except Exception as e:  # noqa: BLE001 - a probe must never die of its profiler
            self.errors.append(f"mark_phase: {e!r}")

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._synchronize()
            rc = self._lib.cs_cupti_stop()
            if rc:
                self._note("stop", rc)
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"stop: {e!r}")

    def stats(self) -> dict[str, int]:
        st = _Stats()
        if self._lib.cs_cupti_get_stats(ctypes.byref(st), ctypes.sizeof(st)):
            return {}
        return {name: getattr(st, name) for name, _ in _Stats._fields_}

    def records(self) -> list[Record]:
        """Every record so far (flush first to get the latest)."""
        self._drain()
        return list(self._records)

    def profile_kernels(
        self, code_kernels: Mapping[str, Any], open_end_ns: int | None = None
    ) -> list[dict]:
        """The kernel_profile kernels of the `profile` phase, joined by name
        to the generated code's kernels; a phase not yet ended runs to
        open_end_ns (monotonic). Everything CUPTI holds is flushed into the
        collector first. Raises on failure: the caller says so and keeps the
        rest of the window."""
        from .kernel_profile import cupti_kernels

        self._synchronize()
        rc = self._lib.cs_cupti_flush(1)
        if rc:
            self._note("flush", rc)
        records = self.records()
        return cupti_kernels(records, phase_windows(records, open_end_ns), code_kernels)

    def summarize(self, emit: Emit, measured_iterations: int) -> None:
        """Emit `memory` (device) and `kernel_summary` for the measure phase."""
        try:
            self._synchronize()
            rc = self._lib.cs_cupti_flush(1)
            if rc:
                self._note("flush", rc)
            records = self.records()
            stats = self.stats()
            dropped = int(stats.get("dropped_by_cupti", 0)) + int(stats.get("dropped_over_cap", 0))
            windows = phase_windows(records)
            memory = device_memory_timeline(records, self.baseline_bytes, self.started_ns)
            fields: dict[str, Any] = {
                "kind": "device",
                "source": "cupti",
                "samples": memory.samples,
                "peak": memory.peak,
                "phase_peaks": phase_peaks(memory.samples, windows),
                "baseline": self.baseline_bytes,
                "unknown_frees": memory.unknown_frees,
                "dropped": dropped,
            }
            if memory.pools:
                fields["pools"] = memory.pools
            emit("memory", **fields)
            summary = kernel_summary(records, windows, measured_iterations, dropped=dropped)
            emit("kernel_summary", **summary)
            emit("gpu_trace", **gpu_trace(records, windows, limit=self.trace_limit))
            for warning in self._warnings(stats, summary, records, windows):
                emit("log", level="warning", message=warning)
        except Exception as e:  # noqa: BLE001
            emit("log", level="warning", message=f"CUPTI summary failed: {e!r}")

    # -- internals -----------------------------------------------------------

    def _warnings(
        self,
        stats: Mapping[str, int],
        summary: Mapping[str, Any],
        records: Sequence[Record],
        windows: Mapping[str, Any],
    ) -> list[str]:
        out = []
        lost = summary.get("dropped", 0)
        if lost:
            out.append(
                f"CUPTI dropped {lost} activity records: GPU memory and kernel figures undercount"
            )
        if stats.get("buffers_denied"):
            out.append(
                f"{stats['buffers_denied']} CUPTI buffer requests could not be met "
                "(out of host memory): records were lost"
            )
        if stats.get("buffers_truncated"):
            out.append(
                f"{stats['buffers_truncated']} CUPTI buffers held a record that could not "
                "be read; the records after it in each were lost uncounted"
            )
        if summary.get("untimed"):
            out.append(
                f"{summary['untimed']} GPU records came without timestamps and are left "
                "out of the phase figures"
            )
        if summary.get("kernel_records") and windows.get("measure") and not summary["top"]:
            out.append(
                "kernel records exist but none fall inside the measure phase: CUPTI "
                f"timestamps may be on another clock (clock mode "
                f"{CLOCK_MODES.get(stats.get('clock_mode', 0))})"
            )
        out.extend(self.errors)
        return out

    def _note(self, what: str, rc: int) -> None:
        self.errors.append(
            f"CUPTI collector {what}: {_ERROR_CODES.get(rc, rc)}: "
            f"{_text_from(self._lib.cs_cupti_last_error)}"
        )

    def _synchronize(self) -> None:
        # CUPTI's flush does not wait for the GPU.
        try:
            if self._torch is not None and self._torch.cuda.is_initialized():
                self._torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"torch.cuda.synchronize: {e!r}")

    def _name(self, name_id: int) -> str | None:
        if name_id not in self._names:
            raw = self._lib.cs_cupti_name(name_id)
            self._names[name_id] = raw.decode("utf-8", "replace") if raw is not None else None
        return self._names[name_id]

    def _drain(self, chunk: int = 1 << 16) -> None:
        buf = ctypes.create_string_buffer(chunk * RECORD.size)
        count = ctypes.c_size_t(0)
        while True:
            if self._lib.cs_cupti_read(buf, chunk, ctypes.byref(count)):
                self._note("read", 3)
                return
            n = count.value
            if n == 0:
                return
            self._records.extend(decode_records(buf.raw[: n * RECORD.size], self._name))
            if n < chunk:
                return


# -- loading ------------------------------------------------------------------


def _package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def library_candidates(env: Mapping[str, str] | None = None) -> list[str]:
    """Where start() looks for libcompilescope_cupti.so, in order."""
    env = os.environ if env is None else env
    if env.get(ENV_LIBRARY):
        return [env[ENV_LIBRARY]]  # explicit: no fallback
    pkg = _package_dir()
    probe_dir = os.path.dirname(pkg)
    found = [os.path.join(pkg, LIBRARY_NAME), os.path.join(probe_dir, LIBRARY_NAME)]
    repo = os.path.dirname(probe_dir)
    if os.path.isfile(os.path.join(repo, "probe", "cupti", "CMakeLists.txt")):
        found += [
            os.path.join(repo, "build", "probe", "cupti", LIBRARY_NAME),
            os.path.join(repo, "build-cupti", LIBRARY_NAME),
            os.path.join(repo, "probe", "cupti", "build", LIBRARY_NAME),
        ]
        found += sorted(glob.glob(os.path.join(repo, "build*", "probe", "cupti", LIBRARY_NAME)))
        found += sorted(glob.glob(os.path.join(repo, "build*", LIBRARY_NAME)))
    unique: list[str] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def loaded_libcupti() -> list[str]:
    """Distinct libcupti files mapped into this process."""
    paths: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    path = parts[5].strip()
                    if os.path.basename(path).startswith("libcupti.so") and path not in paths:
                        paths.append(path)
    except OSError:
        pass
    return paths


def wheel_libcupti(
    search_path: Sequence[str] | None = None, cuda_major: str | None = None
) -> list[str]:
    """libcupti copies shipped by nvidia-* wheels on sys.path, torch's layout."""
    found: list[str] = []
    folders = ["cuda_cupti"] + ([f"cu{cuda_major}"] if cuda_major else [])
    for root in search_path if search_path is not None else sys.path:
        for folder in folders:
            found += sorted(
                glob.glob(os.path.join(root, "nvidia", folder, "lib", "libcupti.so.*[0-9]"))
            )
    return found


def _cuda_state() -> tuple[bool, str, Any, int]:
    """(usable, why not, torch module, bytes torch already reserved)."""
    try:
        import torch  # noqa: PLC0415 - only when asked, the probe may run without torch
    except Exception as e:  # noqa: BLE001
        return False, f"{NO_CUDA_MESSAGE} (torch cannot be imported: {e})", None, 0
    try:
        if not torch.cuda.is_available():
            return False, f"{NO_CUDA_MESSAGE} (torch.cuda.is_available() is False)", torch, 0
        reserved = int(torch.cuda.memory_reserved()) if torch.cuda.is_initialized() else 0
    except Exception as e:  # noqa: BLE001
        return False, f"{NO_CUDA_MESSAGE} ({e})", torch, 0
    return True, "", torch, reserved


def _preload_libcupti(env: Mapping[str, str], torch_mod: Any) -> str | None:
    """Load (RTLD_GLOBAL) the libcupti the collector should bind to.

    The collector's DT_NEEDED libcupti.so.N is satisfied by any loaded library
    with that soname, so the copy torch loaded wins as long as it is loaded
    first. Returns the path loaded, or None to let the dynamic linker search.
    """
    explicit = env.get(ENV_LIBCUPTI)
    if explicit:
        ctypes.CDLL(explicit, mode=ctypes.RTLD_GLOBAL)
        return explicit
    already = loaded_libcupti()
    if already:
        ctypes.CDLL(already[0], mode=ctypes.RTLD_GLOBAL)
        return already[0]
    major = None
    version = getattr(getattr(torch_mod, "version", None), "cuda", None)
    if isinstance(version, str) and version:
        major = version.split(".")[0]
    for path in wheel_libcupti(cuda_major=major):
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            return path
        except OSError:
            continue
    return None


def _open_collector(path: str) -> Any:
    return _bind(ctypes.CDLL(path))


def _status(emit: Emit, active: bool, message: str, **extra: Any) -> None:
    emit(
        "cupti_status", active=active, message=message, library=extra.pop("library", None), **extra
    )


def _fail(emit: Emit, message: str, warn: bool = True, **extra: Any) -> None:
    _status(emit, False, message, **extra)
    if warn:
        emit(
            "log",
            level="warning",
            message=f"{message}; the run goes on with torch's allocator counters alone",
        )


def start(emit: Emit, env: Mapping[str, str] | None = None) -> Collector | None:
    """Start CUPTI collection, or say in a cupti_status event why not. Never raises."""
    try:
        return _start(emit, os.environ if env is None else env)
    except Exception as e:  # noqa: BLE001
        try:
            _fail(emit, f"CUPTI collector not started: internal error: {e!r}")
        except Exception:  # noqa: BLE001
            pass
        return None


def _start(emit: Emit, env: Mapping[str, str]) -> Collector | None:
    usable, why, torch_mod, reserved = _cuda_state()
    if not usable:
        _fail(emit, why, warn=False)
        return None

    candidates = library_candidates(env)
    path = next((p for p in candidates if os.path.isfile(p)), None)
    if path is None:
        if env.get(ENV_LIBRARY):
            _fail(emit, f"{ENV_LIBRARY} names {env[ENV_LIBRARY]}, which does not exist")
        else:
            _fail(
                emit,
                f"the CUPTI collector {LIBRARY_NAME} was not found (looked in: "
                f"{', '.join(candidates)}); build it with "
                "`cmake -S probe/cupti -B build-cupti && cmake --build build-cupti`",
            )
        return None

    try:
        preloaded = _preload_libcupti(env, torch_mod)
    except OSError as e:
        _fail(emit, f"libcupti could not be loaded: {e}")
        return None

    try:
        lib = _open_collector(path)
    except OSError as e:
        text = str(e)
        if "libcupti" in text:
            _fail(
                emit,
                f"libcupti is missing, so the CUPTI collector cannot load: {text}; "
                "install the CUDA Toolkit's CUPTI or the nvidia-cuda-cupti wheel, or set "
                f"{ENV_LIBCUPTI}",
                library=preloaded,
            )
        else:
            _fail(emit, f"the CUPTI collector {path} cannot be loaded: {text}", library=preloaded)
        return None
    except AttributeError as e:
        _fail(emit, f"{path} is not a compatible CUPTI collector: {e}")
        return None

    if (
        lib.cs_cupti_abi_version() != ABI_VERSION
        or lib.cs_cupti_record_size() != RECORD.size
        or lib.cs_cupti_stats_size() != ctypes.sizeof(_Stats)
    ):
        _fail(
            emit,
            f"{path} speaks collector ABI {lib.cs_cupti_abi_version()}, this probe "
            f"speaks {ABI_VERSION}: rebuild it from this source tree",
        )
        return None

    bound = _text_from(lib.cs_cupti_library_path) or preloaded
    copies = loaded_libcupti()
    if len(copies) > 1:
        _fail(
            emit,
            "two copies of libcupti are loaded in this process ("
            + ", ".join(copies)
            + "): CUPTI would be driven twice. Rebuild the collector against the "
            "libcupti torch loads (COMPILESCOPE_CUPTI_ROOT, see docs/cupti.md)",
            library=bound,
        )
        return None

    max_records = int(env.get(ENV_MAX_RECORDS, "0") or 0)
    started_ns = time.monotonic_ns()
    rc = lib.cs_cupti_start(0, max_records, 0)
    if rc:
        _fail(
            emit,
            f"CUPTI could not start ({_ERROR_CODES.get(rc, rc)}): "
            f"{_text_from(lib.cs_cupti_last_error)}",
            library=bound,
        )
        return None

    collector = Collector(
        lib,
        collector_path=path,
        libcupti=bound,
        started_ns=started_ns,
        baseline_bytes=reserved,
        torch_mod=torch_mod,
    )
    collector.trace_limit = trace_limit(env)
    st = collector.stats()
    version = int(st.get("cupti_version", 0))
    header = int(st.get("header_version", 0))
    clock = CLOCK_MODES.get(st.get("clock_mode", 0), "none")
    words = [f"CUPTI {_version_text(version)} (built with headers {_version_text(header)})"]
    if version and header and version < header:
        words.append(
            "libcupti is older than the headers the collector was built with: "
            "records may be misread"
        )
    if clock == "callback":
        words.append("timestamps on CLOCK_MONOTONIC through CUPTI's timestamp callback")
    else:
        words.append(
            f"timestamps shifted onto CLOCK_MONOTONIC by a measured offset of "
            f"{st.get('clock_offset_ns', 0)} ns"
        )
    if st.get("kinds_missing"):
        words.append("some record kinds are unavailable: " + _text_from(lib.cs_cupti_last_error))
    clashing = [name for name in PROFILER_ENV if env.get(name) == "1"]
    if clashing:
        words.append(
            f"{', '.join(clashing)}=1 makes Inductor benchmark through torch.profiler, "
            "which takes CUPTI's records over: figures after autotuning may be missing"
        )
    if reserved:
        words.append(
            f"torch held {reserved} bytes on the device before CUPTI started; they "
            "are counted as a baseline"
        )
    _status(
        emit, True, "; ".join(words), library=bound, version=version, clock=clock, collector=path
    )
    return collector
