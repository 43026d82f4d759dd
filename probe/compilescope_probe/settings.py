"""The probe's command line, parsed into a plain settings object."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

MODES = (
    "eager",
    "default",
    "reduce-overhead",
    "max-autotune",
    "max-autotune-no-cudagraphs",
    "aoti",
    # The model file's own torch.compile calls, kept (own_compiles.py).
    "as-written",
)
BACKENDS = ("inductor", "aot_eager", "eager")
DYNAMIC = ("auto", "true", "false")
DEVICES = ("auto", "cpu", "cuda")
AUTOCAST = ("none", "bf16", "fp16")


class BadArguments(Exception):
    pass


@dataclasses.dataclass
class Settings:
    model: str
    mode: str = "default"
    backend: str = "inductor"
    dynamic: str = "auto"
    fullgraph: bool = False
    device: str = "auto"
    autocast: str = "none"
    warmup: int = 10
    iters: int = 100
    sweep: bool = False
    warm_cache: bool = False
    cache_dir: str | None = None
    no_cupti: bool = False
    threads: int | None = None  # torch.set_num_threads; None leaves torch's default
    torch_trace: str | None = None  # directory for torch's own TORCH_TRACE log
    # Batch-size scaling (docs/measuring.md): "1,4,16" or "auto"; None runs
    # the usual harness at the model's own batch size.
    batch_sizes: str | None = None
    budget_s: float = 300.0  # auto's time budget
    memory_cap_mb: int = 0  # CPU host-memory cap; 0: 80% of MemAvailable at start
    strict_export: bool = False  # aoti: torch.export(strict=True)
    # torch's portable cache artifacts: "save:PATH" after the compiled calls,
    # or "load:PATH" before the first compile (cache_artifacts.py); None: neither.
    cache_artifacts: str | None = None
    # Issue 18: the inductor_code event without the wrapper text, and the
    # profiled window after the measure phase (0: none).
    no_code: bool = False
    profile_calls: int = 50

    def as_event(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if self.batch_sizes is None:
            # A run that does not scale says what it said before scaling existed.
            for key in ("batch_sizes", "budget_s", "memory_cap_mb"):
                del d[key]
        if not self.aoti:
            del d["strict_export"]
        if self.cache_artifacts is None:
            del d["cache_artifacts"]  # as before portable cache artifacts existed
        if not self.no_code:
            del d["no_code"]
        if self.profile_calls == 50:
            del d["profile_calls"]
        return d

    @property
    def aoti(self) -> bool:
        return self.mode == "aoti"

    @property
    def scaling(self) -> bool:
        return self.batch_sizes is not None

    @property
    def scale_auto(self) -> bool:
        return self.batch_sizes == "auto"

    @property
    def scale_sizes(self) -> list[int]:
        """The listed sizes, ascending; empty for auto and without scaling."""
        if not self.batch_sizes or self.scale_auto:
            return []
        return [int(x) for x in self.batch_sizes.split(",")]

    @property
    def artifacts_action(self) -> tuple[str, str] | None:
        """("save" | "load", path), or None without --cache-artifacts."""
        if not self.cache_artifacts:
            return None
        from .cache_artifacts import parse as parse_artifacts

        return parse_artifacts(self.cache_artifacts)

    @property
    def compiled(self) -> bool:
        return self.mode != "eager"

    @property
    def as_written(self) -> bool:
        return self.mode == "as-written"

    @property
    def dynamic_value(self) -> bool | None:
        return {"auto": None, "true": True, "false": False}[self.dynamic]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse would print and exit(2); the runner needs an event instead.
        raise BadArguments(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if status:
            raise BadArguments(message or f"exit {status}")
        raise SystemExit(status)


def _count(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _batch_sizes(text: str) -> str:
    """`auto`, or ascending positive whole numbers separated by commas;
    returned normalized ("1,4,16")."""
    text = text.strip()
    if text.lower() == "auto":
        return "auto"
    parts = [p.strip() for p in text.split(",")]
    sizes = []
    for p in parts:
        try:
            value = int(p)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not a list of batch sizes or 'auto': {text!r} ({p!r} is not a whole number)"
            ) from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"batch sizes must be at least 1, got {value}")
        sizes.append(value)
    if any(b <= a for a, b in zip(sizes, sizes[1:])):
        raise argparse.ArgumentTypeError(f"batch sizes must be strictly ascending, got {text!r}")
    return ",".join(str(v) for v in sizes)


def _cache_artifacts(text: str) -> str:
    from .cache_artifacts import parse as parse_artifacts

    try:
        parse_artifacts(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m compilescope_probe", add_help=True, allow_abbrev=False)
    p.add_argument("--model", required=True, help=".py file, torchvision:NAME or .pt2 archive")
    p.add_argument("--mode", choices=MODES, default="default")
    p.add_argument("--backend", choices=BACKENDS, default="inductor")
    p.add_argument("--dynamic", choices=DYNAMIC, default="auto")
    p.add_argument("--fullgraph", action="store_true")
    p.add_argument("--device", choices=DEVICES, default="auto")
    p.add_argument("--autocast", choices=AUTOCAST, default="none")
    p.add_argument(
        "--warmup", type=_count(1), default=10, help="warmup calls, the compile call included"
    )
    p.add_argument("--iters", type=_count(0), default=100, help="measured calls")
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--warm-cache", action="store_true")
    p.add_argument(
        "--export-strict",
        action="store_true",
        help="aoti: torch.export with strict=True (Dynamo tracing) instead of non-strict",
    )
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--no-cupti", action="store_true")
    p.add_argument(
        "--threads", type=_count(1), default=None, help="intra-op threads (torch.set_num_threads)"
    )
    p.add_argument(
        "--torch-trace",
        default=None,
        metavar="DIR",
        help="torch writes its structured trace (TORCH_TRACE, read by tlparse) into DIR",
    )
    p.add_argument(
        "--batch-sizes",
        type=_batch_sizes,
        default=None,
        metavar="LIST|auto",
        help="walk these batch sizes (1,4,16; or auto: 1, 2, 4, ... until the budget or memory "
        "runs out) instead of the usual measurement",
    )
    p.add_argument(
        "--budget-s",
        type=_seconds,
        default=300.0,
        metavar="SECONDS",
        help="auto's time budget for the walk (default 300)",
    )
    p.add_argument(
        "--memory-cap-mb",
        type=_count(0),
        default=0,
        metavar="N",
        help="CPU: stop the walk before the probe's resident memory passes N MiB "
        "(default 0: 80%% of MemAvailable at start)",
    )
    p.add_argument(
        "--cache-artifacts",
        type=_cache_artifacts,
        default=None,
        metavar="save:PATH|load:PATH",
        help="torch's portable cache artifacts: save them to PATH after the compiled calls, or "
        "load them from PATH before the first compile (into the fresh cache)",
    )
    p.add_argument(
        "--no-code",
        action="store_true",
        help="send Inductor's generated code without its text: kernel names, their FX nodes and "
        "source lines only (inductor_code with an empty wrapper)",
    )
    p.add_argument(
        "--profile-calls",
        type=_count(0),
        default=50,
        metavar="N",
        help="after the measure phase, profile at most N calls apart from the statistics for "
        "the time per kernel and per eager line (default 50; 0: no profile phase)",
    )
    return p


def parse(argv: Sequence[str]) -> Settings:
    ns = build_parser().parse_args(list(argv))
    if not ns.model.strip():
        raise BadArguments("--model is empty")
    if ns.mode == "aoti" and ns.batch_sizes is not None:
        raise BadArguments(
            "--batch-sizes does not go with --mode aoti (one package, one shape set)"
        )
    if ns.cache_artifacts and ns.cache_artifacts.startswith("load:"):
        if ns.warm_cache:
            raise BadArguments(
                "--cache-artifacts load:PATH measures a fresh cache that loads them; "
                "it cannot be combined with --warm-cache"
            )
    if ns.cache_artifacts and ns.batch_sizes is not None:
        raise BadArguments("--cache-artifacts cannot be combined with --batch-sizes")
    return Settings(
        model=ns.model,
        mode=ns.mode,
        backend=ns.backend,
        dynamic=ns.dynamic,
        fullgraph=ns.fullgraph,
        device=ns.device,
        autocast=ns.autocast,
        warmup=ns.warmup,
        iters=ns.iters,
        sweep=ns.sweep,
        warm_cache=ns.warm_cache,
        cache_dir=ns.cache_dir,
        no_cupti=ns.no_cupti,
        threads=ns.threads,
        torch_trace=ns.torch_trace,
        batch_sizes=ns.batch_sizes,
        budget_s=ns.budget_s,
        memory_cap_mb=ns.memory_cap_mb,
        strict_export=ns.export_strict,
        cache_artifacts=ns.cache_artifacts,
        no_code=ns.no_code,
        profile_calls=ns.profile_calls,
    )
