"""The SQLite journal: durable before announcing, exact resume, undo as an entry, one owner."""

from __future__ import annotations

import ast
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from banker.editions import load_edition
from banker.editions.loader import editions_dir
from banker.interpreter.session import Session
from banker.journal import GameFile, Header, JournalError, JournalLocked
from banker.journal.codec import Entry, add_entries


def new_game(path: Path, players: list[str] | None = None) -> tuple[GameFile, Session, list[str]]:
    ed = load_edition("voice-banking")
    players = players or ["racecar", "dog"]
    gf = GameFile(path)
    gf.create(Header(ed.id, (editions_dir() / "voice-banking.yaml").read_text(), players, {}, 11))
    said: list[str] = []
    s = Session(ed, players, seed=11, journal=gf, on_say=said.append)
    return gf, s, said


def resume(path: Path) -> tuple[GameFile, Session]:
    gf = GameFile(path)
    loaded = gf.open()
    ed = load_edition("voice-banking")
    s = Session(ed, loaded.header.players, seed=loaded.header.seed, journal=gf,
                history=loaded.transactions)
    return gf, s


def test_transaction_is_on_disk_before_it_is_announced(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    gf, s, _ = new_game(path)
    seen: list[int] = []

    def on_say(_text: str) -> None:
        # Another connection must already see the row when Mr. Monopoly speaks.
        db = sqlite3.connect(path)
        seen.append(db.execute("SELECT count(*) FROM entries WHERE kind='tx'").fetchone()[0])
        db.close()

    s.on_say = on_say
    s.hear("racecar", "buy Baltic Avenue")
    assert seen == [1]
    gf.close()


def test_resume_continues_exactly(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    gf, s, _ = new_game(path)
    for line in ("buy Baltic Avenue", "buy Mediterranean Avenue", "build a hotel on Baltic Avenue",
                 "chance card", "train ride"):
        s.hear("racecar", line)
    s.hear("dog", "pay rent on Baltic Avenue")
    before = s.state.view()
    draws = s.state.draws
    gf.close()
    gf2, s2 = resume(path)
    assert s2.state.view() == before and s2.state.draws == draws
    # the same random draw comes next in both
    s.journal = None
    s.hear("dog", "chance card")
    s2.hear("dog", "chance card")
    assert s.state.view() == s2.state.view()
    gf2.close()


def test_undo_is_an_entry_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    gf, s, _ = new_game(path)
    s.hear("racecar", "buy Baltic Avenue")
    s.hear("racecar", "undo")
    assert s.state.owner("Baltic Avenue") is None
    gf.close()
    rows = sqlite3.connect(path).execute("SELECT kind FROM entries ORDER BY seq").fetchall()
    assert [r[0] for r in rows] == ["tx", "undo"]
    gf2, s2 = resume(path)
    assert s2.state.owner("Baltic Avenue") is None and s2.state.cash("racecar") == 1500
    gf2.close()


def test_the_entries_in_order_keep_the_undone_ones_marked(tmp_path: Path) -> None:
    """What the table screen reads: every transaction, an undone one marked (even when its
    undo comes in a later read), damaged rows passed over; the unmarked ones are the resume's."""
    path = tmp_path / "g.sqlite"
    gf, s, _ = new_game(path)
    s.hear("racecar", "buy Baltic Avenue")
    s.hear("dog", "buy Park Place")
    s.hear("dog", "undo")
    gf.close()
    rows = sqlite3.connect(path).execute(
        "SELECT seq, kind, body, crc, at FROM entries ORDER BY seq").fetchall()
    assert [r[1] for r in rows] == ["tx", "tx", "undo"]
    entries: list[Entry] = []
    assert add_entries(entries, rows[:2])
    assert [(e.tx.seq, e.undone) for e in entries] == [(1, False), (2, False)]
    assert add_entries(entries, [*rows[2:], (4, "tx", "{not json", "", 0.0)])
    assert [(e.tx.seq, e.tx.intent, e.undone) for e in entries] == [(1, "buy", False), (2, "buy", True)]
    assert [e.at for e in entries] == [r[4] for r in rows[:2]]
    assert not add_entries(entries, [(5, "undo", "[]", "", 0.0), (6, "note", "{}", "", 0.0)])
    assert len(entries) == 2 and entries[0].undone is False
    assert [e.tx for e in entries if not e.undone] == GameFile(path).peek().transactions


def test_second_player_on_the_same_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    gf, _s, _ = new_game(path)
    with pytest.raises(JournalLocked, match="already open"):
        GameFile(path).open()
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--resume", "--game",
                        str(path)], capture_output=True, text=True, input="", timeout=60)
    assert r.returncode == 2 and "already open" in r.stderr and "Traceback" not in r.stderr
    gf.close()


def test_not_a_journal_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    path.write_bytes(b"this is not a game at all" * 100)
    with pytest.raises(JournalError):
        GameFile(path).open()
    assert path.read_bytes() == b"this is not a game at all" * 100
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--resume", "--game",
                        str(path)], capture_output=True, text=True, input="", timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert path.read_bytes() == b"this is not a game at all" * 100


def test_play_and_resume_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    cmd = [sys.executable, "-m", "banker", "play", "--keyboard", "--game", str(path)]
    r = subprocess.run([*cmd, "--players", "cat,dog"], input="cat: buy Boardwalk\n1: pass go\n",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "M1,100" in r.stdout and "M1,300" in r.stdout
    r = subprocess.run([*cmd, "--resume"], input="cat: what's my balance\n", capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "M1,300" in r.stdout.split("Welcome back")[-1]
    r = subprocess.run([*cmd, "--resume", "--players", "cat,dog"], input="", capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "--resume" in r.stderr
    r = subprocess.run([sys.executable, "-m", "banker", "state", "--game", str(path), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and '"Boardwalk": "cat"' in r.stdout


def test_resuming_a_finished_game_prints_the_result(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    cmd = [sys.executable, "-m", "banker", "play", "--keyboard", "--game", str(path)]
    script = "cat: pay 1500 to the bank\ndog: buy Boardwalk\ncat: pay rent on Boardwalk\n"
    r = subprocess.run([*cmd, "--players", "cat,dog"], input=script, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "bankrupt" in r.stdout
    r = subprocess.run([*cmd, "--resume"], input="", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "Dog wins" in r.stdout and "M1,500" in r.stdout


def test_the_journal_modules_keep_to_their_jobs() -> None:
    """codec is pure (no files, no SQLite), wal reads raw bytes only (no SQLite), and no part of
    the journal reaches up into the interpreter, the front ends, the tools or the app."""
    pkg = Path(__file__).resolve().parents[2] / "banker" / "journal"

    def imports(name: str) -> set[str]:
        tree = ast.parse((pkg / f"{name}.py").read_text())
        return ({a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
                | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module})

    up = ("banker.interpreter", "banker.frontends", "banker.tools", "banker.app", "banker.cli")
    for name in ("__init__", "codec", "errors", "integrity", "sqlite", "wal"):
        assert not [m for m in imports(name) if m.startswith(up)], name
    assert not imports("codec") & {"sqlite3", "os", "tempfile", "fcntl"}
    assert not imports("wal") & {"sqlite3", "os", "tempfile", "fcntl"}
