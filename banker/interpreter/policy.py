"""What a command would be, before anything is done: legal now?, how risky?, what it needs.

Pure: it asks the rules core (itself pure) and changes nothing. The session uses it to judge
what it heard (``hearing.judge``) and ``banker transcribe`` uses the same answers, so the two
can never disagree. A trial run (``trial``) is kept for the command it was made for, so the
command that follows a "legal?" question is not decided a second time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from banker.nlu.templates import Grammar
from banker.rules import QUERIES, Command, Draws, Hold, Intent, Money, Outcome, Refusal, Rules
from banker.rules.state import GameState

SESSION_INTENTS = frozenset({"undo", "repeat", "help", "cancel", "yes", "no", "answer"})
# Money is not a reason to prefer another reading of what was said: the rules will say why.
MONEY_REFUSALS = frozenset({"cannot_afford", "bid_too_high"})
AFFORD_REFUSALS = MONEY_REFUSALS | {"bet_too_high"}


@dataclass
class Trial:
    """One ``decide`` of one command on one state: its outcome and draws, or its refusal."""

    state: GameState
    command: Command
    forced: dict[str, Any]
    outcome: Outcome | None = None
    draws: Draws = field(default_factory=Draws)
    refusal: Refusal | None = None


@dataclass
class Policy:
    rules: Rules
    grammar: Grammar
    _last: Trial | None = None

    def risk(self, intent: str) -> str:
        """``harmless``, ``low`` or ``money`` (``risk:`` in the grammar; unknown: money)."""
        spec = self.grammar.intents.get(intent)
        return spec.risk if spec is not None else "money"

    def requires(self, intent: str) -> tuple[str, ...]:
        spec = self.grammar.intents.get(intent)
        return spec.requires if spec is not None else ()

    def trial(self, state: GameState, cmd: Command, forced: Mapping[str, Any]) -> Trial:
        """Decide ``cmd`` on ``state`` with the forced draws; a non-refusal error propagates.
        The same command on the same (unchanged) state returns the kept trial once."""
        last, self._last = self._last, None
        if (last is not None and last.state is state and last.command == cmd
                and last.forced == dict(forced)):
            return last
        t = Trial(state, cmd, dict(forced), draws=Draws(forced=dict(forced)))
        try:
            t.outcome = self.rules.decide(state, cmd, t.draws)
        except Refusal as r:
            t.refusal = r
        return t

    def clearer(self, state: GameState, cmd: Command, r: Refusal, forced: Mapping[str, Any]
                ) -> Refusal:
        """The reason a player needs first, when the rules' first reason hides it: an amount
        that is both not in whole bills and more than they have is "you can't afford it"
        (Jackpot "bet 99999"), and "I'm bankrupt" with cash and nothing owed says so."""
        amount, step = cmd.intent.get("amount"), r.params.get("step")
        if r.code == "hundreds" and isinstance(amount, int) and isinstance(step, int) and step > 0:
            up = -(-amount // step) * step
            t = self.trial(state, Command(cmd.player, cmd.intent.with_slots(amount=up)), forced)
            if t.refusal is not None and t.refusal.code in AFFORD_REFUSALS:
                params = dict(t.refusal.params)
                if "amount" in params:
                    params["amount"] = Money(amount)
                return Refusal(t.refusal.code, **params)
        cash = state.cash(cmd.player) if cmd.player in state.players else 0
        if r.code in ("not_bankrupt", "not_bankrupt_streets") and cash > 0:
            return Refusal("not_bankrupt_cash", cash=Money(cash))
        return r

    def legal(self, state: GameState, player: str, intent: str, slots: Mapping[str, Any], *,
              forced: Mapping[str, Any] | None = None, hold: Hold | None = None) -> bool:
        """Would the rules accept this now? (A money refusal still counts as legal.)"""
        return self.why_not(state, player, intent, slots, forced=forced, hold=hold) is None

    def why_not(self, state: GameState, player: str, intent: str, slots: Mapping[str, Any], *,
                forced: Mapping[str, Any] | None = None, hold: Hold | None = None) -> str | None:
        """The rules' refusal code for this command now; None when they would take it (a
        money refusal counts as taken; "error": deciding it failed)."""
        if intent in SESSION_INTENTS or intent in QUERIES or intent == "bid":
            return None
        if any(slots.get(s) is None for s in self.requires(intent)):
            return None  # the first step of a two-step command: the rest is asked for
        cmd = in_hold(Command(player, Intent(intent, dict(slots))), hold)
        try:
            t = self.trial(state, cmd, forced or {})
        except Exception:
            return "error"
        self._last = t
        if t.refusal is None or t.refusal.code in MONEY_REFUSALS:
            return None
        return t.refusal.code


def in_hold(cmd: Command, hold: Hold | None) -> Command:
    """A command the open hold allows carries whose dialogue it is (``held_by``): the rules
    are pure, and this is how they know e.g. who took the Jackpot chance."""
    if hold is not None and cmd.name in hold.allowed:
        return Command(cmd.player, cmd.intent.with_slots(held_by=hold.owner))
    return cmd


def plain(slots: Mapping[str, Any]) -> dict[str, Any]:
    """Slots as the journal stores them (JSON scalars)."""
    return {k: (v if isinstance(v, (int, str, bool, float)) or v is None else str(v))
            for k, v in slots.items()}
