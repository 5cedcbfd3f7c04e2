"""What a new user trips over at the table, each fixed and held here (each failed before its fix):
an amount far beyond the game is asked about even when typed, an undo says only the balances
it gives back, a question typed without a token is answered, a trade for an unowned street
says why, a wrong ``--option`` is blamed on the option."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from banker.editions import load_edition
from banker.frontends.keyboard import handle_line
from banker.interpreter.session import Session, VirtualClock


class Table:
    def __init__(self, edition: str, players: list[str]) -> None:
        self.said: list[str] = []
        self.s = Session(load_edition(edition), players, clock=VirtualClock(),
                         on_say=self.said.append)

    def __call__(self, player: str, text: str) -> str:
        self.said.clear()
        self.s.hear(player, text)  # typed: no confidence
        return " ".join(self.said)

    def typed(self, line: str) -> str:
        """A line at the keyboard, token or not."""
        self.said.clear()
        out = io.StringIO()
        handle_line(line, self.s, out)
        return " ".join(self.said) + out.getvalue()


@pytest.mark.parametrize(("edition", "player", "text", "amount"), [
    ("voice-banking", "cat", "collect one million", "M1,000,000"),  # money unlimited: > M100,000
    ("secret-vault", "cat", "collect 200000", "M200,000"),
    ("jackpot", "car", "collect 21100", "$21,100"),  # more than the $21,000 in the game
])
def test_an_amount_far_beyond_the_game_is_asked_about_even_when_typed(
        edition: str, player: str, text: str, amount: str) -> None:
    t = Table(edition, [player, "dog"])
    before = t.s.state
    said = t(player, text)
    assert said.startswith("Did you say") and amount in said, said
    assert t.s.state == before
    t(player, "no")
    assert t.s.state == before


def test_a_far_beyond_amount_is_paid_once_confirmed_and_a_game_sized_one_at_once() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    assert "Did you say" not in t("cat", "collect 100000")
    assert t.s.state.cash("cat") == 101_500
    t("dog", "collect one million")
    t("dog", "yes")
    assert t.s.state.cash("dog") == 1_001_500


def test_an_undone_collect_says_only_the_balance_it_gives_back() -> None:
    t = Table("voice-banking", ["trex", "dog"])
    t("trex", "collect 200")
    t("trex", "pay 100")
    said = t("trex", "undo")
    assert "M1,600" not in said, said  # the balance the undo takes away is not said
    assert said.endswith("T-Rex has M1,700 again."), said
    said = t("trex", "undo")
    assert "M1,700" not in said and said.endswith("T-Rex has M1,500 again."), said


@pytest.mark.parametrize(("line", "answer"), [
    ("who's winning", "Number 1"),
    ("who owns Boardwalk", "Boardwalk belongs to Dog"),
    ("how much does the dog have", "M1,100"),
])
def test_a_question_typed_without_a_token_is_answered(line: str, answer: str) -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t("dog", "buy Boardwalk")
    before = t.s.state
    said = t.typed(line)
    assert answer in said and "Start the line with your token" not in said, said
    assert t.s.state == before


@pytest.mark.parametrize("line", ["buy Park Place", "what's my balance"])
def test_a_command_or_a_question_about_me_still_needs_a_token(line: str) -> None:
    t = Table("voice-banking", ["cat", "dog"])
    assert "Start the line with your token" in t.typed(line)


def test_a_trade_for_an_unowned_street_says_nobody_owns_it() -> None:
    t = Table("voice-banking", ["cat", "dog"])
    t("cat", "buy Baltic Avenue")
    said = t("cat", "trade Baltic Avenue for Boardwalk")
    assert "Nobody owns Boardwalk" in said and "rent" not in said, said


def test_a_wrong_option_is_blamed_on_the_option_not_a_config_file(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.pop("BANKER_CONFIG", None)
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players", "cat,dog",
                        "--game", str(tmp_path / "g.sqlite"), "--option", "asr.engine=whisper"],
                       input="", capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2
    assert r.stderr.strip() == ("banker: --option asr.engine=whisper doesn't work: asr.engine must "
                                "be one of pocketsphinx, vosk."), r.stderr
    assert not (tmp_path / "g.sqlite").exists()
