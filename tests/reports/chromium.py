"""Headless Chromium as the tests use it: dump the DOM after parsing, take a
screenshot, time a page load. Each call gets its own profile folder, so runs
in parallel (other test processes, other worktrees) do not share a lock."""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--mute-audio",
]


def run(binary: str, args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="cs-chromium-") as profile:
        result = subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            errors="replace",
        )
    if result.returncode != 0:
        raise AssertionError(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


def dump_dom(binary: str, page: Path) -> str:
    return run(binary, ["--dump-dom", page.resolve().as_uri()]).stdout


def screenshot(binary: str, page: Path, png: Path, width: int = 1280, height: int = 2000) -> Path:
    run(binary, [f"--screenshot={png}", f"--window-size={width},{height}", page.resolve().as_uri()])
    if not png.exists():
        raise AssertionError(f"chromium wrote no screenshot to {png}")
    return png


class Dom(HTMLParser):
    """The elements, attributes and text of a serialised DOM."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    @property
    def text(self) -> str:
        return "".join(self.texts)


class DevTools:
    """Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
    commands in on fd 3, replies out on fd 4, each a JSON message ending in NUL),
    which needs no websocket library. Used to read the page's own load timing."""

    def __init__(self, binary: str, timeout: float = 120) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="cs-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def plumb() -> None:  # in the child, before exec: the protocol's fixed descriptors
            read_end, write_end = (
                os.dup(to_child_r),
                os.dup(from_child_w),
            )  # out of the way of 3 and 4
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=plumb,
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._deadline = time.monotonic() + timeout
        self._events: list[dict] = []

    def _read_message(self) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > self._deadline:
                raise TimeoutError("no answer from Chromium's DevTools pipe")
            ready, _, _ = select.select([self._from_child], [], [], 1.0)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise AssertionError("Chromium closed its DevTools pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_event(self, method: str) -> dict:
        for i, event in enumerate(self._events):
            if event.get("method") == method:
                return self._events.pop(i)
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            self._events.append(event)

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (AssertionError, OSError, TimeoutError):
            pass
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
        os.close(self._to_child)
        os.close(self._from_child)
        self._profile.cleanup()


def page_load_timing(binary: str, page: Path) -> dict:
    """Opens `page` in a running headless Chromium and returns the page's own
    Navigation Timing (ms from navigation start) plus the wall time until load."""
    tools = DevTools(binary)
    try:
        target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        tools.call("Page.enable", session=session)
        start = time.perf_counter()
        tools.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        tools._events = [e for e in tools._events if e.get("method") != "Page.loadEventFired"]
        tools.wait_event("Page.loadEventFired")
        wall = time.perf_counter() - start
        # DevTools evaluates outside the page's Content-Security-Policy; the page itself runs nothing.
        expression = (
            "JSON.stringify({nav: performance.getEntriesByType('navigation')[0].toJSON(),"
            " paint: performance.getEntriesByType('paint').map(e => [e.name, e.startTime])})"
        )
        value = tools.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
        )["result"]["value"]
        timing = json.loads(value)
        nav = timing["nav"]
        return {
            "wall_s": wall,
            "dom_content_loaded_ms": nav["domContentLoadedEventEnd"],
            "load_ms": nav["loadEventEnd"],
            "paint": dict(timing["paint"]),
        }
    finally:
        tools.close()
