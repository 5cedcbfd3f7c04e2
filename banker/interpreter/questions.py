"""The session's own open questions (not the rules'): what was asked, of whom, until when.

Five small classes: ``Confirm`` ("Did you say…?"), ``Choose`` ("Which one: …?"),
``SlotQuestion`` (the second step of a two-step command), ``RuleQuestion`` (a question the
rules asked, ``Question``) and ``UndoQuestion`` (the other players' agreement). Each knows how
it is asked again, what it listens for and what its time-out says; ``answers.py`` judges what
is said while one is open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from banker.interpreter.hearing import Hearing
from banker.rules import Command, Intent, Line, Question, Who

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


@dataclass(kw_only=True)
class Pending:
    """An open question of the session (not of the rules): whom it asks, until when, whether
    anything else cancels it (``lapses``), and what is said when its time runs out."""

    kind: ClassVar[Kind]
    asked: frozenset[str]
    deadline: float | None
    lapses: bool = True
    on_timeout: str = ""  # reply key said when it lapses by time
    marked: bool = False  # its opening is noted in the journal (a resume says it was cut short)
    unsure_yes: float = 0.0  # the surest spoken "yes" to it so far, too unsure to count alone
    unclear: int = 0  # spoken answers to it running that were not understood at all

    def marker(self) -> str:
        """The journal's name for this question (``Session.interrupted`` reads it back)."""
        return f"question:{self.kind}"

    def wants_yes(self) -> bool:
        """Answered by yes or no (a press is a yes)."""
        return False

    def dropped_by(self, player: str) -> bool:
        """Does ``player``'s other command drop this question (one that lapses)? Only the
        asked player's (dialogues.md: "another command by that player"): the others play on
        and the answer is decided again when it comes."""
        return player in self.asked

    def cancelled_by(self, player: str) -> bool:
        """Does ``player``'s "cancel" end it? The asked player's always; a question that never
        lapses only so; one that lapses as ``dropped_by`` says."""
        return player in self.asked or (self.lapses and self.dropped_by(player))

    def filled_slot(self) -> str:
        """The slot an answer fills ("" for a yes/no or a choice)."""
        return ""

    def prompt(self) -> Line:
        """The question said again."""
        return Line(SLOT_PROMPTS.get(self.filled_slot(), "two_step"))

    def expecting(self) -> str:
        """What the recogniser should listen for while this is open."""
        return "yes_no" if self.wants_yes() else EXPECT_BY_SLOT.get(self.filled_slot(), "any")

    def timeout_line(self) -> str:
        """The reply key said when its time runs out ("" : nothing)."""
        return self.on_timeout


@dataclass(kw_only=True)
class Confirm(Pending):
    """ "Did you say …?" about uncertain speech; ``back``: the question a spoken answer
    answered (confirmed by itself), ``candidates``: the other readings of a name."""

    kind: ClassVar[Kind] = "confirm"
    command: Command
    candidates: tuple[Command, ...] = ()
    back: Pending | None = None

    def wants_yes(self) -> bool:
        return True


@dataclass(kw_only=True)
class Choose(Pending):
    """ "Which one: Pacific Avenue or Pennsylvania Avenue?" """

    kind: ClassVar[Kind] = "choose"
    candidates: tuple[Command, ...]

    def expecting(self) -> str:
        """Listen for what tells the candidates apart: "Dog or T-Rex?" is answered with a
        token ("the dog"), which the street focus has no words for (it heard "that is all")."""
        kinds = {EXPECT_BY_SLOT.get(k, "any") for k in differing_slots(self.candidates)}
        return kinds.pop() if len(kinds) == 1 else "any"


@dataclass(kw_only=True)
class SlotQuestion(Pending):
    """The second step of a two-step command ("buy" - "Which street?")."""

    kind: ClassVar[Kind] = "slot"
    command: Command
    slot: str

    def filled_slot(self) -> str:
        return self.slot


@dataclass(kw_only=True)
class RuleQuestion(Pending):
    """A question the rules asked (``Question``): its answer completes ``rule.then``."""

    kind: ClassVar[Kind] = "rule"
    rule: Question

    def marker(self) -> str:
        return self.rule.key

    def wants_yes(self) -> bool:
        return self.rule.slot == "yes"

    def filled_slot(self) -> str:
        return self.rule.slot

    def prompt(self) -> Line:
        return Line(self.rule.key, self.rule.params)

    def timeout_line(self) -> str:
        return "agree_timeout" if self.rule.key == "ask_agree" else self.on_timeout


@dataclass(kw_only=True)
class UndoQuestion(Pending):
    """The agreement of a player who was in the transaction someone else wants undone."""

    kind: ClassVar[Kind] = "undo"
    undo_seq: int

    def wants_yes(self) -> bool:
        return True

    def dropped_by(self, player: str) -> bool:
        return True  # any new transaction changes what "the last transaction" is


def differing_names(cands: tuple[Command, ...]) -> list[str]:
    """The names that tell candidates apart ("Which one: Baltic Avenue or Park Place?")."""
    return differing_slot_names([c.intent.slots for c in cands])


