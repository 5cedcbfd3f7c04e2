"""The classic box's data: both boards from one file, the spoken cards, the numbers of the spec."""

from __future__ import annotations

import pytest

from banker.editions import EditionError, load_edition
from banker.editions.loader import for_game
from banker.nlu.templates import load_grammar
from banker.rules.classic import interest

CHANCE = {"advance-go", "dividend", "building-loan", "speeding", "chairman", "repairs", "jail",
          "jail-free", "nearest-railroad", "nearest-utility", "boardwalk", "illinois",
          "st-charles", "reading", "back-three"}
CHEST = {"advance-go", "bank-error", "doctor", "stock", "jail-free", "jail", "holiday",
         "tax-refund", "birthday", "life-insurance", "hospital", "school", "consultancy",
         "street-repairs", "beauty", "inherit"}


def test_every_card_of_the_spec_is_in_its_deck_and_every_spoken_phrase_names_one() -> None:
    ed = load_edition("classic")
    chest = {c["id"] for c in ed.extra["community_chest"]}
    assert {c.id for c in ed.chance} == CHANCE and chest == CHEST
    lists = load_grammar().lists
    for deck, ids in (("chance", CHANCE), ("chest", CHEST)):
        words = ed.extra["card_words"][deck]
        assert set(lists[f"{deck}_card"]) == set(words), deck
        assert set(words.values()) <= ids


def test_the_uk_board_is_the_same_numbers_under_london_names_and_pounds() -> None:
    us = load_edition("classic")
    uk = for_game(us, {"board": "uk"})
    assert uk.currency == "£" and uk.fmt(1500) == "£1,500"
    assert uk.street_names[0] == "Old Kent Road" and uk.street_names[21] == "Mayfair"
    assert "King's Cross Station" in uk.street_names and "Boardwalk" in uk.foreign_streets
    assert [s.price for s in uk.streets] == [s.price for s in us.streets]
    assert uk.card("boardwalk").effect == {"advance": "Mayfair"}
    assert "Mayfair" in for_game(us, {}).foreign_streets


def test_starting_cash_is_an_option_and_a_bad_one_is_one_sentence() -> None:
    ed = load_edition("classic")
    assert for_game(ed, {"start": "2,000"}).start_cash == 2000
    with pytest.raises(EditionError, match="start"):
        for_game(ed, {"start": "lots"})


def test_unmortgaging_is_the_mortgage_plus_ten_percent_rounded_up_to_the_dollar() -> None:
    ed = load_edition("classic")
    assert ed.street("Mediterranean Avenue").unmortgage == 33
    assert ed.street("Park Place").unmortgage == 193
    assert all(s.unmortgage == s.mortgage + interest(s.mortgage) for s in ed.streets)
    assert interest(175) == 18 and interest(30) == 3


def test_banker_editions_lists_every_house_rule_with_what_it_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    from banker.cli import main

    assert main(["editions"]) == 0
    out = capsys.readouterr().out
    classic = out.split("classic:")[1].split("jackpot:")[0]
    for name, values in (("board", "us | uk"), ("free_parking", "off | pot"),
                         ("go_landing", "single | double"), ("auctions", "on | off"),
                         ("jail_rent", "on | off"), ("even_build", "on | off"), ("start", "N"),
                         ("end", "last-standing | on-request")):
        line = next(ln for ln in classic.splitlines() if ln.strip().startswith(f"option {name}:"))
        assert values in line and " - " in line, line
    assert "dog, hat, car, ship, cat, trex, duck, penguin" in classic
    assert "option free_parking: off | pot" in out.split("voice-banking:")[1]
