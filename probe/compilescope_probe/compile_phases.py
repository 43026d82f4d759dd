"""Compile time split into named phases from torch's own counters."""

from __future__ import annotations

import time
from typing import Any

from . import fallbacks

PHASES = (
    "dynamo_tracing",
    "aot_autograd",
    "inductor_codegen",
    "cpp_triton_compile",
    "autotune",
    "cudagraph_recording",
    "other",
)


HEADER_PHASE = "precompiled_header"


def dynamo_off(torch: Any) -> str | None:
    """What held Dynamo off in this process after the first call, in the words
    that turn it off: torch._dynamo.config.disable (TORCH_COMPILE_DISABLE=1
    sets it at import, the model's code can too) or a stance that runs eager.
    None while compile was on, or where this torch has neither switch."""
    try:
        if torch._dynamo.config.disable:
            return "torch._dynamo.config.disable = True"
        stance = torch._dynamo.eval_frame._stance.stance
    except AttributeError as e:
        fallbacks.missing("torch._dynamo.eval_frame._stance", e)
        return None
    if stance == "force_eager":
        return 'torch.compiler.set_stance("force_eager")'
    return None


def _names(phases: dict[str, float]) -> list[str]:
    names = list(PHASES)
    if HEADER_PHASE in phases:
        names.insert(names.index("cpp_triton_compile") + 1, HEADER_PHASE)
    return names


class MetricsFeed:
    """Hands out the CompilationMetrics torch recorded since the last read.

    torch keeps only the last 64 entries, so the feed reads (and clears) them
    after every call of the model."""

    def __init__(self) -> None:
        self.available = False
        self._get = self._clear = None
        try:
            from torch._dynamo import utils
        except Exception as e:
            fallbacks.missing("torch._dynamo.utils", e)
        else:
            self._get = fallbacks.attribute(
                utils, "get_compilation_metrics", "torch._dynamo.utils.get_compilation_metrics"
            )
            self._clear = fallbacks.attribute(
                utils, "clear_compilation_metrics", "torch._dynamo.utils.clear_compilation_metrics"
            )
            self.available = callable(self._get) and callable(self._clear)
        self.dropped_possible = False
        if self.available:
            self.take()  # anything from import time is not ours

    def take(self) -> list[Any]:
        if not self.available:
            return []
        try:
            entries = list(self._get())  # type: ignore[misc]
            self._clear()  # type: ignore[misc]
        except Exception as e:
            fallbacks.missing("torch._dynamo.utils.get_compilation_metrics", e)
            return []
        if len(entries) >= 64:
            self.dropped_possible = True
        return entries


def _torch_time_metrics() -> dict[str, list[float]] | None:
    """torch's own dict of timer durations (even empty); None where it has none."""
    try:
        from torch._dynamo import utils

        metrics = fallbacks.attribute(
            utils, "compilation_time_metrics", "torch._dynamo.utils.compilation_time_metrics"
        )
    except Exception as e:
        fallbacks.missing("torch._dynamo.utils.compilation_time_metrics", e)
        return None
    return metrics if isinstance(metrics, dict) else None


def _time_metrics() -> dict[str, list[float]]:
    metrics = _torch_time_metrics()
    return {} if metrics is None else metrics


def _cumulative() -> dict[str, float]:
    try:
        from torch._dynamo import utils

        spent = fallbacks.attribute(
            utils, "cumulative_time_spent_ns", "torch._dynamo.utils.cumulative_time_spent_ns"
        )
        return dict(spent or {})
    except Exception as e:
        fallbacks.missing("torch._dynamo.utils.cumulative_time_spent_ns", e)
        return {}


# The timers of C++ and Triton compiles. Inductor compiles some kernels on the
# main thread and others on a thread pool while the main thread waits in
# async_compile.wait: their durations overlap, and summed they can exceed all
# of Inductor's time (a tiny GPT-2 on 2 CPUs: 10.5 s of compile_file within
# 10.1 s of Inductor, 8.5 s of it wall time).
_COMPILE_TIMERS = ("compile_file", "async_compile.precompile", "async_compile.wait")


class _TimedList(list):
    """A compilation_time_metrics list that also keeps when each duration
    ended: torch appends it the moment its timer stops."""

    def __init__(self, values: list[float]) -> None:
        super().__init__(values)
        self.spans: list[tuple[float, float]] = []  # (start, end), time.time_ns() / 1e9

    def append(self, seconds: Any) -> None:
        end = time.time_ns() / 1e9
        try:
            self.spans.append((end - float(seconds), end))
        except (TypeError, ValueError):
            pass
        super().append(seconds)


def _timed_lists() -> dict[str, _TimedList] | None:
    """The compile timers' lists, made to keep their spans; None where torch
    keeps no such dict."""
    metrics = _torch_time_metrics()
    if metrics is None:
        return None
    timed = {}
    for key in _COMPILE_TIMERS:
        values = metrics.get(key)
        if not isinstance(values, _TimedList):
            values = _TimedList(list(values or []))
            metrics[key] = values  # torch looks the list up each time it times
        timed[key] = values
    return timed


def _union_s(spans: list[tuple[float, float]], low: float, high: float) -> float:
    """Seconds within [low, high] covered by at least one span."""
    total = 0.0
    reach = low
    for a, b in sorted(spans):
        a, b = max(a, reach), min(b, high)
        if b > a:
            total += b - a
            reach = b
    return total


