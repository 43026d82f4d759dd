#!/usr/bin/env python3
"""TORCH_TRACE import: compilescope-cli against tlparse, on the same log, in one run.

1. Makes sure benchmarks/.venv-tlparse holds tlparse (python3 -m venv, then
   pip install tlparse from PyPI; --tlparse-spec pins a version).
2. Makes the log with trace_log/make_trace_log.py (torchrun, --ranks ranks on
   CPU) unless --trace-dir already holds at least --target-mb MB of trace files.
3. Runs, --repeats times each, alternating which goes first, after one untimed
   warm-up of each (so both read the log from the page cache):
       compilescope-cli import DIR --json OUT
       tlparse DIR --all-ranks-html -o OUTDIR --overwrite --no-browser
   and measures each child's wall time and peak RSS (os.wait4: the rusage of
   that child alone, so one run's maximum never carries into the next) and the
   size of what it wrote.
4. Prints and writes (--json) the medians, the ratios tlparse/compilescope for
   wall time and compilescope/tlparse for peak RSS, the log's size and file
   count, the machine (cores, CPU model, load average) and tlparse's version.
   Goals (issue 15): compilescope at least 3x faster than tlparse, with less
   than half its peak RSS.

--scaling files|prefix adds compilescope's (and tlparse's) peak RSS against the
log's size: `files` imports 25%, 50% and 100% of the ranks' files, `prefix`
all ranks cut to their first 25%, 50% and 100% (at a record boundary). Flat
peak RSS as the size grows is what "memory stays bounded" means.

Run it with the project venv (torch is needed only to make the log):
    .venv/bin/python benchmarks/trace_import.py --cli build/app/compilescope-cli \\
        --trace-dir /tmp/cs-trace-200mb --target-mb 200 --ranks 4 --repeats 5 \\
        --scaling prefix --json trace_import.json
Exit status 0 when both goals are met, 1 when one is missed, 2 on an error.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cores, cpu_name

ROOT = Path(__file__).resolve().parents[1]
MAKER = ROOT / "benchmarks" / "trace_log" / "make_trace_log.py"
TLPARSE_VENV = ROOT / "benchmarks" / ".venv-tlparse"
LOG_GLOB = "dedicated_log_torch_trace_*.log"
GOAL_SPEED = 3.0  # tlparse wall / compilescope wall, at least
GOAL_RSS = 0.5  # compilescope peak RSS / tlparse peak RSS, below


# ---------------------------------------------------------------- the machine


def machine() -> dict:
    return {
        "cores": cores(),
        "cpu": cpu_name(),
        "platform": platform.platform(),
        "loadavg": list(os.getloadavg()),
    }


# ---------------------------------------------------------------- tlparse


def ensure_tlparse(spec: str) -> tuple[Path, str]:
    """benchmarks/.venv-tlparse/bin/tlparse, installed from PyPI the first time."""
    exe = TLPARSE_VENV / "bin" / "tlparse"
    if not exe.exists():
        python3 = shutil.which("python3") or sys.executable
        print(f"creating {TLPARSE_VENV} and installing {spec} from PyPI", file=sys.stderr)
        subprocess.run([python3, "-m", "venv", str(TLPARSE_VENV)], check=True)
        pip = TLPARSE_VENV / "bin" / "pip"
        subprocess.run([str(pip), "install", "--quiet", spec], check=True)
    version = subprocess.run(
        [str(exe), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return exe, version.removeprefix("tlparse ").strip()


# ---------------------------------------------------------------- the log


def trace_files(directory: Path) -> list[Path]:
    return sorted(directory.glob(LOG_GLOB))


def total_bytes(paths) -> int:
    return sum(p.stat().st_size for p in paths)


def ensure_log(args) -> Path:
    directory = args.trace_dir.resolve()
    have = total_bytes(trace_files(directory)) if directory.is_dir() else 0
    if have >= args.target_mb * 1e6:
        print(f"using {directory}: {have / 1e6:.1f} MB of trace files", file=sys.stderr)
        return directory
    cmd = [
        args.torch_python,
        str(MAKER),
        "--out",
        str(directory),
        "--ranks",
        str(args.ranks),
        "--target-mb",
        str(args.target_mb),
        "--clean",
        "--quiet",
    ]
    print("making the log: " + " ".join(cmd), file=sys.stderr)
    started = time.monotonic()
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    print(f"made the log in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return directory


# ---------------------------------------------------------------- one measurement


def tree_size(path: Path) -> tuple[int, int]:
    """Bytes and files under path (a file or a directory)."""
    if path.is_file():
        return path.stat().st_size, 1
    size = count = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            size += os.lstat(os.path.join(root, name)).st_size
            count += 1
    return size, count


def measure(cmd: list[str], output: Path, timeout: float) -> dict:
    """Runs cmd once: its wall time, its own peak RSS and the size of output."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        # wait4 on this pid: the rusage of this child (and its own children) only.
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    out_bytes, out_files = tree_size(output) if output.exists() else (0, 0)
    sample = {
        "wall_s": round(wall, 4),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # ru_maxrss is in KiB on Linux
        "user_s": round(usage.ru_utime, 3),
        "sys_s": round(usage.ru_stime, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "output_bytes": out_bytes,
        "output_files": out_files,
        "exit": proc.returncode,
    }
    if proc.returncode != 0:
        sample["stderr_tail"] = stderr[-2000:]
    return sample


class Tools:
    def __init__(self, cli: Path, tlparse: Path, scratch: Path, timeout: float):
        self.cli, self.tlparse, self.scratch, self.timeout = cli, tlparse, scratch, timeout

    def compilescope(self, log: Path) -> dict:
        out = self.scratch / "compilescope.json"
        out.unlink(missing_ok=True)
        return measure([str(self.cli), "import", str(log), "--json", str(out)], out, self.timeout)

    def tlparse_run(self, log: Path) -> dict:
        out = self.scratch / "tlparse_out"
        cmd = [str(self.tlparse), str(log), "--all-ranks-html", "-o", str(out), "--overwrite"]
        cmd.append("--no-browser")
        return measure(cmd, out, self.timeout)


def median_of(samples: list[dict], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def compare(tools: Tools, log: Path, repeats: int, warmup: int) -> dict:
    """Both tools on log, alternating the order from repeat to repeat."""
    runs = {"compilescope": [], "tlparse": []}
    sides = [("compilescope", tools.compilescope), ("tlparse", tools.tlparse_run)]
    for _ in range(warmup):
        for _name, fn in sides:
            fn(log)
    for i in range(repeats):
        for name, fn in sides if i % 2 == 0 else sides[::-1]:
            sample = fn(log)
            runs[name].append(sample)
            print(
                f"  {name:12s} {sample['wall_s']:8.2f} s  {sample['peak_rss_mb']:8.1f} MB"
                f"  exit {sample['exit']}",
                file=sys.stderr,
            )
            if sample["exit"] != 0:
                print(sample.get("stderr_tail", ""), file=sys.stderr)
    result = {"runs": runs, "median": {}}
    for name, samples in runs.items():
        ok = [s for s in samples if s["exit"] == 0]
        result["median"][name] = (
            {
                "wall_s": round(median_of(ok, "wall_s"), 4),
                "cpu_s": round(median_of(ok, "cpu_s"), 3),
                "peak_rss_mb": round(median_of(ok, "peak_rss_mb"), 1),
                "output_bytes": int(median_of(ok, "output_bytes")),
                "ok_runs": len(ok),
            }
            if ok
            else None
        )
    cs, tl = result["median"]["compilescope"], result["median"]["tlparse"]
    if cs and tl:
        result["ratio"] = {
            "wall_tlparse_over_compilescope": round(tl["wall_s"] / cs["wall_s"], 3),
            # On a loaded machine wall time includes waiting for a core; CPU time does not.
            "cpu_tlparse_over_compilescope": round(tl["cpu_s"] / max(cs["cpu_s"], 1e-3), 3),
            "peak_rss_compilescope_over_tlparse": round(cs["peak_rss_mb"] / tl["peak_rss_mb"], 3),
        }
    return result


# ---------------------------------------------------------------- scaling


def prefix_copy(src: Path, dst: Path, fraction: float) -> None:
    """The first `fraction` of src, cut before the record header that follows."""
    limit = int(src.stat().st_size * fraction)
    with src.open("rb") as f, dst.open("wb") as out:
        written = 0
        for line in f:
            # Payload lines start with a tab; anything else starts a record.
            if written >= limit and not line.startswith(b"\t"):
                break
            out.write(line)
            written += len(line)


def link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def scaling(tools: Tools, log: Path, mode: str, repeats: int, warmup: int, fractions):
    files = trace_files(log)
    rows = []
    for fraction in fractions:
        subset = Path(
            tempfile.mkdtemp(prefix=f"trace_{mode}_{int(fraction * 100)}_", dir=log.parent)
        )
        try:
            if mode == "files":
                keep = files[: max(1, round(len(files) * fraction))]
                for path in keep:
                    link_or_copy(path, subset / path.name)
            else:
                for path in files:
                    if fraction >= 1:
                        link_or_copy(path, subset / path.name)
                    else:
                        prefix_copy(path, subset / path.name, fraction)
            size = total_bytes(trace_files(subset))
            print(f"scaling {mode} {fraction:.0%}: {size / 1e6:.1f} MB", file=sys.stderr)
            result = compare(tools, subset, repeats, warmup)
            rows.append(
                {
                    "fraction": fraction,
                    "log_bytes": size,
                    "files": len(trace_files(subset)),
                    "median": result["median"],
                    "ratio": result.get("ratio"),
                }
            )
        finally:
            shutil.rmtree(subset, ignore_errors=True)
    return rows


# ---------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cli", type=Path, default=ROOT / "build" / "app" / "compilescope-cli")
    p.add_argument(
        "--trace-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "compilescope_trace_bench",
        help="the TORCH_TRACE directory; made when it holds less than --target-mb",
    )
    p.add_argument("--target-mb", type=float, default=200.0)
    p.add_argument("--ranks", type=int, default=4, help="ranks of a log this makes")
    p.add_argument(
        "--torch-python",
        default=sys.executable,
        help="the interpreter with torch that makes the log (default: this one)",
    )
    p.add_argument("--repeats", type=int, default=5, help="measured runs of each tool")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs of each tool first")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per tool run")
    p.add_argument("--tlparse-spec", default="tlparse", help="what pip installs (tlparse==0.4.3)")
    p.add_argument("--scaling", choices=["files", "prefix"], help="also peak RSS against log size")
    p.add_argument("--scaling-repeats", type=int, default=3)
    p.add_argument("--json", type=Path, help="write the results here")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if not args.cli.exists():
        print(
            f"trace_import: {args.cli} does not exist: build compilescope-cli first",
            file=sys.stderr,
        )
        return 2
    tlparse, tlparse_version = ensure_tlparse(args.tlparse_spec)
    log = ensure_log(args)
    files = trace_files(log)
    doc = {
        "benchmark": "trace_import",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "tlparse": {
            "version": tlparse_version,
            "command": "tlparse DIR --all-ranks-html -o OUTDIR --overwrite --no-browser",
        },
        "compilescope_command": "compilescope-cli import DIR --json OUT",
        "compilescope_cli": str(args.cli.resolve()),
        "log": {
            "dir": str(log),
            "bytes": total_bytes(files),
            "files": len(files),
            "file_bytes": [p.stat().st_size for p in files],
        },
        "goals": {
            "wall_tlparse_over_compilescope_at_least": GOAL_SPEED,
            "peak_rss_compilescope_over_tlparse_below": GOAL_RSS,
        },
    }
    with tempfile.TemporaryDirectory(prefix="trace_import_bench_") as scratch:
        tools = Tools(args.cli.resolve(), tlparse, Path(scratch), args.timeout)
        print(f"{len(files)} files, {doc['log']['bytes'] / 1e6:.1f} MB", file=sys.stderr)
        doc.update(compare(tools, log, args.repeats, args.warmup))
        if args.scaling:
            doc["scaling"] = {
                "mode": args.scaling,
                "rows": scaling(
                    tools, log, args.scaling, args.scaling_repeats, args.warmup, (0.25, 0.5, 1.0)
                ),
            }
    doc["machine"]["loadavg_after"] = list(os.getloadavg())

    text = json.dumps(doc, indent=2)
    if args.json:
        args.json.write_text(text + "\n")
    print(summary(doc))
    ratio = doc.get("ratio")
    if not ratio:
        return 2
    met = (
        ratio["wall_tlparse_over_compilescope"] >= GOAL_SPEED
        and ratio["peak_rss_compilescope_over_tlparse"] < GOAL_RSS
    )
    return 0 if met else 1


def summary(doc: dict) -> str:
    m, log = doc["machine"], doc["log"]
    lines = [
        f"machine: {m['cores']} cores, {m['cpu']}, load {m['loadavg'][0]:.1f} before, "
        f"{m['loadavg_after'][0]:.1f} after",
        f"log: {log['files']} files, {log['bytes'] / 1e6:.1f} MB; tlparse {doc['tlparse']['version']}",
    ]
    for name, med in doc["median"].items():
        if med is None:
            lines.append(f"{name}: every run failed")
            continue
        lines.append(
            f"{name:12s} median {med['wall_s']:.2f} s (CPU {med['cpu_s']:.2f} s), "
            f"peak RSS {med['peak_rss_mb']:.1f} MB, "
            f"output {med['output_bytes'] / 1e6:.1f} MB"
        )
    ratio = doc.get("ratio")
    if ratio:
        lines.append(
            f"tlparse/compilescope wall: {ratio['wall_tlparse_over_compilescope']:.2f}x "
            f"(goal >= {GOAL_SPEED}), CPU: {ratio['cpu_tlparse_over_compilescope']:.2f}x; "
            "compilescope/tlparse peak RSS: "
            f"{ratio['peak_rss_compilescope_over_tlparse']:.2f} (goal < {GOAL_RSS})"
        )
    for row in doc.get("scaling", {}).get("rows", []):
        cs, tl = row["median"]["compilescope"], row["median"]["tlparse"]
        lines.append(
            f"scaling {doc['scaling']['mode']} {row['fraction']:.0%} ({row['log_bytes'] / 1e6:.1f} MB): "
            f"compilescope {cs['peak_rss_mb'] if cs else '-'} MB, "
            f"tlparse {tl['peak_rss_mb'] if tl else '-'} MB peak RSS"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
