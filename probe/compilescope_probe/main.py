"""The probe's entry point: `python -m compilescope_probe --model SPEC ...`.

Runs one compile setting of one model and writes the events of
docs/protocol.md. Nothing but the standard library is imported until `hello`
has been written."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import signal
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from . import (
    __version__,
    failures,
    fallbacks,
    host_faults,
    input_drift,
    lifeline,
    machine_load,
    module_hooks,
)
from .aoti import RunnerCrashed
from .errors import ProbeError, exc_summary, exit_words, format_exc, pip_hint, user_location
from .events import EventWriter, redirect_stdout
from .frames import FrameClassifier
from .host_memory import MallocHeld, RssSampler, held_window, mem_available_bytes
from .hostinfo import cpu_name, hello_fields, torch_environment
from .settings import BadArguments, Settings, build_parser, parse
from .torch_trace import TorchTrace, note_keyword_call, prepare_trace_dir


def protocol_version() -> int:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.json")
    try:
        with open(path, encoding="utf-8") as f:
            return int(json.load(f)["protocol"])
    except (OSError, ValueError, KeyError):
        return 1


class Probe:
    def __init__(self, writer: EventWriter, settings: Settings) -> None:
        self.w = writer
        self.s = settings
        # Before set-up writes the cache variables: hello reports the user's.
        self.started_env = torch_environment()
        self.torch: Any = None
        self.device: Any = None
        self.cache_dir: str | None = None
        self.remove_cache_dir = False
        self.torch_trace: TorchTrace | None = None
        self.torch_trace_error: ProbeError | None = None
        self.input_names: tuple = ()  # as the model event names the inputs
        self.sampler = RssSampler()
        # Here, not at the measured calls: finding the allocator reads /proc.
        self.held = MallocHeld(host_faults.allocator(host_faults.maps()))
        # Before torch: the batch-size walk's default host-memory cap is 80% of this.
        self.mem_available_at_start = mem_available_bytes() if settings.scaling else None
        self.classifier = FrameClassifier(
            os.path.abspath(settings.model) if settings.model.endswith(".py") else None
        )
        self.capture: Any = None
        self.code: Any = None  # generated_code.CodeCapture under Inductor
        self.kernel_note = ""  # why kernel_profile lacks something
        self.feed: Any = None
        self.cupti: Any = None
        self.measured = 0
        self.call_index = 0
        self.timer: Any = None
        self.pending_calls: Any = None  # harness.CallBuffer while measuring
        self.stages: Any = None  # compile_stages.StageWatcher while compiling
        self.headers: Any = None  # header_build.HeaderBuildWatch under Inductor
        self._last_wall = 0  # wall ns of the latest call(), for the phase totals
        self.temp_dirs: list[str] = []  # removed at the end, and on a signal
        self.aoti: Any = None  # aoti.AotiSetting while the aoti setting runs
        # ns spent loading portable cache artifacts before the first compile:
        # part of the cold start, so of the first call's compile_time.
        self.artifacts_load_ns = 0
        self.muted = False  # no events while a failed compile is narrowed down

    # -- events ----------------------------------------------------------------
    def emit(self, type_: str, **fields: Any) -> None:
        if self.muted:
            return
        self.w.emit(type_, **fields)
        if type_ == "graph" and self.code is not None:
            self.code.note_graph(fields)  # node locations for the code's kernels

    def flush_code(self) -> None:
        """inductor_code for what compiled in the call just ended, after its graphs."""
        if self.code is not None:
            self.code.flush()

    def log(self, level: str, message: str, code: str = "", detail: str = "") -> None:
        self.w.log(level, message, code, detail)

    def error(self, e: ProbeError) -> None:
        self.emit(
            "error", kind=e.kind, message=e.message, traceback=e.tb, fatal=e.fatal, **e.fields
        )

    # -- set-up ----------------------------------------------------------------
    def setup_cache(self) -> None:
        # Before `import torch`: Inductor and Triton read these at import.
        _confine_temp_files(os.environ.get("COMPILESCOPE_CACHE_ROOT"))
        if self.s.cache_dir:
            self.cache_dir = os.path.abspath(os.path.expanduser(self.s.cache_dir))
            os.makedirs(self.cache_dir, exist_ok=True)
        elif not self.s.warm_cache:
            # The app (a remote run's wrapper) gives a folder it removes even after a SIGKILL.
            root = os.environ.get("COMPILESCOPE_CACHE_ROOT") or None
            self.cache_dir = tempfile.mkdtemp(prefix="compilescope-cache-", dir=root)
            self.remove_cache_dir = True
        if self.cache_dir:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.cache_dir
            os.environ["TRITON_CACHE_DIR"] = os.path.join(self.cache_dir, "triton")

    def setup_torch_trace(self) -> None:
        # Before `hello`, which says where the trace goes; started after it.
        if not self.s.torch_trace:
            return
        try:
            self.torch_trace = TorchTrace(prepare_trace_dir(self.s.torch_trace))
        except ProbeError as e:
            self.torch_trace_error = e

    def start_torch_trace(self) -> None:
        if self.torch_trace_error is not None:
            self.error(self.torch_trace_error)
        if self.torch_trace is not None:
            self.torch_trace.start()

    def report_torch_trace(self) -> None:
        if self.torch_trace is None:
            return
        path = self.torch_trace.file()
        if path:
            self.log("info", f"torch's trace (TORCH_TRACE): {path}")
        else:
            self.log(
                "info",
                f"torch wrote no trace into {self.torch_trace.directory}: it writes one "
                f"when it compiles, and this run compiled nothing",
            )

    def cleanup_cache(self) -> None:
        if self.remove_cache_dir and self.cache_dir:
            shutil.rmtree(self.cache_dir, ignore_errors=True)
            self.remove_cache_dir = False
        while self.temp_dirs:
            shutil.rmtree(self.temp_dirs.pop(), ignore_errors=True)

    def install_signals(self) -> None:
        def on_signal(signum: int, _frame: Any) -> None:
            # Ends the probe at once: the runner decides what the run was.
            if self.aoti is not None:
                self.aoti.stop_child(signum)  # its timed calls go out before our last line
            if not self.w.busy:
                # Calls timed in the measure phase but not yet sent are kept.
                if self.pending_calls is not None:
                    self.pending_calls.flush()
                self.w.log("warning", f"probe stopped by signal {signum}")
            self.w.closed = True
            self.cleanup_cache()
            os._exit(128 + signum)

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            try:
                signal.signal(sig, on_signal)
            except (ValueError, OSError):
                pass

    def hello(self) -> None:
        fields = hello_fields(self.s.as_event(), self.s.device, self.started_env)
        self.emit(
            "hello",
            protocol=protocol_version(),
            probe_version=__version__,
            cache_dir=self.cache_dir,
            torch_trace=self.torch_trace.directory if self.torch_trace else None,
            **fields,
        )

    # -- the run -----------------------------------------------------------------
    def run(self) -> int:
        self.setup_cache()
        self.setup_torch_trace()
        self.hello()
        fallbacks.install(self.emit)
        self.start_torch_trace()  # before `import torch`: torch reads TORCH_TRACE at import
        self.install_signals()
        self.sampler.start()
        status = "failed"
        crashed_signal = 0
        try:
            from .loader import precheck

            precheck(self.s.model)  # stdlib only: fails fast, before torch
            try:
                import torch
            except Exception as e:
                raise ProbeError(
                    "no_torch",
                    f"torch cannot be imported by {sys.executable} ({exc_summary(e)}). "
                    f"Install it with {pip_hint('torch')}, or pick the Python interpreter of "
                    f"an environment that has torch.",
                    tb=format_exc(e),
                ) from None
            self.torch = torch
            self.load_cache_artifacts()  # before anything compiles
            status = self.execute()
        except ProbeError as e:
            self.error(e)
        except RunnerCrashed as e:
            crashed_signal = e.signum
            self.emit(
                "error",
                kind="runner_crashed",
                message=f"compilescope-aoti-runner was killed by {_signal_name(e.signum)}; the calls it "
                f"measured before are kept.",
                traceback="",
                fatal=True,
            )
        except KeyboardInterrupt:
            self.log("warning", "interrupted")
        except SystemExit as e:  # the probe never exits so: the model's code (its forward) did
            loc = user_location(e, self.classifier)
            where = f" at {loc[0]}:{loc[1]}" if loc else ""
            self.emit(
                "error",
                kind="model_raised",
                message=f"The model's code called {exit_words(e)}{where} while the probe ran "
                f"it, which would end the probe without a word. Make it return, or raise an "
                f"exception that says what is wrong; what was measured before is kept.",
                traceback=format_exc(e),
                fatal=True,
            )
        except Exception as e:  # a bug in the probe: say so, keep what was measured
            self.emit(
                "error",
                kind="internal",
                message=f"compilescope probe failed: {exc_summary(e)}. This is a bug in compilescope; "
                f"please report it with the traceback.",
                traceback=format_exc(e),
                fatal=True,
            )
        finally:
            self.finish()
            if not crashed_signal:  # a crashed runner is a crashed run: no done
                self.emit("done", status=status)
            self.cleanup_cache()
        if crashed_signal:
            return 128 + crashed_signal
        return 0 if status == "ok" else 3

    def load_cache_artifacts(self) -> None:
        action = self.s.artifacts_action
        if action is None or action[0] != "load":
            return
        from . import cache_artifacts

        if self.s.cache_dir:
            self.log(
                "info",
                f"cache artifacts load into --cache-dir {self.cache_dir}, not a fresh cache: "
                f"what it held already counts too",
            )
        fields = cache_artifacts.load(self.torch, action[1])
        self.artifacts_load_ns = int(fields["ns"])
        self.emit("cache_artifacts", **fields)

    def save_cache_artifacts(self) -> None:
        action = self.s.artifacts_action
        if action is None or action[0] != "save":
            return
        from . import cache_artifacts

        fields = cache_artifacts.save(self.torch, action[1])
        if fields["message"]:
            self.log("warning", f"no cache artifacts saved: {fields['message']}")
        self.emit("cache_artifacts", **fields)

    def finish(self) -> None:
        if self.stages is not None:
            self.stages.uninstall()
        if self.headers is not None:
            self.headers.uninstall()
        if self.capture is not None:
            try:
                self.capture.uninstall()
            except Exception:  # cleanup on the way out: the run is already decided
                pass
        if self.code is not None:
            try:
                self.code.uninstall()
            except Exception:  # cleanup on the way out: the run is already decided
                pass
        if self.cupti is not None:
            try:
                self.cupti.summarize(self.emit, self.measured)
            except Exception as e:  # not a fallback: said in a log warning
                self.log("warning", f"CUPTI summary failed: {exc_summary(e)}")
            try:
                self.cupti.stop()
            except Exception as e:  # not a fallback: said in a log warning
                self.log("warning", f"CUPTI stop failed: {exc_summary(e)}")
        self.sampler.sample_now()
        self.sampler.stop()
        self.flush_rss()
        self.report_torch_trace()

    def flush_rss(self) -> None:
        samples = self.sampler.drain()
        if samples:
            self.emit("memory", kind="host_rss", samples=samples)

    @contextlib.contextmanager
    def phase(self, name: str, end_fields: dict | None = None) -> Iterator[dict]:
        extra: dict = dict(end_fields or {})
        self.edge(name, "begin", {})
        try:
            yield extra
        finally:
            self.edge(name, "end", extra)

    def edge(self, name: str, edge: str, fields: dict) -> None:
        # Host RSS is sampled just inside each phase's edges, so every phase,
        # however short against the sampler's interval, holds samples of its own.
        if edge == "end":
            self.sampler.sample_now()
        self.emit("phase", name=name, edge=edge, **fields)
        if edge == "begin":
            self.sampler.sample_now()
        if self.cupti is not None:
            try:
                self.cupti.mark_phase(name, edge)
            except Exception as e:  # not a fallback: said in a log warning
                self.log("warning", f"CUPTI mark_phase failed: {exc_summary(e)}")
        if self.device is not None and self.device.type == "cuda":
            self.memory_stats(name, edge)
        if edge == "end":
            self.flush_rss()

    def memory_stats(self, name: str, edge: str) -> None:
        torch = self.torch
        try:
            st = torch.cuda.memory_stats()
            self.emit(
                "memory_stats",
                phase=name,
                edge=edge,
                allocated=st.get("allocated_bytes.all.current", 0),
                reserved=st.get("reserved_bytes.all.current", 0),
                peak_allocated=st.get("allocated_bytes.all.peak", 0),
                peak_reserved=st.get("reserved_bytes.all.peak", 0),
            )
            if edge == "begin":
                torch.cuda.reset_peak_memory_stats()  # so each phase's end reports its own peak
        except Exception as e:  # not a fallback: said in a log warning
            self.log("warning", f"torch.cuda.memory_stats failed: {exc_summary(e)}")

    def resolve_device(self) -> Any:
        torch = self.torch
        want = self.s.device
        has_cuda = False
        try:
            has_cuda = bool(torch.cuda.is_available())
        except Exception as e:
            fallbacks.missing("torch.cuda.is_available", e)
        if want == "cuda" and not has_cuda:
            build = getattr(torch.version, "cuda", None)
            why = (
                f"built with CUDA {build}, but no usable GPU or driver"
                if build
                else "a CPU-only build"
            )
            raise ProbeError(
                "no_cuda",
                f"--device cuda was asked for, but torch {torch.__version__} in {sys.executable} "
                f"cannot use CUDA ({why}). Run with --device cpu or auto, or install a CUDA build of torch.",
            )
        if want == "cuda" or (want == "auto" and has_cuda):
            return torch.device("cuda", 0)
        return torch.device("cpu")

    def start_cupti(self) -> None:
        if self.device.type != "cuda" or self.s.no_cupti:
            # Say why the GPU panels are empty rather than leave them blank.
            why = (
                "CUPTI off: --no-cupti"
                if self.s.no_cupti
                else f"CUPTI off: the run is on {self.device}, not CUDA"
            )
            self.emit("cupti_status", active=False, message=why, library=None)
            return
        try:
            from . import cupti_loader  # written alongside; may be missing from a build
        except ImportError as e:
            self.log(
                "warning",
                f"CUPTI collector not available in this probe ({e}); no device memory timeline",
            )
            return
        try:
            self.cupti = cupti_loader.start(self.emit)
        except Exception as e:  # not a fallback: said in a log warning
            self.cupti = None
            self.log("warning", f"CUPTI collector failed to start: {exc_summary(e)}")

    def check_inductor_prerequisites(self) -> None:
        """Inductor finds a missing compiler late, deep in a compile; say it first."""
        missing = []
        if self.device.type == "cpu":
            try:
                from torch._inductor import cpp_builder

                finder = cpp_builder.get_cpp_compiler
            except (ImportError, AttributeError) as e:
                fallbacks.missing("torch._inductor.cpp_builder.get_cpp_compiler", e)
                finder = None
            ok = True
            if finder is not None:
                try:
                    ok = bool(finder())
                except Exception:  # InvalidCxxCompiler: what torch itself would hit
                    ok = False
            else:
                ok = any(
                    n and shutil.which(n) for n in (os.environ.get("CXX"), "g++", "c++", "clang++")
                )
            if not ok:
                cxx = os.environ.get("CXX")
                missing.append(
                    f"a C++ compiler ($CXX={cxx} is not usable)"
                    if cxx
                    else "a C++ compiler (g++ is not on PATH: `sudo apt-get install g++`, or set $CXX)"
                )
        else:
            # Triton builds its launcher with the host C compiler.
            if not any(n and shutil.which(n) for n in (os.environ.get("CC"), "gcc", "cc", "clang")):
                missing.append("a C compiler for Triton (`sudo apt-get install gcc`, or set $CC)")
        include = sysconfig.get_paths().get("include") or ""
        if not os.path.isfile(os.path.join(include, "Python.h")):
            ver = f"{sys.version_info.major}.{sys.version_info.minor}"
            missing.append(
                f"Python's headers (Python.h not in {include or 'the include path'}; "
                f"e.g. `sudo apt-get install python{ver}-dev`)"
            )
        if missing:
            raise ProbeError(
                "no_compiler",
                "Inductor compiles kernels to native code and needs "
                + " and ".join(missing)
                + ". Install them, or run this setting with --backend aot_eager or --mode eager.",
            )

    def execute(self) -> str:
        torch = self.torch
        s = self.s
        if s.threads:
            torch.set_num_threads(s.threads)
        self.classifier.add_library_root(os.path.dirname(torch.__file__))
        # Inductor's generated wrappers are torch's code, not the user's, though
        # they live in a temporary folder (the profile window's eager lines).
        inductor_dir = _inductor_cache_dir()
        # torch's own folder may be reached through the scratch folder's link
        for root in (self.cache_dir, inductor_dir, inductor_dir and os.path.realpath(inductor_dir)):
            if root:
                self.classifier.add_library_root(root)
        self.device = self.resolve_device()
        self.start_cupti()
        from . import loader

        package = loader.aoti_package(s.model)
        if package:
            return self.run_aoti_package(package)
        with self.phase("load"):
            first_size = (s.scale_sizes or [1])[0] if s.scaling else None
            loaded = loader.load(s.model, self.classifier, self.device, first_size)
            model = loaded.model
            try:
                if isinstance(model, torch.nn.Module) and not s.model.endswith(".pt2"):
                    model = model.to(self.device)
                    self.warn_training_mode(model)
                    model.eval()  # inference: dropout off, batch norm uses running stats
                inputs = loader.move_to(loaded.inputs, self.device)
                sweep = (
                    [loader.move_to(x, self.device) for x in loaded.sweep] if loaded.sweep else None
                )
            except Exception as e:
                if self.is_oom(e):
                    raise ProbeError(
                        "out_of_memory",
                        f"Out of memory moving the model and its inputs to {self.device}: {exc_summary(e)}. "
                        f"Use smaller inputs or a smaller model.",
                        tb=format_exc(e),
                    ) from None
                raise ProbeError(
                    "get_model_raised",
                    f"Moving the model from {loaded.spec} and its inputs to {self.device} failed: {exc_summary(e)}.",
                    tb=format_exc(e),
                ) from None
            params = (
                sum(p.numel() for p in model.parameters())
                if isinstance(model, torch.nn.Module)
                else 0
            )
            self.input_names = loaded.input_names or tuple(_input_names(model))
            self.emit(
                "model",
                spec=loaded.spec,
                file=loaded.file,
                name=loaded.name,
                parameters=params,
                # Positional inputs carry the forward's parameter names, as
                # Dynamo's guards name them (the recompile rule matches them).
                inputs=loader.describe_inputs(inputs, self.input_names),
                sweep=len(sweep) if sweep else 0,
                device=str(self.device),
                device_name=self.device_name(),
                intra_op_threads=self.intra_op_threads(),
                own_compiles=loaded.own_compiles,
                hooks=module_hooks.registered(torch, _users_model(model)),
            )
        if s.aoti:
            from . import aoti

            with torch.no_grad():
                return aoti.run(self, loaded, model, inputs)
        walk = None
        if s.scaling:
            from .scale import Walk

            # Refuses inputs with no batch dimension to scale before compiling anything.
            walk = Walk(self, None, model, loaded, inputs)
        fn = self.build(model, loaded.undone)
        self.timer = self.make_timer()
        with self.grad_and_autocast():
            if walk is not None:
                walk.fn = fn
                return walk.run()
            self.harness(fn, model, inputs, sweep)
        self.save_cache_artifacts()
        return "ok"

    def run_aoti_package(self, package: str) -> str:
        """An AOTInductor package given as the model: nothing to export or
        package, the runner times it on the inputs saved beside it."""
        from . import aoti
        from .loader import describe_inputs, move_to

        if not self.s.aoti:
            raise aoti.not_a_model(package)
        with self.phase("load"):
            inputs = move_to(aoti.load_package_inputs(self, package), self.device)
            self.emit(
                "model",
                spec=package,
                file=None,
                name=os.path.basename(package),
                parameters=0,
                inputs=describe_inputs(inputs),
                sweep=0,
                device=str(self.device),
                device_name=self.device_name(),
                intra_op_threads=self.intra_op_threads(),
            )
        return aoti.run(self, None, None, inputs)

    def device_name(self) -> str:
        if self.device.type == "cuda":
            try:
                return self.torch.cuda.get_device_name(self.device)
            except Exception as e:
                fallbacks.missing("torch.cuda.get_device_name", e)
                return "CUDA device"
        return cpu_name()

    def intra_op_threads(self) -> int | None:
        try:
            return int(self.torch.get_num_threads())
        except Exception as e:
            fallbacks.missing("torch.get_num_threads", e)
            return None

    def build(self, model: Any, undone: Any = None) -> Any:
        """The function the harness calls: the model as it is (eager), the
        model compiled under the setting, or (as-written) the model with the
        model file's own torch.compile calls put back, each recorded."""
        s = self.s
        if not s.compiled:
            if s.fullgraph or s.dynamic != "auto" or s.backend != "inductor":
                self.log(
                    "info",
                    "mode eager runs the model as is; backend, dynamic and fullgraph do not apply",
                )
            self.run_compiles_eagerly()
            return model
        if s.as_written:
            return self.build_as_written(model, undone)
        if s.backend == "inductor":
            self.check_inductor_prerequisites()
        elif s.mode != "default":
            self.log(
                "warning", f"mode {s.mode} configures Inductor; backend {s.backend} ignores it"
            )
        if self.device.type == "cpu" and s.mode in ("reduce-overhead", "max-autotune"):
            self.log(
                "info",
                f"mode {s.mode} asks for CUDA graphs, which exist only on CUDA: on CPU torch compiles "
                f"without them",
            )
        self.install_watchers(model, s.backend == "inductor")
        from .capture import make_backend

        dynamic = s.dynamic_value
        if s.scaling:
            # A batch-size walk compiles each size for its own shape unless
            # asked for one dynamic compile (docs/measuring.md).
            dynamic = s.dynamic == "true"
        try:
            backend = make_backend(self.capture, s.backend, s.mode, dynamic)
            return self.optimize(backend, s.fullgraph, dynamic)(model)
        except Exception as e:  # e.g. a Python version Dynamo does not support
            raise ProbeError(
                "compile_failed",
                f"torch.compile cannot be set up for mode {s.mode}, backend {s.backend} with torch "
                f"{self.torch.__version__} on Python {sys.version.split()[0]}: {exc_summary(e)}.",
                tb=format_exc(e),
            ) from None

    def install_watchers(self, model: Any, inductor: bool) -> None:
        """What a compiled setting records: graphs and breaks (Capture), the
        generated code, compile stages and metrics."""
        from . import loader
        from .capture import Capture, forward_location
        from .compile_phases import MetricsFeed
        from .compile_stages import StageWatcher

        # Called by keyword through the probe's KeywordCall: the user's forward
        # and keyword names, not the wrapper's.
        keyword_names = loader.keyword_names(model)
        wrapped = keyword_names is not None
        self.capture = Capture(
            self.emit,
            self.classifier,
            forward_location(model.model if wrapped else model),
            list(keyword_names) if wrapped else _input_names(model),
            wrapper_file=loader.__file__ if wrapped else None,
        )
        if wrapped and self.torch_trace is not None:
            note_keyword_call(
                type(model).forward.__code__.co_filename, list(keyword_names), self.capture.root
            )
        self.capture.set_model(_users_model(model))
        self.capture.install()
        if inductor:
            from .generated_code import CodeCapture, configure

            self.kernel_note = configure(self.torch, self.profile_calls() > 0)
            self.code = CodeCapture(self.emit, self.classifier, keep_code=not self.s.no_code)
            self.code.install()
            from .header_build import HeaderBuildWatch

            self.headers = HeaderBuildWatch()
            self.headers.install()
        self.stages = StageWatcher(self.emit)
        self.stages.install()
        self.feed = MetricsFeed()

    def optimize(self, backend: Any, fullgraph: bool, dynamic: bool | None) -> Any:
        """torch._dynamo.optimize with the capture's guard_fail_fn: fn -> compiled fn."""
        import torch._dynamo

        try:
            return torch._dynamo.optimize(
                backend=backend,
                nopython=fullgraph,
                dynamic=dynamic,
                guard_fail_fn=self.capture.guard_fail_fn,
            )
        except TypeError as e:
            # An optimize() without guard_fail_fn: recompile reasons come from metrics alone.
            fallbacks.missing("torch._dynamo.optimize(guard_fail_fn=...)", e)
            return torch._dynamo.optimize(backend=backend, nopython=fullgraph, dynamic=dynamic)

    def build_as_written(self, model: Any, undone: Any) -> Any:
        """Mode as-written: each torch.compile call the loader undid, made
        again where the model file made it, with its own backend and options,
        through a backend that records its graphs (own_compiles.py)."""
        from . import own_compiles

        calls = undone.calls if undone is not None else []
        if not calls:
            raise ProbeError(
                "bad_arguments",
                f"Mode as-written runs the model with its own torch.compile calls, and "
                f"{self.s.model} makes none (no compiled model from get_model(), no "
                f"Module.compile(), no @torch.compile in the file). Run mode eager, or a "
                f"compile mode such as default, instead.",
            )
        if self.s.fullgraph or self.s.dynamic != "auto" or self.s.backend != "inductor":
            self.log(
                "info",
                "mode as-written compiles as the model file's own calls do; backend, dynamic "
                "and fullgraph do not apply",
            )
        inductor = any(c["backend"] == "inductor" for c in calls)
        if inductor:
            self.check_inductor_prerequisites()
        self.install_watchers(model, inductor)
        # Only a call that compiles the whole model makes a library decorator
        # torch meets first the model's forward; a submodule's is its own.
        forward_of_root = f"{type(_users_model(model)).__name__}.forward"
        self.capture.root_compiled = any(
            c["where"] in ("", "get_model()", "forward", forward_of_root) for c in calls
        )
        fn = model
        try:
            for call, place in zip(calls, undone.places):
                backend = own_compiles.recording_backend(
                    self.torch, self.capture, place.context, call
                )
                wrap = self.optimize(backend, call["fullgraph"], call["dynamic"])
                if place.redo is None:
                    fn = wrap(fn)
                else:
                    place.redo(wrap)
        except Exception as e:
            raise ProbeError(
                "compile_failed",
                f"The model file's own torch.compile calls cannot be made again under torch "
                f"{self.torch.__version__}: {exc_summary(e)}.",
                tb=format_exc(e),
            ) from None
        return fn

    def run_compiles_eagerly(self) -> None:
        """Mode eager: a torch.compile call the loader could not undo (a
        compiled function in another of the model's files) runs its function
        eagerly too (own_compiles.py)."""
        try:
            self.torch.compiler.set_stance("force_eager")
        except Exception as e:
            fallbacks.missing('torch.compiler.set_stance("force_eager")', e)

    def warn_training_mode(self, model: Any) -> None:
        """A model get_model() left in training mode is measured in eval mode;
        a program that runs it so for inference gets other outputs."""
        from .loader import MAX_MODE_KINDS, mode_dependent_kinds

        kinds = mode_dependent_kinds(model)
        if not kinds:
            return
        named = ", ".join(kinds[:MAX_MODE_KINDS]) + (", ..." if len(kinds) > MAX_MODE_KINDS else "")
        self.log(
            "warning",
            f"get_model() returned the model in training mode, where its {named} act otherwise: "
            "compilescope measures it in eval mode, as inference runs (dropout off, batch norm "
            "on its running statistics). If your program runs it for inference, call "
            "model.eval() there too, or its outputs change from call to call.",
            "training_mode",
            ", ".join(kinds),
        )

    def make_timer(self) -> Any:
        from .harness import CpuTimer, CudaTimer

        return CudaTimer(self.torch) if self.device.type == "cuda" else CpuTimer()

    @contextlib.contextmanager
    def grad_and_autocast(self) -> Iterator[None]:
        torch = self.torch
        with torch.no_grad():
            if self.s.autocast == "none":
                yield
                return
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[self.s.autocast]
            try:
                ctx = torch.autocast(device_type=self.device.type, dtype=dtype)
            except Exception as e:
                raise ProbeError(
                    "bad_arguments",
                    f"--autocast {self.s.autocast} is not supported on {self.device.type} by torch "
                    f"{torch.__version__}: {exc_summary(e)}",
                ) from None
            with ctx:
                yield

    # -- calls ---------------------------------------------------------------------
    def call(
        self, fn: Any, model: Any, inputs: tuple, *, warmup: bool, first: bool, emit: bool = True
    ) -> list:
        from .loader import shapes_text

        metrics: list = []
        if self.capture is not None:
            self.capture.begin_call(shapes_text(inputs), self.call_index if emit else None)
        try:
            latency, wall = self.timer(fn, inputs)
        except Exception as e:
            if self.feed is not None:
                metrics = self.feed.take()
            if self.capture is not None:
                self.capture.end_call(metrics)
            self.flush_code()
            raise self.failure(e, model, inputs) from None
        if self.feed is not None:
            metrics = self.feed.take()
        if self.capture is not None:
            self.capture.end_call(metrics)
        self.flush_code()
        if emit:
            self.emit_iteration(latency, wall, warmup=warmup, first=first)
        self._last_wall = wall
        return metrics

    def emit_iteration(self, latency: int, wall: int, *, warmup: bool, first: bool) -> None:
        self.emit(
            "iteration",
            index=self.call_index,
            latency_ns=int(latency),
            wall_ns=int(wall),
            warmup=warmup,
            first_call=first,
        )
        self.call_index += 1

    def is_oom(self, e: BaseException) -> bool:
        return failures.is_oom(self.torch, e)

    def failure(self, e: BaseException, model: Any, inputs: tuple) -> ProbeError:
        return failures.classify(
            e,
            model,
            inputs,
            torch=self.torch,
            device=self.device,
            capture=self.capture,
            fullgraph=self.s.fullgraph,
            classifier=self.classifier,
            narrow=lambda: self.narrow_compile_failure(model, inputs),
        )

    def narrow_compile_failure(self, model: Any, inputs: tuple) -> dict | None:
        """Which stage of torch.compile fails (compile_triage.py), its tries
        kept out of the run's events: their graphs and breaks are not the run's."""
        s = self.s
        if not s.compiled or s.as_written or self.aoti is not None:
            return None
        from . import compile_triage

        def compile_call(backend: str) -> None:
            compiled = self.torch.compile(
                model, backend=backend, dynamic=s.dynamic_value, fullgraph=s.fullgraph
            )
            compiled(*inputs)

        self.log(
            "info",
            f"torch.compile failed; compiling the first call again under backends below "
            f"{s.backend} to find the stage that fails",
        )
        self.muted = True
        try:
            return compile_triage.failing_stage(self.torch, compile_call, s.backend)
        except Exception as e:  # torch._dynamo.reset() itself failing
            reset_failure = e
        finally:
            self.muted = False
        fallbacks.missing("torch._dynamo.reset()", reset_failure)
        return None

    def harness(self, fn: Any, model: Any, inputs: tuple, sweep: list | None) -> None:
        s = self.s
        from .compile_phases import CompileClock, dynamo_off

        clock = CompileClock()
        shapes_before = input_drift.fingerprint(inputs, self.input_names)
        with self.phase("compile"):
            clock.start()
            metrics = self.call(fn, model, inputs, warmup=True, first=True)
            first_wall = self._last_wall
        overhead = self.capture.overhead_ns if self.capture else 0
        if s.compiled:
            header_ns = self.headers.take_ns() if self.headers is not None else 0
            ct = clock.split(first_wall, metrics, overhead, header_ns)
            if header_ns:
                self.log(
                    "info",
                    f"the first call built torch's precompiled C++ header "
                    f"({header_ns / 1e9:.1f} s, shown as its own compile phase): torch keeps it "
                    f"for every later compile on this machine, so other settings and later "
                    f"runs skip it",
                )
            self.report_cudagraph_skips(metrics)
            if off := dynamo_off(self.torch):
                ct["dynamo_off"] = off
        else:
            ct = clock.split(first_wall, [], 0)
            ct["source"] = "none: mode eager compiles nothing"
        if self.artifacts_load_ns:
            # Loading the artifacts is what the program paid before this call.
            ct["phases"].insert(
                0, {"name": "load_cache_artifacts", "seconds": self.artifacts_load_ns / 1e9}
            )
            ct["first_call_ns"] = int(ct["first_call_ns"]) + self.artifacts_load_ns
        self.emit("compile_time", **ct)

        gc.collect()  # here, so the warmup calls warm the caches it cleared
        gc_was = gc.isenabled()
        gc.disable()  # as timeit does: a collection inside one call is noise
        try:
            self.warmup_and_measure(fn, model, inputs, clock)
        finally:
            if gc_was:
                gc.enable()
        drift = input_drift.changes(
            shapes_before, input_drift.fingerprint(inputs, self.input_names)
        )
        if message := input_drift.warning(drift):
            self.log("warning", message, "inputs_changed", input_drift.summary(drift))
        if s.compiled and s.iters > 0:
            self.check_outputs(fn, model, inputs)

        if s.sweep:
            self.run_sweep(fn, model, sweep)

    def warmup_and_measure(self, fn: Any, model: Any, inputs: tuple, clock: Any) -> None:
        try:
            latencies = self.warmup_measure_and_check(fn, model, inputs, clock)
        finally:
            self.leave_quiet()
        if latencies:
            # Last, in a phase of its own: the statistics never see these calls.
            self.profile_window(fn, model, inputs)

    def warmup_measure_and_check(self, fn: Any, model: Any, inputs: tuple, clock: Any) -> list[int]:
        """The warmup, the measured calls and their cross-check; the capture
        hooks are off from the warmup's quiet tail on (Probe.warm_quietly)."""
        s = self.s
        later: list = []
        later_wall = 0
        # Before the warmup, whose calls then warm the caches it used.
        reference_before = machine_load.reference_ns(self.torch) if s.iters > 0 else None
        clock.start()
        overhead_before = self.capture.overhead_ns if self.capture else 0
        from .harness import quiet_warmup_calls

        tail = quiet_warmup_calls(s.warmup, s.iters)
        machine_before = None
        with self.phase("warmup") as end:
            for _ in range(s.warmup - 1 - tail):
                later += self.call(fn, model, inputs, warmup=True, first=False)
                later_wall += self._last_wall
            if tail:
                # Reading /proc right before a call slows it and the next few
                # (their caches evicted): the quiet tail pays for it, so the
                # machine's window holds it too (docs/measuring.md).
                machine_before = machine_load.snapshot()
                later += self.warm_quietly(fn, model, inputs, tail)
                later_wall += self._last_wall
            if later:
                # Compile work that only happens on later calls (CUDA-graph
                # recording under reduce-overhead, runtime autotuning, a
                # recompile) rides on the warmup end, split the same way.
                overhead = (self.capture.overhead_ns if self.capture else 0) - overhead_before
                ct = clock.split(later_wall, later, overhead)
                if any(p["seconds"] for p in ct["phases"] if p["name"] != "other"):
                    ct["wall_ns"] = ct.pop("first_call_ns")
                    end["compile_time"] = ct

        # Paused before the measure phase begins and resumed after the
        # cross-check ends: inside them, host RSS comes only from the edges' own samples.
        self.sampler.pause()
        try:
            with self.phase("measure") as end:
                if machine_before is None:
                    machine_before = machine_load.snapshot()
                faults_before = host_faults.counts()
                held_before = self.held.read()
                t0 = time.perf_counter_ns()
                latencies = self.measure_quietly(fn, model, inputs)
                measure_ns = time.perf_counter_ns() - t0
                held = held_window(self.held, held_before, len(latencies))
                if held is not None:
                    end["host_held"] = held
                faults = host_faults.between(faults_before, host_faults.counts(), len(latencies))
                if faults is not None:
                    end["host_faults"] = faults
                end["harness_overhead_ns"] = self.harness_overhead(inputs)
                machine = machine_load.between(machine_before, machine_load.snapshot())
                reference_after = machine_load.reference_ns(self.torch) if latencies else None
                if reference_before and reference_after:
                    end["host_reference"] = {
                        "before_ns": reference_before,
                        "after_ns": reference_after,
                    }
                if machine is not None:
                    end["machine_cpu"] = machine
            if latencies:
                # After the measure phase, so CUPTI's per-iteration figures and the
                # per-call statistics never see these calls; as quiet as they were.
                self.crosscheck(fn, model, inputs, statistics.median(latencies), measure_ns)
        finally:
            self.sampler.resume()
        return latencies

    def profile_calls(self) -> int:
        """Calls in the profile phase: --profile-calls, but never more than
        were measured (a short eager run would otherwise spend more time in
        the window than in the measurement), none with --iters 0."""
        return min(self.s.profile_calls, self.s.iters) if self.s.iters > 0 else 0

    def profile_window(self, fn: Any, model: Any, inputs: tuple) -> None:
        calls = self.profile_calls()
        if calls <= 0:
            return
        from . import kernel_profile
        from .loader import shapes_text

        fields = None
        code_kernels = self.code.kernels if self.code is not None else {}
        cuda = self.device is not None and self.device.type == "cuda"
        gpu_kernels = None
        notes = []
        with self.phase("profile"):
            if self.capture is not None:
                self.capture.begin_call(shapes_text(inputs))
            if self.cupti is not None:
                # CUPTI's calls first, without torch's profiler: its CUDA side
                # may take CUPTI's records over, so everything the collector
                # holds (the measure phase's too) is read before it starts.
                try:
                    gpu_kernels = self.cupti_window(fn, inputs, calls, code_kernels)
                except Exception as e:  # the CPU side of the window still stands
                    notes.append(f"CUPTI kernel records unreadable: {exc_summary(e)}")
            try:
                fields = kernel_profile.run_window(
                    self.torch,
                    fn,
                    inputs,
                    calls,
                    self.classifier,
                    code_kernels,
                    cuda=cuda,
                    model_root=_library_model_root(model, self.classifier),
                    model=_users_model(model),
                )
            except Exception as e:  # the window only adds; the run stands without it
                self.log(
                    "warning", f"the profiled window failed, no kernel_profile: {exc_summary(e)}"
                )
            if self.capture is not None:
                self.capture.end_call(self.feed.take() if self.feed is not None else [])
            self.flush_code()
        if fields is None:
            return
        if self.kernel_note and self.s.compiled and not cuda:
            notes.append(self.kernel_note)
        if gpu_kernels is not None:
            fields["kernels"] = gpu_kernels
            fields["source"] = "cupti"
            fields["wrappers"] = []
            notes.append("wrapper (host) time is not kept on CUDA")
        elif cuda:
            fields["kernels"] = []
            fields["wrappers"] = []
            notes.append("no CUPTI kernel records (collector off): GPU kernels are not timed")
        if self.s.compiled and self.s.backend != "inductor":
            notes.append(
                f"backend {self.s.backend} makes no kernels: its graphs run op by op and "
                f"count as eager time"
            )
        elif self.s.compiled and not fields["kernels"] and not notes:
            notes.append("no kernel records in the window")
        fields["note"] = "; ".join(notes)
        self.emit("kernel_profile", **fields)

    def check_outputs(self, fn: Any, model: Any, inputs: tuple, load: Any = None) -> None:
        """Eager's outputs beside the compiled function's on the same inputs,
        after every timed call (outputs_check.py); `load` makes the function
        inside the phase (aoti's package). A failure of the check's own calls
        is said in the event and the run stands."""
        from .loader import shapes_text
        from .outputs_check import OutputsCheck

        t0 = time.perf_counter_ns()
        with self.phase("outputs"):
            if self.capture is not None:
                self.capture.begin_call(shapes_text(inputs))
            try:
                if load is not None:
                    fn = load()
                fields = OutputsCheck(
                    self.torch, self.device, self.s.autocast, force_eager=self.s.as_written
                ).run(fn, model, inputs)
            except Exception as e:
                what = "ran out of memory" if self.is_oom(e) else "raised"
                fields = {
                    "status": "skipped",
                    "message": f"the check's own calls {what}: {exc_summary(e)}",
                }
            finally:
                if self.capture is not None:
                    self.capture.end_call(self.feed.take() if self.feed is not None else [])
                self.flush_code()
        fields["ns"] = time.perf_counter_ns() - t0
        self.emit("outputs_check", **fields)

    def cupti_window(self, fn: Any, inputs: tuple, calls: int, code_kernels: dict) -> list:
        """The profile phase's calls for CUPTI alone; its kernels by name."""
        torch = self.torch
        torch.cuda.synchronize()
        for _ in range(calls):
            fn(*inputs)
        torch.cuda.synchronize()
        return self.cupti.profile_kernels(code_kernels, open_end_ns=time.monotonic_ns())

    def measure_quietly(self, fn: Any, model: Any, inputs: tuple) -> list[int]:
        """The measured calls, with nothing else in the probe between them:
        no capture hooks, no event per call (docs/measuring.md); the caller
        pauses RSS sampling around the whole phase."""

        if self.s.iters == 0:
            return []

        def send(first: int, latencies: list, walls: list) -> None:
            self.emit(
                "iterations",
                first_index=self.call_index,
                latency_ns=latencies,
                wall_ns=walls,
            )
            self.call_index += len(latencies)
            self.measured += len(latencies)

        latencies, _ = self.calls_quietly(fn, model, inputs, self.s.iters, send)
        return latencies

    def warm_quietly(self, fn: Any, model: Any, inputs: tuple, calls: int) -> list:
        """The warmup's last calls as the measured ones will run: capture
        hooks off, nothing between the calls. Taking the hooks off changes how
        torch's logging runs a call, and the next few calls were slower (a
        transformers DeBERTa on CPU: 152, 106, 95, 89 µs, then 84): they are
        paid here, not by the first measured calls. Each goes out as an
        `iteration`; returns their CompilationMetrics."""

        def send(first: int, latencies: list, walls: list) -> None:
            for latency, wall in zip(latencies, walls):
                self.emit_iteration(latency, wall, warmup=True, first=False)

        _, metrics = self.calls_quietly(fn, model, inputs, calls, send)
        return metrics

    def calls_quietly(
        self, fn: Any, model: Any, inputs: tuple, calls: int, send: Any
    ) -> tuple[list[int], list]:
        """`calls` timed calls with the capture hooks off, sent in chunks; one
        capture span around them reports a recompile in them, its call found
        afterwards by time (compile_locator). Returns the latencies and the
        span's CompilationMetrics; `_last_wall` is the calls' wall time."""
        from .harness import CallBuffer, compile_locator, measure_calls
        from .loader import shapes_text

        self.go_quiet()
        if self.capture is not None:
            self.capture.begin_call(shapes_text(inputs))
        buffer = CallBuffer(calls, send)
        locate = compile_locator(buffer, self.call_index)
        try:
            self.pending_calls = buffer
            latencies = measure_calls(self.timer, fn, inputs, calls, send, buffer=buffer)
        except Exception as e:
            self.end_quiet_span(locate)
            raise self.failure(e, model, inputs) from None
        finally:
            self.pending_calls = None
        self._last_wall = sum(buffer.wall[: buffer.timed])
        return latencies, self.end_quiet_span(locate)

    def go_quiet(self) -> None:
        """Capture hooks off: from the warmup's quiet tail to the cross-check."""
        if self.capture is not None:
            self.capture.uninstall()

    def leave_quiet(self) -> None:
        if self.capture is not None:
            self.capture.install()

    def end_quiet(self) -> None:
        """A quiet span's end, the hooks back on."""
        self.end_quiet_span()
        self.leave_quiet()

    def end_quiet_span(self, locate: Any = None) -> list:
        metrics = self.feed.take() if self.feed is not None else []
        if self.capture is not None:
            self.capture.end_call(metrics, locate)
        self.flush_code()
        return metrics

    def crosscheck(
        self, fn: Any, model: Any, inputs: tuple, median_ns: float, measure_ns: int
    ) -> None:
        from .harness import block_means
        from .loader import shapes_text

        # A phase and a capture span of their own: torch may recompile in the
        # blocks (a guard that flips every N calls), and those compiles, their
        # graphs and a recompile-limit hit belong to the run even when no
        # profiled window follows to report them.
        with self.phase("crosscheck") as end:
            if self.capture is not None:
                self.capture.begin_call(shapes_text(inputs))
            held_before = self.held.read()
            try:
                calls, means = block_means(self.timer, fn, inputs, median_ns, measure_ns)
                # A second window of the same calls: a model that keeps
                # memory per call grows in both, a one-off growth in one.
                held = held_window(self.held, held_before, calls * len(means))
                if held is not None:
                    end["host_held"] = held
            except Exception as e:  # the same calls just ran; say it, keep the measurement
                self.log("warning", f"the block-timing cross-check failed: {exc_summary(e)}")
                calls, means = 0, []
            finally:
                if self.capture is not None:
                    self.capture.end_call(self.feed.take() if self.feed is not None else [])
                self.flush_code()
            if means:
                self.emit("crosscheck", block_calls=calls, block_means_ns=means)

    def harness_overhead(self, inputs: tuple) -> int:
        from .harness import harness_overhead_ns

        try:
            return harness_overhead_ns(self.timer, inputs)
        except Exception:  # the probe's own timer on the user's inputs: 0 means not measured
            return 0

    def report_cudagraph_skips(self, metrics: list) -> None:
        for m in metrics:
            why = getattr(m, "cudagraph_skip_reason", None)
            if why:
                self.log("info", f"torch skipped CUDA graphs: {why}", "cudagraphs_skipped", why)

    def run_sweep(self, fn: Any, model: Any, sweep: list | None) -> None:
        from .loader import shapes_text

        # --sweep means "the model's sweep, if it defines one": the front ends
        # pass it by default, so a model without one is no news.
        if not sweep:
            return
        with self.phase("sweep"):
            for i, item in enumerate(sweep):
                shapes = shapes_text(item)
                self.log(
                    "info", f"sweep {i + 1}/{len(sweep)}: inputs {shapes}", "sweep_inputs", shapes
                )
                try:
                    self.call(fn, model, item, warmup=False, first=False, emit=False)
                except ProbeError as e:
                    e.fatal = False  # what was measured before stands
                    e.message = f"sweep input {i + 1} ({shapes_text(item)}): {e.message}"
                    self.error(e)
                    return


