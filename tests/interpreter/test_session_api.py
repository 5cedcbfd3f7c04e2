"""The session's public face after the split: ``understand`` changes nothing,
``hear``/``command`` act, and a spoken command is decided by the rules once, not twice."""

from __future__ import annotations

from typing import Any

from banker.editions import load_edition
from banker.interpreter.hearing import Said
from banker.interpreter.session import Session, VirtualClock
from banker.rules import Command, Draws, Outcome, rules_for

VB = load_edition("voice-banking")


class CountingRules:
    """The real Voice Banking rules, counting ``decide`` calls."""

    def __init__(self) -> None:
        self.real = rules_for(VB)
        self.decided: list[str] = []

    def decide(self, state: Any, cmd: Command, draws: Draws) -> Outcome:
        self.decided.append(cmd.name)
        return self.real.decide(state, cmd, draws)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _table() -> tuple[Session, CountingRules, list[str]]:
    rules = CountingRules()
    said: list[str] = []
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), on_say=said.append,
                rules=rules)  # type: ignore[arg-type]
    return s, rules, said


def test_understand_changes_nothing() -> None:
    s, _rules, said = _table()
    before = s.state.view()
    h = s.understand(Said("buy Baltic Avenue", 0.97), "racecar")
    assert (h.decision, h.intent, dict(h.slots)) == ("accept", "buy", {"property": "Baltic Avenue"})
    assert s.understand("pay 5000 to the dog").intent == "pay"  # typed: first in turn order
    assert s.state.view() == before and not s.history and not said and s.pending is None


def test_a_spoken_command_is_decided_once() -> None:
    s, rules, _said = _table()
    s.hear("racecar", "buy Baltic Avenue", 0.97)
    assert s.state.owner("Baltic Avenue") == "racecar"
    assert rules.decided == ["buy"], rules.decided  # the "legal?" trial is the decision


def test_a_changed_state_is_decided_again() -> None:
    s, rules, _said = _table()
    assert s.legal("racecar", "buy", {"property": "Baltic Avenue"})
    s.hear("dog", "buy Baltic Avenue")  # typed: the dog buys it first
    s.hear("racecar", "buy Baltic Avenue", 0.97)
    assert s.state.owner("Baltic Avenue") == "dog"
    assert rules.decided.count("buy") >= 3  # the kept trial was for another state