def differing_slots(cands: tuple[Command, ...]) -> list[str]:
    """The slots whose values are not the same in every candidate, in order."""
    slots = [c.intent.slots for c in cands]
    keys = [k for one in slots for k in one]
    return [k for i, k in enumerate(keys) if k not in keys[:i]
            and any(one.get(k) != slots[0].get(k) for one in slots)]


def differing_slot_names(slots: Sequence[Mapping[str, Any]]) -> list[str]:
    """The names (string slot values) not shared by every one of ``slots``, in order."""
    names: list[str] = []
    for one in slots:
        for v in one.values():
            if isinstance(v, str) and v not in names and not all(
                    v in other.values() for other in slots):
                names.append(v)
    return names


# how long a "no" to "Did you say …?" stands against the same reading heard again: the
# player presses and says the command again at once (a simulated table, 10 dB pink noise:
# "pay one hundred to the racecar" heard "…one hundred two…" at 0.69 twice, refused twice,
# then at 0.88 and paid)
REFUSED_FOR = 30.0


def unless_refused(hearing: Hearing, refused: tuple[float, Command] | None,
                   confidence: float | None, now: float) -> Hearing:
    """``hearing``, asked about (confirm) instead of done at once when it is speech and the
    very command its player said "no" to (``refused``: when, and what) within
    ``REFUSED_FOR``: nothing moves on a reading the player just turned down."""
    if hearing.decision != "accept" or confidence is None or refused is None:
        return hearing
    when, cmd = refused
    if (now - when <= REFUSED_FOR and hearing.intent == cmd.name
            and dict(hearing.slots) == dict(cmd.intent.slots)):
        return replace(hearing, decision="confirm")
    return hearing


# an amount above this, where the edition's money is unlimited, is far beyond any game
FAR_BEYOND = 100_000


def far_beyond(hearing: Hearing, money_total: int | None) -> Hearing:
    """``hearing``, asked about (confirm) instead of done at once when its amount is more
    than all the money of the edition (``money_total``), or than ``FAR_BEYOND`` where money is
    unlimited: "collect one million" is a slip of the tongue or the keys, even when typed."""
    amount = hearing.slots.get("amount")
    limit = money_total if money_total is not None else FAR_BEYOND
    if hearing.decision != "accept" or not isinstance(amount, int) or amount <= limit:
        return hearing
    return replace(hearing, decision="confirm")


def ask_confirm(s: Session, player: str, hearing: Hearing) -> None:
    """ "Did you say …?" about an uncertain hearing: nothing moves until yes."""
    cmd = Command(player, Intent(hearing.intent, dict(hearing.slots)))
    cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
    s.pending = Confirm(asked=frozenset({player}), deadline=s.clock.now() + ANSWER_TIMEOUT,
                        command=cmd, candidates=cands)
    s.step.intent, s.step.slots = cmd.name, dict(cmd.intent.slots)
    s.say("did_you_say", text=s.describe(cmd))


def ask_choose(s: Session, player: str, hearing: Hearing) -> None:
    """ "Which one: …?" when a name fits several commands."""
    cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
    s.pending = Choose(asked=frozenset({player}), deadline=s.clock.now() + ANSWER_TIMEOUT,
                       candidates=cands)
    # a token by its name ("Dog or T-Rex?", not "Dog or trex?"), a street as it is written
    s.say("which_one", options=[Who(n) if n in s.state.players else n
                                for n in differing_names(cands)])


def ask_slot(s: Session, cmd: Command, slot: str) -> None:
    """The second step of a two-step command ("Which street?")."""
    s.pending = SlotQuestion(asked=frozenset({cmd.player}),
                             deadline=s.clock.now() + ANSWER_TIMEOUT, command=cmd, slot=slot,
                             on_timeout="sorry")
    s.say(SLOT_PROMPTS.get(slot, "two_step"))


def ask_rule(s: Session, q: Question) -> None:
    """A question the rules asked."""
    asked = frozenset({q.asked}) if q.asked != "*" else frozenset(s.state.seated)
    deadline = s.clock.now() + q.timeout if q.timeout else None
    s.pending = RuleQuestion(asked=asked, deadline=deadline, rule=q, lapses=q.lapses,
                             on_timeout=str(q.params.get("on_timeout", "")))
    s.say_line(Line(q.key, q.params))


def ask_owed(s: Session, again: bool = False) -> None:
    """The question an open debt asks ("which street will you give up?"), asked from the
    state whenever no other dialogue is open: after the transaction that opened it, after an
    undo or a stop (``again``: "you still owe…"), after the one before it is settled. A debt
    question whose debt is gone (paid, undone) is dropped."""
    p = s.pending
    if isinstance(p, RuleQuestion) and p.rule.then.name == "settle_debt":
        if s.state.debts_of(p.rule.then.player):
            return
        s.pending = None
        s.notes.flush()  # closed on disk now: nothing may be said before a stop
    if s.pending is not None or s.auction is not None or s.hold is not None:
        return
    q = s.rules.debt_question(s.state, again)
    if q is not None:
        ask_rule(s, q)