def _torch_user_folder_name() -> str:
    """torch's name for its per-user folder of the temporary directory
    (`default_cache_dir` in torch/_inductor/runtime/cache_dir_utils.py)."""
    import getpass
    import re

    try:
        user = getpass.getuser()
    except (KeyError, ModuleNotFoundError, OSError):
        user = f"uid_{os.getuid()}"
    return "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user)


def _confine_temp_files(root: str | None) -> None:
    """Sends the temporary files of this probe and of its compiler workers into
    `root`, the scratch folder the runner removes however the probe ends: torch
    makes folders there (`tempfile.TemporaryDirectory` while it preprocesses
    its C++ header) that a SIGKILL would leave in the system's temp directory.
    torch's per-user folder there stays shared through a link, for it holds
    caches meant to outlive a run: the precompiled header, and the Inductor
    cache of --warm-cache."""
    if not root or not os.path.isdir(root):
        return
    name = _torch_user_folder_name()
    shared = os.path.join(tempfile.gettempdir(), name)
    confined = os.path.join(root, "tmp")
    link = os.path.join(confined, name)
    try:
        os.makedirs(shared, exist_ok=True)
        os.makedirs(confined, exist_ok=True)
        if not os.path.islink(link):
            os.symlink(shared, link, target_is_directory=True)
    except OSError:
        return  # no link here: torch's folders stay where they were
    os.environ["TMPDIR"] = confined  # the compiler workers read it
    tempfile.tempdir = confined


