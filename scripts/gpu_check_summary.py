"""The checks of scripts/gpu-check.sh over the event streams it recorded.

    python3 scripts/gpu_check_summary.py WORK ELAPSED_SECONDS

WORK holds runs.tsv (model, mode, variant, exit status, seconds, stream name
per line) and streams/NAME.jsonl with streams/NAME.stderr.txt. Prints a table
and one PASS/FAIL line per check; exits 0 when every check passes, else 1.
Standard library only: the GPU machine has python3 and torch, nothing more.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

MiB = 1 << 20
OVERHEAD_LIMIT = 0.03  # collector overhead on median latency: the floor
OVERHEAD_GOAL = 0.01  # ... and the goal, reported, not checked
# Kernels per measured call are a whole number when every call launches the
# same kernels and the records land on the probe's clock; a clock off by part
# of a phase counts some calls' kernels in the wrong phase.
WHOLE_KERNELS_TOLERANCE = 0.02
TIME_LIMIT_S = 480
ALLOC_CONF = "PYTORCH_CUDA_ALLOC_CONF"
EXPANDABLE = "expandable_segments:True"


def load_runs(work: str) -> dict[tuple[str, str, str], dict]:
    runs = {}
    with open(os.path.join(work, "runs.tsv"), encoding="utf-8") as tsv:
        for line in tsv:
            model, mode, variant, rc, seconds, name = line.rstrip("\n").split("\t")
            events, bad = [], 0
            path = os.path.join(work, "streams", name + ".jsonl")
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as stream:
                    for raw in stream:
                        try:
                            events.append(json.loads(raw))
                        except ValueError:
                            bad += 1
            runs[(model, mode, variant)] = dict(
                rc=rc, seconds=seconds, name=name, events=events, bad=bad
            )
    return runs


def of(run: dict, type_: str) -> list[dict]:
    return [e for e in run["events"] if e.get("type") == type_]


def first(run: dict, type_: str, **match: object) -> dict | None:
    for e in of(run, type_):
        if all(e.get(k) == v for k, v in match.items()):
            return e
    return None


def started_env(run: dict) -> dict:
    """The torch variables the probe started with (hello's torch_env)."""
    return (first(run, "hello") or {}).get("torch_env") or {}


def median_latency(run: dict) -> float | None:
    lat = [e["latency_ns"] for e in of(run, "iteration") if not e.get("warmup")]
    return statistics.median(lat) if lat else None


def why_broken(work: str, run: dict) -> str | None:
    if run["rc"] == "skipped":
        return "not run (time budget)"
    err = [e for e in of(run, "error") if e.get("fatal")]
    if err:
        return f"{err[0].get('kind')}: {err[0].get('message', '')[:200]}"
    if first(run, "done") is None:
        path = os.path.join(work, "streams", run["name"] + ".stderr.txt")
        with open(path, errors="replace") as f:
            tail = f.read().splitlines()[-3:]
        return f"exit {run['rc']}, no done event; stderr ends: " + " | ".join(tail)
    return None


def _fmt(value: object, spec: str) -> str:
    return (spec % value) if isinstance(value, (int, float)) else "-"


class Summary:
    def __init__(self, work: str, elapsed: int) -> None:
        self.work = work
        self.elapsed = elapsed
        self.runs = load_runs(work)
        order = list(self.runs)
        # the checked settings; "expandable" runs are checked for memory only,
        # "showcase" runs are only listed
        self.settings = sorted(
            {(m, mode) for (m, mode, v) in self.runs if v == "cupti"},
            key=lambda s: order.index((*s, "cupti")),
        )
        self.results: list[bool] = []

    def no_run(self) -> dict:
        return {"events": []}

    def check(self, ok: bool, what: str, detail: str = "") -> None:
        self.results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""))

    def table(self) -> None:
        print()
        print(
            f"{'setting':38} {'kern/it':>8} {'launch/it':>9} {'gpu_us/it':>9} {'busy':>5} "
            f"{'dropped':>7} {'med_us':>8} {'plain_us':>8} {'ovh%':>6}"
        )
        for model, mode in self.settings:
            run = self.runs[(model, mode, "cupti")]
            plain = self.runs.get((model, mode, "nocupti"))
            ks = first(run, "kernel_summary") or {}
            med, med_plain = median_latency(run), plain and median_latency(plain)
            ovh = (med / med_plain - 1) * 100 if med and med_plain else None
            gpu_us = ks.get("gpu_ns_per_iter") and ks["gpu_ns_per_iter"] / 1e3
            print(
                f"{model + '/' + mode:38} {_fmt(ks.get('kernels_per_iter'), '%8.1f')} "
                f"{_fmt(ks.get('launches_per_iter'), '%9.1f')} "
                f"{_fmt(gpu_us, '%9.1f')} "
                f"{_fmt(ks.get('busy_fraction'), '%5.2f')} {_fmt(ks.get('dropped'), '%7d')} "
                f"{_fmt(med and med / 1e3, '%8.1f')} "
                f"{_fmt(med_plain and med_plain / 1e3, '%8.1f')} "
                f"{_fmt(ovh, '%6.2f')}"
            )
            broken = why_broken(self.work, run)
            if broken:
                print(f"    {run['name']}: {broken}")
            if plain and why_broken(self.work, plain):
                print(f"    {plain['name']}: {why_broken(self.work, plain)}")
        print()

    def cupti_status(self) -> None:
        """Each distinct cupti_status once."""
        seen = set()
        for model, mode in self.settings:
            st = first(self.runs[(model, mode, "cupti")], "cupti_status")
            if st:
                line = (
                    f"cupti_status active={st.get('active')} version={st.get('version')} "
                    f"clock={st.get('clock')} library={st.get('library')}: {st.get('message')}"
                )
                if line not in seen:
                    seen.add(line)
                    print(line)
        print()

    def kernel_records(self) -> None:
        """1. Kernel records in every setting."""
        missing = []
        for model, mode in self.settings:
            run = self.runs[(model, mode, "cupti")]
            ks = first(run, "kernel_summary")
            st = first(run, "cupti_status")
            if not ks or not ks.get("kernel_records") or not ks.get("kernels_per_iter"):
                if why_broken(self.work, run):
                    why = why_broken(self.work, run)
                elif st and not st.get("active"):
                    why = f"collector inactive: {st.get('message')}"
                elif not ks:
                    why = "no kernel_summary event"
                else:
                    why = (
                        f"{ks.get('kernel_records')} kernel records, "
                        f"{ks.get('kernels_per_iter')} per measured iteration"
                    )
                missing.append(f"{model}/{mode} ({why})")
        n = len(self.settings)
        self.check(
            not missing,
            f"kernel records > 0 in every setting ({n - len(missing)}/{n})",
            "; ".join(missing),
        )

    def cuda_graph_launches(self) -> None:
        """2. CUDA graphs cut launches."""
        for model in sorted({m for m, _ in self.settings}):
            d = self.runs.get((model, "default", "cupti"), self.no_run())
            r = self.runs.get((model, "reduce-overhead", "cupti"), self.no_run())
            a = (first(r, "kernel_summary") or {}).get("launches_per_iter")
            b = (first(d, "kernel_summary") or {}).get("launches_per_iter")
            self.check(
                a is not None and b is not None and a < b,
                f"{model}: launches per iteration lower under reduce-overhead than default",
                f"{a} vs {b}",
            )

    def phase_peaks(self, key: tuple[str, str, str]) -> tuple[int, list[str]]:
        """(phases compared, those where CUPTI saw less than torch reserved - 1 MiB);
        prints the run's CUPTI / torch peaks per phase."""
        model, mode, variant = key
        run = self.runs.get(key, self.no_run())
        mem = first(run, "memory", kind="device")
        peaks = (mem or {}).get("phase_peaks", {})
        shown, short, compared = [], [], 0
        for ms in of(run, "memory_stats"):
            if ms.get("edge") != "end":
                continue
            phase, torch_peak = ms.get("phase"), ms.get("peak_reserved", 0)
            compared += 1
            cupti_peak = peaks.get(phase)
            cupti_mib = cupti_peak / MiB if cupti_peak is not None else float("nan")
            shown.append(f"{phase} {cupti_mib:.1f}/{torch_peak / MiB:.1f}")
            if cupti_peak is None or cupti_peak < torch_peak - MiB:
                short.append(
                    f"{model}/{mode}/{phase}: CUPTI {cupti_peak} < torch {torch_peak} - 1 MiB"
                )
        name = f"{model}/{mode}" + ("" if variant == "cupti" else f" ({variant})")
        state = (
            ", ".join(shown)
            or (why_broken(self.work, run) if run["events"] else "not run")
            or "no memory_stats events"
        )
        print(f"    {name:38} {state}")
        return compared, short

    def peaks_over(self, keys: list[tuple[str, str, str]]) -> tuple[int, list[str]]:
        compared, short = 0, []
        for key in keys:
            n, s = self.phase_peaks(key)
            compared += n
            short += s
        return compared, short

    def peaks(self) -> None:
        """3. CUPTI sees at least what torch reserved, per phase."""
        print(
            "peak device MiB per phase, CUPTI / torch peak reserved (the probe resets torch's "
            "peak at each phase begin):"
        )
        compared, short = self.peaks_over([(m, mode, "cupti") for m, mode in self.settings])
        self.check(
            compared > 0 and not short,
            f"CUPTI peak device bytes >= torch peak reserved - 1 MiB "
            f"({compared - len(short)}/{compared} phases)",
            "; ".join(short),
        )

    def expandable_peaks(self) -> None:
        """7. The same with expandable segments (cuMemCreate/cuMemMap, not cudaMalloc)."""
        keys = [k for k in self.runs if k[2] == "expandable"]
        if not keys:
            self.check(False, "CUPTI peak with expandable_segments:True", "no expandable run")
            return
        # The variable must reach the probe, or the check compares cudaMalloc again.
        conf = {k: started_env(self.runs[k]).get(ALLOC_CONF, "<unset>") for k in keys}
        unset = [f"{k[0]}/{k[1]}: {v}" for k, v in conf.items() if EXPANDABLE not in v]
        self.check(
            not unset,
            f"the expandable runs' probes started with {EXPANDABLE} "
            f"({len(keys) - len(unset)}/{len(keys)})",
            f"{ALLOC_CONF} there: " + "; ".join(unset) if unset else "",
        )
        print("the same with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:")
        compared, short = self.peaks_over(keys)
        self.check(
            compared > 0 and not short,
            f"CUPTI peak with expandable_segments:True >= torch peak reserved - 1 MiB "
            f"({compared - len(short)}/{compared} phases)",
            "; ".join(short) + (" (CUPTI may not see cuMemCreate/cuMemMap)" if short else ""),
        )

    def dropped(self) -> None:
        """5. No activity record lost, max-autotune's autotuning included."""
        lost, read = [], 0
        for key, run in self.runs.items():
            if key[2] not in ("cupti", "expandable"):
                continue  # showcase runs are listed with their drops, not checked
            counts = [
                e.get("dropped")
                for e in (first(run, "kernel_summary"), first(run, "memory", kind="device"))
                if e is not None
            ]
            if counts:
                read += 1
            if any(counts):
                lost.append(f"{key[0]}/{key[1]} ({key[2]}): {max(counts)} dropped")
        self.check(
            read > 0 and not lost,
            f"no activity records dropped ({read - len(lost)}/{read} runs with the collector)",
            "; ".join(lost),
        )

    def clock(self) -> None:
        """6. A whole number of kernels per measured call in every setting."""
        split, counted = [], 0
        for model, mode in self.settings:
            ks = first(self.runs[(model, mode, "cupti")], "kernel_summary") or {}
            k = ks.get("kernels_per_iter")
            if not k:
                continue  # check 1 says why
            counted += 1
            if abs(k - round(k)) > WHOLE_KERNELS_TOLERANCE:
                split.append(f"{model}/{mode} {k}")
        self.check(
            counted > 0 and not split,
            f"GPU records on the probe's clock: whole kernels per measured call "
            f"({counted - len(split)}/{counted} settings)",
            ", ".join(split)
            + (" kernels per call: records cross the phase marks" if split else ""),
        )

    def overhead(self) -> None:
        """4. The collector's overhead on median latency."""
        over, measured, at_goal, above_goal = [], 0, [], []
        for model, mode in self.settings:
            a = median_latency(self.runs[(model, mode, "cupti")])
            b = median_latency(self.runs.get((model, mode, "nocupti"), self.no_run()))
            if a and b:
                measured += 1
                cost = a / b - 1
                said = f"{model}/{mode} +{cost * 100:.1f}%"
                if cost < OVERHEAD_GOAL:
                    at_goal.append(said)
                else:
                    above_goal.append(said)
                if cost >= OVERHEAD_LIMIT:
                    over.append(said)
            else:
                over.append(f"{model}/{mode} not measured")
        slow = len([o for o in over if "%" in o])
        self.check(
            measured == len(self.settings) and not over,
            f"collector overhead on median latency < 3% ({measured - slow}"
            f"/{len(self.settings)} settings)",
            ", ".join(over),
        )
        print(
            f"     goal < {OVERHEAD_GOAL:.0%}: {len(at_goal)}/{len(self.settings)} settings"
            + (f"; above it: {', '.join(above_goal)}" if above_goal else "")
        )

    def showcase(self) -> None:
        for (model, mode, variant), run in self.runs.items():
            if variant == "showcase":
                med = median_latency(run)
                state = why_broken(self.work, run) or f"median {_fmt(med and med / 1e3, '%.1f')} us"
                lost = (first(run, "kernel_summary") or {}).get("dropped")
                if lost:
                    state += f", {lost} activity records dropped"
                print(f"showcase {model}/{mode}: {state}")

    def run(self) -> bool:
        self.showcase()
        self.table()
        self.cupti_status()
        self.kernel_records()
        self.cuda_graph_launches()
        self.peaks()
        self.overhead()
        self.dropped()
        self.clock()
        self.expandable_peaks()
        self.check(
            self.elapsed < TIME_LIMIT_S, "the check ran under 8 minutes", f"{self.elapsed} s"
        )
        bad = sum(r["bad"] for r in self.runs.values())
        if bad:
            print(f"note: {bad} malformed event lines across the streams")
        return all(self.results)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: gpu_check_summary.py WORK ELAPSED_SECONDS", file=sys.stderr)
        return 2
    return 0 if Summary(argv[0], int(argv[1])).run() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
