"""The ledger's vocabulary, below both the journal and the interpreter.

A ``Transaction`` is one journal entry (a command, or a whole dialogue, and the events it
caused); ``Journal`` is what the interpreter needs of a store; ``JournalWriteError`` is how a
store says it could not keep an entry. The journal implements these and the interpreter uses
them, so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from banker.rules import Event


@dataclass
class Transaction:
    """One journal entry: a command (or a whole dialogue) and the events it caused."""

    player: str | None
    intent: str
    slots: dict[str, Any]
    events: list[Event]
    said: list[str]
    participants: list[str]
    seq: int = 0


class JournalWriteError(Exception):
    """The journal could not store a transaction (e.g. the disk is full)."""

    def __init__(self, code: str = "journal_error") -> None:
        self.code = code
        super().__init__(code)


class Journal(Protocol):
    """What the interpreter writes to: committed before anything is announced."""

    def append(self, tx: Transaction) -> int: ...
    def append_undo(self, target: int, player: str | None) -> int: ...
    def note(self, kind: str, text: str) -> None: ...
