"""The probe's command line, parsed into a plain settings object."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

MODES = ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
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

    def as_event(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        return d

    @property
    def compiled(self) -> bool:
        return self.mode != "eager"

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
    return p


def parse(argv: Sequence[str]) -> Settings:
    ns = build_parser().parse_args(list(argv))
    if not ns.model.strip():
        raise BadArguments("--model is empty")
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
    )
