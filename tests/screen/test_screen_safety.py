"""The table screen's safety and bad input: the key off loopback, a port in use, an address
that can't be served, no browser, no screen; the game goes on in every case."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.screen.conftest import free_port
from tests.screen.page import Page


def _get(url: str, host: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def _goes_on(g: Any) -> None:
    """The game still answers a typed command, and stdout holds only the game's own lines."""
    g.type("2: what's my balance")
    g.wait_for(g.out, r"M1,500")
    assert not any("screen" in line for line in g.out), g.out


def _one_sentence(g: Any, pattern: str) -> str:
    m = g.wait_for(g.err, pattern)
    assert "Traceback" not in "\n".join(g.err), g.err
    return m.string


def test_off_loopback_the_key_is_required(play: Any, browser: Any, tmp_path: Path) -> None:
    port = free_port()
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"), "--screen-host", "0.0.0.0",
             "--screen-port", str(port), "--no-browser")
    url = g.url()
    token = re.search(r"\?t=([\w-]{16,})", url)
    assert token, url
    g.wait_for(g.err, "[▀▄█]")  # the address as a QR code in the terminal
    local = f"http://127.0.0.1:{port}/"
    for path in ("", "state", "events"):
        assert _get(local + path)[0] == 403
        assert _get(f"{local}{path}?t=wrong{token.group(1)}")[0] == 403
    status, body = _get(f"{local}state?t={token.group(1)}")
    assert status == 200 and [p["token"] for p in json.loads(body)["players"]] == ["racecar", "dog"]
    assert _get(local + "assets/screen.css")[0] == 200  # the page's own files hold no game
    page = Page(browser, f"{local}?t={token.group(1)}")
    assert page.cash("dog") == "M1,500"
    _goes_on(g)


def test_loopback_answers_only_loopback_names_and_only_reads(play: Any, tmp_path: Path) -> None:
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"), "--no-browser")
    url = g.url()
    assert url.startswith("http://127.0.0.1:") and "?t=" not in url
    assert _get(url + "state")[0] == 200
    assert _get(url + "state", host="attacker.example")[0] == 403  # DNS rebinding
    req = urllib.request.Request(url + "state", data=b"{}", method="POST")
    try:
        urllib.request.urlopen(req, timeout=5)
        status = 200
    except urllib.error.HTTPError as e:
        status = e.code
    assert status == 405  # read-only: nothing on the page moves money
    _goes_on(g)


def test_a_second_game_on_the_same_port_gets_another(play: Any, tmp_path: Path) -> None:
    port = free_port()
    first = play("--players", "racecar,dog", "--game", str(tmp_path / "a.sqlite"), "--screen-port", str(port),
                 "--no-browser")
    assert first.url() == f"http://127.0.0.1:{port}/"
    second = play("--players", "racecar,dog", "--game", str(tmp_path / "b.sqlite"), "--screen-port", str(port),
                  "--no-browser")
    line = _one_sentence(second, rf"Port {port} is already in use")
    other = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    assert other and other.group(1) != first.url()
    assert _get(other.group(1) + "state")[0] == 200
    _goes_on(second)
    _goes_on(first)


def test_an_address_that_cant_be_served_leaves_the_game_going(play: Any, tmp_path: Path) -> None:
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"), "--screen-host", "192.0.2.77",
             "--no-browser")
    _one_sentence(g, r"The table screen can't listen on 192\.0\.2\.77; the game goes on without it\.")
    g2 = play("--players", "racecar,dog", "--game", str(tmp_path / "h.sqlite"), "--screen-host", "no such host!",
              "--no-browser")
    _one_sentence(g2, r"The table screen can't use the address .*; the game goes on without it\.")
    _goes_on(g)
    _goes_on(g2)
    assert len(g.err) == 1 and len(g2.err) == 1, (g.err, g2.err)


def test_a_browser_that_cant_start_is_one_sentence(play: Any, tmp_path: Path) -> None:
    nothing = tmp_path / "bin"
    nothing.mkdir()  # a PATH with no browser on it, and a BROWSER that fails
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"),
             env={"DISPLAY": ":97", "BROWSER": "/bin/false", "PATH": str(nothing)})
    line = _one_sentence(g, r"No browser could be started")
    url = re.fullmatch(r"No browser could be started; open (http://127\.0\.0\.1:\d+/) to see the table screen\.",
                       line)
    assert url, line
    assert _get(url.group(1) + "state")[0] == 200
    _goes_on(g)
    assert g.err == [line]  # stderr isn't a terminal and no screen option was given: only the problem


def test_a_script_without_screen_options_hears_nothing_of_it(play: Any, tmp_path: Path) -> None:
    """stderr not a terminal, no screen option: the screen runs but prints nothing, so a
    mistake's one sentence stays the only line on stderr."""
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"))
    _goes_on(g)
    time.sleep(0.3)
    assert g.err == []


def test_no_screen_means_no_server_and_no_words(play: Any, tmp_path: Path) -> None:
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "g.sqlite"), "--no-screen")
    _goes_on(g)
    time.sleep(0.3)
    assert g.err == []
    assert g.close() == 0


def test_bad_port_is_a_usage_error(play: Any, tmp_path: Path) -> None:
    g = play("--players", "racecar,dog", "--screen-port", "http")
    assert g.close() == 2
    assert len(g.err) == 1 and "not a port number" in g.err[0], g.err
