"""The game file's raw bytes: is the main file or its write-ahead log torn, and what they hold.

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
is empty; so we look at the raw bytes first, before SQLite opens the file for writing.
``overlay_image`` rebuilds the readable part from the raw bytes (main-file pages overlaid
with every *committed* WAL frame, exactly what a checkpoint would produce).

Frames of an *earlier* WAL generation (other salts) after the live frames are normal
leftovers of SQLite's WAL reuse, not damage. Garbage that happens to be whole frames with
other salts is indistinguishable from them and is ignored, exactly as SQLite does; it holds
no game data.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
WAL_MAGICS = (0x377F0682, 0x377F0683)
WAL_HEADER = 32
FRAME_HEADER = 24
PARTIAL_FRAME = "the write-ahead log ends in a partial frame"
UNCOMMITTED = "the write-ahead log ends in a transaction that was never committed"
LAST_WRITE = "the write-ahead log's last write is damaged"


def page_size_of(raw: int) -> int | None:
    """A header's page-size field as bytes (1 means 65536), or None if no valid size."""
    size = 65536 if raw == 1 else raw
    return size if 512 <= size <= 65536 and size & (size - 1) == 0 else None


def checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
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
    page_size = page_size_of(raw_ps)
    big = magic == WAL_MAGICS[1]
    if magic not in WAL_MAGICS or version != 3007000 or page_size is None:
        scan.torn = "the write-ahead log's header is broken"
        return scan
    s0, s1 = checksum(data[:24], 0, 0, big)
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
        s0, s1 = checksum(data[off:off + 8] + page, s0, s1, big)
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


def main_header(data: bytes) -> tuple[int, int] | None:
    """(page size, page count from the header; 0 if that count isn't valid), or None."""
    if len(data) < 100 or not data.startswith(SQLITE_MAGIC):
        return None
    page_size = page_size_of(struct.unpack(">H", data[16:18])[0])
    if page_size is None:
        return None
    counted = struct.unpack(">I", data[28:32])[0]
    valid = data[24:28] == data[92:96]  # change counter == version-valid-for
    return page_size, counted if valid else 0


def main_file_damage(data: bytes, wal: WalScan, wal_size: int) -> str:
    """Why the main file looks cut short or padded ("" if it doesn't; "not-sqlite")."""
    if not data:
        return "the game file is empty but its write-ahead log is not" if wal_size else ""
    head = main_header(data)
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
    head = main_header(main)
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
        # The page count the image really has: SQLite refuses a whole file whose header
        # claims more pages than it holds (a main file cut short by a page or more).
        image[28:32] = struct.pack(">I", count)
        image[92:96] = image[24:28]
    return bytes(image)


def read_bytes(path: Path) -> bytes:
    """A file's bytes; a missing file (no WAL yet) reads as empty."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def beside(path: Path, suffix: str) -> Path:
    """A file kept beside the game file: ``<name>-wal``, ``<name>.lock``, ``<name>.damaged``."""
    return path.with_name(path.name + suffix)
