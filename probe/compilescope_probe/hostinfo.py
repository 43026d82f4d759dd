"""What the probe can learn about its environment without importing torch."""

from __future__ import annotations

import ast
import glob
import importlib.util
import os
import platform
import socket
import sys


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def torch_build_info() -> tuple[str | None, str | None]:
    """(torch version, CUDA version torch was built with), read from
    torch/version.py without running it: importing torch takes seconds and may
    be what fails."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None, None
    if spec is None or not spec.submodule_search_locations:
        return None, None
    for location in spec.submodule_search_locations:
        path = os.path.join(location, "version.py")
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError):
            continue
        values: dict[str, object] = {}
        for node in tree.body:
            target = value = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            if isinstance(target, ast.Name) and value is not None:
                try:
                    values[target.id] = ast.literal_eval(value)
                except (ValueError, SyntaxError):
                    pass
        version = values.get("__version__")
        cuda = values.get("cuda")
        return (str(version) if version else None, str(cuda) if cuda else None)
    return None, None


def nvidia_gpu_name() -> str | None:
    """Name of the first NVIDIA GPU from the driver's /proc files, if any."""
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            with open(info, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("Model:"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            continue
    return None


def expected_device(requested: str, torch_cuda: str | None) -> tuple[str, str]:
    """The device the run will most likely use, before torch can tell.
    The `model` event carries the device actually used."""
    gpu = nvidia_gpu_name()
    if requested == "cuda" or (requested == "auto" and torch_cuda and gpu):
        return "cuda:0", gpu or "unknown GPU"
    return "cpu", cpu_name()


def cpu_affinity() -> list[int] | None:
    """The CPUs this process may run on; None where the OS cannot say."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


# Variables that change what torch compiles or how the model runs: Dynamo,
# Inductor, Triton, the CUDA allocator and runtime, the CPU thread pools, a
# preloaded allocator. The probe reports those it started with, so a report
# shows what the user's shell set behind compilescope's back.
TORCH_ENV_PREFIXES = (
    "TORCH",
    "PYTORCH_",
    "TRITON_",
    "CUDA_",
    "CUBLAS_",
    "CUDNN_",
    "NVIDIA_TF32_",
    "OMP_",
    "MKL_",
    "KMP_",
    "ONEDNN_",
    "DNNL_",
)
TORCH_ENV_NAMES = ("LD_PRELOAD",)
# Where things are installed, not how they run (CUDA_HOME, TORCH_HOME,
# a CUDA image's CUDA_VERSION): every machine has some, none is news.
TORCH_ENV_LOCATION_SUFFIXES = ("_HOME", "_PATH", "_ROOT", "_VERSION")
# A value is a setting, not a document: longer ones are cut.
TORCH_ENV_MAX_VALUE = 256
TORCH_ENV_MAX_NAMES = 64


def torch_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The torch-relevant variables of `environ` (os.environ), sorted by name."""
    environ = os.environ if environ is None else environ
    names = sorted(
        n
        for n in environ
        if n in TORCH_ENV_NAMES
        or (n.startswith(TORCH_ENV_PREFIXES) and not n.endswith(TORCH_ENV_LOCATION_SUFFIXES))
    )
    found = {}
    for name in names[:TORCH_ENV_MAX_NAMES]:
        value = environ[name]
        found[name] = (
            value if len(value) <= TORCH_ENV_MAX_VALUE else value[:TORCH_ENV_MAX_VALUE] + "…"
        )
    return found


def hello_fields(
    settings: dict | None, requested_device: str, started_env: dict[str, str] | None = None
) -> dict:
    """`started_env`: torch_environment() taken before the probe set its own
    variables (the compile cache's); None takes it now."""
    torch_version, torch_cuda = torch_build_info()
    device, device_name = expected_device(requested_device, torch_cuda)
    return {
        "pid": os.getpid(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch": torch_version,
        "cuda": torch_cuda,
        "device": device,
        "device_name": device_name,
        "cpu": cpu_name(),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "cpu_affinity": cpu_affinity(),
        "settings": settings,
        "torch_env": torch_environment() if started_env is None else started_env,
    }
