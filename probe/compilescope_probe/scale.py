"""The batch-size walk (`--batch-sizes`, docs/measuring.md "Batch-size
scaling"): the model compiled and measured at each batch size in turn, one
`scale_point` per size, then one `scale_stop` saying why the walk ended."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from typing import Any, Callable

from . import fallbacks
from .errors import ProbeError, exc_summary, format_exc
from .harness import quiet_warmup_calls
from .host_memory import PeakRss, read_rss_bytes

MIB = 1024 * 1024
AUTO_RECOMPILE_LIMIT = 64  # auto doubles: 64 sizes is a batch of 2**63


# -- inputs ------------------------------------------------------------------------
def _leaves(value: Any) -> Iterator[Any]:
    """Every leaf of the inputs, through tuples, lists and dicts (as loader.move_to)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


def _map_tensors(value: Any, fn: Callable[[Any], Any], tensor_type: type) -> Any:
    if isinstance(value, tensor_type):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_map_tensors(v, fn, tensor_type) for v in value)
    if isinstance(value, list):
        return [_map_tensors(v, fn, tensor_type) for v in value]
    if isinstance(value, dict):
        return {k: _map_tensors(v, fn, tensor_type) for k, v in value.items()}
    return value


def describe_leaves(inputs: tuple, tensor_type: type) -> str:
    parts = []
    for v in _leaves(inputs):
        if isinstance(v, tensor_type):
            parts.append("[" + ", ".join(str(d) for d in v.shape) + "]")
        else:
            parts.append(type(v).__name__)
    return ", ".join(parts) if parts else "none"


def common_batch(inputs: tuple, tensor_type: type, spec: str) -> int:
    """B0, the dimension 0 every tensor input shares; a `no_batch_dimension`
    error when they share none (no tensors, a 0-d tensor, different sizes)."""
    tensors = [v for v in _leaves(inputs) if isinstance(v, tensor_type)]
    sizes = {int(t.shape[0]) if t.dim() > 0 else None for t in tensors}
    if len(sizes) == 1 and None not in sizes and min(sizes) >= 1:  # type: ignore[type-var]
        return sizes.pop()  # type: ignore[return-value]
    if not tensors:
        why = "there is no tensor among them"
    elif None in sizes:
        why = "one of them is a 0-d tensor, with no dimension 0"
    elif 0 in sizes:
        why = "their dimension 0 is empty"
    else:
        why = "their dimension 0 differs"
    where = (
        "in the model file"
        if spec.endswith(".py")
        else "in a .py model file (whose get_model() builds or loads this model)"
    )
    return _refuse(
        f"The batch size cannot be scaled for the inputs {describe_leaves(inputs, tensor_type)}: "
        f"compilescope scales dimension 0 of every tensor input, and {why}. Define "
        f"get_inputs(batch_size) {where}, returning the inputs for that batch size."
    )


def _refuse(message: str) -> Any:
    raise ProbeError("no_batch_dimension", message)


def dim0_inputs(torch: Any, inputs: tuple, b0: int, n: int) -> tuple:
    """Batch `n` from the loaded inputs: row i is row i % B0, real values."""
    if n == b0:
        return inputs
    index: dict[Any, Any] = {}

    def take(x: Any) -> Any:
        idx = index.get(x.device)
        if idx is None:
            idx = index[x.device] = torch.arange(n, device=x.device) % b0
        return x[idx]

    return _map_tensors(inputs, take, torch.Tensor)


# -- sizes and memory ------------------------------------------------------------------
def auto_sizes() -> Iterator[int]:
    n = 1
    while True:
        yield n
        n *= 2


def predict_peak(history: list[tuple[int, int, int]], next_n: int) -> int | None:
    """The peak RSS batch `next_n` is expected to reach, from the sizes
    measured (batch, RSS before it, its peak). Two or more: the peaks' slope
    per sample between the last two, carried on linearly (a compile's one-off
    cost is in both and cancels). One: what that size grew by, once more,
    which is the slope's figure for a doubling."""
    if not history:
        return None
    n, before, peak = history[-1]
    if len(history) >= 2:
        m, _, peak_m = history[-2]
        slope = max(peak - peak_m, 0) / (n - m)
        return int(peak + slope * (next_n - n))
    return peak + max(peak - before, 0)


def predict_seconds(durations: list[float]) -> float | None:
    """How long the next size of a doubling walk is expected to take, from
    the sizes measured: the last one's time grown as it grew from the one
    before (at least 1x: a compile-bound size takes no less next time; at
    most 4x: one slow size is not a trend). One size: its own time."""
    if not durations:
        return None
    last = durations[-1]
    if len(durations) == 1 or durations[-2] <= 0:
        return last
    return last * min(max(last / durations[-2], 1.0), 4.0)


