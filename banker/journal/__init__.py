"""The game journal: one SQLite file per game, one row per transaction (persistence at the edge).

Receives ``Transaction``s from the session and stores them durably (WAL, synchronous=FULL)
before Mr. Monopoly announces them; gives back the game's header and its live transactions.

Modules: ``sqlite`` (the game file: locking, creating, opening, repairing, writing),
``codec`` (transactions ↔ rows and JSON), ``wal`` (the raw bytes: torn tails),
``integrity`` (reading a file without trusting it), ``errors``.
"""

from banker.journal.codec import Header, Loaded
from banker.journal.errors import JournalError, JournalLocked
from banker.journal.sqlite import GameFile, default_game_path, latest_game
from banker.journal.wal import LAST_WRITE, PARTIAL_FRAME, UNCOMMITTED, scan_wal

__all__ = ["LAST_WRITE", "PARTIAL_FRAME", "UNCOMMITTED", "GameFile", "Header", "JournalError",
           "JournalLocked", "Loaded", "default_game_path", "latest_game", "scan_wal"]
