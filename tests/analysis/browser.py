"""Headless Chromium driven over the DevTools protocol on a pipe (no websocket library, no browser download).

``load(url)`` opens a page, waits for its load event, and returns what the page reported (console errors,
uncaught exceptions, failed loads), the value of a JavaScript expression evaluated in it, and a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--window-size=1280,900",
)
TIMEOUT = 60.0


def chromium() -> str | None:
    """The browser's path, or None when none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Visit:
    """What a page did while loading: its errors, an evaluated value and a PNG screenshot."""

    errors: list[str] = field(default_factory=list)
    value: Any = None
    screenshot: bytes = b""


class _Pipe:
    def __init__(self, browser: str, profile: str) -> None:
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire() -> None:  # the protocol reads on fd 3 and writes on fd 4; move both clear of 3 and 4 first
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("the browser did not answer")
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self.receive())

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, TimeoutError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_child)
        os.close(self.from_child)


def load(url: str, expression: str) -> Visit:
    """Open ``url`` in headless Chromium, wait for it to load, evaluate ``expression`` and take a screenshot."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("no Chromium installed")
    with tempfile.TemporaryDirectory(prefix="boardlab-chromium-") as profile:
        pipe = _Pipe(browser, profile)
        try:
            target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                pipe.send(f"{domain}.enable", session=session)
            pipe.send("Page.navigate", {"url": url}, session=session)
            pipe.wait_for("Page.loadEventFired")
            value = pipe.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)[
                "result"
            ].get("value")
            shot = pipe.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
            return Visit(_errors(pipe.events), value, base64.b64decode(shot))
        finally:
            pipe.close()


def _errors(events: list[dict]) -> list[str]:
    out = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append(f"console: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            out.append(f"exception: {params.get('exceptionDetails', {}).get('text')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            out.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        elif method == "Network.loadingFailed":
            out.append(f"load failed: {params.get('errorText')}")
    return out


def file_url(path: Path) -> str:
    """The ``file://`` URL of ``path``."""
    return path.resolve().as_uri()
