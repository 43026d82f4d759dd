import json
import os
import signal
import sys
import threading
import time


def chunks(emit, behaviour: str) -> None:
    """The quiet measure phase: calls arrive in chunks (iterations events).
    chunks_crash dies between two chunks; chunks_slow sends 6 chunks of 10
    calls 250 ms apart, as a long measure phase does."""
    count, size, pause = (2, 4, 0.05) if behaviour == "chunks_crash" else (6, 10, 0.25)
    for c in range(count):
        first = c * size
        emit(
            "iterations",
            first_index=first,
            latency_ns=[2000 + first + k for k in range(size)],
            wall_ns=[2100 + first + k for k in range(size)],
        )
        time.sleep(pause)
    if behaviour == "chunks_crash":
        os._exit(9)
    emit("phase", name="measure", edge="end", harness_overhead_ns=50)
    emit("crosscheck", block_calls=5, block_means_ns=[2010.0, 2020.0])
    emit("done", status="ok")


def flood(events, behaviour: str) -> None:
    """Writes COMPILESCOPE_FAKE_FLOOD_MB (default 200) MiB at full speed on the
    event stream: flood_garbage lines that are not JSON, flood_events valid
    events no view keeps in bulk (progress, logs, unknown types)."""
    total = int(float(os.environ.get("COMPILESCOPE_FAKE_FLOOD_MB", "200")) * (1 << 20))
    if behaviour == "flood_garbage":
        line = b"garbage " + b"#" * 110 + b"\n"
    else:
        t = time.monotonic_ns()
        line = (
            json.dumps({"type": "compile_progress", "t_ns": t, "stage": "tracing"})
            + "\n"
            + json.dumps({"type": "log", "t_ns": t, "level": "debug", "message": "x" * 40})
            + "\n"
            + json.dumps({"type": "mystery", "t_ns": t, "payload": [1, 2, 3]})
            + "\n"
        ).encode()
    block = line * max(1, (1 << 20) // len(line))
    events.flush()
    fd = events.fileno()
    written = 0
    while written < total:
        view = memoryview(block)
        while view:
            view = view[os.write(fd, view) :]
        written += len(block)


def long_line(events) -> None:
    """One line past the app's 64 MiB bound, then the run goes on."""
    events.flush()
    block = b"x" * (1 << 20)
    for _ in range(65):
        view = memoryview(block)
        while view:
            view = view[os.write(events.fileno(), view) :]
    os.write(events.fileno(), b"\n")


def killed_with_cache(emit, before_hello: bool = False) -> None:
    """As the real probe after a SIGKILL: its fresh cache (in the folder the
    runner gave) and a worker in its group are left for the runner to clean
    up; `before_hello`: killed before it could say where its cache is."""
    import tempfile

    cache = tempfile.mkdtemp(
        prefix="compilescope-cache-", dir=os.environ.get("COMPILESCOPE_CACHE_ROOT") or None
    )
    open(os.path.join(cache, "entry"), "w").close()
    if before_hello:
        os.kill(os.getpid(), signal.SIGKILL)
    emit(
        "hello",
        protocol=1,
        python=sys.version.split()[0],
        torch=None,
        device="cpu",
        settings={"argv": sys.argv[1:], "cache_dir": None, "warm_cache": False},
        cache_dir=cache,
    )
    worker = os.fork()
    if worker == 0:  # a compiler worker that outlives its parent
        os.execvp("sleep", ["sleep", "300"])
    emit("log", level="info", message=f"worker {worker}")
    emit("phase", name="measure", edge="begin")
    os.kill(os.getpid(), signal.SIGKILL)


def watch_lifeline() -> None:
    """Like the real probe: the group ends when stdin (a remote channel) closes."""

    def watch() -> None:
        while os.read(0, 4096):
            pass
        os.killpg(os.getpgrp(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    args = sys.argv[1:]
    if "--lifeline-stdin" in args:
        watch_lifeline()
    model = args[args.index("--model") + 1]
    # fake:NAME, or a model file named NAME.py (the GUI only runs existing files).
    if model.startswith("fake:"):
        behaviour = model.split(":", 1)[1]
    else:
        behaviour = os.path.splitext(os.path.basename(model))[0]
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def emit(event_type: str, **fields) -> None:
        events.write(json.dumps({"type": event_type, "t_ns": time.monotonic_ns(), **fields}) + "\n")
        events.flush()

    if behaviour in ("killed_with_cache", "killed_before_hello"):
        killed_with_cache(emit, before_hello=behaviour == "killed_before_hello")
    emit(
        "hello",
        protocol=1,
        python=sys.version.split()[0],
        torch=None,
        device="cpu",
        settings={"argv": args},
    )
    if behaviour == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("model output goes to the console", flush=True)
    emit("phase", name="measure", edge="begin")
    if behaviour.startswith("chunks"):
        chunks(emit, behaviour)
        return
    if behaviour.startswith("flood"):
        flood(events, behaviour)
    if behaviour == "long_line":
        long_line(events)
    for i in range(5):
        emit("iteration", index=i, latency_ns=1000 + i, wall_ns=1000 + i, warmup=False)
    if behaviour == "slow":
        for i in range(5, 200):
            time.sleep(0.02)
            emit("iteration", index=i, latency_ns=1000 + i % 7, wall_ns=1000, warmup=False)
    if behaviour == "crash":
        os._exit(7)
    if behaviour == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if behaviour in ("hang", "ignore_term"):
        while True:
            time.sleep(0.05)
    if behaviour == "garbage":
        events.write("this is not json\n")
        events.write('{"type": "iteration", "index": 5, "latency_ns": 2000}\n')
        events.write('["not", "an", "object"]\n')
        events.write('{"type": "mystery", "t_ns": 1, "x": 2}\n')
    if behaviour == "partial":
        events.write('{"type": "iteration", "ind')
        events.flush()
        os._exit(0)
    emit("phase", name="measure", edge="end")
    # Only eager succeeds: a compiled setting that fails is not probed again (--repeat).
    compiled = args[args.index("--mode") + 1] != "eager" if "--mode" in args else True
    if behaviour == "fail" or (behaviour == "fail_compiled" and compiled):
        emit(
            "error",
            kind="model_raised",
            message="model.py:3 raised ValueError",
            traceback="...",
            fatal=True,
        )
        emit("done", status="failed")
        sys.exit(3)
    emit("done", status="ok")


main()
