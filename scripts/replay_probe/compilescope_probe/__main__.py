"""A stand-in probe that replays event streams saved from real probe runs.

GPU time is scarce and the GPU machine has no Qt: scripts/gpu-check.sh saves
every probe's event stream there, and this replays them here so that the CLI,
the GUI and the HTML report are built from the real GPU data. The runner
starts it as it starts the probe when COMPILESCOPE_PROBE_ROOT names the folder
above this one (scripts/report-from-streams.sh does that).

For `--model M.py --mode X` it writes COMPILESCOPE_REPLAY_DIR/M-X-cupti.jsonl
(gpu-check.sh's names; COMPILESCOPE_REPLAY_VARIANT picks another variant, e.g.
nocupti), else M-X-showcase.jsonl, else M-X.jsonl, to the event stream, the saved stderr to stderr, and
exits with the code runs.tsv recorded for that run (0 when not recorded and
the stream ends `done` `ok`). A missing stream is an `error` event naming it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def _arg(args: list[str], name: str, default: str = "") -> str:
    return (
        args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else default
    )


def _recorded_exit(folder: Path, stream_name: str) -> int | None:
    # runs.tsv: model, mode, variant, exit code, seconds, name (gpu-check.sh)
    tsv = folder / "runs.tsv"
    if not tsv.is_file():
        tsv = folder.parent / "runs.tsv"
    try:
        for line in tsv.read_text().splitlines():
            cols = line.split("\t")
            if len(cols) >= 6 and cols[5] == stream_name and cols[3].lstrip("-").isdigit():
                return int(cols[3])
    except OSError:
        pass
    return None


def main() -> int:
    args = sys.argv[1:]
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what else is printed goes to the console, as in the probe

    def error(message: str) -> int:
        t = time.monotonic_ns()
        events.write(
            json.dumps(
                {
                    "type": "error",
                    "t_ns": t,
                    "kind": "bad_arguments",
                    "message": message,
                    "traceback": "",
                    "fatal": True,
                }
            )
            + "\n"
        )
        events.write(json.dumps({"type": "done", "t_ns": t, "status": "failed"}) + "\n")
        return 2

    folder = Path(os.environ.get("COMPILESCOPE_REPLAY_DIR", ""))
    if not str(folder) or not folder.is_dir():
        return error(
            "COMPILESCOPE_REPLAY_DIR is not set to a folder of saved event streams "
            f"({str(folder) or 'unset'}): set it to gpu-check's streams/ folder."
        )
    model = Path(_arg(args, "--model")).stem
    mode = _arg(args, "--mode", "default")
    variant = os.environ.get("COMPILESCOPE_REPLAY_VARIANT", "cupti")
    tried = [f"{model}-{mode}-{variant}", f"{model}-{mode}-showcase", f"{model}-{mode}"]
    stream = next((folder / f"{n}.jsonl" for n in tried if (folder / f"{n}.jsonl").is_file()), None)
    if stream is None:
        return error(
            f"no saved stream for model {model}, mode {mode} in {folder}: looked for "
            + ", ".join(f"{n}.jsonl" for n in tried)
        )
    stderr = stream.with_name(stream.stem + ".stderr.txt")
    if stderr.is_file():
        sys.stderr.write(stderr.read_text(errors="replace"))
        sys.stderr.flush()
    last = None
    with stream.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            events.write(line if line.endswith("\n") else line + "\n")
            if line.strip():
                last = line
    events.flush()
    recorded = _recorded_exit(folder, stream.stem)
    if recorded is not None:
        return recorded
    try:
        ended_ok = json.loads(last or "{}").get("status") == "ok"
    except ValueError:
        ended_ok = False
    return 0 if ended_ok else 1


if __name__ == "__main__":
    sys.exit(main())
