"""A power cut mid-write: the journal's files are cut short or end in garbage.

What "torn" means for SQLite in WAL mode is written down in ``banker/journal/wal.py``.
These tests build real journals by playing random games, copy the files *while the game is
open* (what the disk holds at a power cut: main file + ``-wal``), damage the copy and resume:

* WAL cut at byte X: exactly the entries whose commit frame ends at or before X come back
  (the WAL sizes after every write are recorded while playing, so this is known exactly);
* WAL or main file with garbage appended, main file cut short, a byte flipped in the WAL:
  the kept entries are always a prefix of what was written, identical byte for byte;
* whenever anything was cut or added, the original files are kept, unchanged, as
  ``<name>.damaged`` (and ``<name>.damaged-wal``), and the repaired file is a clean journal
  that opens without repair and takes new transactions;
* a file that has no readable game at all is refused with one sentence and left untouched.

Through the command line: ``--resume`` says "kept everything up to transaction N", exit 0;
``banker state`` reads a damaged file without changing a byte; an unreadable file exits 2.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from banker.editions import available_editions
from banker.editions.loader import editions_dir
from banker.interpreter.session import Session, VirtualClock
from banker.journal import GameFile, Header, JournalError, scan_wal
from banker.rules import fold, rules_for

from .support import (
    Actor,
    RandomChooser,
    assert_one_sentence,
    clean_env,
    edition,
    matcher_for,
    run_banker,
)

EDITIONS = available_editions()
LAYOUTS = ["wal", "checkpointed", "restarted", "closed"]
CASES_PER_BUILD = 40


class Recorder(GameFile):
    """A real game file that also notes each entry and the WAL's size right after it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.rows: list[tuple[int, str, str]] = []
        self.ends: list[int] = []

    def _write(self, kind: str, body: dict[str, Any]) -> int:
        seq = super()._write(kind, body)
        self.rows.append((seq, kind, json.dumps(body, sort_keys=True)))
        self.ends.append(_size(_wal(self.path)))
        return seq


def _wal(p: Path) -> Path:
    return p.with_name(p.name + "-wal")


def _size(p: Path) -> int:
    return p.stat().st_size if p.exists() else 0


@dataclass
class Built:
    snap: Path  # the files as they were on disk at the "power cut"
    rows: list[tuple[int, str, str]]  # every entry written, in order
    base: int  # entries already checkpointed into the main file
    ends: list[int] = field(default_factory=list)  # WAL size after each entry past ``base``
    create_end: int = 0  # WAL size once the header was written (0: header in the main file)
    exact: bool = False  # ``ends`` are WAL offsets (no WAL reuse)


def _play(session: Session, actor: Actor, rng: random.Random, steps: int) -> None:
    ch = RandomChooser(rng)
    for _ in range(steps):
        actor.next(ch, session).apply(session)


def build(tmp: Path, edition_id: str, layout: str, rng: random.Random) -> Built:
    ed = edition(edition_id)
    players = rng.sample(list(ed.token_ids), ed.min_players + 1)
    path = tmp / "live" / "g.sqlite"
    gf = Recorder(path)
    gf.create(Header(ed.id, (editions_dir() / f"{ed.id}.yaml").read_text(), players, {}, 7))
    create_end = _size(_wal(path))
    session = Session(ed, players, seed=7, journal=gf, clock=VirtualClock(), matcher=matcher_for(ed))
    actor = Actor(ed)
    _play(session, actor, rng, 30)
    rows, base, exact = list(gf.rows), 0, True
    if layout == "checkpointed":
        gf.close()  # a clean close: everything is copied into the main file, the WAL goes
        base, rows = len(gf.rows), list(gf.rows)
        gf = Recorder(path)
        loaded = gf.open()
        session = Session(ed, players, seed=7, journal=gf, clock=VirtualClock(),
                          history=loaded.transactions, matcher=matcher_for(ed))
        create_end = 0
        _play(session, actor, rng, 30)
        rows += gf.rows
    elif layout == "restarted":
        assert gf.db is not None
        gf.db.execute("PRAGMA wal_checkpoint(RESTART)")  # the WAL is reused from its start
        _play(session, actor, rng, 10)
        rows, exact = list(gf.rows), False
    snap = tmp / "snap"
    snap.mkdir()
    if layout == "closed":
        gf.close()
    for f in path.parent.iterdir():
        if f.name.startswith("g.sqlite") and not f.name.endswith(".lock"):
            shutil.copy(f, snap / f.name)
    if layout != "closed":
        gf.close()
    ends = gf.ends if layout != "closed" else []
    return Built(snap, rows, base, ends, create_end, exact and layout != "closed")


