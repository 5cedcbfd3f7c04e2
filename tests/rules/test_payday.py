"""The test edition: a new edition costs its YAML, its rules module and one registry line.

Payday (``tests/editions/payday.yaml``, ``banker/rules/payday.py``) is Voice Banking with a
M300 GO salary and a Free Parking pot. Its YAML lives under tests/ and is loaded by path, so
``banker editions`` never lists it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from banker.editions import available_editions, load_edition
from banker.editions.registry import REGISTRY
from banker.frontends.replay import replay_files
from banker.rules.events import CashMoved
from banker.rules.payday import PaydayRules
from tests.rules.scenario import Scenario, keys

ROOT = Path(__file__).resolve().parents[2]
PAYDAY = ROOT / "tests" / "editions" / "payday.yaml"


def test_payday_plays_a_transcript(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the transcript names its edition file relative to the project
    out = io.StringIO()
    assert replay_files([ROOT / "tests" / "rules" / "transcripts" / "payday.yaml"], out=out) == 0, \
        out.getvalue()


def test_payday_is_registered_once_and_not_shipped() -> None:
    assert REGISTRY["payday"].rules == "banker.rules.payday:PaydayRules"
    assert "payday" not in available_editions()


def test_free_parking_takes_the_whole_pot() -> None:
    sc = Scenario.new(PAYDAY, ("cat", "dog"))
    assert isinstance(sc.rules, PaydayRules)
    out = sc.when("dog", "chance", {"chance": "school"})  # pay 150: into the pot
    assert (sc.state.jackpot, sc.cash("dog")) == (150, 1350) and "paid" in keys(out)
    sc.when("cat", "free_parking")
    assert (sc.state.jackpot, sc.cash("cat")) == (0, 1650)
    out = sc.when("dog", "free_parking")  # an empty pot pays nothing
    assert not out.events and sc.cash("dog") == 1350


def test_payday_salary_is_data_only() -> None:
    ed = load_edition(PAYDAY)
    assert ed.fees["pass_go"] == 300 and load_edition("voice-banking").fees["pass_go"] == 200
    sc = Scenario.new(ed, ("cat", "dog")).given(CashMoved("cat", "bank", 500))
    sc.when("cat", "pass_go")
    assert sc.cash("cat") == 1300


def test_payday_fine_short_of_cash_returns_the_street_to_the_bank_not_the_pot() -> None:
    sc = Scenario.new(PAYDAY, ("cat", "dog"))
    sc.when("cat", "buy", property="Baltic Avenue")
    sc.given(CashMoved("cat", "bank", sc.cash("cat") - 20))
    out = sc.when("cat", "chance", {"chance": "school"})  # M150 into the pot: M20 and a street
    out = sc.answer(out, give="Baltic Avenue")
    assert sc.state.owner("Baltic Avenue") is None and sc.state.jackpot == 20
    assert "street_returned" in keys(out)
