"""scripts/gpu-check.sh, the parts that run without a GPU.

- with no GPU it fails at once with a plain message and exit status 2;
- GPU_CHECK_STREAMS re-runs only the checks over saved streams: here over
  synthetic streams, one set that should pass and one broken in known ways;
- GPU_CHECK_BUILD_ONLY builds the collector with g++ alone (the path taken on
  a GPU machine without cmake) and runs its self-test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "gpu-check.sh")
MiB = 1 << 20
MODELS = ("mlp", "convnet")
MODES = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs")


def _has_gpu() -> bool:
    return any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl"))


def run_script(out_dir, **env_extra) -> subprocess.CompletedProcess:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    env = dict(os.environ, PYTHON=sys.executable, **env_extra)
    return subprocess.run(
        ["bash", SCRIPT, str(out_dir)], capture_output=True, text=True, env=env, timeout=600
    )


EXPANDABLE_ENV = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}


def stream(
    mode,
    *,
    launches,
    kernels=None,
    latency_us=100.0,
    torch_peak=100 * MiB,
    cupti_peak=None,
    cupti=True,
    kernel_records=None,
    dropped=0,
    torch_env=None,
):
    """Events of one probe run, shaped like the probe's."""
    t = 0
    events = []

    def emit(type_, **fields):
        nonlocal t
        t += 1000
        events.append({"type": type_, "t_ns": t, **fields})

    emit("hello", protocol=1, settings={"mode": mode}, torch_env=torch_env or {})
    if cupti:
        emit(
            "cupti_status",
            active=True,
            message="CUPTI 13.2",
            library="/x/libcupti.so.13",
            version=130202,
            clock="callback",
        )
    for phase in ("load", "compile", "warmup", "measure"):
        emit("phase", name=phase, edge="begin")
        emit(
            "memory_stats",
            phase=phase,
            edge="begin",
            allocated=0,
            reserved=0,
            peak_allocated=0,
            peak_reserved=0,
        )
        if phase == "measure":
            for i in range(50):
                emit(
                    "iteration",
                    index=i + 5,
                    latency_ns=int(latency_us * 1000) + i % 3,
                    wall_ns=0,
                    warmup=False,
                    first_call=False,
                )
        emit("phase", name=phase, edge="end")
        emit(
            "memory_stats",
            phase=phase,
            edge="end",
            allocated=0,
            reserved=torch_peak,
            peak_allocated=0,
            peak_reserved=torch_peak,
        )
    if cupti:
        peak = torch_peak if cupti_peak is None else cupti_peak
        emit(
            "memory",
            kind="device",
            samples=[[0, 0], [t, peak]],
            peak=peak,
            phase_peaks={p: peak for p in ("load", "compile", "warmup", "measure")},
            dropped=dropped,
        )
        k = launches if kernels is None else kernels
        emit(
            "kernel_summary",
            iterations=50,
            launches_per_iter=launches,
            kernels_per_iter=k,
            gpu_ns_per_iter=50_000,
            busy_fraction=0.5,
            top=[{"name": "k", "count": 50, "total_ns": 1, "mean_ns": 1}],
            memcpy={"count": 0, "bytes": 0, "total_ns": 0},
            dropped=dropped,
            kernel_records=50 * k if kernel_records is None else kernel_records,
        )
    emit("done", status="ok")
    return events