def _entries(path: Path) -> list[tuple[int, str, str]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [(int(s), str(k), str(b)) for s, k, b in
                db.execute("SELECT seq, kind, body FROM entries ORDER BY seq")]
    finally:
        db.close()


def _damage(case: Path, b: Built, rng: random.Random) -> tuple[str, int | None]:
    """Damage the copy in ``case``; returns (what, expected entries if known exactly)."""
    main, wal = case / "g.sqlite", case / "g.sqlite-wal"
    have_wal = wal.exists() and _size(wal) > 0
    ops = ["main_cut", "main_garbage"] + (["wal_cut", "wal_cut", "wal_garbage", "wal_flip"]
                                          if have_wal else ["main_flip"])
    op = rng.choice(ops)
    if op == "wal_cut":
        size = _size(wal)
        x = rng.choice([rng.randrange(0, size + 1), rng.randrange(0, size + 1),
                        rng.choice(b.ends or [size]), rng.randrange(0, 64)])
        with open(wal, "r+b") as fh:
            fh.truncate(x)
        if b.exact:
            if x < b.create_end:
                return f"{op} {x}", None if b.base else -1  # -1: no game header left
            return f"{op} {x}", b.base + sum(1 for e in b.ends if e <= x)
        return f"{op} {x}", None
    if op == "wal_flip":
        size = _size(wal)
        lo = max(b.create_end, 32)
        if size <= lo:
            return "none", len(b.rows)
        at = rng.randrange(lo, size)
        data = bytearray(wal.read_bytes())
        data[at] ^= 1 << rng.randrange(8)
        wal.write_bytes(bytes(data))
        if b.exact:
            frame = 24 + 4096
            start = 32 + (at - 32) // frame * frame
            return f"{op} {at}", b.base + sum(1 for e in b.ends if e <= start)
        return f"{op} {at}", None
    if op.endswith("garbage"):
        target = wal if op == "wal_garbage" else main
        junk = os.urandom(rng.choice([1, 7, 100, 4095, 4097, 9000]))
        with open(target, "ab") as fh:
            fh.write(junk)
        return f"{op} {len(junk)}", len(b.rows)
    if op == "main_cut":
        size = _size(main)
        y = rng.choice([rng.randrange(0, size + 1), rng.randrange(0, size + 1) // 4096 * 4096,
                        rng.randrange(0, 200)])
        with open(main, "r+b") as fh:
            fh.truncate(y)
        everything_in_wal = have_wal and b.base == 0 and b.exact
        return f"{op} {y}", len(b.rows) if everything_in_wal else None
    # main_flip (a closed file): a byte somewhere after the header page
    size = _size(main)
    at = rng.randrange(4096, size) if size > 4096 else 100
    data = bytearray(main.read_bytes())
    data[at] ^= 1 << rng.randrange(8)
    main.write_bytes(bytes(data))
    return f"{op} {at}", None


def _check_case(case: Path, b: Built, what: str, expect: int | None) -> str:
    main, wal = case / "g.sqlite", case / "g.sqlite-wal"
    before = {p.name: p.read_bytes() for p in case.iterdir() if p.name in ("g.sqlite", "g.sqlite-wal")}
    gf = GameFile(main)
    try:
        loaded = gf.open()
    except JournalError as exc:
        gf.close()
        sentence = str(exc)
        assert "\n" not in sentence and sentence.endswith(".") and len(sentence) < 300, sentence
        assert expect in (None, -1), f"{what}: refused ({sentence}) but {expect} entries were readable"
        after = {p.name: p.read_bytes() for p in case.iterdir() if p.name in before}
        assert after == before, f"{what}: an unreadable file was changed"
        assert not list(case.glob("*.damaged*")), what
        return "refused"
    try:
        assert gf.db is not None
        gf.db.execute("SELECT 1")
    finally:
        gf.close()
    got = _entries(main)
    if loaded.open_dialogue is not None:  # opening marks the interrupted dialogue as told
        assert got[-1][1] == "note" and "dialogue_closed" in got[-1][2], got[-1]
        got = got[:-1]
    assert got == b.rows[:len(got)], f"{what}: kept entries are not a prefix of what was written"
    if expect is not None:
        assert expect != -1, f"{what}: nothing readable was expected, got {len(got)} entries"
        assert len(got) == expect, f"{what}: kept {len(got)} entries, expected {expect}"
    if loaded.repaired_from is None and not what.startswith("wal_cut"):
        # nothing looked damaged, so nothing may be missing
        assert len(got) == len(b.rows), f"{what}: {len(b.rows) - len(got)} entries lost unnoticed"
    tx_undo = sum(1 for _s, k, _b in got if k in ("tx", "undo"))
    assert loaded.kept == tx_undo
    if loaded.repaired_from is not None:
        kept = {"g.sqlite": loaded.repaired_from.read_bytes()}
        side = loaded.repaired_from.with_name(loaded.repaired_from.name + "-wal")
        if side.exists() and (side.stat().st_size or "g.sqlite-wal" in before):
            kept["g.sqlite-wal"] = side.read_bytes()
        assert kept == before, f"{what}: the damaged original was not kept byte for byte"
        assert not wal.exists() or _size(wal) == 0 or scan_wal(wal.read_bytes()).torn == ""
    # the repaired (or untouched) file is a clean journal that takes new transactions
    again = GameFile(main)
    second = again.open()
    try:
        assert second.repaired_from is None and second.kept == loaded.kept
        assert second.open_dialogue is None, "an interrupted dialogue is told only once"
        assert not second.damaged
        ed = edition(second.header.edition)
        state = fold(rules_for(ed).initial_state(second.header.players, second.header.options,
                                                 second.header.seed),
                     [e for tx in second.transactions for e in tx.events])
        live = fold(rules_for(ed).initial_state(second.header.players, second.header.options,
                                                second.header.seed),
                    [e for tx in loaded.transactions for e in tx.events])
        assert live == state, "reopening gives the state the repair gave"
        n = again.append_undo(0, None)
        assert n > max((s for s, _k, _b in got), default=0)
    finally:
        again.close()
    return "repaired" if loaded.repaired_from is not None else "clean"


OUTCOMES: dict[str, dict[str, int]] = {}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("edition_id", EDITIONS)
def test_torn_tail_keeps_every_complete_transaction(edition_id: str, layout: str,
                                                    fast_tmp: Path, slow: bool) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    tmp_path = fast_tmp
    b = build(tmp_path, edition_id, layout, rng)
    assert b.rows, "the random game wrote nothing"
    stats = OUTCOMES.setdefault(layout, {})
    for i in range(CASES_PER_BUILD * (5 if slow else 1)):
        case = tmp_path / f"case{i}"
        shutil.copytree(b.snap, case)
        what, expect = _damage(case, b, rng)
        try:
            outcome = _check_case(case, b, what, expect)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, case {i}: {exc}") from None
        key = f"{what.split(' ')[0]}:{outcome}"
        stats[key] = stats.get(key, 0) + 1
        shutil.rmtree(case)
    print(f"\ntorn {edition_id}/{layout}: {stats}")


def test_untouched_power_cut_copy_is_not_damage(fast_tmp: Path) -> None:
    """The files as a power cut leaves them (main + WAL + shared memory) open cleanly."""
    for layout in LAYOUTS:
        b = build(fast_tmp / layout, "voice-banking", layout, random.Random(3))
        gf = GameFile(b.snap / "g.sqlite")
        loaded = gf.open()
        gf.close()
        assert loaded.repaired_from is None, (layout, loaded.notes)
        got = _entries(b.snap / "g.sqlite")
        assert got[:len(b.rows)] == b.rows
        assert len(got) == len(b.rows) + (loaded.open_dialogue is not None)


def _damaged_game(tmp_path: Path) -> tuple[Path, int]:
    """A game whose WAL was cut in the middle of its last transaction."""
    b = build(tmp_path, "voice-banking", "wal", random.Random(11))
    game = b.snap / "g.sqlite"
    last_tx = max(i for i, (_s, k, _b) in enumerate(b.rows) if k == "tx")
    cut = b.ends[last_tx] - 100  # inside the last transaction's frame
    with open(_wal(game), "r+b") as fh:
        fh.truncate(cut)
    kept_rows = b.rows[:last_tx]
    undone = {json.loads(body)["target"] for _s, k, body in kept_rows if k == "undo"}
    live = sum(1 for s, k, _b in kept_rows if k == "tx" and s not in undone)
    return game, live


def test_resume_of_a_torn_game_says_what_was_kept(tmp_path: Path) -> None:
    game, live = _damaged_game(tmp_path)
    original = game.read_bytes(), _wal(game).read_bytes()
    r = run_banker(["state", "--game", str(game), "--json"])
    assert r.returncode == 0 and "damaged" in assert_one_sentence(r.stderr)
    assert (game.read_bytes(), _wal(game).read_bytes()) == original, "banker state changed the file"
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)],
                   env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    assert r.returncode == 0, r.stderr
    assert f"kept everything up to transaction {live}" in r.stdout, r.stdout
    assert "Traceback" not in r.stderr
    damaged = game.with_name("g.sqlite.damaged")
    assert (damaged.read_bytes(), _wal(damaged).read_bytes()) == original
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)], input="",
                   env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    assert r.returncode == 0 and "damaged" not in r.stdout, "repaired once, clean after"


