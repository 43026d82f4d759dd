"""The `aoti` setting: torch.export, an AOTInductor package, and the package
timed from C++ by compilescope-aoti-runner (docs/aoti.md).

The probe exports and packages in Python, then starts the runner as its
child with the event descriptor: the runner's events (package load, the
first call, warmup, the measured calls) continue this probe's stream, and
the probe writes `done` once the runner has exited."""

from __future__ import annotations

import hashlib
import json
import linecache
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from typing import Any

from .errors import (
    ProbeError,
    exc_summary,
    format_exc,
    installed_package,
    library_location,
    shorten_symbolic,
    user_location,
)

RUNNER_ENV = "COMPILESCOPE_AOTI_RUNNER"
RUNNER_NAME = "compilescope-aoti-runner"
INPUTS_SUFFIX = ".inputs.pt"


class RunnerCrashed(Exception):
    """The runner died of a signal: the run crashed; the probe writes no `done`."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


# -- what a .pt2 is --------------------------------------------------------------
def is_aoti_package(path: str) -> bool:
    """An AOTInductor package holds compiled code under data/aotinductor/; a
    torch.export archive holds a serialized program instead."""
    try:
        with zipfile.ZipFile(path) as z:
            return any("/data/aotinductor/" in "/" + n for n in z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def inputs_beside(package: str) -> str:
    base = package[: -len(".pt2")] if package.endswith(".pt2") else package
    return base + INPUTS_SUFFIX


# -- export failures -------------------------------------------------------------
_REMEDIES = {
    "data_dependent": (
        "Express the branch so export can keep both sides: torch.cond(pred, true_fn, false_fn, "
        "(args,)) for control flow on tensor values, or torch.where when both sides are cheap. "
        "If the value only bounds a size, state it with torch._check(...)."
    ),
    "item": (
        "A Python number read from a tensor (.item(), .tolist(), int(t)) has no value while "
        "exporting. Keep it a tensor, or tell export what holds with torch._check(x >= 0) / "
        "torch._check_is_size(x) right after reading it."
    ),
    "unsupported": (
        "Replace the call with torch operations (NumPy, .numpy(), Python-side libraries and "
        "I/O cannot be exported), or move it out of forward()."
    ),
    "dynamic_shape": (
        "Give dynamic_shapes that match how the model uses each dimension: "
        "torch.export.Dim('batch', min=1, max=...) or Dim.AUTO, and follow the fix torch "
        "suggests in its message; or export with static shapes (--dynamic false)."
    ),
    "pytree_type": (
        "Return (and take) tensors, or tuples, lists and dicts of them: wrap the model in a "
        "module whose forward returns only what the deployed program needs (outputs.logits). "
        "A Hugging Face model returns its KV cache object unless called with use_cache=False "
        '(add "use_cache": False to get_inputs()). A type of your own can be registered with '
        "torch.utils._pytree.register_pytree_node."
    ),
    "other": (
        "Read torch's reason in the evidence; torch.export.draft_export(...) lists every problem "
        "at once."
    ),
}


def _category(exc: BaseException, code: str) -> str:
    names = {type(e).__name__ for e in _chain(exc)}
    text = " ".join(str(e) for e in _chain(exc))
    data_dependent = (
        "GuardOnDataDependentSymNode" in names
        or "data-dependent" in text
        or "data dependent" in text
    )
    if data_dependent:
        if any(k in code for k in (".item()", ".tolist()", "int(", "float(", "bool(")) and not (
            code.lstrip().startswith(("if ", "elif ", "while "))
        ):
            return "item"
        return "data_dependent"
    if "ConstraintViolation" in " ".join(names) or "Constraints violated" in text:
        return "dynamic_shape"
    # "Found <class 'transformers.cache_utils.EncoderDecoderCache'> in output,
    # which is not a known type": a value export cannot flatten into tensors.
    if "which is not a known type" in text or "register a pytree" in text:
        return "pytree_type"
    if "Unsupported" in names or "not supported" in text or ".numpy()" in text or "numpy" in code:
        return "unsupported"
    return "other"


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _reason(exc: BaseException) -> str:
    """torch's words up to the first blank line, its symbolic expressions
    shortened: its long hints and the whole expressions stay in the traceback."""
    text = str(exc).strip()
    para = shorten_symbolic(text.split("\n\n", 1)[0].strip())
    return f"{type(exc).__name__}: {para}" if para else type(exc).__name__


def _library_remedy(package: str, remedy: str) -> str:
    return (
        f"The line is {package}'s code, not the model file's: rather than edit the library, "
        f"export the submodule that does the tensor work (torch.export.export(model.backbone, "
        f"...), or whichever holds the layers) and run {package}'s code around the package in "
        f"Python. Where you own that code: {remedy[0].lower()}{remedy[1:]}"
    )


def export_failure(exc: BaseException, classifier: Any, strict: bool) -> dict:
    loc = user_location(exc, classifier)
    library = None
    if loc is None and (loc := library_location(exc)) is not None:
        library = installed_package(loc[0])
    file, line = (loc[0], loc[1]) if loc else ("", 0)
    code = linecache.getline(file, line).strip() if file and line else ""
    category = _category(exc, code)
    remedy = _REMEDIES[category]
    return {
        "category": category,
        "exception": type(exc).__name__,
        "reason": _reason(exc),
        "file": file,
        "line": line,
        "code": code,
        "remedy": _library_remedy(library, remedy) if library else remedy,
        "strict": strict,
    }


_CATEGORY_WORDS = {
    "data_dependent": "control flow on a tensor's values",
    "item": "a Python number read from a tensor",
    "unsupported": "a call export cannot trace",
    "dynamic_shape": "the dynamic shapes it was given",
    "pytree_type": "a value that is not tensors",
    "other": "an error",
}


def failure_message(f: dict) -> str:
    where = f" at {f['file']}:{f['line']}" if f["file"] else ""
    code = f" (`{f['code']}`)" if f["code"] else ""
    mode = "strict" if f["strict"] else "non-strict"
    return (
        f"torch.export ({mode}) cannot export the model: {_CATEGORY_WORDS[f['category']]}"
        f"{where}{code}. {f['reason'].splitlines()[0]} {f['remedy']}"
    )


# -- the runner ------------------------------------------------------------------
def _source_dir() -> str:
    return os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "aoti_runner")
    )


def _version_of(path: str) -> tuple[dict | None, str]:
    try:
        out = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=_runner_env(),
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, exc_summary(e)
    if out.returncode != 0:
        last = (out.stderr or out.stdout).strip().splitlines()
        return None, f"exit {out.returncode}: {last[-1] if last else 'no output'}"
    try:
        return json.loads(out.stdout.strip().splitlines()[-1]), ""
    except (ValueError, IndexError):
        return None, f"unreadable --version output {out.stdout.strip()[:200]!r}"


def _torch_key(version: str) -> str:
    """What must match between the runner's libtorch and the user's torch: the
    release, not the local build tag (2.15.0+cu132 and 2.15.0 share headers;
    CUDA is compared apart)."""
    return version.split("+", 1)[0]


def _wants(torch: Any) -> tuple[str, bool]:
    return _torch_key(torch.__version__), bool(getattr(torch.version, "cuda", None))


def _matches(info: dict, torch: Any) -> bool:
    version, cuda = _wants(torch)
    return _torch_key(str(info.get("torch", ""))) == version and bool(info.get("cuda")) == cuda


def _torch_lib_dirs(torch: Any) -> list[str]:
    """The user's libtorch and the CUDA libraries the wheel keeps under
    site-packages/nvidia: the runner loads the torch it was built for from here."""
    root = os.path.dirname(os.path.abspath(torch.__file__))
    dirs = [os.path.join(root, "lib")]
    nvidia = os.path.join(os.path.dirname(root), "nvidia")
    if os.path.isdir(nvidia):
        for dirpath, dirnames, _ in os.walk(nvidia):
            if os.path.basename(dirpath) == "lib":
                dirs.append(dirpath)
                dirnames[:] = []
    return [d for d in dirs if os.path.isdir(d)]


_LIB_DIRS: list[str] = []


def _runner_env() -> dict:
    env = dict(os.environ)
    if _LIB_DIRS:
        old = env.get("LD_LIBRARY_PATH", "")
        env["LD_LIBRARY_PATH"] = ":".join(_LIB_DIRS + ([old] if old else []))
    return env


def _sources_hash(src: str) -> str:
    h = hashlib.sha256()
    protocol = os.path.join(os.path.dirname(src), "compilescope_probe", "protocol.json")
    files = [protocol]
    for dirpath, _dirs, names in os.walk(src):
        files += [os.path.join(dirpath, n) for n in names]
    for path in sorted(files):
        if "/build" in path[len(src) :]:
            continue
        h.update(os.path.relpath(path, os.path.dirname(src)).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def _cache_root() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "compilescope", "aoti-runner")


def _missing_tools() -> list[str]:
    missing = []
    if not shutil.which("cmake"):
        missing.append("cmake")
    cxx = os.environ.get("CXX")
    if not (cxx and shutil.which(cxx)) and not any(
        shutil.which(n) for n in ("c++", "g++", "clang++")
    ):
        missing.append("a C++ compiler" + (f" ($CXX={cxx} is not usable)" if cxx else ""))
    return missing


def locate_runner(probe: Any) -> str:
    """A runner built against this interpreter's torch: the app's own when
    the versions agree, else one built from the shipped sources into a
    per-version cache directory (once)."""
    torch = probe.torch
    _LIB_DIRS[:] = _torch_lib_dirs(torch)
    version, cuda = _wants(torch)
    given = os.environ.get(RUNNER_ENV, "")
    built_for = ""
    if given:
        info, why = _version_of(given)
        if info is not None and _matches(info, torch):
            return given
        built_for = (
            f"torch {info.get('torch')}{' with CUDA' if info.get('cuda') else ''}"
            if info is not None
            else f"an unknown torch ({why})"
        )
        probe.log(
            "info",
            f"{given} was built for {built_for}; {sys.executable} has torch {torch.__version__}: "
            f"using a runner built for that torch",
        )
    src = _source_dir()
    if not os.path.isfile(os.path.join(src, "CMakeLists.txt")):
        if given:
            raise ProbeError(
                "aoti_runner_mismatch",
                f"compilescope-aoti-runner ({given}) was built for {built_for}, but {sys.executable} "
                f"has torch {torch.__version__}, and the runner's sources are not shipped beside "
                f"this probe to build it again. Pick an interpreter with that torch.",
            )
        raise ProbeError(
            "no_aoti_runner",
            f"compilescope-aoti-runner was not found (set {RUNNER_ENV}, or build compilescope with "
            f"torch in its venv) and its sources are not beside this probe ({src}).",
        )
    flavour = "cuda" if cuda else "cpu"
    folder = os.path.join(_cache_root(), f"torch-{version}-{flavour}-{_sources_hash(src)}")
    binary = os.path.join(folder, "build", RUNNER_NAME)
    if os.path.isfile(binary):
        info, _why = _version_of(binary)
        if info is not None and _matches(info, torch):
            return binary
    missing = _missing_tools()
    if missing:
        have = f"was built for {built_for}" if given else "is not built for it"
        raise ProbeError(
            "aoti_runner_mismatch",
            f"{sys.executable} has torch {torch.__version__}; compilescope-aoti-runner {have}, and it "
            f"cannot be built for this torch here: {' and '.join(missing)} missing. Install them "
            f"(e.g. `sudo apt-get install cmake g++`), or pick an interpreter with the torch the "
            f"runner was built for.",
        )
    _build(probe, src, folder, torch)
    info, why = _version_of(binary)
    if info is None or not _matches(info, torch):
        raise ProbeError(
            "aoti_runner_build_failed",
            f"compilescope-aoti-runner built in {folder} does not run against torch "
            f"{torch.__version__} ({why or 'it reports torch ' + str(info.get('torch'))}).",
        )
    return binary


def _build(probe: Any, src: str, folder: str, torch: Any) -> None:
    import fcntl

    os.makedirs(folder, exist_ok=True)
    log_path = os.path.join(folder, "build.log")
    with open(os.path.join(folder, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two probes building the same runner wait for one
        binary = os.path.join(folder, "build", RUNNER_NAME)
        if os.path.isfile(binary):
            return
        probe.emit(
            "compile_progress", stage=f"building {RUNNER_NAME} for torch {torch.__version__}"
        )
        probe.log(
            "info",
            f"building {RUNNER_NAME} for torch {torch.__version__} in {folder} (once; a minute or so)",
        )
        import torch.utils

        prefix = torch.utils.cmake_prefix_path
        steps = [
            [
                "cmake",
                "-S",
                src,
                "-B",
                os.path.join(folder, "build"),
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_PREFIX_PATH={prefix}",
                f"-DPython_EXECUTABLE={sys.executable}",
            ],
            [
                "cmake",
                "--build",
                os.path.join(folder, "build"),
                "--parallel",
                str(os.cpu_count() or 2),
            ],
        ]
        t0 = time.monotonic()
        with open(log_path, "w") as log:
            for cmd in steps:
                rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
                if rc != 0:
                    break
        if rc != 0 or not os.path.isfile(binary):
            with open(log_path, errors="replace") as f:
                tail = "".join(f.readlines()[-15:])
            raise ProbeError(
                "aoti_runner_build_failed",
                f"Building {RUNNER_NAME} for torch {torch.__version__} failed (log: {log_path}). "
                f"Its last lines:\n{tail}",
            )
        probe.log("info", f"built {RUNNER_NAME} in {time.monotonic() - t0:.0f} s")


# -- the setting -----------------------------------------------------------------
class AotiSetting:
    def __init__(self, probe: Any) -> None:
        self.p = probe
        # Inside the probe's own fresh cache where there is one, else in the
        # folder the app gave for it: the app removes that one when a killed
        # probe could not (docs/protocol.md).
        root = os.environ.get("COMPILESCOPE_CACHE_ROOT") or None
        inside = probe.cache_dir if probe.remove_cache_dir else root
        self.workdir = tempfile.mkdtemp(prefix="compilescope-aoti-", dir=inside)
        probe.temp_dirs.append(self.workdir)
        self.child: subprocess.Popen | None = None

    def ignored_options(self) -> None:
        s = self.p.s
        ignored = [
            name
            for name, on in (
                (f"backend {s.backend}", s.backend != "inductor"),
                ("fullgraph (export is always one graph)", s.fullgraph),
                (f"autocast {s.autocast}", s.autocast != "none"),
                ("--sweep (the package is compiled for one input shape set)", s.sweep),
            )
            if on
        ]
        if ignored:
            self.p.log(
                "info",
                "aoti exports and packages the model; these do not apply: " + ", ".join(ignored),
            )

    def export(self, model: Any, inputs: tuple) -> tuple[Any, float]:
        torch = self.p.torch
        s = self.p.s
        dynamic_shapes = None
        if s.dynamic == "true":
            auto = torch.export.Dim.AUTO
            dynamic_shapes = tuple(
                {i: auto for i in range(x.dim())} if isinstance(x, torch.Tensor) else None
                for x in inputs
            )
        with self.p.phase("export"):
            t0 = time.perf_counter()
            try:
                program = torch.export.export(
                    model, tuple(inputs), dynamic_shapes=dynamic_shapes, strict=s.strict_export
                )
            except Exception as e:
                failure = export_failure(e, self.p.classifier, s.strict_export)
                self.p.emit("export_failure", **failure)
                raise ProbeError(
                    "export_failed", failure_message(failure), tb=format_exc(e)
                ) from None
            return program, time.perf_counter() - t0

    def package(self, program: Any) -> tuple[str, float]:
        torch = self.p.torch
        path = os.path.join(self.workdir, "model.pt2")
        with self.p.phase("package"):
            t0 = time.perf_counter()
            try:
                import torch._inductor

                torch._inductor.aoti_compile_and_package(program, package_path=path)
            except Exception as e:
                if self.p.is_oom(e):
                    raise ProbeError(
                        "out_of_memory",
                        f"Out of memory while AOTInductor compiled the package: {exc_summary(e)}.",
                        tb=format_exc(e),
                    ) from None
                raise ProbeError(
                    "package_failed",
                    f"AOTInductor could not package the exported model: {exc_summary(e)}. The "
                    f"model exports; the C++ code generation or its compile failed (see the "
                    f"traceback and the console).",
                    tb=format_exc(e),
                ) from None
            return path, time.perf_counter() - t0

    def save_inputs(self, inputs: tuple) -> str:
        torch = self.p.torch
        from torch.utils._pytree import tree_flatten

        leaves, _ = tree_flatten(tuple(inputs))
        tensors = [x.detach() for x in leaves if isinstance(x, torch.Tensor)]
        if len(tensors) != len(leaves):
            self.p.log(
                "info",
                f"{len(leaves) - len(tensors)} non-tensor input(s) are constants in the exported "
                f"program; the runner passes the {len(tensors)} tensor(s)",
            )
        path = os.path.join(self.workdir, "inputs.pt")
        torch.save(tensors, path)
        return path

    def run_package(
        self, runner: str, package: str, inputs_path: str, prior: list[tuple[str, float]]
    ) -> str:
        p = self.p
        s = p.s
        args = [
            runner,
            "--package",
            package,
            "--inputs",
            inputs_path,
            "--device",
            str(p.device),
            "--warmup",
            str(s.warmup),
            "--iters",
            str(s.iters),
            "--events-fd",
            str(p.w.fd),
            "--continue-stream",
        ]
        if s.threads:
            args += ["--threads", str(s.threads)]
        for name, seconds in prior:
            args += ["--prior-phase", f"{name}={seconds:.9f}"]
        cupti = os.environ.get("COMPILESCOPE_CUPTI_LIB")
        if p.device.type == "cuda" and cupti and not s.no_cupti:
            args += ["--cupti", cupti]
        p.sampler.pause()  # the runner samples its own memory
        tail: list[str] = []
        try:
            # libtorch unpacks the package (its .so, its weights) under TMPDIR and
            # leaves it there when the runner is killed: inside the work folder,
            # it goes with the folder however the run ends.
            env = dict(_runner_env(), TMPDIR=self.workdir)
            self.child = subprocess.Popen(args, pass_fds=(p.w.fd,), stderr=subprocess.PIPE, env=env)
        except OSError as e:
            raise ProbeError(
                "aoti_runner_failed", f"{runner} could not be started: {exc_summary(e)}."
            ) from None
        relay = threading.Thread(target=_relay, args=(self.child.stderr, tail), daemon=True)
        relay.start()
        rc = self.child.wait()
        relay.join(timeout=5)
        self.child = None
        p.sampler.resume()
        if rc == 0:
            return "ok"
        if rc < 0:
            p.w.end_foreign_line()  # killed mid-write, its line is cut
            raise RunnerCrashed(-rc)
        if rc == 3:
            return "failed"  # the runner wrote its own error event
        last = "\n".join(tail[-5:]) or "nothing on stderr"
        hint = ""
        if rc == 127 or "error while loading shared libraries" in last:
            hint = (
                f" It could not load its libraries: the torch libraries it looked in were "
                f"{':'.join(_LIB_DIRS) or 'none'}."
            )
        raise ProbeError(
            "aoti_runner_failed",
            f"{os.path.basename(runner)} exited with code {rc}.{hint} It said:\n{last}",
        )

    def load_in_python(self, package: str) -> Any:
        """The package as a Python callable; libtorch unpacks it under TMPDIR,
        kept inside the work folder as for the runner."""
        torch = self.p.torch
        before = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = self.workdir
        try:
            return torch._inductor.aoti_load_package(package)
        finally:
            if before is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = before

    def stop_child(self, signum: int) -> None:
        """From the probe's signal handler: the runner flushes what it timed first."""
        child = self.child
        if child is None:
            return
        try:
            child.send_signal(signum)
            child.wait(timeout=2)
        except Exception:  # already gone, or not stopping: the group kill follows
            pass


