#!/usr/bin/env python3
"""Makes a real multi-rank TORCH_TRACE directory with real torch, on CPU.

torchrun starts --ranks processes on the gloo backend; each one initialises its
process group before torch writes its first trace record, so torch names the
files dedicated_log_torch_trace_rank_N_*.log. Every rank compiles (torch.compile,
inductor on CPU) two models per repeat:

- BreakNet, whose forward breaks the graph four times: a print, a .item() with
  capture_scalar_outputs off, and a numpy call Dynamo cannot trace, which
  breaks twice (np.random.default_rng, then .random() on what it returned);
- SweepNet, called on --shapes sequence lengths: the second one recompiles
  (automatic dynamic), later ones reuse the dynamic graph; --static-sweep
  compiles every length (one recompile each, up to torch's recompile limit).

torch._dynamo.reset() between repeats makes the next repeat compile again. The
inductor cache lives in a fresh temporary directory per run, so the first repeat
misses and later ones hit: their records differ, as in a real job.

--diverge makes rank 1 call SweepNet on one extra length the others never see,
so rank 1 recompiles where the others do not (with --shapes 1: the others have
no recompile at all).

--target-mb repeats until the files of the directory hold at least that many
MB in total (checked after each repeat, agreed on by all ranks), beyond
--repeats.

    /work/main/.venv/bin/python benchmarks/trace_log/make_trace_log.py \
        --out /tmp/trace4 --ranks 4 --target-mb 200
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOG_GLOB = "dedicated_log_torch_trace_*.log"


def trace_bytes(directory: Path) -> int:
    total = 0
    for path in directory.glob(LOG_GLOB):
        try:
            total += path.stat().st_size
        except OSError:  # a file that vanished while listing
            pass
    return total


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="the TORCH_TRACE directory to write")
    p.add_argument("--ranks", type=int, default=4, help="processes (ranks) torchrun starts")
    p.add_argument("--repeats", type=int, default=1, help="repeats at least (default 1)")
    p.add_argument(
        "--target-mb",
        type=float,
        default=0.0,
        help="repeat until the directory's trace files hold at least this many MB",
    )
    p.add_argument("--max-repeats", type=int, default=1000, help="stop here even below the target")
    p.add_argument("--shapes", type=int, default=4, help="sequence lengths SweepNet is called on")
    p.add_argument(
        "--static-sweep",
        action="store_true",
        help="compile SweepNet with dynamic=False: one recompile per length",
    )
    p.add_argument(
        "--backend",
        default="inductor",
        help="torch.compile backend (aot_eager: much faster, no generated code)",
    )
    p.add_argument("--width", type=int, default=32, help="hidden width of the models")
    p.add_argument("--layers", type=int, default=4, help="layers per graph of the models")
    p.add_argument(
        "--diverge", action="store_true", help="rank 1 calls SweepNet on one extra length"
    )
    p.add_argument("--clean", action="store_true", help="delete trace files already in --out first")
    p.add_argument("--quiet", action="store_true", help="less output from the ranks")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# ---------------------------------------------------------------- the ranks


def worker(args) -> int:
    # Imported here: the launcher needs no torch import of its own (and would
    # otherwise be one more process reading TORCH_TRACE).
    import numpy as np
    import torch
    import torch._dynamo
    import torch.distributed as dist

    # Before the first trace record: torch reads the rank when it opens the file.
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    torch._dynamo.config.capture_scalar_outputs = False
    quiet = args.quiet

    def stack(width, layers):
        mods = []
        for _ in range(layers):
            mods += [torch.nn.Linear(width, width), torch.nn.GELU()]
        return torch.nn.Sequential(*mods)

    class BreakNet(torch.nn.Module):
        def __init__(self, width, layers):
            super().__init__()
            self.a = stack(width, layers)
            self.b = stack(width, layers)
            self.c = stack(width, layers)
            self.d = stack(width, layers)

        def forward(self, x):
            x = self.a(x)
            if not quiet:
                print(f"rank {rank}: BreakNet a done")  # break 1
            else:
                print(end="")  # the same break, no output
            x = self.b(x)
            scale = x.abs().mean().item()  # break 2 (capture_scalar_outputs off)
            x = self.c(x) / (1.0 + scale)
            # Breaks 3 and 4. Seeded: a value that changed from call to call would
            # recompile the resume function (Dynamo guards on the float).
            jitter = np.random.default_rng(0).random()
            return self.d(x) + jitter

    class SweepNet(torch.nn.Module):
        def __init__(self, width, layers):
            super().__init__()
            self.body = stack(width, layers)
            self.norm = torch.nn.LayerNorm(width)

        def forward(self, tokens):
            h = self.body(tokens)
            return self.norm(h).softmax(dim=1).sum(dim=1)

    width, layers = args.width, args.layers
    breaknet = BreakNet(width, layers).eval()
    sweepnet = SweepNet(width, layers).eval()
    lengths = [8 * (i + 1) for i in range(args.shapes)]
    if args.diverge and rank == 1:
        lengths.append(8 * (args.shapes + 1) + 3)  # a length no other rank sees
    target = int(args.target_mb * 1e6)
    trace_dir = Path(os.environ["TORCH_TRACE"])

    repeat = 0
    started = time.monotonic()
    while True:
        torch._dynamo.reset()
        compiled_break = torch.compile(breaknet, backend=args.backend)
        dynamic = False if args.static_sweep else None
        compiled_sweep = torch.compile(sweepnet, backend=args.backend, dynamic=dynamic)
        with torch.no_grad():
            x = torch.randn(4, width)
            compiled_break(x)
            compiled_break(x)  # a second call: runs the cached graphs, no compile
            for n in lengths:
                compiled_sweep(torch.randn(2, n, width))
        repeat += 1
        # Rank 0 judges the size; all ranks stop after the same repeat.
        done = repeat >= args.repeats and trace_bytes(trace_dir) >= target
        done = done or repeat >= args.max_repeats
        flag = torch.tensor([1 if done else 0])
        dist.broadcast(flag, src=0)
        if rank == 0:
            mb = trace_bytes(trace_dir) / 1e6
            print(
                f"repeat {repeat}: {mb:.1f} MB, {time.monotonic() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        if flag.item():
            break
    dist.barrier()
    dist.destroy_process_group()
    return 0


# ---------------------------------------------------------------- the launcher


def launch(args) -> int:
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    existing = list(out.glob(LOG_GLOB))
    if existing and not args.clean:
        print(
            f"make_trace_log: {out} already holds {len(existing)} trace file(s); "
            "pass --clean to delete them first",
            file=sys.stderr,
        )
        return 2
    for path in existing:
        path.unlink()

    cache = tempfile.mkdtemp(prefix="make_trace_log_inductor_")
    env = dict(os.environ)
    env.update(
        TORCH_TRACE=str(out),
        TORCHINDUCTOR_CACHE_DIR=cache,
        # The ranks share the machine's cores: one thread each, and no compile
        # worker pool per rank.
        OMP_NUM_THREADS="1",
        TORCHINDUCTOR_COMPILE_THREADS="1",
    )
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",  # a free port of its own: other jobs on the machine do not collide
        "--nproc-per-node",
        str(args.ranks),
        str(Path(__file__).resolve()),
        "--worker",
        *forwarded(args),
    ]
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, env=env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    elapsed = time.monotonic() - started
    files = sorted(out.glob(LOG_GLOB))
    total = trace_bytes(out)
    print(
        f"make_trace_log: {len(files)} file(s), {total / 1e6:.1f} MB in {out}, "
        f"{elapsed:.1f} s, exit {proc.returncode}"
    )
    return proc.returncode


def forwarded(args) -> list[str]:
    argv = [
        "--out",
        str(args.out),
        "--repeats",
        str(args.repeats),
        "--target-mb",
        str(args.target_mb),
        "--max-repeats",
        str(args.max_repeats),
        "--shapes",
        str(args.shapes),
        "--backend",
        args.backend,
        "--width",
        str(args.width),
        "--layers",
        str(args.layers),
    ]
    for flag in ("static_sweep", "diverge", "quiet"):
        if getattr(args, flag):
            argv.append("--" + flag.replace("_", "-"))
    return argv


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.ranks < 1 or args.repeats < 1 or args.shapes < 1:
        print("make_trace_log: --ranks, --repeats and --shapes must be at least 1", file=sys.stderr)
        return 2
    if args.diverge and args.ranks < 2:
        print("make_trace_log: --diverge needs a rank 1: --ranks 2 or more", file=sys.stderr)
        return 2
    return worker(args) if args.worker else launch(args)


if __name__ == "__main__":
    sys.exit(main())
