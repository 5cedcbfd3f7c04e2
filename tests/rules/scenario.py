"""One given / when / then helper for the pure rules core (eventsourcing's test style).

``given`` events (or a state), ``when`` a player says a command, ``then`` the outcome's events
and lines, or a refusal code. Every event of every outcome is applied one at a time and the
edition's invariants are checked after each; ``decide`` must never change the state it reads;
and a refusal must leave the state exactly as it was (every field, not only the view).

    sc = Scenario.new("secret-vault", ("duck", "dog"))
    sc.given(CashMoved("duck", "bank", 2990))
    out = sc.when("duck", "tax")
    assert keys(out) == ["short", "can_mortgage"] or ...
    assert sc.refused("duck", "buy", property="Boardwalk") == "locked"
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from banker.editions import Edition, load_edition
from banker.rules import Command, Draws, Intent, Outcome, Refusal, Rules, rules_for
from banker.rules.events import Event, apply_in_place
from banker.rules.invariants import check
from banker.rules.state import GameState


def snapshot(state: GameState) -> dict[str, Any]:
    """Every field of ``state`` but the (immutable, shared) edition, deep-copied."""
    return copy.deepcopy({k: v for k, v in vars(state).items() if k != "edition"})


def keys(out: Outcome) -> list[str]:
    """The reply keys of an outcome's lines, in order."""
    return [line.key for line in out.lines]


def kinds(out: Outcome) -> list[str]:
    """The kinds of an outcome's events, in order."""
    return [e.kind for e in out.events]


class Scenario:
    """A game on the pure rules: ``state`` moves on with every ``when``/``given``."""

    def __init__(self, rules: Rules, state: GameState) -> None:
        self.rules = rules
        self.state = state
        self.total = state.edition.money_total
        self.events = 0
        self.assert_invariants("at the start")

    @classmethod
    def new(cls, edition: str | Path | Edition, players: Sequence[str],
            options: dict[str, str] | None = None, seed: int = 1,
            rules: Rules | None = None) -> Scenario:
        ed = edition if isinstance(edition, Edition) else load_edition(edition)
        rules = rules or rules_for(ed)
        return cls(rules, rules.initial_state(list(players), dict(options or {}), seed))

    def fork(self, state: GameState | None = None) -> Scenario:
        """Another scenario from ``state`` (a copy of it; default: this one's)."""
        return Scenario(self.rules, (state or self.state).clone())

    # --- given ----------------------------------------------------------------------------
    def given(self, *events: Event) -> Scenario:
        """Facts that already happened (applied and checked like any outcome's events)."""
        self.apply(list(events), "given")
        return self

    # --- when -----------------------------------------------------------------------------
    def decide(self, who: str, intent: str, /, forced: dict[str, Any] | None = None,
               **slots: Any) -> Outcome:
        """The outcome of ``who`` saying ``intent``, not applied (the state is unchanged)."""
        return self.decide_command(Command(who, Intent(intent, slots)), forced)

    def decide_command(self, cmd: Command, forced: dict[str, Any] | None = None) -> Outcome:
        before = snapshot(self.state)
        out = self.rules.decide(self.state, cmd, Draws(forced=dict(forced or {})))
        assert snapshot(self.state) == before, f"decide changed the state it read ({cmd})"
        return out

    def when(self, who: str, intent: str, /, forced: dict[str, Any] | None = None,
             **slots: Any) -> Outcome:
        """``who`` says ``intent``: its outcome is applied event by event."""
        out = self.decide(who, intent, forced, **slots)
        self.apply(out.events, intent)
        return out

    def answer(self, out: Outcome, **slots: Any) -> Outcome:
        """Answer ``out``'s question (or, as the session does, the question an open debt asks
        from the state): its ``then`` command, decided again with the answer."""
        question = out.question or self.rules.debt_question(self.state)
        assert question is not None, "nothing was asked"
        then = question.then
        again = self.decide_command(Command(then.player, then.intent.with_slots(**slots)))
        self.apply(again.events, then.name)
        return again

    # --- then -----------------------------------------------------------------------------
    def refusal(self, who: str, intent: str, /, **slots: Any) -> Refusal:
        """The refusal of ``who`` saying ``intent``; it must leave the state unchanged."""
        before = snapshot(self.state)
        with pytest.raises(Refusal) as exc:
            self.rules.decide(self.state, Command(who, Intent(intent, slots)), Draws())
        assert snapshot(self.state) == before, f"the refused {intent} changed the state"
        return exc.value

    def refused(self, who: str, intent: str, /, **slots: Any) -> str:
        """The refusal code of ``who`` saying ``intent`` (the state unchanged)."""
        return self.refusal(who, intent, **slots).code

    def cash(self, token: str) -> int:
        return self.state.cash(token)

    # --- plumbing -------------------------------------------------------------------------
    def apply(self, events: list[Event], what: str) -> None:
        for e in events:
            apply_in_place(self.state, e)
            self.events += 1
            self.assert_invariants(f"after {e} of {what}")

    def assert_invariants(self, where: str) -> None:
        problems = check(self.state, self.total)
        assert problems == [], f"{where}: {problems}"
