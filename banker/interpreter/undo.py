"""Undo: the last transaction taken back, with the agreement of everyone it touched.

The one who asks may undo at once what only they took part in; otherwise the other
participants are asked (``UndoQuestion``) and a yes from one of them undoes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from banker.interpreter.questions import ANSWER_TIMEOUT, UndoQuestion
from banker.ledger import JournalWriteError, Transaction
from banker.rules import Command, Intent, Money, Who

if TYPE_CHECKING:
    from banker.interpreter.session import Session


def what(tx: Transaction) -> str:
    """What a transaction was, in a few words, for "undone: …"."""
    return tx.said[0].rstrip(".!") if tx.said else tx.intent.replace("_", " ")


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
    asked = frozenset(tx.participants)
    s.pending = UndoQuestion(asked=asked, deadline=s.clock.now() + ANSWER_TIMEOUT,
                             undo_seq=tx.seq, on_timeout="undo_declined")
    s.say("undo_confirm", player=Who(player), what=brief(s, tx), by=Who(tx.player or ""),
          asked=Who(tx.participants[0]))


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
    s.say("undone", what=what(tx))
    first = [tx.player] if tx.player in s.state.order else []
    for p in first + [o for o in s.state.order if o not in first]:
        # "Undone: …" quotes the old reply, balance and all: say the new balances
        if p in before.players and before.cash(p) != s.state.cash(p):
            s.say("undone_cash", player=Who(p), cash=Money(s.state.cash(p)))
    s.ask_owed(again=True)
