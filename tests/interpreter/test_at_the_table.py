"""At the table: Mr. Monopoly speaks to the right person (6), in words a player
would use (7), and his hints name only tokens that are playing (9). Each test failed before
its fix; the transcripts ``*/at_the_table.yaml`` check the same replies end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from banker.editions import load_edition
from banker.frontends.transcript import Malformed, load_transcript
from banker.interpreter.session import Session, VirtualClock

UNSURE = 0.7


class Table:
    def __init__(self, edition: str, players: list[str]) -> None:
        self.said: list[str] = []
        self.s = Session(load_edition(edition), players, clock=VirtualClock(),
                         on_say=self.said.append)

    def __call__(self, player: str, text: str, confidence: float | None = None) -> str:
        self.said.clear()
        self.s.hear(player, text, confidence)
        return " ".join(self.said)


# --- 6. replies to the right person -----------------------------------------------------------
def test_a_balance_asked_about_another_player_is_said_to_the_table() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t("dog", "buy Baltic Avenue")
    for _ in range(4):  # every variant of the reply
        said = t("cat", "how much does the dog have")
        assert said == "The dog has M1,440.", said


def test_the_jackpot_payout_list_speaks_of_each_player() -> None:
    t = Table("jackpot", ["car", "dog", "shoe"])
    t("car", "chance")
    t("car", "bet 300")
    t("dog", "bet 200")
    t("shoe", "bet 100")
    t.s.force("hot_house", "none")
    said = t("car", "the spinner says pass right")
    assert "your balance" not in said, said
    assert re.search(r"The shoe has \$[\d,]+\.", said) and "The car has $" in said, said


def test_whats_in_the_vault_answers_the_vault_only() -> None:
    t = Table("secret-vault", ["cat", "hat"])
    said = t("cat", "what's in the vault")
    assert said.startswith("The vault holds M400"), said
    assert "Number 1" not in said
    assert "Number 1: Cat" in t("cat", "who's winning")  # the ranking is still there


def test_whats_in_the_jackpot_answers_the_pots_only() -> None:
    said = Table("jackpot", ["car", "dog"])("car", "what's in the jackpot")
    assert said.startswith("The Jackpot has $0") and "Number 1" not in said, said


# --- 7. wording -----------------------------------------------------------------------------
def test_did_you_say_reads_back_a_sentence_of_the_grammar() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t("dog", "buy Park Place")
    assert t("cat", "pay rent on Park Place", UNSURE) == "Did you say pay rent on Park Place?"
    t("cat", "no")
    assert t("cat", "pay 100 to the dog", UNSURE) == "Did you say pay M100 to Dog?"


def test_the_undo_question_names_the_command_briefly() -> None:
    t = Table("voice-banking", ["cat", "dog", "racecar"])
    t("cat", "pay 100 to the dog")
    said = t("racecar", "undo")
    assert said == ("Racecar wants to undo Cat's last command, pay M100 to Dog. "
                    "Cat, do you agree?"), said
    assert "left" not in said  # not the old reply with its balance
    assert t("cat", "yes").startswith("Undone")
    assert t.s.state.cash("dog") == 1500


def test_the_undo_question_names_the_street_given_up_for_a_debt() -> None:
    """Rent that can't be paid opens a debt (its own transaction); the street given up
    settles it (another one), which the undo question names as the player said it, read the
    same from a game file (slots come back from the journal in another order)."""
    from banker.rules import Command, Intent

    t = Table("voice-banking", ["racecar", "dog", "cat"])
    t("dog", "buy St. Charles Place")
    t("racecar", "buy Oriental Avenue")
    t("racecar", "pay 1399")
    t("racecar", "pay rent on St. Charles Place")
    t("racecar", "Oriental Avenue")
    assert t.s.state.owner("Oriental Avenue") == "dog"
    said = t("cat", "undo")
    assert "last command, give up Oriental Avenue." in said, said
    tx = t.s.history[-1]
    for slots in (dict(tx.slots), dict(reversed(list(tx.slots.items())))):
        assert t.s.describe(Command(tx.player or "", Intent(tx.intent, slots))) == \
            "give up Oriental Avenue", slots
    debt = t.s.history[-2]
    assert t.s.describe(Command(debt.player or "", Intent(debt.intent, dict(debt.slots)))) == \
        "pay rent on St. Charles Place"


def test_the_undo_question_names_an_agreed_sale_as_it_was_asked() -> None:
    t = Table("secret-vault", ["cat", "hat", "dog"])
    t("cat", "buy Baltic Avenue")
    t("cat", "sell Baltic Avenue to the hat for 200")
    t("hat", "yes")
    said = t("dog", "undo")  # the agreement's own slots (yes, answered_by) are not read out
    assert "last command, sell Baltic Avenue to Hat for M200." in said, said


def test_bankrupt_with_cash_and_nothing_owed_says_so() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t("cat", "buy Baltic Avenue")
    said = t("cat", "I'm bankrupt")
    assert "streets" not in said and "M1,440" in said and "nothing is owed" in said, said
    assert not t.s.state.players["cat"].out
    sv = Table("secret-vault", ["cat", "hat"])
    assert "M3,000" in sv("cat", "I'm bankrupt")


def test_a_bet_over_the_cash_is_refused_as_unaffordable() -> None:
    t = Table("jackpot", ["car", "dog"])
    t("car", "chance")
    before = t.s.state.view()
    said = t("dog", "bet 99999")
    assert said == "You can't bet $99,999: you have only $2,000.", said
    assert t.s.step.refused and t.s.state.view() == before
    assert "bills" in t("dog", "bet 250")  # affordable but not in $100 bills: that reason


@pytest.mark.parametrize("edition", ["voice-banking", "secret-vault", "jackpot"])
def test_chance_texts_carry_the_money_sign(edition: str) -> None:
    ed = load_edition(edition)
    for card in ed.chance:
        for m in re.finditer(r"\d[\d,]*", card.title):
            assert card.title[:m.start()].endswith(ed.fmt(0)[:-1]), card.title


def test_a_chance_card_is_read_with_its_money_sign() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t.s.force("chance", "inheritance")
    assert t("cat", "chance card").startswith("Chance: You inherit M100.")


# --- 9. hints name only tokens that are playing ----------------------------------------------
def test_help_names_a_token_that_is_playing() -> None:
    said = Table("secret-vault", ["cat", "hat"])("cat", "help")
    assert "to the hat for two hundred" in said and "dog" not in said, said


def test_the_keyboard_hint_names_a_token_that_is_playing() -> None:
    t = Table("voice-banking", ["cat", "racecar"])
    assert t.s.hint() == "Start the line with your token, like: cat: buy Boardwalk"
    t.s.state.players["cat"].out = True  # a token that has left the game is not an example
    assert t.s.hint() == "Start the line with your token, like: racecar: buy Boardwalk"


def test_a_malformed_transcript_step_names_a_player_of_that_transcript(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("edition: voice-banking\nplayers: [cat, racecar]\nsteps:\n  - just words\n")
    with pytest.raises(Malformed) as exc:
        load_transcript(path)
    assert "`cat: buy Boardwalk`" in str(exc.value) and "dog" not in str(exc.value)
