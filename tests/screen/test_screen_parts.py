"""The screen's parts in-process: the snapshot equals the journal's state, examples from the
grammar, the chart, the game thread's cost, and the page's files in the wheel."""

from __future__ import annotations

import itertools
import re
import time
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from banker.editions import load_edition
from banker.interpreter.session import Session, VirtualClock
from banker.journal import GameFile
from banker.journal.sqlite import Header
from banker.screen.chart import wealth_chart
from banker.screen.feed import Feed
from banker.screen.hints import example
from banker.screen.journal_view import JournalView
from banker.screen.snapshot import Folder, build

ROOT = Path(__file__).resolve().parents[2]


def _game(tmp_path: Path, feed: Feed) -> tuple[Session, GameFile]:
    ed = load_edition("voice-banking")
    gf = GameFile(tmp_path / "g.sqlite")
    gf.create(Header(ed.id, "", ["racecar", "dog"], {}, 7))
    s = Session(ed, ["racecar", "dog"], seed=7, journal=gf, clock=VirtualClock(), on_say=feed.said)
    feed.attach(s)
    return s, gf


def _do(s: Session, who: str, text: str) -> None:
    s.begin_step()
    s.hear(who, text)
    s.finish_step()


def test_the_snapshot_is_the_journal_state(tmp_path: Path) -> None:
    feed = Feed()
    s, gf = _game(tmp_path, feed)
    for who, text in (("racecar", "buy Baltic Avenue"), ("dog", "buy Park Place"),
                      ("dog", "pay rent on Baltic Avenue"), ("dog", "undo")):
        _do(s, who, text)
    view = JournalView(gf.path)
    assert view.refresh() and not view.refresh()  # the second read finds nothing new
    folder = Folder(s.rules, s.base)
    snap = build(s.edition, s.rules, folder, view, feed.now, 1)
    assert {p["token"]: p["cash"] for p in snap["players"]} == s.state.view()["cash"]
    owners = {st["name"]: st["owner"] for g in snap["board"] for st in g["streets"]}
    assert owners == s.state.view()["owner"]
    assert [t.seq for t in view.live] == [t.seq for t in s.history]
    assert [(e["what"], e["undone"]) for e in snap["log"]] == [("pay rent", True), ("buy", False), ("buy", False)]
    assert snap["players"][1]["cash_text"] == "M1,150"
    _do(s, "dog", "pay rent on Baltic Avenue")  # folded on from where it was
    _do(s, "racecar", "pay rent on Park Place")
    _do(s, "racecar", "undo")  # no longer an extension: folded again from the deal
    view.refresh()
    again = build(s.edition, s.rules, folder, view, feed.now, 2)
    assert {p["token"]: p["cash"] for p in again["players"]} == s.state.view()["cash"]
    assert len(folder.series) == len(s.history) + 1
    gf.close()


def test_the_question_and_who_is_asked(tmp_path: Path) -> None:
    feed = Feed()
    s, gf = _game(tmp_path, feed)
    _do(s, "racecar", "buy Baltic Avenue")
    _do(s, "dog", "undo")  # the dog took no part: the racecar is asked
    assert feed.now.question is not None and "undo" in feed.now.question.lower()
    assert feed.now.asked == ("racecar",) and feed.now.expecting == "yes_no"
    _do(s, "racecar", "yes")
    assert feed.now.question is None
    gf.close()


def test_saying_a_line_costs_the_game_next_to_nothing(tmp_path: Path) -> None:
    feed = Feed()
    woken = []
    feed.listener = lambda: woken.append(1)
    s, gf = _game(tmp_path, feed)
    _do(s, "racecar", "buy Baltic Avenue")
    start = time.perf_counter()
    for _ in range(2000):
        feed.said("Sold!")
    mean_ms = (time.perf_counter() - start) / 2000 * 1000
    assert mean_ms < 0.5, mean_ms
    assert len(woken) >= 2000
    gf.close()


def test_examples_come_from_the_grammar() -> None:
    assert example("<i_will> (buy | purchase) [the] {property} <please>", {"property": "Baltic Avenue"}) \
        == "buy Baltic Avenue"
    assert example("[i] (pass | passed) go", {}) == "pass go"
    assert example("(pay | give) {amount} [to {player}]", {"amount": "fifty"}) == "pay fifty"
    assert example("((take | draw) a | chance) card", {}) == "take a card"