@pytest.mark.parametrize("content", [b"", b"not a game" * 500, b"SQLite format 3\x00" + bytes(200)])
def test_unreadable_file_is_one_sentence_and_exit_2(tmp_path: Path, content: bytes) -> None:
    game = tmp_path / "g.sqlite"
    game.write_bytes(content)
    for args in (["play", "--keyboard", "--resume", "--game", str(game)],
                 ["state", "--game", str(game)]):
        r = run_banker(args, env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert_one_sentence(r.stderr)
        assert game.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("g.sqlite")) in (
        ["g.sqlite", "g.sqlite.lock"], ["g.sqlite"])


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    db = sqlite3.connect(game)
    db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('format', 'something-else')")
    db.commit()
    db.close()
    before = game.read_bytes()
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)],
                   env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    assert r.returncode == 2 and "not a banker game" in assert_one_sentence(r.stderr)
    assert game.read_bytes() == before


def test_a_folder_instead_of_a_game_is_refused(tmp_path: Path) -> None:
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(tmp_path)],
                   env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    assert r.returncode == 2
    assert_one_sentence(r.stderr)


def test_an_entry_number_out_of_step_is_damage(fast_tmp: Path) -> None:
    """A flipped bit in a row's key (seq 9 read as 11) leaves the body and its checksum intact;
    found by the random cases above (seed 617137647, case 16, main_flip). Entries are numbered
    without gaps, so the first one out of step ends the kept prefix, and the file is repaired."""
    b = build(fast_tmp, "voice-banking", "closed", random.Random(5))
    game = b.snap / "g.sqlite"
    last = b.rows[-1][0]
    db = sqlite3.connect(game)
    db.execute("UPDATE entries SET seq = ? WHERE seq = ?", (last + 2, last))
    db.commit()
    db.close()
    gf = GameFile(game)
    loaded = gf.open()
    gf.close()
    assert loaded.dropped == 1 and loaded.repaired_from is not None
    assert _entries(game)[:len(b.rows) - 1] == b.rows[:-1]
    assert all(s != last + 2 for s, _k, _b in _entries(game))


