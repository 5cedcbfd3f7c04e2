"""The hearing policy, as a table: recogniser confidence x risk x legality -> decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from banker.editions import load_edition
from banker.interpreter.hearing import (
    ACCEPT_LOW,
    ACCEPT_MONEY,
    CONFIRM_FLOOR,
    ILLEGAL_FACTOR,
    judge,
)
from banker.nlu.matcher import Ambiguous, NotRecognized, Recognized

RISK = {"buy": "money", "balance": "harmless", "go_to_jail": "low", "pay": "money"}


def risk(intent: str) -> str:
    return RISK.get(intent, "money")


def legal(_intent: str, _slots: Mapping[str, Any]) -> bool:
    return True


def illegal(_intent: str, _slots: Mapping[str, Any]) -> bool:
    return False


BUY = Recognized("buy", {"property": "Baltic Avenue"}, 100.0, 100.0, "buy baltic avenue")
BALANCE = Recognized("balance", {}, 100.0, 100.0, "what is my balance")
JAIL = Recognized("go_to_jail", {}, 100.0, 100.0, "go to jail")


@pytest.mark.parametrize(("match", "asr", "decision"), [
    (BUY, None, "accept"),  # typed text: one command matched, do it
    (BUY, 0.99, "accept"),
    (BUY, ACCEPT_MONEY - 0.05, "confirm"),  # money on an uncertain hearing: ask first
    (BUY, CONFIRM_FLOOR - 0.05, "reject"),  # chatter-like: ignore
    (BALANCE, 0.75, "accept"),  # a query is harmless: answer it
    (BALANCE, 0.62, "accept"),  # ... sooner than a command that moves anything
    (JAIL, 0.62, "confirm"),
    (BALANCE, 0.5, "reject"),  # never "did you say what's my balance?": just "sorry?"
    (BALANCE, 0.2, "reject"),
    (JAIL, 0.8, "accept"),
    (JAIL, 0.6, "confirm"),
    (NotRecognized("order a pizza"), 0.99, "reject"),
    (NotRecognized("order a pizza"), None, "reject"),
])
def test_decision_table(match: Any, asr: float | None, decision: str) -> None:
    h = judge(match, asr, risk, legal)
    assert h.decision == decision
    assert (h.intent == "none") == (decision == "reject")


def test_money_is_never_moved_on_an_uncertain_hearing() -> None:
    for conf in [i / 100 for i in range(0, round(ACCEPT_MONEY * 100))]:
        assert judge(BUY, conf, risk, legal).decision != "accept", conf


def test_a_command_the_rules_would_refuse_needs_more_certainty() -> None:
    conf = ACCEPT_MONEY + 0.02
    assert judge(BUY, conf, risk, legal).decision == "accept"
    assert judge(BUY, conf, risk, illegal).decision == "confirm"


def test_a_close_runner_up_lowers_confidence() -> None:
    close = Recognized("buy", {"property": "Baltic Avenue"}, 100.0, 3.0, "buy baltic")
    assert judge(close, ACCEPT_MONEY + 0.02, risk, legal).decision == "confirm"


def test_ambiguous_names_are_asked_about_or_settled_by_legality() -> None:
    a = Recognized("buy", {"property": "Park Place"}, 90.0, 0.0)
    b = Recognized("buy", {"property": "Pacific Avenue"}, 90.0, 0.0)
    amb = Ambiguous((a, b), "buy pa")
    h = judge(amb, 0.95, risk, legal)
    assert h.decision == "confirm" and len(h.candidates) == 2
    only_b = judge(amb, 0.99, risk, lambda _i, s: s.get("property") == "Pacific Avenue")
    assert only_b.slots == {"property": "Pacific Avenue"}
    assert judge(amb, 0.1, risk, legal).decision == "reject"


# --- n-best alternatives from the real recogniser --------------------------

def test_an_unsure_hearing_carries_other_readings_a_sure_one_none(vb_grammar: Any) -> None:
    """With n-best on, espeak's "buy park place" is heard unsure ("buy park please"): the
    lattice's other readings come with it, each weaker than the winner and different from it;
    piper's clear clip pays for no lattice."""
    from banker.interpreter.session import Session, VirtualClock
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning
    from banker.tools import clips

    recognizer = PocketsphinxRecognizer(vb_grammar, Tuning(nbest=3))
    unsure = recognizer.recognize(clips.pad(clips.speech("buy park place", clips.ESPEAK)), "any")
    assert unsure.confidence < recognizer.tuning.nbest_below, unsure
    assert unsure.alternatives, unsure
    assert all(t != unsure.text and 0 <= c <= unsure.confidence for t, c in unsure.alternatives)
    sure = recognizer.recognize(clips.pad(clips.speech("buy park place", clips.PIPER)), "any")
    assert sure.confidence >= recognizer.tuning.nbest_below and sure.alternatives == (), sure
    # and the session takes them as they come (nothing moves on an unsure hearing)
    s = Session(load_edition("voice-banking"), ["racecar", "dog"], clock=VirtualClock())
    s.hear("racecar", unsure.text, unsure.confidence, unsure.alternatives)
    assert not s.history and s.pending is not None


def test_n_best_reads_the_first_pass_and_decodes_no_more(vb_grammar: Any) -> None:
    """The alternatives come from the grammar pass's own lattice: an unsure hearing with n-best
    on decodes as often as with it off (the grammar pass and the phone loop), and the same
    audio gives the same readings every time."""
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning
    from banker.tools import clips

    recognizer = PocketsphinxRecognizer(vb_grammar, Tuning(nbest=3))
    passes: list[int] = []
    decode = recognizer._decode

    def counted(pcm: Any) -> None:
        passes.append(len(pcm))
        decode(pcm)

    recognizer._decode = counted  # type: ignore[method-assign]
    if recognizer.phones is not None:  # the phone loop on its own decoder (phone_loop.py)
        start = recognizer.phones.start

        def started(pcm: Any, *norm: str) -> None:
            passes.append(len(pcm))
            start(pcm, *norm)

        recognizer.phones.start = started  # type: ignore[method-assign]
    pcm = clips.pad(clips.speech("pay rent on park place", clips.ESPEAK))
    first = recognizer.recognize(pcm, "any")
    assert first.confidence < recognizer.tuning.nbest_below and first.alternatives, first
    assert len(passes) == 2, passes  # no second decode for the lattice
    again = recognizer.recognize(pcm, "any")
    assert again.alternatives == first.alternatives and len(passes) == 4


def test_n_best_is_off_by_default(recognizer: Any) -> None:
    from banker.tools import clips

    unsure = recognizer.recognize(clips.pad(clips.speech("buy park place", clips.ESPEAK)), "any")
    assert unsure.confidence < recognizer.tuning.nbest_below and unsure.alternatives == ()


def test_a_clear_command_the_rules_would_refuse_is_refused_at_once() -> None:
    """Refusing moves nothing: an illegal money command needs a low-risk command's
    certainty (after the illegal factor), never less; below it, it is read back first."""
    sure = ACCEPT_LOW / ILLEGAL_FACTOR + 0.01
    assert judge(BUY, sure, risk, illegal).decision == "accept"
    assert judge(BUY, sure - 0.03, risk, illegal).decision == "confirm"
