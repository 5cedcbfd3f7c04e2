"""The game journal: one SQLite file per game, one row per transaction (persistence at the edge).

Receives ``Transaction``s from the session and stores them durably (WAL, synchronous=FULL)
before Mr. Monopoly announces them; gives back the game's header and its live transactions.
"""

from banker.journal.sqlite import (
    GameFile,
    JournalError,
    JournalLocked,
    default_game_path,
    latest_game,
)

__all__ = ["GameFile", "JournalError", "JournalLocked", "default_game_path", "latest_game"]
