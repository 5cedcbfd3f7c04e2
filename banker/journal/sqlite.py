"""SQLite journal. Undo is an entry of its own; history is never rewritten.

A damaged file is never overwritten: what can be read is copied into a new file and the
original is kept beside it as ``<name>.damaged`` (with its ``-wal`` as ``<name>.damaged-wal``).

What "a torn tail" means here (SQLite in WAL mode, ``synchronous=FULL``)
-----------------------------------------------------------------------
The game's bytes live in two files: the main file and its write-ahead log ``<name>-wal``.
Every transaction is appended to the WAL as whole frames (24-byte header + one page), the
last one marked as the commit; the main file only changes when SQLite copies committed
pages into it (a checkpoint). A power cut can therefore cut short:

* the WAL: a partial frame, frames of the current generation whose checksum fails, or
  frames after the last commit frame (a transaction whose commit never reached the disk);
  a WAL shorter than its 32-byte header, or with a broken header, is torn too;
* the main file: a length that is not a whole number of pages, a file emptied to 0 bytes
  while a WAL still holds the game, or (when no WAL holds anything) a length that differs
  from the page count in its header (cut short, or garbage appended).

Any of these is "a torn tail". SQLite itself would silently ignore a torn WAL tail, but it
would also *overwrite* it on the next write, and it deletes a WAL outright when the main file
is empty; so we look at the raw bytes first, before SQLite opens the file for writing. A torn
file is repaired: the readable part is rebuilt from the raw bytes (main-file pages overlaid
with every *committed* WAL frame, exactly what a checkpoint would produce), its valid entries
up to the first bad one are copied into a fresh journal, and the original files are renamed
to ``.damaged``. Entries are also checked one by one (a checksum per entry, known kinds,
parseable events), and a bad entry ends the kept prefix.

Frames of an *earlier* WAL generation (other salts) after the live frames are normal
leftovers of SQLite's WAL reuse, not damage. Garbage that happens to be whole frames with
other salts is indistinguishable from them and is ignored, exactly as SQLite does; it holds
no game data.

A torn tail only ever holds the write that was in progress, which was never announced
(announcing waits for the commit, fsynced): a resume keeps every announced transaction and
says up to which one it kept. Not only power cuts tear: a process killed with SIGKILL while
``write()`` runs can leave a partial frame too. The one torn tail that is *not* damage is
the journal's own refused write (disk full): the journal knows it rolled it back and cuts
those scraps off when it closes, so a full disk is not reported as a damaged file later.

``peek`` reads a game without changing any file (``banker state``), also while another
banker plays it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import struct
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from banker.ledger import JournalWriteError, Transaction
from banker.paths import user_data_dir
from banker.rules.events import event_from_json

FORMAT = "banker-journal-1"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entries (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
    "body TEXT NOT NULL, crc TEXT NOT NULL, at REAL NOT NULL)",
)

KINDS = ("tx", "undo", "note")
Row = tuple[int, str, str, str, float]  # seq, kind, body, crc, at


class JournalError(Exception):
    """A game file that can't be used: the message is one plain sentence."""


class JournalLocked(JournalError):
    """Another banker has this game open (the lock file is held)."""


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
    dropped: int = 0  # entries read but unusable (bad checksum, unknown kind, bad events)
    repaired_from: Path | None = None  # the original, kept as ``….damaged``, after a repair
    notes: list[str] = field(default_factory=list)  # what the damage was, for the curious
    kept: int = 0  # journal entries (transactions and undos) kept
    undone_last: Transaction | None = None  # the last entry was an undo of this transaction
    damaged: bool = False  # ``peek`` found damage it did not repair


# --- raw bytes: the main file and the WAL ----------------------------------------------------

SQLITE_MAGIC = b"SQLite format 3\x00"
WAL_MAGICS = (0x377F0682, 0x377F0683)
WAL_HEADER = 32
FRAME_HEADER = 24
PARTIAL_FRAME = "the write-ahead log ends in a partial frame"
UNCOMMITTED = "the write-ahead log ends in a transaction that was never committed"
LAST_WRITE = "the write-ahead log's last write is damaged"


def _page_size(raw: int) -> int | None:
    size = 65536 if raw == 1 else raw
    return size if 512 <= size <= 65536 and size & (size - 1) == 0 else None


def _checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum (two running 32-bit sums over pairs of words)."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & mask
        s1 = (s1 + words[i + 1] + s0) & mask
    return s0, s1