def test_a_damaged_header_is_refused_untouched(fast_tmp: Path) -> None:
    """A flipped bit in the header (found by the random cases above: 'jackpot' read as
    'jaCkpot'; in the edition's stored rules it would change the game silently) is refused in
    one sentence, and the file is left as it is: nothing else says which game it is."""
    b = build(fast_tmp, "jackpot", "closed", random.Random(5))
    game = b.snap / "g.sqlite"
    db = sqlite3.connect(game)
    db.execute("UPDATE meta SET value = replace(value, 'start_cash: 2000', 'start_cash: 3000') "
                "WHERE key = 'edition_yaml'")
    assert db.total_changes == 1
    db.commit()
    db.close()
    before = game.read_bytes()
    for read in (GameFile.open, GameFile.peek):
        gf = GameFile(game)
        with pytest.raises(JournalError) as exc:
            read(gf)
        gf.close()
        assert_one_sentence(str(exc.value))
        assert "damaged" in str(exc.value)
    assert game.read_bytes() == before and not list(game.parent.glob("*.damaged*"))


def test_a_format_1_game_without_a_header_checksum_still_opens(fast_tmp: Path) -> None:
    b = build(fast_tmp, "voice-banking", "closed", random.Random(5))
    game = b.snap / "g.sqlite"
    db = sqlite3.connect(game)
    db.execute("DELETE FROM meta WHERE key = 'header_crc'")
    db.execute("UPDATE meta SET value = 'banker-journal-1' WHERE key = 'format'")
    db.commit()
    db.close()
    gf = GameFile(game)
    loaded = gf.open()
    gf.close()
    assert loaded.repaired_from is None and loaded.kept == sum(1 for _s, k, _b in b.rows if k != "note")
