"""A real ``banker play --keyboard`` with its table screen, and a real headless Chromium.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``) and the ``selenium`` package (in the test extra).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("BANKER_TEST_ARTEFACTS", ROOT / "tests" / "output"))
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Game:
    """``banker play --keyboard`` on pipes: type lines, read Mr. Monopoly and the screen's address."""

    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None, keyboard: bool = True) -> None:
        self.home = home
        full_env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
        full_env.update({"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "PYTHONUNBUFFERED": "1"})
        full_env.update(env or {})
        mode = ["--keyboard"] if keyboard else []
        self.proc = subprocess.Popen([sys.executable, "-m", "banker", "play", *mode, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=ROOT, env=full_env, text=True, bufsize=1)
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    @staticmethod
    def _pump(stream: object, sink: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            sink.append(line.rstrip("\n"))

    def wait_for(self, sink: list[str], pattern: str, timeout: float = 20.0) -> re.Match[str]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(sink):
                m = re.search(pattern, line)
                if m:
                    return m
            if self.proc.poll() is not None and not any(re.search(pattern, ln) for ln in sink):
                time.sleep(0.2)
                break
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r}; stdout={self.out!r} stderr={self.err!r}")

    def url(self) -> str:
        return self.wait_for(self.err, r"(http://\S+)").group(1)

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@pytest.fixture
def play(tmp_path: Path) -> Iterator[object]:
    games: list[Game] = []

    def start(*args: str, env: dict[str, str] | None = None, keyboard: bool = True) -> Game:
        g = Game(tmp_path, *args, env=env, keyboard=keyboard)
        games.append(g)
        return g

    yield start
    for g in games:
        g.close()


def chromium(*args: str) -> object:
    """Debian's headless Chromium under selenium, with ``args`` besides the usual ones."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *args):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    driver: Any = chromium("--window-size=1400,2000", "--force-device-scale-factor=1")
    try:
        yield driver
    finally:
        driver.quit()
