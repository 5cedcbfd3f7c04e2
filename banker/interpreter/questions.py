"""The session's own open questions (not the rules'): what was asked, of whom, until when.

Five kinds: ``confirm`` ("Did you say…?"), ``choose`` ("Which one: …?"), ``slot`` (the second
step of a two-step command), ``rule`` (a question the rules asked, ``Question``) and ``undo``
(the other players' agreement). ``answers.py`` judges what is said while one is open.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from banker.interpreter.hearing import Hearing
from banker.rules import Command, Intent, Line, Question

if TYPE_CHECKING:
    from banker.interpreter.session import Session

Kind = Literal["confirm", "choose", "slot", "rule", "undo"]
ANSWER_TIMEOUT = 10.0
SLOT_PROMPTS = {"property": "two_step", "give": "two_step_trade_give",
                "get": "two_step_trade_get", "amount": "refused.which_amount",
                "player": "two_step_player", "outcome": "two_step_outcome",
                "number": "ask_guess"}
# what the recogniser should listen for, by the slot a question fills
EXPECT_BY_SLOT = {"property": "street", "give": "street", "get": "street", "yes": "yes_no",
                  "number": "number", "player": "player", "amount": "amount"}


@dataclass
class Pending:
    """An open question of the session (not of the rules)."""

    kind: Kind
    asked: frozenset[str]
    deadline: float | None
    command: Command | None = None  # what happens on yes / on a filled slot
    slot: str = ""
    candidates: tuple[Command, ...] = ()
    rule: Question | None = None
    lapses: bool = True
    on_timeout: str = ""  # reply key said when it lapses by time
    undo_seq: int = 0
    back: Pending | None = None  # confirm of a spoken answer: the question it answers
    marked: bool = False  # its opening is noted in the journal (a resume says it was cut short)

    def marker(self) -> str:
        """The journal's name for this question (``Session.interrupted`` reads it back)."""
        if self.kind == "rule" and self.rule is not None:
            return self.rule.key
        return f"question:{self.kind}"

    def wants_yes(self) -> bool:
        """Answered by yes or no (a press is a yes)."""
        return self.kind in ("confirm", "undo") or (
            self.kind == "rule" and self.rule is not None and self.rule.slot == "yes")

    def filled_slot(self) -> str:
        """The slot an answer fills ("" for a yes/no or a choice)."""
        if self.kind == "slot":
            return self.slot
        return self.rule.slot if self.rule is not None else ""

    def prompt(self) -> Line:
        """The question said again."""
        if self.rule is not None:
            return Line(self.rule.key, self.rule.params)
        return Line(SLOT_PROMPTS.get(self.slot, "two_step"))

    def expecting(self) -> str:
        """What the recogniser should listen for while this is open."""
        if self.kind in ("confirm", "undo"):
            return "yes_no"
        if self.kind == "choose":
            return "street"
        return EXPECT_BY_SLOT.get(self.filled_slot(), "any")


def differing_names(cands: tuple[Command, ...]) -> list[str]:
    """The names that tell candidates apart ("Which one: Baltic Avenue or Park Place?")."""
    names: list[str] = []
    for c in cands:
        for v in c.intent.slots.values():
            if isinstance(v, str) and v not in names and not all(
                    v in d.intent.slots.values() for d in cands):
                names.append(v)
    return names


def ask_confirm(s: Session, player: str, hearing: Hearing) -> None:
    """ "Did you say …?" about an uncertain hearing: nothing moves until yes."""
    cmd = Command(player, Intent(hearing.intent, dict(hearing.slots)))
    cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
    s.pending = Pending("confirm", frozenset({player}), s.clock.now() + ANSWER_TIMEOUT,
                        command=cmd, candidates=cands)
    s.step.intent, s.step.slots = cmd.name, dict(cmd.intent.slots)
    s.say("did_you_say", text=s.describe(cmd))


def ask_choose(s: Session, player: str, hearing: Hearing) -> None:
    """ "Which one: …?" when a name fits several commands."""
    cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
    s.pending = Pending("choose", frozenset({player}), s.clock.now() + ANSWER_TIMEOUT,
                        candidates=cands)
    s.say("which_one", options=differing_names(cands))


def ask_slot(s: Session, cmd: Command, slot: str) -> None:
    """The second step of a two-step command ("Which street?")."""
    s.pending = Pending("slot", frozenset({cmd.player}), s.clock.now() + ANSWER_TIMEOUT,
                        command=cmd, slot=slot, on_timeout="sorry")
    s.say(SLOT_PROMPTS.get(slot, "two_step"))


def ask_rule(s: Session, q: Question) -> None:
    """A question the rules asked."""
    asked = frozenset({q.asked}) if q.asked != "*" else frozenset(s.state.seated)
    deadline = s.clock.now() + q.timeout if q.timeout else None
    s.pending = Pending("rule", asked, deadline, rule=q, lapses=q.lapses,
                        on_timeout=str(q.params.get("on_timeout", "")))
    s.say_line(Line(q.key, q.params))
