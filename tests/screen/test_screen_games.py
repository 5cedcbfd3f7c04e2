"""A typed game of each edition, watched on the table screen in a real headless Chromium.

Each command's effect must show on the page (balances, owners, the struck-through undo, the
auction's bid, the end's ranking and chart) within 200 ms of its journal commit; a resumed game
comes back as it was. A screenshot per edition is kept in tests/output/ (not committed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.screen.conftest import ARTEFACTS, free_port
from tests.screen.page import Page

MAX_DELAY_MS = 200.0


def _auction(g: Any, page: Page, street: str, starter: str, bidder: str, bid: str, shot: str = "") -> None:
    g.type(f"{starter}: auction off {street}")
    page.until(lambda: page.visible("#auction") and street in page.text("#auction"), "the auction")
    assert "no bid yet" in page.text("#auction")
    g.type(f"press {bidder}")
    name = bidder.capitalize() if bidder != "trex" else "T-Rex"
    page.until(lambda: f"{bid} by {name}" in page.text("#auction"), f"the bid {bid} by {name}")
    if shot:
        page.shot(ARTEFACTS / shot)
    page.until(lambda: "Any final bids?" in page.text("#question"), "Any final bids?", timeout=6)
    page.until(lambda: page.owner(street) == bidder, f"{street} sold to {bidder}", timeout=6)
    assert not page.visible("#auction")


def _accessible(page: Page) -> None:
    """Large type, high contrast, names beside colours, labels and a live region for the lines."""
    live = page.d.find_element(By.CSS_SELECTOR, "#said")
    assert live.get_attribute("aria-live") == "polite"
    assert live.text.splitlines()[-1].startswith("Sold to Racecar for M50!")  # what Mr. Monopoly said last
    card = page.d.find_element(By.CSS_SELECTOR, 'li.player[data-token="racecar"]')
    assert card.get_attribute("aria-label") == "Racecar: M1,390, 2 streets, worth M1,670"
    assert "Racecar" in card.text  # the token is named, not only coloured
    size = page.d.execute_script("return parseFloat(getComputedStyle(arguments[0]).fontSize)",
                                 card.find_element(By.CSS_SELECTOR, ".cash"))
    assert size >= 48
    for css in (".player .cash", "#said p", ".street .state", "#log li", ".say-now span", "h2"):
        assert page.contrast(css) >= 7.0, css  # WCAG AAA for normal text


def _end(page: Page, first: str, players: int) -> None:
    page.until(lambda: page.visible("#end"), "the end")
    ranking = page.text("#ranking")
    assert ranking.splitlines()[0].startswith(f"1. {first}"), ranking
    lines = page.d.find_elements(By.CSS_SELECTOR, "#chart svg polyline")
    assert len(lines) == players
    label = page.d.find_element(By.CSS_SELECTOR, "#chart svg").get_attribute("aria-label")
    assert label.startswith("Wealth over the game") and first in label


def _delays(page: Page, count: int) -> None:
    delays = page.delays_ms()
    assert len(delays) >= count, delays
    assert max(delays) < MAX_DELAY_MS, delays
    print(f"commit to page: {len(delays)} transactions, max {max(delays):.0f} ms, "
          f"mean {sum(delays) / len(delays):.0f} ms")


def test_voice_banking_on_the_screen(play: Any, browser: Any, tmp_path: Path) -> None:
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "vb.sqlite"),
             "--screen-port", str(free_port()), "--no-browser")
    page = Page(browser, g.url())
    assert page.cash("racecar") == "M1,500" and page.cash("dog") == "M1,500"
    assert "for sale, M60" in page.street_text("Baltic Avenue")
    assert "Welcome" in page.text("#said")
    g.type("racecar: buy Baltic Avenue")
    page.until(lambda: page.cash("racecar") == "M1,440", "Racecar's M1,440")
    assert page.owner("Baltic Avenue") == "racecar" and "Racecar" in page.street_text("Baltic Avenue")
    g.type("dog: pay rent on Baltic Avenue")
    page.until(lambda: page.cash("dog") == "M1,496", "Dog's M1,496")
    assert page.cash("racecar") == "M1,444"
    g.type("dog: undo")
    page.until(lambda: any("Rent on Baltic Avenue" in t for t in page.undone()), "the rent struck through")
    assert page.cash("dog") == "M1,500" and page.cash("racecar") == "M1,440"
    assert "(undone)" in page.text("#log")
    _auction(g, page, "Kentucky Avenue", "dog", "racecar", "M50", shot="screen-voice-banking-auction.png")
    assert page.cash("racecar") == "M1,390"
    assert "pay rent on" in page.text("#say-now")
    _accessible(page)
    shown = [page.text(css) for css in ("#money", "#board", "#log", "#say-now")]
    page.reload()
    assert [page.text(css) for css in ("#money", "#board", "#log", "#say-now")] == shown
    g.type("dog: pay 1500")
    page.until(lambda: page.cash("dog") == "M0", "Dog's M0")
    g.type("dog: pay rent on Baltic Avenue")
    _end(page, "Racecar", 2)
    _delays(page, 4)
    page.shot(ARTEFACTS / "screen-voice-banking.png")
    assert g.close() == 0


def test_secret_vault_on_the_screen_and_after_resume(play: Any, browser: Any, tmp_path: Path) -> None:
    game = tmp_path / "sv.sqlite"
    g = play("--edition", "secret-vault", "--players", "duck,dog", "--option", "end=first-bankruptcy",
             "--game", str(game), "--screen-port", str(free_port()), "--no-browser")
    page = Page(browser, g.url())
    assert page.text('[data-extra="vault"] dd') == "M400"
    assert "locked" in page.street_text("Boardwalk")
    g.type("duck: buy Baltic Avenue")
    page.until(lambda: page.cash("duck") == "M2,880", "Duck's M2,880")
    g.type("dog: pay rent on Baltic Avenue")
    page.until(lambda: page.cash("dog") == "M2,992", "Dog's M2,992")
    g.type("dog: undo")
    page.until(lambda: page.undone(), "the rent struck through")
    g.type("duck: guess four")
    # The vault's code is drawn at random for a typed game: 4 is either written down as
    # guessed, or it was the code and the vault's M400 went to Duck.
    page.until(lambda: page.text('[data-extra="guessed"] dd') == "4" or page.cash("duck") == "M3,280",
               "the guess 4")
    _auction(g, page, "Kentucky Avenue", "dog", "duck", "M10")
    before = (page.cash("duck"), page.text("#log"))
    _delays(page, 3)
    assert g.close() == 0

    g = play("--resume", "--game", str(game), "--screen-port", str(free_port()), "--no-browser")
    page = Page(browser, g.url())
    assert (page.cash("duck"), page.text("#log")) == before
    assert page.owner("Kentucky Avenue") == "duck" and page.undone()
    g.type("dog: pay 3000")
    page.until(lambda: page.cash("dog") == "M0", "Dog's M0")
    g.type("dog: pay rent on Baltic Avenue")
    page.until(lambda: "owes M8 to Duck" in page.text("#money"), "Dog's debt")
    g.type("dog: I'm bankrupt")
    _end(page, "Duck", 2)
    page.shot(ARTEFACTS / "screen-secret-vault.png")
    assert g.close() == 0


def test_jackpot_on_the_screen(play: Any, browser: Any, tmp_path: Path) -> None:
    g = play("--edition", "jackpot", "--players", "car,dog", "--game", str(tmp_path / "jp.sqlite"),
             "--screen-port", str(free_port()), "--no-browser")
    page = Page(browser, g.url())
    assert page.text('[data-extra="bank"] dd') == "$17,000" and page.text('[data-extra="jackpot"] dd') == "$0"
    g.type("car: buy Baltic Avenue")
    page.until(lambda: page.cash("car") == "$1,900", "Car's $1,900")
    assert page.text('[data-extra="jackpot"] dd') == "$100" and page.owner("Baltic Avenue") == "car"
    g.type("dog: pay rent on Baltic Avenue")
    page.until(lambda: page.cash("dog") == "$1,900", "Dog's $1,900")
    g.type("dog: undo")
    page.until(lambda: page.cash("dog") == "$2,000" and page.undone(), "the rent undone")
    g.type("car: chance")
    page.until(lambda: page.visible("#round") and "Car" in page.text("#round"), "the betting round")
    g.type("dog: bet three hundred")
    page.until(lambda: page.text('[data-extra="stake"]') == "Dog bets\n$300"
               or "Dog bets $300" in page.text("#extras"), "Dog's stake")
    g.type("car: cancel")
    page.until(lambda: not page.visible("#round") and "bets" not in page.text("#extras"), "the round called off")
    _auction(g, page, "Kentucky Avenue", "dog", "car", "$100")
    assert page.text('[data-extra="jackpot"] dd') == "$200"
    g.type("car: collect 17000")
    page.until(lambda: page.text('[data-extra="bank"] dd') == "$0", "the Bank run dry")
    _end(page, "Car", 2)
    _delays(page, 4)
    page.shot(ARTEFACTS / "screen-jackpot.png")
    assert g.close() == 0


def test_the_spoken_front_end_shows_the_screen_too(play: Any, browser: Any, tmp_path: Path) -> None:
    """``banker play`` without ``--keyboard`` and with no sound device: it says so, plays by typed
    lines, and the screen is there as in every mode."""
    env = {"PULSE_RUNTIME_PATH": str(tmp_path / "no-pulse"), "PULSE_SERVER": f"unix:{tmp_path}/no-pulse/native"}
    g = play("--players", "racecar,dog", "--game", str(tmp_path / "v.sqlite"), "--no-browser",
             env=env, keyboard=False)
    page = Page(browser, g.url())
    g.type("racecar: buy Baltic Avenue")
    page.until(lambda: page.owner("Baltic Avenue") == "racecar" and page.cash("racecar") == "M1,440",
               "Baltic Avenue bought in the spoken front end")
    assert any("microphone" in line for line in g.out), g.out
    assert g.close() == 0
