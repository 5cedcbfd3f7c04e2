"""The SQLite journal: one game file per game, one row per entry. Undo is an entry of its own;
history is never rewritten.

A damaged file is never overwritten: what can be read (``banker.journal.integrity``) is copied
into a new file and the original is kept beside it as ``<name>.damaged`` (with its ``-wal`` as
``<name>.damaged-wal``).

A torn tail (``banker.journal.wal``) only ever holds the write that was in progress, which was
never announced (announcing waits for the commit, fsynced): a resume keeps every announced
transaction and says up to which one it kept. Not only power cuts tear: a process killed with
SIGKILL while ``write()`` runs can leave a partial frame too. The one torn tail that is *not*
damage is the journal's own refused write (disk full): the journal knows it rolled it back and
cuts those scraps off when it closes, so a full disk is not reported as a damaged file later.

``peek`` reads a game without changing any file (``banker state``), also while another
banker plays it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from banker.journal.codec import (
    VOICE_NOTE,
    Header,
    Loaded,
    Row,
    encode,
    from_rows,
    meta_items,
    note_body,
    tx_body,
    undo_body,
)
from banker.journal.errors import JournalError, JournalLocked
from banker.journal.integrity import Inspection, inspect, read_live
from banker.journal.wal import LAST_WRITE, PARTIAL_FRAME, UNCOMMITTED, WAL_HEADER, beside, scan_wal
from banker.ledger import JournalWriteError, Transaction
from banker.paths import user_data_dir

# Names other modules and tests import from here (older import path; banker.journal has them all).
__all__ = ["LAST_WRITE", "PARTIAL_FRAME", "UNCOMMITTED", "GameFile", "Header", "JournalError",
           "JournalLocked", "Loaded", "default_game_path", "latest_game", "scan_wal"]

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
    "body TEXT NOT NULL, crc TEXT NOT NULL, at REAL NOT NULL)",
)


def default_game_path() -> Path:
    folder = user_data_dir() / "games"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"game-{stamp}.sqlite"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"game-{stamp}-{n}.sqlite"
    return path


def latest_game() -> Path | None:
    folder = user_data_dir() / "games"
    games = sorted(folder.glob("*.sqlite"), key=lambda p: p.stat().st_mtime) if folder.exists() else []
    return games[-1] if games else None


class GameFile:
    """One game's journal file, locked for the life of this object."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock_fd: int | None = None
        self.db: sqlite3.Connection | None = None
        self._failed_write = False  # a write failed (disk full): the WAL may end in our scraps
        self.voice_starts: dict[str, str] = {}  # per player, as stored (filled by ``open``)
        self._voices_due: dict[str, str] = {}  # learnt, not yet on disk (``save_voice``)

    # --- locking ------------------------------------------------------------------------
    def lock(self) -> None:
        fd = self._try_lock()
        if fd is None:
            raise JournalLocked(
                f"This game ({self.path}) is already open in another banker; close that one first.")
        self._lock_fd = fd

    def _try_lock(self) -> int | None:
        """The lock file's descriptor, locked; None if another banker holds it."""
        try:
            fd = os.open(beside(self.path, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            raise JournalError(f"The game file {self.path} can't be opened.") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _connect(self, path: Path | None = None) -> sqlite3.Connection:
        db = sqlite3.connect(path or self.path, isolation_level=None, timeout=1.0)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    # --- creating -----------------------------------------------------------------------
    def create(self, header: Header) -> None:
        if self.path.exists() and self.path.stat().st_size > 0:
            raise JournalError(f"The game file {self.path} already exists; use --resume to continue it.")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            raise JournalError(f"The folder for the game file {self.path} can't be made.") from None
        self.lock()
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
            _write_meta(db, header, {"created": time.strftime("%Y-%m-%d %H:%M:%S")})
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            self._unlock()
            raise JournalError(f"The game file {self.path} can't be written ({_why(exc)}).") from None
        self.db = db

    # --- opening ------------------------------------------------------------------------
    def open(self) -> Loaded:
        """Open an existing game, repairing a torn tail into a new file if needed."""
        self._finish_interrupted_repair()
        if not self.path.is_file():
            if self.path.exists():
                raise JournalError(f"{self.path} is not a game file.")
            raise JournalError(f"There is no game file at {self.path}.")
        self.lock()
        try:
            found = inspect(self.path)
            damaged = bool(found.damage or found.dropped)
            loaded = self._repair(found) if damaged else from_rows(found.header, found.rows)
            self.db = self._connect()
            self.voice_starts = dict(loaded.voices)
            if loaded.open_dialogue is not None:
                # Said once, on this resume: the next resume must not say it again.
                self.note("dialogue_closed", loaded.open_dialogue)
        except sqlite3.Error as exc:
            self.close()
            raise JournalError(f"The game file {self.path} can't be opened ({_why(exc)}).") from None
        except BaseException:
            self.close()
            raise
        return loaded

    def peek(self) -> Loaded:
        """Read the game without changing any file and without taking it over.

        For ``banker state``: works while another banker plays the game (SQLite readers and
        a writer coexist in WAL mode). A damaged file is not repaired: the readable part is
        returned with ``damaged`` set; ``open`` (``--resume``) repairs it.
        """
        self._finish_interrupted_repair(dry=True)
        if not self.path.is_file():
            if self.path.exists():
                raise JournalError(f"{self.path} is not a game file.")
            raise JournalError(f"There is no game file at {self.path}.")
        fd = self._try_lock()
        if fd is None:  # a live game: its WAL tail may be mid-write, so let SQLite read it
            return from_rows(*read_live(self.path))
        try:
            found = inspect(self.path)
        finally:
            os.close(fd)
        loaded = from_rows(found.header, found.rows)
        loaded.dropped = found.dropped
        loaded.damaged = bool(found.damage or found.dropped)
        loaded.notes = list(found.damage)
        return loaded

    def _repair(self, found: Inspection) -> Loaded:
        """Write the good entries into a fresh file, then swap it in; keep the original."""
        damaged = beside(self.path, ".damaged")
        n = 1
        while damaged.exists() or beside(damaged, "-wal").exists():
            n += 1
            damaged = beside(self.path, f".damaged{n}")
        fresh = beside(self.path, ".repairing")
        for stale in (fresh, beside(fresh, "-wal"), beside(fresh, "-shm"), beside(fresh, "-journal")):
            stale.unlink(missing_ok=True)
        db = sqlite3.connect(fresh, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("PRAGMA synchronous=FULL")
            _write_meta(db, found.header, {"repaired": time.strftime("%Y-%m-%d %H:%M:%S")},
                        found.rows)
        except sqlite3.Error as exc:
            db.close()
            fresh.unlink(missing_ok=True)
            raise JournalError(f"The game file {self.path} is damaged and the repaired copy can't be "
                               f"written ({_why(exc)}); nothing was changed.") from None
        db.close()
        _fsync(fresh)
        # The original (and its WAL) keep their bytes, renamed beside the repaired file.
        os.replace(self.path, damaged)
        for suffix in ("-wal", "-shm"):
            side = beside(self.path, suffix)
            if side.exists():
                os.replace(side, beside(damaged, suffix))
        os.replace(fresh, self.path)
        _fsync_dir(self.path.parent)
        loaded = from_rows(found.header, found.rows)
        loaded.dropped = found.dropped
        loaded.repaired_from = damaged
        loaded.notes = list(found.damage)
        return loaded

    def _finish_interrupted_repair(self, dry: bool = False) -> None:
        """A crash between keeping the original and moving the repaired copy in: finish it."""
        fresh = beside(self.path, ".repairing")
        if self.path.exists() or not fresh.exists() or dry:
            return
        if any(p.name.startswith(self.path.name + ".damaged") for p in self.path.parent.iterdir()):
            os.replace(fresh, self.path)
            _fsync_dir(self.path.parent)

    # --- writing ------------------------------------------------------------------------
    def _write(self, kind: str | None, body: dict[str, Any]) -> int:
        """One commit: the entry (none for ``kind`` None) after any voice notes still due,
        which ride along at no extra fsync. Returns the last row's seq."""
        if self.db is None:
            raise JournalWriteError("journal_error")
        due = [("note", note_body(VOICE_NOTE + p, v)) for p, v in self._voices_due.items()]
        entries = due + ([(kind, body)] if kind is not None else [])
        now = time.time()
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                seq = 0
                for k, b in entries:
                    cur = self.db.execute(
                        "INSERT INTO entries (kind, body, crc, at) VALUES (?, ?, ?, ?)",
                        (k, *encode(b), now))
                    seq = int(cur.lastrowid or 0)
        except sqlite3.Error as exc:
            self._failed_write = True
            raise JournalWriteError("disk_full" if _is_full(exc) else "journal_error") from None
        self._voices_due.clear()
        return seq

    def append(self, tx: Transaction) -> int:
        return self._write("tx", tx_body(tx))

    def append_undo(self, target: int, player: str | None) -> int:
        return self._write("undo", undo_body(target, player))

    def note(self, kind: str, text: str) -> None:
        """Dialogue markers (not transactions): what a crash interrupted. Best effort."""
        with contextlib.suppress(JournalWriteError):
            self._write("note", note_body(kind, text))

    def save_voice(self, player: str, values: str) -> None:
        """A player's speech start values, kept with the game so a resume starts from them
        (a note row: older bankers skip it). Not written now: this comes right after a reply
        is queued, and a commit of its own is an fsync on the way to that reply's first
        sample. The note goes with the journal's next write, or ``flush_voices`` (the voice
        front end calls it once the next turn is being listened to), or ``close``."""
        self.voice_starts[player] = values
        self._voices_due[player] = values

    def flush_voices(self) -> None:
        """Write the voice notes still due, now (one commit). Best effort, as a note."""
        if self._voices_due and self.db is not None:
            with contextlib.suppress(JournalWriteError):
                self._write(None, {})

    def close(self) -> None:
        if self.db is not None:
            self.flush_voices()
            with contextlib.suppress(sqlite3.Error):  # a failed final checkpoint: the WAL keeps all
                self.db.close()
            self.db = None
            if self._failed_write:
                self._trim_own_scraps()
        self._unlock()

    def _trim_own_scraps(self) -> None:
        """After a refused write (disk full) the WAL may end in the scraps of that write:
        not a power cut's torn tail but our own rolled-back transaction, known to hold nothing
        that was announced. Cut them off (shrinking a file works on a full disk too), so the
        next resume doesn't call the game file damaged. Done with the lock still held."""
        wal = beside(self.path, "-wal")
        with contextlib.suppress(OSError):
            data = wal.read_bytes()
            scan = scan_wal(data)
            tail = scan.torn in (PARTIAL_FRAME, UNCOMMITTED, LAST_WRITE)
            if tail and WAL_HEADER <= scan.end < len(data):
                with open(wal, "r+b") as fh:
                    fh.truncate(scan.end)
                    os.fsync(fh.fileno())


def _write_meta(db: sqlite3.Connection, header: Header, extra: dict[str, str],
                rows: list[Row] | None = None) -> None:
    """Tables, header (and, for a repaired copy, the kept entries) in one transaction."""
    with db:
        db.execute("BEGIN")
        for statement in SCHEMA:
            db.execute(statement)
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta_items(header, extra))
        db.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?)", rows or [])


def _is_full(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name == "SQLITE_FULL" or "full" in str(exc).lower()


def _why(exc: BaseException) -> str:
    return "the disk is full" if _is_full(exc) else "a storage error"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems can't sync a directory
        _fsync(folder)