def raise_recompile_limit(needed: int) -> None:
    """So that late sizes are not silently run eagerly: torch's recompile
    limit (recompile_limit, or cache_size_limit before torch 2.6) and its
    whole-program one raised to at least `needed`."""
    try:
        from torch._dynamo import config
    except Exception as e:
        fallbacks.missing("torch._dynamo.config", e)
        return
    found = False
    for name in ("recompile_limit", "cache_size_limit"):
        value = getattr(config, name, None)
        if isinstance(value, int):
            found = True
            if value < needed:
                setattr(config, name, needed)
            break  # newer torch aliases the old name to the new one
    if not found:
        fallbacks.missing(
            "torch._dynamo.config.recompile_limit",
            "AttributeError: neither recompile_limit nor cache_size_limit",
        )
    for name in ("accumulated_recompile_limit", "accumulated_cache_size_limit"):
        value = getattr(config, name, None)
        if isinstance(value, int):
            if value < needed:
                setattr(config, name, needed)
            break


class CapExceeded(Exception):
    def __init__(self, rss: int) -> None:
        super().__init__(f"resident memory {rss} bytes")
        self.rss = rss


class CapWatch:
    """Fed every host-RSS sample (the probe's sampler thread, ~20 ms): notes
    the size's peak, and flags the first sample above the cap. The walk
    checks between calls, so a size stops at the first call that went over
    the cap rather than growing on: the flag alone between measured calls,
    and the exact peak (PeakRss) after building the inputs, the first call
    and each warmup call. A single call can still pass the cap by what it
    allocates; predict_peak keeps the next size from starting when it would."""

    def __init__(self, cap: int, peak: PeakRss) -> None:
        self.cap = cap
        self.peak = peak
        self.over = 0

    def __call__(self, rss: int) -> None:
        self.peak.note(rss)
        if self.cap and rss > self.cap and not self.over:
            self.over = rss

    def check(self, exact: bool = False) -> None:
        if self.over:
            raise CapExceeded(self.over)
        if self.cap and exact:
            peak = self.peak.peak()
            if peak is not None and peak > self.cap:
                self.over = peak
                raise CapExceeded(peak)


class _CheckedTimer:
    """The probe's timer, with the cap checked after each call, outside the
    span it times."""

    def __init__(self, timer: Any, check: Callable[[], None]) -> None:
        self.timer = timer
        self.check = check

    def __call__(self, fn: Any, inputs: tuple) -> Any:
        r = self.timer(fn, inputs)
        self.check()
        return r


def mib(n: float) -> str:
    return f"{n / MIB:.0f} MiB"


