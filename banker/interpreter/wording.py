"""Commands in words: what Mr. Monopoly reads back ("Did you say pay rent on Park Place?").

A command is read back as a sentence of its own grammar (``grammars/commands.yaml``), the
first one that carries exactly its slots, so what he says back is something a player could
say; a command no sentence carries (an auction's sale) has its own short phrase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from banker.interpreter.replies import Replies
from banker.nlu.canonical import STREET_SLOTS
from banker.nlu.normalize import PLACEHOLDER
from banker.nlu.templates import Grammar
from banker.rules import Command, GameState, Line, Who
from banker.rules.base import places
from banker.rules.outcome import AllOf, Money

if TYPE_CHECKING:
    from banker.interpreter.session import Session

# status questions about one pot ("what's in the vault") answer only that, not the ranking
POTS = frozenset({"vault", "jackpot", "bank"})
SPOKEN = STREET_SLOTS | {"player", "amount", "number", "outcome"}


def describe(replies: Replies, cmd: Command, grammar: Grammar | None = None) -> str:
    """``cmd`` as a sentence of the grammar, or (none fits) its name and slot values."""
    # only what a player says: not the session's bookkeeping (yes, answered_by, held_by)
    slots = {k: v for k, v in cmd.intent.slots.items() if v is not None and k in SPOKEN}
    words = dict(zip(slots, slot_words(replies, slots), strict=True))
    if cmd.name == "auction" and {"property", "amount"} <= set(slots):
        return f"buy {words['property']} at auction for {words['amount']}"
    if cmd.name == "settle_debt" and "give" in slots:  # the answer to "which street…?"
        return f"give up {words['give']}"
    spec = grammar.intents.get(cmd.name) if grammar is not None else None
    if spec is not None and grammar is not None:
        values = {k: [(words[k], str(v))] for k, v in slots.items()}
        said = set(slots)
        best: tuple[int, str, list[str]] | None = None
        for exp in grammar.expand(spec, values):
            order = [k for k, _ in exp.slots]
            carried = set(order)
            if carried == said:
                return _fill_numbers(exp.text, order, words)
            if carried <= said and not (said - carried - STREET_SLOTS) and (
                    best is None or len(carried) > best[0]):
                # the command's own sentence without a street an answer added (the street
                # given up for rent): the words the player said, never without an amount
                best = (len(carried), exp.text, order)
        if best is not None:
            return _fill_numbers(best[1], best[2], words)
    # no sentence: the name and the values in one fixed order (a journal read back keeps
    # slots in its own order, and the same command must read the same after a resume)
    return " ".join([cmd.name.replace("_", " "),
                     *(words[k] for k in sorted(words, key=_slot_rank))])


def _slot_rank(slot: str) -> tuple[int, str]:
    order = ("player", "property", "give", "get", "amount", "number", "outcome")
    base = slot.rstrip("0123456789")
    return (order.index(base) if base in order else len(order), slot)


def _fill_numbers(text: str, order: list[str], words: Mapping[str, str]) -> str:
    """Put the amounts back where the grammar has its number placeholder."""
    numbers = [words[k] for k in order if k in ("amount", "number")]
    out = []
    for w in text.split():
        out.append(numbers.pop(0) if w == PLACEHOLDER and numbers else w)
    return " ".join(out)


def slot_words(replies: Replies, slots: Mapping[str, Any]) -> list[str]:
    return [replies.value(Who(v)) if k == "player" else
            (replies.edition.fmt(v) if k == "amount" and isinstance(v, int) else str(v))
            for k, v in slots.items()]


def about_a_pot(text: str) -> bool:
    """A status question that names the vault, the Jackpot or the bank."""
    return bool(POTS & set(text.lower().replace("'", " ").split()))


def pot_lines(lines: list[Line]) -> list[Line]:
    """A status answer without the ranking (the question was about a pot)."""
    return [ln for ln in lines if ln.key != "ranking_line"] or lines


def status_lines(s: Session, lines: list[Line]) -> list[Line]:
    """A status answer as asked: "what's in the vault" without the ranking; during an auction
    "who's winning" also says whose bid is highest (product.md: a banker says that too)."""
    if s.step.heard and about_a_pot(s.step.heard[-1]):
        lines = pot_lines(lines)
    a = s.auction
    if a is None:
        return lines
    if a.bidder is None:
        return [*lines, Line("auction_status_none", {"street": a.street,
                                                     "amount": Money(s.edition.auction.open)})]
    return [*lines, Line("auction_status", {"street": a.street, "player": Who(a.bidder),
                                            "amount": Money(a.amount)})]


def example_token(state: GameState, speaker: str | None = None) -> str:
    """A token that is playing, for an example to the table: another than the speaker when
    there is one (help and hints never name a token that isn't playing)."""
    seated = state.seated or list(state.order)
    return next((t for t in seated if t != speaker), seated[0] if seated else "")


def announce_result(s: Session) -> None:
    """A finished game's result: the ranking by the edition's measure, and the winner."""
    s.say("game_over")
    for place, t, v in places(s.rules.ranking(s.state)):
        s.say("ranking_line", place=place, player=Who(t), amount=Money(v))
    winners = s.state.winners
    if len(winners) > 1:
        s.say("winners_tie", players=AllOf(Who(w) for w in winners))
    elif winners:
        s.say("winner", player=Who(winners[0]))


def interrupted(s: Session, note: str) -> None:
    """Say what a crash interrupted (from the journal's last open dialogue note)."""
    if note.startswith("auction:"):
        s.say("auction_interrupted", street=note.split(":", 1)[1])
        return
    s.say({"betting": "betting_interrupted",
           "question:undo": "undo_interrupted"}.get(note, "dialogue_interrupted"))
