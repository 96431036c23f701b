"""Open a page in headless Chromium and record what a person would see and what broke.

Chromium is driven through the DevTools protocol over ``--remote-debugging-pipe`` (JSON
messages separated by NUL bytes on file descriptors 3 and 4), so no websocket library and
no network port are needed. The page's console errors, uncaught exceptions and browser
log errors (a resource that failed to load, ...) are collected, and a PNG screenshot is
taken after the page has loaded and settled.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # we run as root in CI
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageVisit:
    screenshot: bytes = b""  # after loading
    text: str = ""  # the page's visible text after loading
    # after each click of ``clicks``, in order: (screenshot, visible text)
    after_clicks: list[tuple[bytes, str]] = field(default_factory=list)
    probe: object = None  # value of the ``probe`` expression, evaluated last
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, log errors
    console: list[str] = field(default_factory=list)  # every console message, for diagnosis


class DevToolsPipe:
    """A minimal DevTools protocol client over Chromium's debugging pipe."""

    def __init__(self, proc: subprocess.Popen, timeout_s: float) -> None:
        self.proc = proc
        self.timeout_s = timeout_s
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no DevTools message from chromium in time")
            ready, _, _ = select.select([self.proc.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium closed the DevTools pipe (exit {self.proc.poll()})")
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.proc.stdin.write(json.dumps(message).encode() + b"\0")
        self.proc.stdin.flush()
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"DevTools {method} failed: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def pump(self, seconds: float) -> None:
        """Collect events for ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.events.append(self._read_message(deadline))
            except TimeoutError:
                return

    def wait_for(self, method: str) -> None:
        if any(e.get("method") == method for e in self.events):
            return
        deadline = time.monotonic() + self.timeout_s
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return


def _describe(event: dict) -> str | None:
    """The error an event reports, or None when it is not an error."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        exc = details.get("exception", {}).get("description") or details.get("text")
        return f"uncaught exception: {exc} at {details.get('url', '')}:{details.get('lineNumber')}"
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
        return f"console.{params['type']}: {args}"
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return f"log error ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}"
    return None


def _console_text(event: dict) -> str | None:
    if event.get("method") != "Runtime.consoleAPICalled":
        return None
    params = event["params"]
    args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
    return f"{params.get('type')}: {args}"


CLICK_JS = """(() => {
  const want = %s;
  const hits = want.startsWith('css:') ? [...document.querySelectorAll(want.slice(4))].slice(0, 1)
    : [...document.querySelectorAll('body *')].filter(
        e => e.innerText && e.innerText.trim() === want);
  if (!hits.length) return false;
  hits[hits.length - 1].click();
  return true;
})()"""


def _evaluate(pipe: DevToolsPipe, session: str, expression: str):
    reply = pipe.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                      session=session)
    return reply.get("result", {}).get("value")


def _look(pipe: DevToolsPipe, session: str) -> tuple[bytes, str]:
    shot = pipe.send("Page.captureScreenshot", {"format": "png"}, session=session)
    text = _evaluate(pipe, session, "document.body ? document.body.innerText : ''")
    return base64.b64decode(shot["data"]), str(text or "")


def visit(
    url: str,
    profile_dir: Path,
    *,
    width: int = 1280,
    height: int = 900,
    settle_s: float = 3.0,
    timeout_s: float = 60.0,
    chromium: str | None = None,
    clicks: tuple[str, ...] = (),
    probe: str | None = None,
) -> PageVisit:
    """Load ``url`` in a fresh headless Chromium profile; screenshot, text and errors.

    ``clicks`` are visible texts to click one after the other (the innermost element whose
    text is exactly that), or ``css:<selector>`` for the first element matching a CSS
    selector, or ``js:<expression>`` to run (a filter to set, say; it returns true when it
    found what it acts on); a click that finds nothing is recorded as an error.
    """
    chromium = chromium or find_chromium()
    if not chromium:
        raise FileNotFoundError("chromium is not installed (Debian: apt-get install chromium)")
    profile_dir.mkdir(parents=True, exist_ok=True)
    args = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}",
            f"--window-size={width},{height}", "about:blank"]
    # Chromium reads DevTools commands on fd 3 and writes replies on fd 4: hand it our
    # pipes there, and give it nothing on stdin/stdout.
    shell = 'exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null'
    stderr_path = profile_dir / "chromium.stderr"
    with open(stderr_path, "wb") as stderr:
        proc = subprocess.Popen(["bash", "-c", shell, "bash", *args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
    pipe = DevToolsPipe(proc, timeout_s)
    result = PageVisit()
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
        pipe.events.clear()
        navigation = pipe.send("Page.navigate", {"url": url}, session=session)
        if navigation.get("errorText"):
            result.errors.append(f"navigation failed: {navigation['errorText']}")
        pipe.wait_for("Page.loadEventFired")
        pipe.pump(settle_s)
        result.screenshot, result.text = _look(pipe, session)
        for label in clicks:
            found = _evaluate(pipe, session, label[3:] if label.startswith("js:")
                              else CLICK_JS % json.dumps(label))
            if not found:
                result.errors.append(f"nothing to click with text {label!r}")
                break
            pipe.pump(settle_s / 2)
            result.after_clicks.append(_look(pipe, session))
        if probe:
            result.probe = _evaluate(pipe, session, probe)
        for event in pipe.events:
            error = _describe(event)
            if error:
                result.errors.append(error)
            message = _console_text(event)
            if message:
                result.console.append(message)
        try:
            pipe.send("Browser.close")
        except (RuntimeError, TimeoutError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return result
