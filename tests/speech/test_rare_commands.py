"""Commands rare at a table and costly to undo (a player joining or leaving, "I'm bankrupt",
the end) are asked about when spoken, never done at once, by the rules (real pocketsphinx on
a rendered clip, a real session) and by the fitted judge's cost table; and the judge's other
safeguards: a reading the other ear contradicts, and asking between two close readings."""

from __future__ import annotations

import math
from typing import Any

import pytest

from banker.editions import load_edition
from banker.interpreter.clock import VirtualClock
from banker.interpreter.hearing import RARE, Hearing, rare_checked, stake
from banker.interpreter.session import Session
from banker.speech.judge import FEATURES, Candidate, Ear, costs_of, decide, features, runner_up
from banker.tools import clips


def _yes(_i: str, _s: Any) -> bool:
    return True


def _no(_i: str, _s: Any) -> bool:
    return False


@pytest.mark.skipif(not clips.have_espeak(), reason="piper, espeak-ng and sox needed")
@pytest.mark.parametrize(("seated", "said", "intent"), [
    (["racecar", "dog"], "the cat joins the game", "add_player"),
    (["racecar", "dog", "cat"], "the cat is leaving the game", "remove_player"),
])
def test_a_rare_command_heard_clearly_is_asked_about(recognizer: Any, seated: list[str],
                                                     said: str, intent: str) -> None:
    heard = recognizer.recognize(clips.pad(clips.speech(said, clips.PIPER)), "any")
    s = Session(load_edition("voice-banking"), seated, clock=VirtualClock())
    h = s.understand(heard, "racecar")
    assert h.intent == intent, heard
    assert h.decision == "confirm", (heard.text, heard.confidence, h)
    s.hear("racecar", heard.text, heard.confidence)
    assert not s.history and s.pending is not None  # "Did you say…?", nothing moved
    typed = Session(load_edition("voice-banking"), seated, clock=VirtualClock())
    assert typed.understand(said, "racecar").decision == "accept"  # typed: done as before


def test_rare_checked_asks_only_what_the_rules_would_take() -> None:
    sure = Hearing("accept", "add_player", {"player": "cat"}, 0.99)
    asked = rare_checked(sure, _yes)
    assert asked.decision == "confirm" and asked.intent == "add_player"
    assert rare_checked(sure, _no) is sure  # refused at once: refusing moves nothing
    other = Hearing("accept", "buy", {"property": "Boardwalk"}, 0.99)
    assert rare_checked(other, _yes) is other
    assert {"add_player", "remove_player", "bankrupt", "end_game"} == RARE


def test_the_stake_of_a_reading() -> None:
    assert stake("add_player", "money", True) == "rare"
    assert stake("add_player", "money", False) == "low"  # refused: nothing moves
    assert stake("buy", "money", True) == "money"
    assert stake("buy", "money", False) == "low"
    assert stake("balance", "harmless", False) == "harmless"


def test_a_rare_command_is_never_acted_on_at_once_by_the_judge() -> None:
    for p in (0.9, 0.999, 1.0 - 1e-12, 1.0):
        options = costs_of(p, "rare")
        assert math.isinf(options["act"])
        assert min(options, key=lambda a: options[a]) == "ask"


class _C:
    def __init__(self, risk: str) -> None:
        self.risk = risk


def test_two_close_readings_are_asked_between() -> None:
    a, b = _C("money"), _C("money")
    act, c, _p = decide([(a, 0.6), (b, 0.35)])
    assert (act, c, runner_up([(a, 0.6), (b, 0.35)])) == ("choose", a, b)
    act, c, _p = decide([(a, 0.7), (b, 0.02)])  # a runner-up that unlikely is not offered
    assert (act, c) == ("ask", a)
    assert decide([(_C("harmless"), 0.4), (b, 0.3)])[0] == "sorry"  # no "repeat or buy?"


def _cand(first: bool, second: bool) -> Candidate:
    return Candidate("balance", (), first, second, 1.0, 100.0, "harmless", True, 3)


def test_a_reading_the_other_ear_contradicts_or_missed_is_marked() -> None:
    said, other, none = Ear("my balance", 0.8, {}), Ear("baltic avenue", 1.0, {}), Ear("", 0.0, {})
    at = FEATURES.index("contradicted"), FEATURES.index("alone")

    def marks(first: Ear, second: Ear, c: Candidate) -> tuple[float, float]:
        x = features(first, second, c)
        return x[at[0]], x[at[1]]

    assert marks(said, other, _cand(True, False)) == (1.0, 0.0)
    assert marks(said, none, _cand(True, False)) == (0.0, 1.0)
    assert marks(said, said, _cand(True, True)) == (0.0, 0.0)
    assert marks(none, said, _cand(False, True)) == (0.0, 1.0)
