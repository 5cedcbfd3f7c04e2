"""The journal's entries read straight off a database image's pages, without its b-tree.

When a page in the middle of the ``entries`` table's tree is damaged (an interior page, or the
table's root), SQLite can't reach the leaf pages under it, although their bytes are intact.
This reads every table-leaf page of the image and keeps the cells that decode as an entry row
(``seq`` as the rowid, then kind, body, checksum, time: the ``entries`` schema), following
overflow chains for long bodies. It is what SQLite's own recovery (``.recover``) does for a
table, reduced to the one table and row shape the journal has. The rows found are only
candidates: ``codec.valid_prefix`` still checks each one (numbering, checksum, events).
"""

from __future__ import annotations

import struct

from banker.journal.codec import KINDS, Row

TABLE_LEAF = 0x0D


def scan_entries(image: bytes) -> list[Row]:
    """Every entry row found on the image's table-leaf pages, by ``seq`` (first copy wins)."""
    if len(image) < 100:
        return []
    raw = struct.unpack(">H", image[16:18])[0]
    size = 65536 if raw == 1 else raw
    if size < 512 or size & (size - 1):
        return []
    usable = size - image[20]
    found: dict[int, Row] = {}
    for first in range(0, len(image) - size + 1, size):
        head = 100 if first == 0 else 0
        page = image[first:first + size]
        if page[head] != TABLE_LEAF:
            continue
        cells = struct.unpack(">H", page[head + 3:head + 5])[0]
        for i in range(cells):
            at = head + 8 + 2 * i
            if at + 2 > len(page):
                break
            row = _cell(image, page, struct.unpack(">H", page[at:at + 2])[0], size, usable)
            if row is not None and row[0] not in found:
                found[row[0]] = row
    return [found[k] for k in sorted(found)]


def _cell(image: bytes, page: bytes, off: int, size: int, usable: int) -> Row | None:
    """One leaf cell as an entry row, or None if it isn't one (or can't be read)."""
    try:
        length, off = _varint(page, off)
        rowid, off = _varint(page, off)
        payload = _payload(image, page, off, length, size, usable)
        return _entry(rowid, payload) if payload is not None else None
    except (IndexError, ValueError, struct.error, UnicodeDecodeError):
        return None


def _payload(image: bytes, page: bytes, off: int, length: int, size: int,
             usable: int) -> bytes | None:
    """A cell's whole payload: the part on the page, then its overflow pages' parts."""
    most = usable - 35
    if length <= most:
        return page[off:off + length]
    least = (usable - 12) * 32 // 255 - 23
    local = least + (length - least) % (usable - 4)
    local = local if local <= most else least
    out = bytearray(page[off:off + local])
    nxt = struct.unpack(">I", page[off + local:off + local + 4])[0]
    seen: set[int] = set()
    while len(out) < length:
        if nxt == 0 or nxt in seen or nxt * size > len(image):
            return None  # a broken chain: this body can't be read whole
        seen.add(nxt)
        over = image[(nxt - 1) * size:nxt * size]
        nxt = struct.unpack(">I", over[:4])[0]
        out += over[4:usable][:length - len(out)]
    return bytes(out)


def _entry(rowid: int, payload: bytes) -> Row | None:
    """A record of the ``entries`` shape (NULL, text, text, text, real) as a row."""
    header, at = _varint(payload, 0)
    types = []
    while at < header:
        t, at = _varint(payload, at)
        types.append(t)
    if len(types) != 5 or types[0] != 0 or types[4] != 7 or any(t < 13 or t % 2 == 0
                                                                  for t in types[1:4]):
        return None
    pos, texts = header, []
    for t in types[1:4]:
        n = (t - 13) // 2
        texts.append(payload[pos:pos + n].decode("utf-8"))
        pos += n
    at_time = struct.unpack(">d", payload[pos:pos + 8])[0]
    if texts[0] not in KINDS or rowid <= 0:
        return None
    return rowid, texts[0], texts[1], texts[2], at_time


def _varint(data: bytes, off: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``off``: (value, offset after it)."""
    value = 0
    for i in range(8):
        b = data[off + i]
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, off + i + 1
    return (value << 8) | data[off + 8], off + 9