@dataclass
class WalScan:
    """What a WAL file holds: its committed pages and whether its tail is torn."""

    page_size: int = 0
    pages: dict[int, bytes] = field(default_factory=dict)  # page number -> latest committed page
    db_pages: int = 0  # database size in pages after the last commit (0: nothing committed)
    commits: int = 0
    torn: str = ""  # why the tail is torn ("" if it is not)
    end: int = 0  # byte offset just after the last commit frame (the valid part's end)


def scan_wal(data: bytes) -> WalScan:
    """Validate a WAL's header and frames like SQLite's recovery does, but say what it drops."""
    scan = WalScan()
    if not data:
        return scan
    if len(data) < WAL_HEADER:
        scan.torn = "the write-ahead log's header is cut short"
        return scan
    magic, version, raw_ps, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:WAL_HEADER])
    page_size = _page_size(raw_ps)
    big = magic == WAL_MAGICS[1]
    if magic not in WAL_MAGICS or version != 3007000 or page_size is None:
        scan.torn = "the write-ahead log's header is broken"
        return scan
    s0, s1 = _checksum(data[:24], 0, 0, big)
    if (s0, s1) != (c1, c2):
        scan.torn = "the write-ahead log's header is broken"
        return scan
    scan.page_size = page_size
    scan.end = WAL_HEADER
    frame = FRAME_HEADER + page_size
    pending: dict[int, bytes] = {}
    off = WAL_HEADER
    while off + frame <= len(data):
        pgno, size_after, f1, f2, k1, k2 = struct.unpack(">6I", data[off:off + FRAME_HEADER])
        page = data[off + FRAME_HEADER:off + frame]
        s0, s1 = _checksum(data[off:off + 8] + page, s0, s1, big)
        if (f1, f2) != (salt1, salt2):
            # Leftovers of an earlier WAL generation: whole frames only. The checksum doesn't
            # cover the salts, so a frame that continues our checksum chain is one of ours
            # with a damaged header; so is any later frame with our salts.
            if (len(data) - off) % frame:
                scan.torn = PARTIAL_FRAME
            elif (s0, s1) == (k1, k2) or any(data[at + 8:at + 16] == data[16:24]
                                             for at in range(off + frame, len(data), frame)):
                scan.torn = "a frame in the write-ahead log is damaged"
            break
        if pgno == 0 or (s0, s1) != (k1, k2):
            scan.torn = LAST_WRITE
            break
        pending[pgno] = page
        if size_after:
            scan.pages.update(pending)
            pending = {}
            scan.db_pages = size_after
            scan.commits += 1
            scan.end = off + frame
        off += frame
    else:
        if off < len(data):
            scan.torn = PARTIAL_FRAME
    if pending and not scan.torn:
        scan.torn = UNCOMMITTED
    return scan


def _main_header(data: bytes) -> tuple[int, int] | None:
    """(page size, page count from the header; 0 if that count isn't valid), or None."""
    if len(data) < 100 or not data.startswith(SQLITE_MAGIC):
        return None
    page_size = _page_size(struct.unpack(">H", data[16:18])[0])
    if page_size is None:
        return None
    counted = struct.unpack(">I", data[28:32])[0]
    valid = data[24:28] == data[92:96]  # change counter == version-valid-for
    return page_size, counted if valid else 0


def main_file_damage(data: bytes, wal: WalScan, wal_size: int) -> str:
    """Why the main file looks cut short or padded ("" if it doesn't; "not-sqlite")."""
    if not data:
        return "the game file is empty but its write-ahead log is not" if wal_size else ""
    head = _main_header(data)
    if head is None:
        return "the start of the game file is damaged" if 1 in wal.pages else "not-sqlite"
    page_size, counted = head
    if len(data) % page_size:
        return "the game file ends in a partial page"
    if not wal_size and counted and len(data) != counted * page_size:
        return "the game file's length doesn't match its page count"
    return ""


