"""The soak (issue 19), long form.

1. The GUI (offscreen): tests/app/test_soak, the CI test's executable, with
   COMPILESCOPE_SOAK_SESSIONS sessions back to back (default 200, fake probe),
   then as many reports opened one after another; RSS after the soak within 10%
   of RSS after the first 10 sessions, open descriptors and child processes
   back where they were after the first session.
2. The same with the real probe (--real-sessions, default 20: eager on the
   gallery MLP, 2 warmup and 20 measured calls each; a real session costs a
   Python start and a torch import, so 200 of them do not fit a short soak).
3. compilescope-cli compare run --compares times (default 50) on the gallery
   MLP (--settings eager), each with a private TMPDIR: nothing may be left in
   it (torch's shared torchinductor_USER folder of precompiled headers aside).

usage: .venv/bin/python benchmarks/soak.py [--build build] [--sessions 200]
           [--real-sessions 20] [--compares 50]
Prints the "soak:" lines and one line for the compares (docs/BENCHMARKS.md, "Soak").
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import probe_killer  # noqa: E402


def gui(build: Path, sessions: int, real: bool) -> bool:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", COMPILESCOPE_SOAK_SESSIONS=str(sessions))
    # Qt Test stops a test function after 5 minutes; 20 real sessions on a
    # loaded machine take longer.
    env["QTEST_FUNCTION_TIMEOUT"] = str(6 * 3600 * 1000)
    if real:
        env["COMPILESCOPE_SOAK_PROBE"] = "real"
        env["COMPILESCOPE_SOAK_PYTHON"] = str(ROOT / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory() as config:
        env["XDG_CONFIG_HOME"] = config
        # test_soak runs in QStandardPaths' test mode, whose settings live in
        # $HOME/.qttest (XDG_CONFIG_HOME is not read): a fresh HOME keeps the
        # fake-probe soak's saved python (/usr/bin/python3, no torch) from being
        # restored by the real-probe soak, whose sessions then all fail.
        env["HOME"] = config
        t0 = time.monotonic()
        proc = subprocess.run(
            [str(build / "tests" / "app" / "test_soak")], env=env, capture_output=True, text=True
        )
    for line in proc.stdout.splitlines():
        if line.startswith("soak:"):
            print(f"{line} [{time.monotonic() - t0:.0f} s]", flush=True)
    if proc.returncode != 0:
        print(proc.stdout[-4000:], proc.stderr[-4000:])
    return proc.returncode == 0


def compares(build: Path, count: int) -> bool:
    cli = build / "app" / "compilescope-cli"
    leaked = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="soak-compare-") as work:
        for i in range(count):
            tmp_root = Path(work) / "tmp"
            tmp_root.mkdir(exist_ok=True)
            env = dict(os.environ, TMPDIR=str(tmp_root))
            env.pop("DISPLAY", None)
            proc = subprocess.run(
                [
                    str(cli),
                    "compare",
                    str(ROOT / "resources" / "models" / "mlp.py"),
                    "--settings",
                    "eager",
                    "--device",
                    "cpu",
                    "--warmup",
                    "2",
                    "--iters",
                    "20",
                    "--json",
                    str(Path(work) / "compare.json"),
                ],
                env=env,
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                print(f"compare {i} exited {proc.returncode}: {proc.stderr[-2000:]}")
                return False
            leaked += probe_killer.temp_leftovers(tmp_root)
            for p in tmp_root.iterdir():
                if not p.name.startswith(probe_killer.TORCH_SHARED):
                    subprocess.run(["rm", "-rf", str(p)], check=False)
    print(
        f"compare: {count} runs in {time.monotonic() - t0:.0f} s, temporary entries left: "
        f"{len(leaked)} {sorted(set(leaked))[:5]}",
        flush=True,
    )
    return not leaked


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--real-sessions", type=int, default=20)
    ap.add_argument("--compares", type=int, default=50)
    args = ap.parse_args()
    build = Path(args.build)
    ok = gui(build, args.sessions, real=False)
    if args.real_sessions:
        ok &= gui(build, args.real_sessions, real=True)
    if args.compares:
        ok &= compares(build, args.compares)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