def _relay(stream: Any, tail: list[str]) -> None:
    """The runner's stderr goes on to the console; its last lines are kept for errors."""
    for raw in iter(stream.readline, b""):
        text = raw.decode("utf-8", "replace")
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        tail.append(text.rstrip("\n"))
        del tail[:-20]


def run(probe: Any, loaded: Any, model: Any, inputs: tuple) -> str:
    """Export (its failure is the finding), then the runner (built if this
    torch needs one), then the package, then the runner times it."""
    setting = AotiSetting(probe)
    probe.aoti = setting
    setting.ignored_options()
    if loaded is None:  # a package given as the model
        package = os.path.abspath(os.path.expanduser(probe.s.model))
        return setting.run_package(locate_runner(probe), package, inputs_beside(package), [])
    program, export_s = setting.export(model, inputs)
    runner = locate_runner(probe)
    package, package_s = setting.package(program)
    prior = [("export", export_s), ("package", package_s)]
    status = setting.run_package(runner, package, setting.save_inputs(inputs), prior)
    if status == "ok" and probe.s.iters > 0:
        # The package loaded here, in Python, is the same compiled code the
        # runner timed: its outputs against eager's (docs/outputs.md).
        probe.check_outputs(None, model, inputs, load=lambda: setting.load_in_python(package))
    return status


