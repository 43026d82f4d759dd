import json
import os
import signal
import sys
import time


def main() -> None:
    args = sys.argv[1:]
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
    if behaviour == "fail":
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