# -- the walk ------------------------------------------------------------------------
class Stop(Exception):
    def __init__(self, reason: str, batch_size: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.batch_size = batch_size
        self.message = message


class Walk:
    """One setting's walk over batch sizes, run by the probe after load."""

    def __init__(self, probe: Any, fn: Any, model: Any, loaded: Any, inputs: tuple) -> None:
        self.p = probe
        self.s = probe.s
        self.torch = probe.torch
        self.fn = fn
        self.model = model
        self.cuda = probe.device.type == "cuda"
        self.peak = PeakRss()
        self.watch: CapWatch | None = None
        self.points = 0
        self.history: list[tuple[int, int, int]] = []  # (batch, rss before, peak rss)
        if loaded.batch_inputs is not None:
            self.source = "get_inputs(batch_size)"
            make = loaded.batch_inputs
            device = probe.device

            def build(n: int) -> tuple:
                from .loader import move_to

                try:
                    raw = make(n)
                except ProbeError:
                    raise
                except Exception as e:
                    raise ProbeError(
                        "get_model_raised",
                        f"get_inputs({n}) in {loaded.file} raised {exc_summary(e)}. Fix it so "
                        f"that get_inputs(batch_size) gives the inputs for any batch size.",
                        tb=format_exc(e),
                    ) from None
                return move_to(raw, device)

            self.build_inputs = build
        else:
            self.source = "dim0"
            b0 = common_batch(inputs, self.torch.Tensor, self.s.model)
            self.build_inputs = lambda n: dim0_inputs(self.torch, inputs, b0, n)

    # -- plan ------------------------------------------------------------------------
    def cap_bytes(self) -> int:
        if self.cuda:
            return 0  # CUDA: the device's own out-of-memory ends the walk
        if self.s.memory_cap_mb:
            return self.s.memory_cap_mb * MIB
        avail = self.p.mem_available_at_start
        return int(avail * 0.8) if avail else 0

    @property
    def dynamic(self) -> bool:
        return self.s.compiled and self.s.dynamic == "true"

    def run(self) -> str:
        s = self.s
        cap = self.cap_bytes()
        sizes = s.scale_sizes
        if s.compiled:
            # dynamic=False compiles each size anew: a recompile per size, and
            # a few more for models that recompile on their own.
            raise_recompile_limit(len(sizes) + 8 if sizes else AUTO_RECOMPILE_LIMIT)
        with self.p.phase("scale"):
            self.p.emit(
                "scale_plan",
                batch_source=self.source,
                sizes=sizes,
                auto=s.scale_auto,
                dynamic=self.dynamic,
                budget_s=float(s.budget_s),
                memory_cap_bytes=cap,
            )
            if not self.cuda:
                self.watch = CapWatch(cap, self.peak)
                self.p.sampler.listener = self.watch
            try:
                stop = self.walk(sizes or auto_sizes(), cap)
            finally:
                self.p.sampler.listener = None
            self.p.emit(
                "scale_stop",
                reason=stop.reason,
                batch_size=stop.batch_size,
                message=stop.message,
            )
        return "ok" if self.points else "failed"

    def walk(self, sizes: Any, cap: int) -> Stop:
        s = self.s
        start = time.monotonic()
        listed = list(sizes) if isinstance(sizes, list) else None
        durations: list[float] = []
        for n in sizes:
            if self.points and s.scale_auto:
                stop = self.budget_stop(n, time.monotonic() - start, durations)
                if stop is not None:
                    return stop
            if cap:
                stop = self.before_size(n, cap)
                if stop is not None:
                    return stop
            began = time.monotonic()
            try:
                self.measure_size(n)
            except Stop as stop:
                return stop
            durations.append(time.monotonic() - began)
            if cap and self.history and self.history[-1][2] > cap:
                if listed is not None and n == listed[-1]:
                    break
                nxt = n * 2 if listed is None else listed[listed.index(n) + 1]
                return self.cap_stop(
                    nxt,
                    f"batch {n} reached {mib(self.history[-1][2])} of resident memory, above the "
                    f"cap of {mib(cap)}",
                )
        return Stop("done", 0, f"every batch size measured ({', '.join(map(str, listed or []))})")

    def budget_stop(self, n: int, spent: float, durations: list[float]) -> Stop | None:
        """Stops an auto walk before a size that would end past the budget:
        the size under way is never cut short, so the check comes first.
        (Checking only whether the budget was spent let a 120 s walk of a
        small ViT on 2 CPU cores start batch 4096 at 73 s and end at 153 s.)"""
        budget = self.s.budget_s
        if spent > budget:
            return Stop(
                "budget",
                n,
                f"the time budget of {budget:g} s was spent after batch {n // 2} "
                f"({spent:.1f} s since the walk began)",
            )
        predicted = predict_seconds(durations)
        if predicted is None or spent + predicted <= budget:
            return None
        return Stop(
            "budget",
            n,
            f"batch {n} would take about {predicted:.1f} s (batch {n // 2} took "
            f"{durations[-1]:.1f} s), past the time budget of {budget:g} s with {spent:.1f} s "
            f"spent; raise --budget-s to walk further",
        )

    def cap_stop(self, n: int, message: str) -> Stop:
        if not self.points:
            self.p.error(
                ProbeError(
                    "memory_cap",
                    f"No batch size was measured: {message}. Raise --memory-cap-mb, or free "
                    f"memory.",
                )
            )
        return Stop("memory_cap", n, message + "; set the cap with --memory-cap-mb")

    def before_size(self, n: int, cap: int) -> Stop | None:
        rss = read_rss_bytes()
        if rss is not None and rss > cap:
            return self.cap_stop(
                n, f"resident memory is {mib(rss)} before batch {n}, above the cap of {mib(cap)}"
            )
        predicted = predict_peak(self.history, n)
        if predicted is not None and predicted > cap:
            m, before, peak = self.history[-1]
            return self.cap_stop(
                n,
                f"batch {n} would take about {mib(predicted)} of resident memory, above the cap "
                f"of {mib(cap)} (batch {m} went from {mib(before)} to a peak of {mib(peak)})",
            )
        return None

    # -- one size ------------------------------------------------------------------------
    def measure_size(self, n: int) -> None:
        """Measures batch `n` and sends its point, or raises the Stop it met.
        A failure is dealt with after its except block is left: until then
        its traceback holds the frames, and they the size's tensors."""
        failure: ProbeError | None = None
        over = 0
        try:
            self._measure_size(n)
        except CapExceeded as e:
            over = e.rss
        except ProbeError as e:
            failure = e
        except Exception as e:  # outside the model's calls: building the inputs
            if not self.p.is_oom(e):
                raise
            failure = ProbeError(
                "out_of_memory",
                f"Out of memory on {self.p.device} building the inputs of batch {n}: "
                f"{exc_summary(e)}.",
                tb=format_exc(e),
            )
        if failure is not None:
            failure.__context__ = failure.__cause__ = None
            failure.__traceback__ = None
        gc.collect()  # the size's garbage goes before the next size's RSS is read
        if over:
            raise self.cap_stop(
                n,
                f"resident memory reached {mib(over)} during batch {n}, above the cap of "
                f"{mib(self.watch.cap if self.watch else 0)}; batch {n} was not finished",
            )
        if failure is not None:
            raise self.failed(n, failure)

    def _measure_size(self, n: int) -> None:
        p = self.p
        torch = self.torch
        # The size's memory counts its inputs: measured from before they exist.
        if self.cuda:
            torch.cuda.reset_peak_memory_stats()
        else:
            self.peak.reset()
        before = read_rss_bytes() or 0
        inputs = self.build_inputs(n)
        self.check(exact=True)
        recompiles = p.w.counts.get("recompile", 0)
        p.call(self.fn, self.model, inputs, warmup=True, first=True, emit=False)
        first_ns = int(p._last_wall)
        self.check(exact=True)
        gc_was = gc.isenabled()
        gc.disable()  # as the usual harness: a collection inside one call is noise
        tail = quiet_warmup_calls(self.s.warmup, self.s.iters)
        try:
            for _ in range(self.s.warmup - 1 - tail):
                p.call(self.fn, self.model, inputs, warmup=True, first=False, emit=False)
                self.check(exact=True)
            latencies = self.measure(inputs, tail)
        finally:
            if gc_was:
                gc.enable()
        del inputs
        if self.cuda:
            peak = int(torch.cuda.max_memory_allocated())
            kind = "cuda_allocated"
        else:
            peak = self.peak.peak() or -1
            kind = "host_rss"
            self.history.append((n, before, peak))
        p.emit(
            "scale_point",
            batch_size=n,
            first_call_ns=first_ns,
            latency_ns=[int(x) for x in latencies],
            peak_memory_bytes=peak,
            memory_kind=kind,
            recompiles=p.w.counts.get("recompile", 0) - recompiles,
        )
        self.points += 1

    def check(self, exact: bool = False) -> None:
        if self.watch is not None:
            self.watch.check(exact)

    def measure(self, inputs: tuple, warm: int) -> list[int]:
        """The measured calls as Probe.measure_quietly times them (no
        capture hooks, no event per call), kept for the size's point instead
        of sent as `iterations`; the warmup's last `warm` calls go first, in
        the same quiet span and not kept, as Probe.warm_quietly runs them."""
        from .harness import measure_calls
        from .loader import shapes_text

        p = self.p
        if self.s.iters == 0:
            return []
        # Between measured calls only the sampler's flag is looked at: no file read.
        timer = _CheckedTimer(p.timer, self.check) if self.watch is not None else p.timer
        p.go_quiet()
        if p.capture is not None:
            p.capture.begin_call(shapes_text(inputs))
        try:
            if warm:
                measure_calls(timer, self.fn, inputs, warm, lambda *a: None)
            latencies = measure_calls(timer, self.fn, inputs, self.s.iters, lambda *a: None)
        except CapExceeded:
            p.end_quiet()
            raise
        except Exception as e:
            p.end_quiet()
            raise p.failure(e, self.model, inputs) from None
        p.end_quiet()
        return latencies

    def failed(self, n: int, e: ProbeError) -> Stop:
        """An out-of-memory ends the walk with the sizes so far standing;
        anything else too, with its error said."""
        if e.kind == "out_of_memory":
            gc.collect()
            if self.cuda:
                try:
                    self.torch.cuda.empty_cache()
                except Exception as e2:  # the walk is over anyway: say it, keep the points
                    self.p.log("warning", f"torch.cuda.empty_cache failed: {exc_summary(e2)}")
            if not self.points:
                self.p.error(e)  # nothing measured: the run failed, and this is why
            return Stop("oom", n, f"out of memory at batch {n}: {e.message}")
        e.fatal = not self.points
        e.message = f"batch {n}: {e.message}"
        self.p.error(e)
        return Stop("error", n, e.message)
