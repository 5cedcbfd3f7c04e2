"""What the journal says about the dialogue in progress (a question, an auction, a betting
round): ``dialogue_open`` and ``dialogue_closed`` notes, in the order a resume reads them.

A resume trusts the last note, so the order is the whole point: a question's end is held
back until the next words are said (a transaction or an undo in between closes every
dialogue on its own), and is written before a new auction or betting round's "open", never after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from banker.ledger import Journal

if TYPE_CHECKING:
    from banker.interpreter.questions import Pending


class DialogueNotes:
    """The dialogue notes of one session (``journal_of``: its journal now, or None)."""

    def __init__(self, journal_of: Callable[[], Journal | None],
                 state_of: Callable[[], str | None] = lambda: None) -> None:
        self._journal_of = journal_of
        self._state_of = state_of  # every open dialogue as JSON (``dialogue_state.snapshot``)
        self._closing: str | None = None  # a question ended: journal it unless a tx does
        self._state: str | None = None  # the dialogue state as last written (None: nothing)

    def note(self, kind: str, marker: str) -> None:
        """An opening or closing, after a question's closing still unwritten."""
        self.flush()
        self._write(kind, marker)

    def opened(self, marker: str) -> None:
        """A question is asked: open on disk at once (any earlier one's end is moot)."""
        self._closing = None
        self.note("dialogue_open", marker)

    def ended(self, marker: str) -> None:
        """A question ended without a transaction: closed on disk before the next words."""
        self._closing = marker

    def asked_again(self, marker: str) -> bool:
        """The same question again with nothing said between: it never closed."""
        if self._closing != marker:
            return False
        self._closing = None
        return True

    def flush(self) -> None:
        """Before anything is said: the ended question is closed on disk, and every open
        dialogue is written down as it stands (``sync``)."""
        if self._closing is not None:
            closing, self._closing = self._closing, None
            self._write("dialogue_closed", closing)
        self.sync()

    def sync(self, force: bool = False) -> None:
        """Write the open dialogues (a ``dialogue_state`` note) if they changed since last
        written; an empty text says nothing is open any more."""
        if self._journal_of() is None:
            return
        text = self._state_of()
        if text != self._state or force:
            self._state = text
            self._write("dialogue_state", text or "")

    def committed(self, still_open: Pending | None) -> None:
        """A transaction or an undo closed every dialogue on disk (that is how a resume reads
        them); ``still_open``: the question open now (asked of another player, or of the one
        who undid) stays open, so it is noted open again if it was noted at all. The dialogue
        state is written again before the next words."""
        self._closing = None
        self._state = None
        if still_open is not None and still_open.marked:
            self._write("dialogue_open", still_open.marker())

    def _write(self, kind: str, marker: str) -> None:
        journal = self._journal_of()
        if journal is not None:
            journal.note(kind, marker)