class CompileClock:
    """Snapshots torch's timers around a call and splits its wall time."""

    def __init__(self) -> None:
        self._lens: dict[str, int] = {}
        self._cum: dict[str, float] = {}
        self._timed: dict[str, _TimedList] | None = None
        self._spans_from: dict[str, int] = {}
        self._start_s = 0.0

    def start(self) -> None:
        self._timed = _timed_lists()
        self._spans_from = {k: len(v.spans) for k, v in (self._timed or {}).items()}
        self._lens = {k: len(v) for k, v in _time_metrics().items()}
        self._cum = _cumulative()
        self._start_s = time.time_ns() / 1e9

    def _compile_wall_s(self) -> float | None:
        """The wall time since start() in which a C++ or Triton compile ran or
        the main thread waited for one; None without the spans."""
        if self._timed is None:
            return None
        spans = [
            span
            for key, values in self._timed.items()
            for span in values.spans[self._spans_from.get(key, 0) :]
        ]
        return _union_s(spans, self._start_s, time.time_ns() / 1e9)

    def _new(self, name: str) -> float:
        values = _time_metrics().get(name, [])
        return float(sum(values[self._lens.get(name, 0) :]))

    def split(
        self,
        wall_ns: int,
        metrics: list[Any],
        capture_overhead_ns: int = 0,
        header_build_ns: int = 0,
    ) -> dict[str, Any]:
        """Phases (seconds) that add up to `wall_ns`; never negative.

        `header_build_ns`, the time spent building torch's precompiled header
        (header_build.py), becomes the `precompiled_header` phase, after
        `cpp_triton_compile`, present only when non-zero. torch times the header's
        build as `compile_file` (CppBuilder.build), so it is taken out of the C++
        compile first, then out of code generation (older torch), then out of the
        rest of the call."""
        us = lambda attr: sum(int(getattr(m, attr, None) or 0) for m in metrics)  # noqa: E731
        s = lambda attr: sum(float(getattr(m, attr, None) or 0.0) for m in metrics)  # noqa: E731
        source: list[str] = []
        if metrics:
            source.append("torch._dynamo.utils.get_compilation_metrics")
            dynamo = us("dynamo_cumulative_compile_time_us") / 1e6 or s(
                "entire_frame_compile_time_s"
            )
            backend = us("aot_autograd_cumulative_compile_time_us") / 1e6 or s(
                "backend_compile_time_s"
            )
            inductor = us("inductor_cumulative_compile_time_us") / 1e6 or s(
                "inductor_compile_time_s"
            )
            triton = us("triton_compile_time_us") / 1e6
            autotune_compile = us("compile_time_autotune_time_us") / 1e6
            autotune_run = us("runtime_triton_autotune_time_us") / 1e6
            cudagraph = us("runtime_cudagraphify_time_us") / 1e6
            logging_overhead = us("structured_logging_overhead_us") / 1e6
        else:
            # No CompilationMetrics: the cumulative dynamo_timed counters.
            now = _cumulative()
            d = {k: (now.get(k, 0.0) - self._cum.get(k, 0.0)) / 1e9 for k in now}
            if any(d.values()):
                source.append("torch._dynamo.utils.cumulative_time_spent_ns")
            dynamo = d.get("entire_frame_compile", 0.0)
            backend = d.get("backend_compile", 0.0)
            inductor = d.get("inductor_compile", 0.0)
            triton = d.get("async_compile.wait", 0.0)
            autotune_compile = autotune_run = cudagraph = logging_overhead = 0.0
        cpp_files = self._new("compile_file")
        if cpp_files:
            source.append("compilation_time_metrics[compile_file]")
        capture_s = capture_overhead_ns / 1e9
        compile_wall = self._compile_wall_s()

        # Nesting: dynamo ⊃ backend (AOTAutograd ⊃ Inductor ⊃ code gen ⊃ C++/Triton compile).
        backend = min(backend, dynamo) if dynamo else backend
        inductor = min(inductor, backend) if backend else inductor
        # The compiles' wall time where their spans are known, else their sum.
        cpp = min(cpp_files + triton if compile_wall is None else compile_wall, inductor)
        autotune_in = min(autotune_compile, max(0.0, inductor - cpp))
        phases = {
            "dynamo_tracing": max(0.0, dynamo - backend),
            # the probe's own graph recording runs inside the backend call
            "aot_autograd": max(0.0, backend - inductor - capture_s),
            "inductor_codegen": max(0.0, inductor - cpp - autotune_in),
            "cpp_triton_compile": cpp,
            "autotune": autotune_in + autotune_run,
            "cudagraph_recording": cudagraph,
        }
        wall_s = wall_ns / 1e9
        header_s = min(header_build_ns / 1e9, wall_s)
        if header_s > 0:
            left = header_s
            for inside in ("cpp_triton_compile", "inductor_codegen"):
                taken = min(left, phases[inside])
                phases[inside] -= taken
                left -= taken
            phases[HEADER_PHASE] = header_s
        named = sum(phases.values())
        scaled = False
        if named > wall_s and named > 0:
            # Counters overlapping the call's edges; keep the proportions.
            factor = wall_s / named
            phases = {k: v * factor for k, v in phases.items()}
            named = wall_s
            scaled = True
        phases["other"] = max(0.0, wall_s - named)
        return {
            "phases": [{"name": n, "seconds": phases[n]} for n in _names(phases)],
            "first_call_ns": wall_ns,
            "source": " + ".join(source) if source else "none",
            "compiles": len(metrics),
            "probe_overhead_s": capture_s + logging_overhead,
            "scaled": scaled,
        }
