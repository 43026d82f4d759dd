"""Ends the probe's process group when its stdin closes.

A probe on a remote host is started by ssh with the channel as its stdin, and
nothing is ever written there. When the app, its ssh or the connection goes
away, the channel closes and this read sees the end: the probe and the
compiler workers it forked stop instead of running on as orphans.
"""

import os
import signal
import sys
import threading
import time

FLAG = "--lifeline-stdin"
_GRACE_S = 1.5


def _end_group() -> None:
    group = os.getpgrp()
    try:
        os.killpg(group, signal.SIGTERM)
        time.sleep(_GRACE_S)
        os.killpg(group, signal.SIGKILL)
    except OSError:
        os._exit(1)


def _watch(fd: int) -> None:
    # os.read, not sys.stdin: a daemon thread blocked in a buffered read holds
    # its lock, and the interpreter aborts at exit.
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass
    _end_group()


def watch_stdin() -> None:
    fd = sys.stdin.fileno() if sys.stdin is not None else 0
    threading.Thread(target=_watch, args=(fd,), name="lifeline", daemon=True).start()


def take_flag(args: list[str]) -> bool:
    """Removes the flag from `args`; says whether it was there."""
    if FLAG not in args:
        return False
    args[:] = [a for a in args if a != FLAG]
    return True