def load_package_inputs(probe: Any, package: str) -> tuple:
    """The inputs of a package given as the model: NAME.inputs.pt beside it."""
    torch = probe.torch
    path = inputs_beside(package)
    if not os.path.isfile(path):
        raise ProbeError(
            "missing_get_inputs",
            f"{package} is an AOTInductor package, which carries no example inputs. Save them "
            f"beside it as {path} with torch.save([tensor, ...], '{path}') (the flattened "
            f"tensor inputs, in order), or give the .py model and let the aoti setting package it.",
        )
    try:
        value = torch.load(path, weights_only=True)
    except Exception as e:
        raise ProbeError(
            "missing_get_inputs",
            f"{path} cannot be read as inputs ({exc_summary(e)}). Write it with "
            f"torch.save([tensor, ...], path).",
            tb=format_exc(e),
        ) from None
    items = value if isinstance(value, (list, tuple)) else [value]
    if not items or not all(isinstance(x, torch.Tensor) for x in items):
        raise ProbeError(
            "missing_get_inputs",
            f"{path} must hold a list of tensors (the package's flattened inputs), not "
            f"{type(value).__name__}.",
        )
    return tuple(items)


def not_a_model(path: str) -> ProbeError:
    return ProbeError(
        "aoti_package_needs_aoti",
        f"{path} is an AOTInductor package: its code is compiled already, so only the aoti setting "
        f"can run it (--settings aoti).",
    )
