"""The game as its journal holds it, read without touching the game: every entry, undone too.

The table screen's log strikes undone transactions through, and ``Loaded`` (what a resume
reads) keeps only the live ones, so the screen reads the rows itself: a read-only SQLite
connection beside the game's writer (WAL lets readers and the writer work at once; a reader
never blocks a commit), the rows decoded by the journal's codec (``add_entries``). Entries are
appended and never rewritten, so each read asks only for the entries after the last one seen.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from banker.journal.codec import Entry, add_entries
from banker.ledger import Transaction

__all__ = ["Entry", "JournalView"]


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
            rows = db.execute("SELECT seq, kind, body, crc, at FROM entries WHERE seq > ? "
                              "ORDER BY seq", (self.last_seq,)).fetchall()
        except sqlite3.Error:
            return False
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        if rows:
            self.last_seq = max(self.last_seq, *(int(r[0]) for r in rows))
        return add_entries(self.entries, [(int(seq), str(kind), str(body), str(crc), float(at))
                                          for seq, kind, body, crc, at in rows])

    @property
    def live(self) -> list[Transaction]:
        """The transactions that stand (what the session's history and a resume fold)."""
        return [e.tx for e in self.entries if not e.undone]