def test_the_chart_names_every_line() -> None:
    ed = load_edition("jackpot")
    svg = wealth_chart(ed, [("Car", "#3b82f6"), ("Dog <&>", "#22c55e")], [[2000, 2000], [1900, 2000], [19000, 2000]])
    assert svg.count("<polyline") == 2 and "Dog &lt;&amp;&gt;" in svg
    assert 'aria-label="Wealth over the game, 2 transactions. At the end: Car $19,000' in svg
    assert "$20,000" not in svg and "$15,000" in svg  # grid lines at round amounts within the range


def test_the_page_files_ship_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["banker.screen"]
    assets = [p.relative_to(ROOT / "banker" / "screen").as_posix()
              for p in (ROOT / "banker" / "screen" / "assets").iterdir()]
    assert {"assets/index.html", "assets/screen.js", "assets/screen.css", "assets/icon.svg"} <= set(assets)
    assert all(any(fnmatch(a, g) for g in globs) for a in assets)
    deps = " ".join(config["project"]["dependencies"])
    assert "starlette>=" in deps and "uvicorn>=" in deps and "segno>=" in deps
    page = (ROOT / "banker" / "screen" / "assets" / "index.html").read_text() + \
        (ROOT / "banker" / "screen" / "assets" / "screen.css").read_text()
    assert "http" not in page.replace("http-equiv", "")  # nothing from a CDN or a font site



def test_the_end_names_keep_the_order_of_the_amounts() -> None:
    """Two players ending close together: the richer name stays above (a smaller y), whoever
    sits first; before, the second name was pushed below the first even when it had more."""
    ed = load_edition("voice-banking")
    for finals in ([1500, 1510], [1510, 1500], [1500, 1500, 1505]):
        names = [("Cat", "#f00"), ("Dog", "#0f0"), ("Hat", "#00f")][:len(finals)]
        svg = wealth_chart(ed, names, [[1500] * len(finals), finals])
        ys = {n: float(re.search(rf'y="([0-9.]+)" class="end" fill="[^"]+">{n}<', svg)[1])  # type: ignore[index]
              for n, _c in names}
        ranked = sorted(range(len(finals)), key=lambda k: -finals[k])
        tops = [ys[names[k][0]] for k in ranked]
        assert tops == sorted(tops) and len(set(tops)) == len(tops), (finals, ys)
        assert all(b - a >= 26 for a, b in itertools.pairwise(tops)), "names print on top of each other"


def test_a_betting_round_shows_the_bets_off_the_cash_and_on_the_table(tmp_path: Path) -> None:
    ed = load_edition("jackpot")
    feed = Feed()
    gf = GameFile(tmp_path / "g.sqlite")
    gf.create(Header(ed.id, "", ["car", "dog"], {}, 7))
    s = Session(ed, ["car", "dog"], seed=7, journal=gf, clock=VirtualClock(), on_say=feed.said)
    feed.attach(s)
    _do(s, "car", "chance")
    _do(s, "dog", "bet 500")
    view = JournalView(gf.path)
    view.refresh()
    snap = build(s.edition, s.rules, Folder(s.rules, s.base), view, feed.now, 1)
    cash = {p["token"]: p["cash_text"] for p in snap["players"]}
    assert cash == {"car": "$2,000", "dog": "$1,500"}, cash
    assert snap["extras"]["stakes"] == [{"name": "Dog", "amount": "$500"}]
    gf.close()


def test_the_uk_board_is_offered_in_its_own_words() -> None:
    """"What can I say" on the UK board names Super Tax and stations, as its squares do."""
    from banker.editions.loader import for_game
    from banker.screen.hints import say_now

    for board, mine, other in (("uk", "super tax", "luxury tax"), ("us", "luxury tax", "super tax")):
        ed = for_game(load_edition("classic"), {"board": board})
        feed = Feed()
        s = Session(ed, ["hat", "dog"], seed=7, clock=VirtualClock(), on_say=feed.said)
        feed.attach(s)
        said = " / ".join(h["say"] for h in say_now(ed, s.rules, feed.now, s.state, False))
        assert mine in said and other not in said, said
        assert ("station" in said) == (board == "uk"), said