def write_runs(folder, runs):
    """runs: {(model, mode, variant): events or ('skipped') or ('crash', events)}"""
    streams = folder / "streams"
    streams.mkdir(parents=True)
    lines = []
    for (model, mode, variant), events in runs.items():
        name = f"{model}-{mode}-{variant}"
        if events == "skipped":
            lines.append(f"{model}\t{mode}\t{variant}\tskipped\t0\t{name}")
            continue
        rc = "0"
        if isinstance(events, tuple):
            rc, events = "139", events[1]
        (streams / f"{name}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        (streams / f"{name}.stderr.txt").write_text("Segmentation fault\n" if rc != "0" else "")
        lines.append(f"{model}\t{mode}\t{variant}\t{rc}\t12\t{name}")
    (folder / "runs.tsv").write_text("\n".join(lines) + "\n")


def check_saved(tmp_path, runs):
    """gpu-check.sh's checks alone, over `runs` saved as it saves them."""
    saved = tmp_path / "saved"
    write_runs(saved, runs)
    return run_script(tmp_path / "out", GPU_CHECK_STREAMS=str(saved))


def good_runs():
    runs = {}
    for model in MODELS:
        for mode in MODES:
            launches = 2 if mode == "reduce-overhead" else 30
            # the collector's cost: 0.5% on the MLP, 1.5% on the conv net
            runs[(model, mode, "cupti")] = stream(
                mode, launches=launches, kernels=30, latency_us=100.5 if model == "mlp" else 101.5
            )
            runs[(model, mode, "nocupti")] = stream(mode, launches=0, latency_us=100.0, cupti=False)
    runs[("convnet", "default", "expandable")] = stream(
        "default", launches=30, latency_us=101.0, torch_env=EXPANDABLE_ENV
    )
    return runs


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA device; the check is for none")
def test_without_a_gpu_it_fails_at_once_with_a_clear_message(tmp_path):
    result = run_script(tmp_path / "out")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "FAIL: no CUDA GPU to check on" in result.stdout
    summary = (tmp_path / "out" / "summary.txt").read_text()
    assert "no CUDA GPU" in summary
    assert not (tmp_path / "out" / "streams").exists()  # nothing but the bundle and summary


def test_checks_pass_over_good_streams(tmp_path):
    result = check_saved(tmp_path, good_runs())
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "PASS kernel records > 0 in every setting (8/8)" in out
    assert "PASS mlp: launches per iteration lower under reduce-overhead than default" in out
    assert "PASS CUPTI peak device bytes >= torch peak reserved - 1 MiB (32/32 phases)" in out
    assert "PASS collector overhead on median latency < 3% (8/8 settings)" in out
    assert "goal < 1%: 4/8 settings; above it: convnet/eager +1.5%, convnet/default" in out
    assert "PASS no activity records dropped (9/9 runs with the collector)" in out
    assert "PASS GPU records on the probe's clock: whole kernels per measured call (8/8" in out
    assert (
        "PASS CUPTI peak with expandable_segments:True >= torch peak reserved - 1 MiB (4/4 phases)"
        in out
    )
    assert "PASS the expandable runs' probes started with expandable_segments:True (1/1)" in out
    assert "ALL PASS" in out
    assert (tmp_path / "out" / "streams.tar.gz").is_file()
    # What comes back from the GPU machine: at most 8 files.
    assert len(os.listdir(tmp_path / "out")) <= 8


def test_showcase_runs_are_listed_not_checked(tmp_path):
    """ResNet-50's runs after the checks: a skipped or crashed one fails nothing."""
    runs = good_runs()
    runs[("resnet50_batch16", "eager", "showcase")] = stream("eager", launches=40, latency_us=900.0)
    runs[("resnet50_batch16", "max-autotune-no-cudagraphs", "showcase")] = "skipped"
    result = check_saved(tmp_path, runs)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "showcase resnet50_batch16/eager: median 900.0 us" in out
    assert "showcase resnet50_batch16/max-autotune-no-cudagraphs: not run (time budget)" in out
    assert "PASS no activity records dropped (9/9" in out  # the showcase's are not counted
    assert "PASS kernel records > 0 in every setting (8/8)" in out


def test_checks_fail_over_broken_streams(tmp_path):
    runs = good_runs()
    # CUDA graphs did not cut launches for the conv net.
    runs[("convnet", "reduce-overhead", "cupti")] = stream(
        "reduce-overhead", launches=40, kernels=30
    )
    # CUPTI saw 5 MiB less than torch reserved.
    runs[("mlp", "default", "cupti")] = stream(
        "default", launches=30, cupti_peak=95 * MiB, latency_us=101.0
    )
    # The collector cost 10% on mlp eager.
    runs[("mlp", "eager", "cupti")] = stream("eager", launches=30, latency_us=110.0)
    # No kernel records in one setting, a crash in another, and a run never started.
    runs[("convnet", "eager", "cupti")] = stream("eager", launches=0, kernels=0, kernel_records=0)
    runs[("convnet", "max-autotune-no-cudagraphs", "cupti")] = (
        "crash",
        stream("max-autotune-no-cudagraphs", launches=30)[:3],
    )
    runs[("convnet", "max-autotune-no-cudagraphs", "nocupti")] = "skipped"
    # Autotuning overflowed the buffers; calls' kernels split across the measure
    # phase's edge; CUPTI missed expandable segments' mappings.
    runs[("mlp", "max-autotune-no-cudagraphs", "cupti")] = stream(
        "max-autotune-no-cudagraphs", launches=30, latency_us=101.0, dropped=1234
    )
    runs[("mlp", "reduce-overhead", "cupti")] = stream(
        "reduce-overhead", launches=2, kernels=29.5, latency_us=101.0
    )
    runs[("convnet", "default", "expandable")] = stream(
        "default", launches=30, cupti_peak=2 * MiB, torch_peak=64 * MiB
    )  # and the variable never reached the probe
    result = check_saved(tmp_path, runs)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "FAIL kernel records > 0 in every setting (6/8)" in out
    assert (
        "convnet/max-autotune-no-cudagraphs (exit 139, no done event; "
        "stderr ends: Segmentation fault)"
    ) in out
    assert (
        "FAIL convnet: launches per iteration lower under reduce-overhead than default: 40 vs 30"
        in out
    )
    assert "PASS mlp: launches per iteration lower" in out
    assert "mlp/default/load: CUPTI 99614720 < torch 104857600 - 1 MiB" in out
    assert "mlp/eager +10.0%" in out
    assert "convnet/max-autotune-no-cudagraphs not measured" in out
    assert "FAIL no activity records dropped (7/8 runs with the collector)" in out
    assert "mlp/max-autotune-no-cudagraphs (cupti): 1234 dropped" in out
    assert "FAIL GPU records on the probe's clock: whole kernels per measured call (5/6" in out
    assert "mlp/reduce-overhead 29.5 kernels per call" in out
    assert "FAIL CUPTI peak with expandable_segments:True" in out
    assert "FAIL the expandable runs' probes started with expandable_segments:True (0/1)" in out
    assert "PYTORCH_CUDA_ALLOC_CONF there: convnet/default: <unset>" in out
    assert "convnet/default/measure: CUPTI 2097152 < torch 67108864 - 1 MiB" in out
    assert "gpu-check: FAILED" in out


def test_summary_runs_on_the_standard_library_alone(tmp_path):
    # -S: no site-packages, as on a GPU machine with nothing but python3 and torch.
    write_runs(tmp_path, good_runs())
    summary = os.path.join(REPO, "scripts", "gpu_check_summary.py")
    ok = subprocess.run(
        [sys.executable, "-S", summary, str(tmp_path), "479"], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS the check ran under 8 minutes: 479 s" in ok.stdout
    slow = subprocess.run(
        [sys.executable, "-S", summary, str(tmp_path), "480"], capture_output=True, text=True
    )
    assert slow.returncode == 1
    assert "FAIL the check ran under 8 minutes: 480 s" in slow.stdout
    usage = subprocess.run([sys.executable, "-S", summary], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_builds_with_gxx_alone_and_self_tests(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    if not (os.path.isfile("/usr/local/cuda/include/cupti.h") or os.environ.get("CUPTI_ROOT")):
        probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip("no CUPTI headers: neither a CUDA Toolkit nor torch's nvidia wheel")
    result = run_script(
        tmp_path / "out",
        GPU_CHECK_BUILD_ONLY="1",
        GPU_CHECK_NO_CMAKE="1",
        GPU_CHECK_BUILD_DIR=str(tmp_path / "build"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS collector self-test: ok" in result.stdout
    assert "0 compiler warnings" in result.stdout
    assert (tmp_path / "build" / "libcompilescope_cupti.so").is_file()
    log = subprocess.run(
        ["tar", "-xzOf", str(tmp_path / "out" / "streams.tar.gz"), "build.log"],
        capture_output=True,
        text=True,
    ).stdout
    assert "building with g++ directly" in log
