"""Reading a game file without trusting it: every usable entry, and what the damage was.

A torn tail (see ``banker.journal.wal``) or a damaged database is never read through SQLite
with the originals: the readable part is rebuilt from the raw bytes into a private copy, its
entries are checked one by one (a checksum per entry, known kinds, parseable events), and a
bad entry ends the kept prefix. Nothing here writes to the game's files.
"""

from __future__ import annotations

import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from banker.journal.codec import Header, Row, header_from_meta, valid_prefix
from banker.journal.errors import JournalError
from banker.journal.pages import scan_entries
from banker.journal.wal import beside, main_file_damage, overlay_image, read_bytes, scan_wal


class Unreadable(Exception):
    """Not a readable banker journal at all (no header can be read)."""


@dataclass
class Rows:
    """What a database gave up: its ``meta`` rows and its entries, in order."""

    meta: dict[str, str]
    rows: list[Row]
    problem: str = ""  # why reading stopped early ("" if every row was read)


def read_rows(db: sqlite3.Connection, check: bool) -> Rows:
    """The header rows and the entries; ``check`` also runs SQLite's own structure check."""
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        raise Unreadable from None
    if check:
        rows: list[Row] = []
        try:
            for row in db.execute("SELECT seq, kind, body, crc, at FROM entries ORDER BY seq"):
                if rows and row[0] <= rows[-1][0]:  # a damaged index going round in circles
                    return Rows(meta, salvage(db), "the game file's index is damaged")
                rows.append(row)
            ok = db.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError:
            return Rows(meta, salvage(db), "part of the game file can't be read")
        if ok is None or ok[0] != "ok":
            return Rows(meta, salvage(db), "the game file's structure is damaged")
        return Rows(meta, rows)
    rows = salvage(db)
    return Rows(meta, rows)


def salvage(db: sqlite3.Connection) -> list[Row]:
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


def read_image(image: bytes) -> Rows:
    """Rows of a rebuilt database image (a private temporary copy; originals untouched)."""
    with tempfile.TemporaryDirectory(prefix="banker-salvage-") as tmp:
        copy = Path(tmp) / "image.sqlite"
        copy.write_bytes(image)
        try:
            db = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        except sqlite3.Error:
            raise Unreadable from None
        try:
            got = read_rows(db, check=False)
        finally:
            db.close()
    # A damaged page inside the entries' tree hides the intact leaves under it from SQLite:
    # the rows read off the pages themselves are used when they give a longer usable prefix.
    scanned = scan_entries(image)
    if len(valid_prefix(scanned)[0]) > len(valid_prefix(got.rows)[0]):
        return Rows(got.meta, scanned, "entries were read off the pages")
    return got


@dataclass
class Inspection:
    """The result of reading a game file without changing it."""

    header: Header
    rows: list[Row]
    dropped: int
    damage: list[str]


def inspect(path: Path) -> Inspection:
    """Read every usable entry, noting damage; never writes. Needs the lock (no writer)."""
    main = read_bytes(path)
    wal_bytes = read_bytes(beside(path, "-wal"))
    wal = scan_wal(wal_bytes)
    damage = [d for d in (wal.torn, main_file_damage(main, wal, len(wal_bytes))) if d]
    if "not-sqlite" in damage:
        raise JournalError(f"The file {path} is not a readable banker game.")
    got: Rows | None = None
    if not damage:
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                got = read_rows(db, check=True)
            finally:
                db.close()
        except (sqlite3.Error, Unreadable):
            got = None
        if got is None:
            damage.append("the game file can't be read as a database")
        elif got.problem:
            damage.append(got.problem)
    if damage:  # rebuild from the raw bytes instead of trusting SQLite with the originals
        try:
            got = read_image(overlay_image(main, wal))
        except (sqlite3.Error, Unreadable):
            raise JournalError(f"The file {path} is not a readable banker game.") from None
    assert got is not None
    header = header_from_meta(got.meta, path)
    good, dropped = valid_prefix(got.rows)
    if dropped:
        damage.append(f"{dropped} entries can't be used")
    return Inspection(header, good, dropped, damage)


def read_live(path: Path) -> tuple[Header, list[Row]]:
    """A game another banker is playing: its WAL tail may be mid-write, so SQLite reads it."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
        try:
            got = read_rows(db, check=False)
        finally:
            db.close()
    except (sqlite3.Error, Unreadable):
        raise JournalError(f"The file {path} is not a readable banker game.") from None
    header = header_from_meta(got.meta, path)
    good, _bad = valid_prefix(got.rows)
    return header, good
