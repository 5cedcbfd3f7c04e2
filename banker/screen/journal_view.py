"""The game as its journal holds it, read without touching the game: every entry, undone too.

The table screen's log strikes undone transactions through, and ``Loaded`` (what a resume
reads) keeps only the live ones, so the screen reads the entries itself: a read-only SQLite
connection beside the game's writer (WAL lets readers and the writer work at once; a reader
never blocks a commit). Entries are appended and never rewritten, so each read asks only for
the entries after the last one seen.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from banker.ledger import Transaction
from banker.rules import event_from_json


@dataclass
class Entry:
    """One journalled transaction and whether a later entry undid it."""

    tx: Transaction
    at: float
    undone: bool = False


@dataclass
class JournalView:
    """The transactions of one game file, in order, kept up to date by ``refresh``."""

    path: Path
    entries: list[Entry] = field(default_factory=list)
    last_seq: int = 0

    def refresh(self) -> bool:
        """Read the entries added since the last call; True if anything changed."""
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=0.5)
        except sqlite3.Error:
            return False
        try:
            rows = db.execute("SELECT seq, kind, body, at FROM entries WHERE seq > ? ORDER BY seq",
                              (self.last_seq,)).fetchall()
        except sqlite3.Error:
            return False
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        changed = False
        for seq, kind, body, at in rows:
            self.last_seq = max(self.last_seq, int(seq))
            changed |= self._take(int(seq), str(kind), str(body), float(at))
        return changed

    def _take(self, seq: int, kind: str, body: str, at: float) -> bool:
        try:
            data = json.loads(body)
            if kind == "tx":
                events = [event_from_json(e) for e in data["events"]]
                tx = Transaction(data.get("player"), str(data.get("intent", "")), dict(data.get("slots", {})),
                                 events, [str(s) for s in data.get("said", [])],
                                 [str(p) for p in data.get("participants", [])], seq)
                self.entries.append(Entry(tx, at))
                return True
            if kind == "undo":
                target = int(data["target"])
                for e in self.entries:
                    if e.tx.seq == target:
                        e.undone = True
                return True
        except (ValueError, KeyError, TypeError, AttributeError):
            return False  # a damaged entry: the resume's repair deals with it, not the screen
        return False  # notes (dialogue markers) don't change the state

    @property
    def live(self) -> list[Transaction]:
        """The transactions that stand (what the session's history and a resume fold)."""
        return [e.tx for e in self.entries if not e.undone]