def _inductor_cache_dir() -> str | None:
    """Where Inductor writes its generated code: TORCHINDUCTOR_CACHE_DIR, else
    torch's default (/tmp/torchinductor_<user>, as --warm-cache uses)."""
    if os.environ.get("TORCHINDUCTOR_CACHE_DIR"):
        return os.environ["TORCHINDUCTOR_CACHE_DIR"]
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir

        return str(default_cache_dir())
    except Exception as e:
        fallbacks.missing("torch._inductor.runtime.cache_dir_utils.default_cache_dir", e)
        return None


def _users_model(model: Any) -> Any:
    """The user's model under the keyword wrapper, whose module paths the
    captured graphs use too."""
    from . import loader

    return model.model if loader.keyword_names(model) is not None else model


def _library_model_root(model: Any, classifier: Any) -> str | None:
    """The package folder of a model whose forward is library code (a
    torchvision or transformers model): its lines are the ones to name for
    eager time. None when the forward is the user's, or torch's own."""
    import inspect

    from . import loader
    from .capture import forward_location

    wrapped = loader.keyword_names(model) is not None
    target = model.model if wrapped else model
    root = forward_location(target)
    if root is None or not root[1] or classifier.is_user(root[1]):
        return None
    module = target.__module__ if inspect.isfunction(target) else type(target).__module__
    package = sys.modules.get((module or "").partition(".")[0])
    init = getattr(package, "__file__", None) or ""
    if package is None or package.__name__ == "torch" or not init.endswith("__init__.py"):
        return None  # torch's modules, or a one-file module: nothing to add
    return os.path.dirname(os.path.realpath(init))


def _input_names(model: Any) -> list[str]:
    """The forward's positional parameters (self left out), through any
    functools.wraps decorator: how a user names the inputs a wrapper calls args."""
    import inspect

    try:
        target = model.forward if not inspect.isfunction(model) else model
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError, AttributeError):  # no signature to read: positions stay
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _help_requested(argv: list[str]) -> bool:
    return any(a in ("-h", "--help") for a in argv)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if _help_requested(args):
        build_parser().print_help(sys.stderr)
        return 0
    if lifeline.take_flag(args):
        lifeline.watch_stdin()
    writer = EventWriter(redirect_stdout())
    try:
        settings = parse(args)
    except BadArguments as e:
        writer.emit(
            "hello",
            protocol=protocol_version(),
            probe_version=__version__,
            argv=args,
            **hello_fields(None, "auto"),
        )
        writer.emit(
            "error",
            kind="bad_arguments",
            message=f"Bad probe arguments: {e}. " + " ".join(build_parser().format_usage().split()),
            traceback="",
            fatal=True,
        )
        writer.emit("done", status="failed")
        return 3
    return Probe(writer, settings).run()