def overlay_image(main: bytes, wal: WalScan) -> bytes:
    """The database a full checkpoint would produce: main pages overlaid with committed frames.

    The image is marked as a rollback-journal database so SQLite reads it without a WAL.
    """
    head = _main_header(main)
    ps = wal.page_size or (head[0] if head else 4096)
    count = wal.db_pages or (head[1] if head and head[1] else (len(main) + ps - 1) // ps)
    # Never more pages than the bytes at hand can fill (a damaged count could claim billions).
    count = min(count, max((len(main) + ps - 1) // ps, max(wal.pages, default=0)))
    pages = []
    for n in range(1, count + 1):
        page = wal.pages.get(n)
        if page is None:
            page = main[(n - 1) * ps:n * ps].ljust(ps, b"\x00")
        pages.append(page)
    image = bytearray(b"".join(pages))
    if len(image) >= 100 and image.startswith(SQLITE_MAGIC):
        image[18:20] = b"\x01\x01"  # file format: legacy (no WAL)
    return bytes(image)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def _side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


# --- reading rows ------------------------------------------------------------------------------

class _Unreadable(Exception):
    """Not a readable banker journal at all (no header can be read)."""


@dataclass
class _Rows:
    meta: dict[str, str]
    rows: list[Row]
    problem: str = ""  # why reading stopped early ("" if every row was read)


def _read_rows(db: sqlite3.Connection, check: bool) -> _Rows:
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        raise _Unreadable from None
    if check:
        rows: list[Row] = []
        try:
            for row in db.execute("SELECT seq, kind, body, crc, at FROM entries ORDER BY seq"):
                if rows and row[0] <= rows[-1][0]:  # a damaged index going round in circles
                    return _Rows(meta, _salvage(db), "the game file's index is damaged")
                rows.append(row)
            ok = db.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError:
            return _Rows(meta, _salvage(db), "part of the game file can't be read")
        if ok is None or ok[0] != "ok":
            return _Rows(meta, _salvage(db), "the game file's structure is damaged")
        return _Rows(meta, rows)
    rows = _salvage(db)
    return _Rows(meta, rows)


def _salvage(db: sqlite3.Connection) -> list[Row]:
    """Read rows one at a time, in order, stopping at the first unreadable one."""
    rows: list[Row] = []
    seq = 0
    while True:
        try:
            row = db.execute("SELECT seq, kind, body, crc, at FROM entries WHERE seq > ? "
                             "ORDER BY seq LIMIT 1", (seq,)).fetchone()
        except sqlite3.DatabaseError:
            break
        if row is None or not isinstance(row[0], int) or row[0] <= seq:
            break  # the end, or a damaged index going round in circles
        rows.append(row)
        seq = row[0]
    return rows


def _read_image(image: bytes) -> _Rows:
    """Rows of a rebuilt database image (a private temporary copy; originals untouched)."""
    with tempfile.TemporaryDirectory(prefix="banker-salvage-") as tmp:
        copy = Path(tmp) / "image.sqlite"
        copy.write_bytes(image)
        try:
            db = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        except sqlite3.Error:
            raise _Unreadable from None
        try:
            return _read_rows(db, check=False)
        finally:
            db.close()


def _entry_ok(kind: str, body: str, crc: str) -> bool:
    if kind not in KINDS or _crc(body) != crc:
        return False
    try:
        data = json.loads(body)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    if kind == "tx":
        try:
            events = data["events"]
            if not isinstance(events, list):
                return False
            for e in events:
                event_from_json(e)
        except (KeyError, ValueError, TypeError, AttributeError):
            return False
    if kind == "undo":
        return isinstance(data.get("target"), int)
    return True


def _valid_prefix(rows: list[Row]) -> tuple[list[Row], int]:
    """The entries up to the first bad one, and how many were read but can't be used."""
    for i, (_seq, kind, body, crc, _at) in enumerate(rows):
        if not _entry_ok(kind, body, crc):
            return rows[:i], len(rows) - i
    return rows, 0


def _header(meta: dict[str, str], path: Path) -> Header:
    if meta.get("format") != FORMAT:
        raise JournalError(f"The file {path} is not a banker game.")
    try:
        players = json.loads(meta["players"])
        options = json.loads(meta["options"])
        if not isinstance(players, list) or not isinstance(options, dict):
            raise ValueError
        return Header(meta["edition"], meta["edition_yaml"], [str(p) for p in players],
                      {str(k): str(v) for k, v in options.items()}, int(meta["seed"]))
    except (KeyError, ValueError, TypeError):
        raise JournalError(f"The file {path} is not a readable banker game.") from None


def _loaded(header: Header, rows: list[Row]) -> Loaded:
    txs: list[Transaction] = []
    undone: set[int] = set()
    open_dialogue: str | None = None
    kept = 0
    undone_last: Transaction | None = None
    for seq, kind, body, _crc, _at in rows:
        data = json.loads(body)
        if kind == "tx":
            events = [event_from_json(e) for e in data["events"]]
            txs.append(Transaction(data.get("player"), data.get("intent", ""), data.get("slots", {}),
                                   events, list(data.get("said", [])),
                                   list(data.get("participants", [])), seq))
            open_dialogue = None
            kept += 1
            undone_last = None
        elif kind == "undo":
            undone.add(int(data["target"]))
            open_dialogue = None
            kept += 1
            undone_last = next((t for t in txs if t.seq == int(data["target"])), None)
        elif kind == "note":
            if data.get("kind") == "dialogue_open":
                open_dialogue = str(data.get("text", ""))
            elif data.get("kind") == "dialogue_closed":
                open_dialogue = None
    return Loaded(header, [t for t in txs if t.seq not in undone], open_dialogue, kept=kept,
                  undone_last=undone_last)


# --- the game file -----------------------------------------------------------------------------

@dataclass
class _Inspection:
    """The result of reading a game file without changing it."""

    header: Header
    rows: list[Row]
    dropped: int
    damage: list[str]


class GameFile:
    """One game's journal file, locked for the life of this object."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock_fd: int | None = None
        self.db: sqlite3.Connection | None = None
        self._failed_write = False  # a write failed (disk full): the WAL may end in our scraps

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
            fd = os.open(_side(self.path, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
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
            found = self._inspect()
            damaged = bool(found.damage or found.dropped)
            loaded = self._repair(found) if damaged else _loaded(found.header, found.rows)
            self.db = self._connect()
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
            try:
                db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2.0)
                try:
                    got = _read_rows(db, check=False)
                finally:
                    db.close()
            except (sqlite3.Error, _Unreadable):
                raise JournalError(f"The file {self.path} is not a readable banker game.") from None
            header = _header(got.meta, self.path)
            good, _bad = _valid_prefix(got.rows)
            return _loaded(header, good)
        try:
            found = self._inspect()
        finally:
            os.close(fd)
        loaded = _loaded(found.header, found.rows)
        loaded.dropped = found.dropped
        loaded.damaged = bool(found.damage or found.dropped)
        loaded.notes = list(found.damage)
        return loaded

    def _inspect(self) -> _Inspection:
        """Read every usable entry, noting damage; never writes. Needs the lock (no writer)."""
        main = _read_bytes(self.path)
        wal_bytes = _read_bytes(_side(self.path, "-wal"))
        wal = scan_wal(wal_bytes)
        damage = [d for d in (wal.torn, main_file_damage(main, wal, len(wal_bytes))) if d]
        if "not-sqlite" in damage:
            raise JournalError(f"The file {self.path} is not a readable banker game.")
        got: _Rows | None = None
        if not damage:
            try:
                db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
                try:
                    got = _read_rows(db, check=True)
                finally:
                    db.close()
            except (sqlite3.Error, _Unreadable):
                got = None
            if got is None:
                damage.append("the game file can't be read as a database")
            elif got.problem:
                damage.append(got.problem)
        if damage:  # rebuild from the raw bytes instead of trusting SQLite with the originals
            try:
                got = _read_image(overlay_image(main, wal))
            except (sqlite3.Error, _Unreadable):
                raise JournalError(f"The file {self.path} is not a readable banker game.") from None
        assert got is not None
        header = _header(got.meta, self.path)
        good, dropped = _valid_prefix(got.rows)
        if dropped:
            damage.append(f"{dropped} entries can't be used")
        return _Inspection(header, good, dropped, damage)

    def _repair(self, found: _Inspection) -> Loaded:
        """Write the good entries into a fresh file, then swap it in; keep the original."""
        damaged = _side(self.path, ".damaged")
        n = 1
        while damaged.exists() or _side(damaged, "-wal").exists():
            n += 1
            damaged = _side(self.path, f".damaged{n}")
        fresh = _side(self.path, ".repairing")
        for stale in (fresh, _side(fresh, "-wal"), _side(fresh, "-shm"), _side(fresh, "-journal")):
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
            side = _side(self.path, suffix)
            if side.exists():
                os.replace(side, _side(damaged, suffix))
        os.replace(fresh, self.path)
        _fsync_dir(self.path.parent)
        loaded = _loaded(found.header, found.rows)
        loaded.dropped = found.dropped
        loaded.repaired_from = damaged
        loaded.notes = list(found.damage)
        return loaded

    def _finish_interrupted_repair(self, dry: bool = False) -> None:
        """A crash between keeping the original and moving the repaired copy in: finish it."""
        fresh = _side(self.path, ".repairing")
        if self.path.exists() or not fresh.exists() or dry:
            return
        if any(p.name.startswith(self.path.name + ".damaged") for p in self.path.parent.iterdir()):
            os.replace(fresh, self.path)
            _fsync_dir(self.path.parent)

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
        except sqlite3.Error as exc:
            self._failed_write = True
            raise JournalWriteError("disk_full" if _is_full(exc) else "journal_error") from None

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
        wal = _side(self.path, "-wal")
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
        for k, v in (("format", FORMAT), ("edition", header.edition),
                     ("edition_yaml", header.edition_yaml),
                     ("players", json.dumps(header.players)),
                     ("options", json.dumps(header.options)), ("seed", str(header.seed)),
                     *extra.items()):
            db.execute("INSERT INTO meta VALUES (?, ?)", (k, v))
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
