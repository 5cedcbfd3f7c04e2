"""Undo: the last transaction taken back, with the agreement of everyone it touched.

The one who asks may undo at once what only they took part in; otherwise the other
participants are asked (``UndoQuestion``) and a yes from one of them undoes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from banker.interpreter.questions import ANSWER_TIMEOUT, UndoQuestion
from banker.ledger import JournalWriteError, Transaction
from banker.rules import Command, Intent, Money, Who

if TYPE_CHECKING:
    from banker.interpreter.session import Session


def what(tx: Transaction, balances: Iterable[str] = ()) -> str:
    """What a transaction was, in a few words, for "undone: …": its reply's first line
    without the balances it ended with (``balances``, as written: the cash the undo takes
    back), which would be said before the balances the undo gives ("… again")."""
    if not tx.said:
        return tx.intent.replace("_", " ")
    return without_balances(tx.said[0], set(balances)).rstrip(".!")


def without_balances(text: str, balances: set[str]) -> str:
    """``text`` without the sentences at its end that state one of ``balances``."""
    sentences = re.findall(r"[^.!?]+[.!?]*", text)
    while len(sentences) > 1 and _balance(sentences[-1], balances):
        sentences.pop()
    return "".join(sentences).strip()


def _balance(sentence: str, balances: set[str]) -> bool:
    """"You have M1,590.", "M1,440 left.", "Racecar has M1,590 left.": one of ``balances``."""
    words = set(re.findall(r"[A-Za-z]+", sentence.lower()))
    return bool(words & {"left", "have", "has"}) and any(b in sentence for b in balances)


def brief(s: Session, tx: Transaction) -> str:
    """The command a transaction came from, read back as a sentence ("pay M100 to Dog"),
    for the undo question: short, unlike the whole reply it was announced with."""
    return s.describe(Command(tx.player or "", Intent(tx.intent, dict(tx.slots))))


def ask_undo(s: Session, player: str) -> None:
    """``player`` said "undo"."""
    if s.hold is not None:
        s.refuse("hold_busy", kind=s.hold.kind)
        return
    if s.auction is not None:
        s.refuse("auction_busy_line")
        return
    undoable = [tx for tx in s.history if tx.intent != "force"]
    if not undoable:
        s.say("nothing_to_undo")
        return
    tx = undoable[-1]
    if player in tx.participants or not tx.participants:
        do_undo(s, tx, player)
        return
    s.pending = UndoQuestion(asked=frozenset(tx.participants),
                             deadline=s.clock.now() + ANSWER_TIMEOUT, undo_seq=tx.seq,
                             on_timeout="undo_declined")
    s.say("undo_confirm", player=Who(player), what=brief(s, tx), by=Who(tx.player or ""),
          asked=Who(who_is_asked(s, tx)))


def who_is_asked(s: Session, tx: Transaction) -> str:
    """The participant the undo question names (any participant's yes counts): one still at
    the table (a player the transaction made bankrupt has left), the one who made it first,
    then the others in turn order."""
    seated = [p for p in tx.participants if p in s.state.seated] or list(tx.participants)
    order = {p: i for i, p in enumerate(s.state.order)}
    return min(seated, key=lambda p: (p != tx.player, order.get(p, len(order))))


def agreed(s: Session, p: UndoQuestion, player: str) -> None:
    """A yes to the undo question."""
    tx = next((t for t in s.history if t.seq == p.undo_seq), None)
    if tx is not None:
        do_undo(s, tx, player)


def do_undo(s: Session, tx: Transaction, player: str | None) -> None:
    if s.journal is not None:
        try:
            s.journal.append_undo(tx.seq, player)
        except JournalWriteError as exc:
            s.say("refused." + exc.code)
            return
    s.notes.committed(s.pending)  # the undo row closed every dialogue on disk, as a tx does
    before = s.state
    s.history = [t for t in s.history if t.seq != tx.seq]
    s.state = s.committed_state()
    s.say("undone", what=what(tx, {s.edition.fmt(before.cash(p)) for p in before.players}))
    first = [tx.player] if tx.player in s.state.order else []
    for p in first + [o for o in s.state.order if o not in first]:
        # "Undone: …" quotes the old reply without its balances: say the new ones
        if p in before.players and before.cash(p) != s.state.cash(p):
            s.say("undone_cash", player=Who(p), cash=Money(s.state.cash(p)))
    s.ask_owed(again=True)
