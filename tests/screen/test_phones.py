"""The players' phones in a real headless Chromium: the token button and a close microphone.

A real ``banker play --keyboard`` (a table without sound of its own) serves the players' page;
Chromium's fake microphone plays a piper clip of "buy Baltic Avenue" (padded with silence, as
the fake device loops its file); the real recogniser hears it. Each phone is a browser tab
(its own phone id, kept by the tab).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from tests.screen.conftest import chromium, free_port

SPOKEN = "buy baltic avenue"


@pytest.fixture(scope="module")
def phone_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium whose microphone says "buy Baltic Avenue" (then 2 s of silence, looped)."""
    from banker.tools import clips

    wav = tmp_path_factory.mktemp("mic") / "buy-baltic-avenue.wav"
    clips.write_wav(wav, clips.pad(clips.speech(SPOKEN), 0.4, 2.0))
    driver: Any = chromium("--window-size=420,900", "--use-fake-device-for-media-stream",
                           "--use-fake-ui-for-media-stream", f"--use-file-for-fake-audio-capture={wav}",
                           "--autoplay-policy=no-user-gesture-required")
    try:
        yield driver
    finally:
        driver.quit()


class Phone:
    """One phone: a tab on the players' page."""

    def __init__(self, d: Any, url: str, new_tab: bool = False) -> None:
        self.d = d
        if new_tab:
            d.switch_to.new_window("tab")
        d.get(url)
        self.handle = d.current_window_handle

    def focus(self) -> Phone:
        self.d.switch_to.window(self.handle)
        return self

    def until(self, cond: Any, what: str, timeout: float = 10.0) -> Any:
        end = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < end:
            self.focus()
            try:
                last = cond()
            except Exception as exc:  # the page is being redrawn
                last = exc
            if last and not isinstance(last, Exception):
                return last
            time.sleep(0.05)
        raise AssertionError(f"the phone never showed {what} (last: {last!r})")

    def text(self, css: str) -> str:
        return str(self.focus().d.find_element(By.CSS_SELECTOR, css).text)

    def claim(self, token: str) -> None:
        def claimed() -> bool:
            if self.d.find_element(By.ID, "talk").is_displayed():
                return True
            self.d.find_element(By.CSS_SELECTOR, f'[data-token="{token}"]').click()
            return False
        self.until(claimed, f"the button after claiming the {token}")

    def press_down(self) -> None:
        ActionChains(self.focus().d).click_and_hold(self.d.find_element(By.ID, "talk")).perform()


def _start(play: Any, tmp_path: Path) -> tuple[Any, str]:
    g = play("--players", "dog,cat", "--game", str(tmp_path / "g.sqlite"), "--no-browser")
    url = g.url()
    g.wait_for(g.err, r"Players' phones: open (http://\S+/player)")
    return g, url + "player"


def test_a_phone_buys_by_voice(play: Any, phone_browser: Any, tmp_path: Path) -> None:
    g, url = _start(play, tmp_path)
    phone = Phone(phone_browser, url)
    phone.claim("dog")
    assert phone.text("#cash") == "M1,500"
    phone.press_down()  # press, speak, let go
    pressed = time.monotonic()
    phone.until(lambda: phone.text("#talk") == "Listening…", "that it listens", timeout=3)
    time.sleep(max(0.0, 3.2 - (time.monotonic() - pressed)))
    ActionChains(phone.d).release().perform()
    phone.until(lambda: phone.text("#cash") == "M1,440", "M1,440 after the purchase", timeout=40)
    assert "Baltic Avenue" in phone.text("#said")
    g.wait_for(g.out, r"\(Dog: buy baltic avenue\)")
    g.wait_for(g.out, r"Sold! Baltic Avenue is yours for M60")


