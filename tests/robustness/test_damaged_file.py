"""A damaged game file keeps what can be read, and ``state`` and ``play --resume`` agree.

A real game is played through ``banker play --keyboard`` (with undos, so the number of journal
entries and the number of transactions the game goes on with differ), closed (everything in
the main file), then damaged two ways a disk does it:

* **truncated**: the file's last 4 KB page is cut off (the newest entries' page);
* **scribbled**: one entry in the middle is overwritten with other bytes of the same length.

Through the command line, ``banker state --game F --json`` (which changes nothing) and
``banker play --resume --keyboard --game F`` (which repairs, keeping the original as
``F.damaged``) must both say the same "up to transaction N", N must be what the kept entries
hold, and the recovered state must be the state the game had after exactly those entries.
The repaired file starts with exactly the readable entries; the resumed session then notes
where its dialogues stand (a ``dialogue_state`` note), as every resume does.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from banker.editions.loader import parse_edition
from banker.journal.codec import Header, from_rows
from banker.rules import fold, rules_for

from .support import assert_one_sentence, clean_env, run_banker

STREETS = ["Baltic Avenue", "Mediterranean Avenue", "Oriental Avenue", "Vermont Avenue",
           "Connecticut Avenue", "St. Charles Place", "States Avenue", "Virginia Avenue",
           "St. James Place", "Tennessee Avenue", "New York Avenue", "Kentucky Avenue"]


def _commands() -> str:
    """About 60 transactions over 4 leaf pages; an undo every few, by the one who did it."""
    lines = []
    for i, street in enumerate(STREETS):
        who = "racecar" if i % 2 else "dog"
        lines += [f"{who}: buy {street}", f"{who}: collect 200", f"{who}: pay 15",
                  f"{who}: collect 35"]
        if i % 3 == 0:
            lines.append(f"{who}: undo")
        lines.append(f"{who}: pay 5")
    return "\n".join(lines) + "\n"


def _rows(path: Path) -> list[tuple[int, str, str, str, float]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(db.execute("SELECT seq, kind, body, crc, at FROM entries ORDER BY seq"))
    finally:
        db.close()


def _header(path: Path) -> Header:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    finally:
        db.close()
    return Header(meta["edition"], meta["edition_yaml"], json.loads(meta["players"]), {},
                  int(meta["seed"]))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("played")
    game = folder / "g.sqlite"
    r = run_banker(["play", "--keyboard", "--edition", "voice-banking", "--players", "dog,racecar",
                    "--game", str(game)], input=_commands(),
                   env=clean_env(XDG_DATA_HOME=str(folder / "data")))
    assert r.returncode == 0, r.stderr
    assert not game.with_name("g.sqlite-wal").exists() or game.with_name("g.sqlite-wal").stat().st_size == 0
    return game


def _expected_view(original: Path, kept: int) -> tuple[int, dict[str, Any]]:
    """What the first ``kept`` entries of the intact game give: (transactions, state view)."""
    header = _header(original)
    loaded = from_rows(header, _rows(original)[:kept])
    ed = parse_edition(header.edition_yaml, "test")
    state = fold(rules_for(ed).initial_state(header.players, {}, header.seed),
                 [e for tx in loaded.transactions for e in tx.events])
    return loaded.kept_upto(), json.loads(json.dumps(state.view()))


def _check(game: Path, original: Path, kept_entries: int) -> None:
    """``state`` then ``play --resume`` on the damaged ``game``: same N, the expected state."""
    upto, view = _expected_view(original, kept_entries)
    env = clean_env(XDG_DATA_HOME=str(game.parent / "data"))
    before = game.read_bytes()
    r = run_banker(["state", "--game", str(game), "--json"], env=env)
    assert r.returncode == 0, r.stderr
    said = assert_one_sentence(r.stderr)
    assert f"up to transaction {upto}," in said, said
    assert json.loads(r.stdout) == view
    assert game.read_bytes() == before, "banker state changed the damaged file"

    r = run_banker(["play", "--resume", "--keyboard", "--game", str(game)], input="", env=env)
    assert r.returncode == 0, r.stderr
    assert f"kept everything up to transaction {upto};" in r.stdout, r.stdout
    assert game.with_name("g.sqlite.damaged").read_bytes() == before, "original not kept"
    rows = _rows(game)
    assert rows[:kept_entries] == _rows(original)[:kept_entries], "kept entries are not the readable prefix"
    # after the kept entries, only what the resumed session wrote itself: with no line typed,
    # where its dialogues stand (a note), never a transaction or an undo
    after = [(kind, json.loads(body).get("kind")) for _s, kind, body, *_ in rows[kept_entries:]]
    assert after == [("note", "dialogue_state")] * len(after), after

    r = run_banker(["state", "--game", str(game), "--json"], env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert json.loads(r.stdout) == view, "the repaired game is not the state of the kept entries"


def test_a_file_with_its_last_page_cut_off_keeps_every_earlier_transaction(
        played: Path, tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    data = played.read_bytes()
    assert len(data) >= 6 * 4096, len(data)
    game.write_bytes(data[:-4096])
    # the entries still on the pages left, read from the intact file: the last page's are gone
    rows = _rows(played)
    on_last_page = _entries_on_page(data, len(data) // 4096)
    assert on_last_page, "the last page holds no entries: the cut would test nothing"
    kept = min(on_last_page) - 1
    assert 10 < kept < len(rows)
    _check(game, played, kept)


def test_a_scribbled_entry_keeps_every_transaction_before_it(played: Path, tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    rows = _rows(played)
    undos = [seq for seq, kind, *_ in rows if kind == "undo"]
    target = next(seq for seq, kind, *_ in rows if kind == "tx" and seq > undos[1])
    body = rows[target - 1][2].encode()
    data = played.read_bytes()
    assert data.count(body) == 1
    at = data.index(body)
    scribbled = data[:at + 20] + b"#" * 30 + data[at + 50:]
    game.write_bytes(scribbled)
    kept_entries = target - 1
    upto, _view = _expected_view(played, kept_entries)
    entries = sum(1 for _s, kind, *_ in rows[:kept_entries] if kind in ("tx", "undo"))
    assert upto < entries, "with undos kept, the two counts differ: the test can tell them apart"
    _check(game, played, kept_entries)


def _entries_on_page(file: bytes, page: int) -> list[int]:
    """Which entries live on a page of the intact file (the rowids of its cells)."""
    data = file[(page - 1) * 4096:page * 4096]
    if data[0] != 0x0D:  # not a table leaf
        return []
    cells = int.from_bytes(data[3:5], "big")
    seqs = []
    for i in range(cells):
        off = int.from_bytes(data[8 + 2 * i:10 + 2 * i], "big")
        _size, off = _varint(data, off)
        rowid, _ = _varint(data, off)
        seqs.append(rowid)
    return seqs


def _varint(data: bytes, off: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        b = data[off + i]
        if i == 8:
            return (value << 8) | b, off + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, off + i + 1
    raise AssertionError("unreachable")


def test_a_destroyed_root_page_keeps_every_entry_on_the_leaves(played: Path, tmp_path: Path) -> None:
    """The entries' root page (an interior page: the leaves hang under it) zeroed: SQLite
    reaches no entry at all, but every leaf is intact, so every entry is read off the pages."""
    db = sqlite3.connect(f"file:{played}?mode=ro", uri=True)
    try:
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'entries'").fetchone()[0]
    finally:
        db.close()
    data = bytearray(played.read_bytes())
    assert data[(root - 1) * 4096] == 0x05, "the root is an interior page"
    data[(root - 1) * 4096:root * 4096] = bytes(4096)
    game = tmp_path / "g.sqlite"
    game.write_bytes(bytes(data))
    _check(game, played, len(_rows(played)))
