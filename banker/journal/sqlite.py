"""SQLite journal. Undo is an entry of its own; history is never rewritten.

A damaged file is never overwritten: what can be read is copied into a new file and the
original is kept beside it as ``<name>.damaged``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from banker.interpreter.session import JournalWriteError, Transaction
from banker.paths import user_data_dir
from banker.rules.events import event_from_json

FORMAT = "banker-journal-1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    crc TEXT NOT NULL,
    at REAL NOT NULL
);
"""


class JournalError(Exception):
    """A game file that can't be used: the message is one plain sentence."""


class JournalLocked(JournalError):
    pass


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


def _crc(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:16]


@dataclass
class Header:
    edition: str
    edition_yaml: str
    players: list[str]
    options: dict[str, str]
    seed: int


@dataclass
class Loaded:
    header: Header
    transactions: list[Transaction]
    open_dialogue: str | None = None
    dropped: int = 0  # entries lost to damage
    repaired_from: Path | None = None
    notes: list[str] = field(default_factory=list)


class GameFile:
    """One game's journal file, locked for the life of this object."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock_fd: int | None = None
        self.db: sqlite3.Connection | None = None

    # --- opening ------------------------------------------------------------------------
    def lock(self) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            raise JournalError(f"The game file {self.path} can't be opened.") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalLocked(
                f"This game ({self.path}) is already open in another banker; close that one first."
            ) from None
        self._lock_fd = fd

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=1.0)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    def create(self, header: Header) -> None:
        if self.path.exists() and self.path.stat().st_size > 0:
            raise JournalError(f"The game file {self.path} already exists; use --resume to continue it.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock()
        try:
            db = self._connect()
            db.executescript(SCHEMA)
            with db:
                db.execute("BEGIN")
                for k, v in (("format", FORMAT), ("edition", header.edition),
                             ("edition_yaml", header.edition_yaml),
                             ("players", json.dumps(header.players)),
                             ("options", json.dumps(header.options)), ("seed", str(header.seed)),
                             ("created", time.strftime("%Y-%m-%d %H:%M:%S"))):
                    db.execute("INSERT INTO meta VALUES (?, ?)", (k, v))
        except sqlite3.Error as exc:
            raise JournalError(f"The game file {self.path} can't be written ({_why(exc)}).") from None
        self.db = db

    def open(self) -> Loaded:
        """Open an existing game, repairing a torn tail into a new file if needed."""
        if not self.path.exists():
            raise JournalError(f"There is no game file at {self.path}.")
        self.lock()
        try:
            loaded = self._read(self.path)
        except _Damaged as damage:
            loaded = self._repair(damage)
        self.db = self._connect()
        return loaded

    def _read(self, path: Path) -> Loaded:
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            except sqlite3.DatabaseError:
                raise _Damaged(None, []) from None
            header = _header(meta, path)
            rows: list[tuple[int, str, str, str]] = []
            try:
                rows = db.execute("SELECT seq, kind, body, crc FROM entries ORDER BY seq").fetchall()
                ok = db.execute("PRAGMA quick_check").fetchone()
                if ok is None or ok[0] != "ok":
                    raise _Damaged(header, rows)
            except sqlite3.DatabaseError:
                raise _Damaged(header, _salvage(db)) from None
            finally:
                db.close()
        except sqlite3.DatabaseError:
            raise _Damaged(None, []) from None
        good, bad = _valid_prefix(rows)
        if bad:
            raise _Damaged(header, rows)
        return _loaded(header, good)

    def _repair(self, damage: _Damaged) -> Loaded:
        if damage.header is None:
            raise JournalError(f"The file {self.path} is not a readable banker game.")
        good, bad = _valid_prefix(damage.rows)
        damaged = self.path.with_name(self.path.name + ".damaged")
        n = 1
        while damaged.exists():
            n += 1
            damaged = self.path.with_name(f"{self.path.name}.damaged{n}")
        # Keep the original (and its WAL) untouched beside the repaired file.
        os.replace(self.path, damaged)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                shutil.move(str(side), str(damaged) + suffix)
        fresh = GameFile(self.path)
        fresh._lock_fd = self._lock_fd  # same lock file, already held
        db = fresh._connect()
        db.executescript(SCHEMA)
        h = damage.header
        with db:
            db.execute("BEGIN")
            for k, v in (("format", FORMAT), ("edition", h.edition), ("edition_yaml", h.edition_yaml),
                         ("players", json.dumps(h.players)), ("options", json.dumps(h.options)),
                         ("seed", str(h.seed))):
                db.execute("INSERT INTO meta VALUES (?, ?)", (k, v))
            for row in good:
                db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?)", (*row, time.time()))
        db.close()
        loaded = _loaded(h, good)
        loaded.dropped = bad
        loaded.repaired_from = damaged
        return loaded

    # --- writing ------------------------------------------------------------------------
    def _write(self, kind: str, body: dict[str, Any]) -> int:
        if self.db is None:
            raise JournalWriteError("journal_error")
        text = json.dumps(body, sort_keys=True)
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                cur = self.db.execute("INSERT INTO entries (kind, body, crc, at) VALUES (?, ?, ?, ?)",
                                      (kind, text, _crc(text), time.time()))
            return int(cur.lastrowid or 0)
        except sqlite3.OperationalError as exc:
            full = "full" in str(exc).lower()
            raise JournalWriteError("disk_full" if full else "journal_error") from None
        except sqlite3.Error:
            raise JournalWriteError("journal_error") from None

    def append(self, tx: Transaction) -> int:
        return self._write("tx", {
            "player": tx.player, "intent": tx.intent, "slots": tx.slots,
            "events": [e.to_json() for e in tx.events], "said": tx.said,
            "participants": tx.participants})

    def append_undo(self, target: int, player: str | None) -> int:
        return self._write("undo", {"target": target, "player": player})

    def note(self, kind: str, text: str) -> None:
        """Dialogue markers (not transactions): what a crash interrupted. Best effort."""
        with contextlib.suppress(JournalWriteError):
            self._write("note", {"kind": kind, "text": text})

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


class _Damaged(Exception):
    def __init__(self, header: Header | None, rows: list[tuple[int, str, str, str]]) -> None:
        self.header = header
        self.rows = rows


def _why(exc: BaseException) -> str:
    return "the disk is full" if "full" in str(exc).lower() else "a storage error"


def _header(meta: dict[str, str], path: Path) -> Header:
    if meta.get("format") != FORMAT:
        raise JournalError(f"The file {path} is not a banker game.")
    try:
        return Header(meta["edition"], meta["edition_yaml"], list(json.loads(meta["players"])),
                      dict(json.loads(meta["options"])), int(meta["seed"]))
    except (KeyError, ValueError, TypeError):
        raise JournalError(f"The file {path} is not a readable banker game.") from None


def _salvage(db: sqlite3.Connection) -> list[tuple[int, str, str, str]]:
    """Read rows one at a time, stopping at the first unreadable one."""
    rows: list[tuple[int, str, str, str]] = []
    seq = 0
    for _ in range(1_000_000):
        try:
            row = db.execute("SELECT seq, kind, body, crc FROM entries WHERE seq > ? ORDER BY seq LIMIT 1",
                             (seq,)).fetchone()
        except sqlite3.DatabaseError:
            break
        if row is None:
            break
        rows.append(row)
        seq = row[0]
    return rows


def _valid_prefix(rows: list[tuple[int, str, str, str]]) -> tuple[list[tuple[int, str, str, str]], int]:
    good: list[tuple[int, str, str, str]] = []
    for i, (seq, kind, body, crc) in enumerate(rows):
        if _crc(body) != crc or kind not in ("tx", "undo", "note"):
            return good, len(rows) - i
        try:
            json.loads(body)
        except ValueError:
            return good, len(rows) - i
        good.append((seq, kind, body, crc))
    return good, 0


def _loaded(header: Header, rows: list[tuple[int, str, str, str]]) -> Loaded:
    txs: list[Transaction] = []
    undone: set[int] = set()
    open_dialogue: str | None = None
    for seq, kind, body, _ in rows:
        data = json.loads(body)
        if kind == "tx":
            try:
                events = [event_from_json(e) for e in data["events"]]
            except (KeyError, ValueError, TypeError):
                break
            txs.append(Transaction(data.get("player"), data.get("intent", ""), data.get("slots", {}),
                                   events, list(data.get("said", [])),
                                   list(data.get("participants", [])), seq))
            open_dialogue = None
        elif kind == "undo":
            undone.add(int(data.get("target", 0)))
            open_dialogue = None
        elif kind == "note":
            if data.get("kind") == "dialogue_open":
                open_dialogue = str(data.get("text", ""))
            elif data.get("kind") == "dialogue_closed":
                open_dialogue = None
    return Loaded(header, [t for t in txs if t.seq not in undone], open_dialogue)