def test_two_phones_bid_and_a_taken_token_is_refused(play: Any, phone_browser: Any, tmp_path: Path) -> None:
    g, url = _start(play, tmp_path)
    dog = Phone(phone_browser, url)
    dog.claim("dog")
    cat = Phone(phone_browser, url, new_tab=True)
    cat.until(lambda: "taken" in (cat.d.find_element(By.CSS_SELECTOR, '[data-token="dog"]')
                                  .get_attribute("class") or ""), "the dog taken")
    def refused() -> bool:
        cat.d.find_element(By.CSS_SELECTOR, '[data-token="dog"]').click()
        return bool(cat.d.find_element(By.ID, "refused").is_displayed())
    cat.until(refused, "the refusal")
    cat.claim("cat")
    g.type("dog: auction Park Place")
    g.wait_for(g.out, r"Auction for Park Place")
    for p, said in ((dog, r"M50 from Dog"), (cat, r"Cat bids M100")):
        # no microphone on these phones: the button alone, a tap, is a bid
        p.focus().d.execute_script(
            "navigator.mediaDevices.getUserMedia = () => Promise.reject(new Error('denied'))")
        ActionChains(p.d).click(p.d.find_element(By.ID, "talk")).perform()
        g.wait_for(g.out, said, timeout=20)
    g.wait_for(g.out, r"Sold to Cat for M100", timeout=30)
    cat.until(lambda: cat.text("#cash") == "M1,400", "the cat paying for Park Place", timeout=20)
    assert dog.text("#cash") == "M1,500"


def test_a_dropped_connection_mid_turn_loses_nothing(play: Any, phone_browser: Any, tmp_path: Path) -> None:
    g, url = _start(play, tmp_path)
    phone = Phone(phone_browser, url)
    phone.claim("dog")
    phone.press_down()
    time.sleep(2.6)  # the words are said; the button is still down
    phone.d.execute_script("window.bankerPhone.socket().close(4000)")  # the connection drops
    phone.until(lambda: "Reconnecting" in phone.text("#link") or "Connected" in phone.text("#link"), "the loss")
    ActionChains(phone.d).release().perform()
    phone.until(lambda: phone.text("#cash") == "M1,440", "M1,440 after reconnecting", timeout=40)
    # the cash can reach the page before the phone's socket is back: wait for it, not race it
    phone.until(lambda: "Connected" in phone.text("#link"), "connected again", timeout=20)
    assert phone.d.find_element(By.ID, "talk").is_displayed()  # the token is still this phone's
    g.wait_for(g.out, r"Sold! Baltic Avenue is yours for M60")


def test_off_loopback_the_phones_page_is_https_and_needs_the_key(play: Any, tmp_path: Path) -> None:
    import re
    import ssl
    import urllib.error
    import urllib.request


    port = free_port()
    g = play("--players", "dog,cat", "--game", str(tmp_path / "g.sqlite"), "--screen-host", "0.0.0.0",
             "--screen-port", str(port), "--no-browser")
    m = g.wait_for(g.err, r"Players' phones: open (https://\S+/player\?t=([\w-]{16,}))")
    key = m.group(2)
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE

    def get(url: str) -> int:
        try:
            with urllib.request.urlopen(url, timeout=10, context=insecure) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    base = f"https://127.0.0.1:{port}"
    assert get(f"{base}/player?t={key}") == 200
    assert get(f"{base}/player") == 403
    assert get(f"{base}/player?t=wrong{key}") == 403
    assert get(f"http://127.0.0.1:{port}/state?t={key}") == 200  # the table screen: plain HTTP still
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    wss = f"wss://127.0.0.1:{port}/phone?t={key}"
    with pytest.raises(InvalidStatus):  # another site's page
        connect(wss, ssl=insecure, origin="https://elsewhere.example")  # type: ignore[arg-type]
    with connect(wss, ssl=insecure, origin=f"https://127.0.0.1:{port}") as ws:  # type: ignore[arg-type]
        ws.send('{"hello": "python"}')
        first = [str(ws.recv(timeout=10)) for _ in range(2)]  # this phone's view, then the players
        assert any('"token":"dog"' in m and '"cash":"M1,500"' in m for m in first), first
    cert = tmp_path / "data" / "banker" / "tls" / "cert.pem"
    assert cert.exists() and re.search(r"BEGIN CERTIFICATE", cert.read_text())
    g.type("dog: buy Baltic Avenue")
    g.wait_for(g.out, r"Sold! Baltic Avenue")
