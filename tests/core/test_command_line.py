"""The command line as a new user meets it: ``banker state`` in plain English that adds up, a
closed pipe, a mistyped edition, ``--help`` that explains every option."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from banker.cli import build_parser, main
from banker.editions import load_edition
from banker.editions.loader import editions_dir
from banker.interpreter.session import Session, VirtualClock
from banker.journal import GameFile, Header

ROOT = Path(__file__).resolve().parents[2]
Step = tuple[str, str]  # (token, what they say) or ("next:vault_code" / "next:chance", value)


def played(path: Path, edition: str, players: list[str], steps: list[Step]) -> Path:
    """A real game file: each step goes through a session that journals it."""
    ed = load_edition(edition)
    gf = GameFile(path)
    gf.create(Header(ed.id, (editions_dir() / f"{edition}.yaml").read_text(), players, {}, 11))
    s = Session(ed, players, seed=11, journal=gf, clock=VirtualClock())
    for who, text in steps:
        if who.startswith("next:"):
            s.force(who[5:], text)
        else:
            s.hear(who, text)
    gf.close()
    return path


def state_of(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["state", "--game", str(path)]) == 0
    out = capsys.readouterr().out
    return out


SECRET_VAULT = [("duck", "buy Mediterranean Avenue"), ("duck", "buy Baltic Avenue"),
                ("next:vault_code", "1"), ("duck", "guess 1"), ("duck", "Boardwalk"),
                ("duck", "place a hotel on Baltic Avenue"),
                ("next:vault_code", "2"), ("duck", "guess 2"), ("duck", "St. James Place"),
                ("next:vault_code", "3"), ("duck", "guess 3"), ("duck", "Ventnor Avenue"),
                ("duck", "put a hotel on Baltic Avenue"),
                ("next:chance", "jail-free"), ("dog", "chance card")]


def test_state_counts_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = state_of(played(tmp_path / "sv.sqlite", "secret-vault", ["duck", "dog"], SECRET_VAULT), capsys)
    assert "Baltic Avenue (2 hotels)" in out, out
    assert "1 Get Out of Jail Free card" in out, out
    assert "jail_card" not in out and "(2 hotel)" not in out
    # the vault is part of the state too (refilled after every opening: M400, a key, a hotel)
    assert re.search(r"vault: M400, 1 key", out), out


def test_jackpot_state_adds_up_to_the_money_in_the_game(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    steps = [("car", "buy Boardwalk"), ("dog", "buy Park Place"), ("car", "buy Baltic Avenue")]
    out = state_of(played(tmp_path / "j.sqlite", "jackpot", ["car", "dog"], steps), capsys)
    amounts = [int(m.replace(",", "")) for m in re.findall(r"^\s+\w[\w ]*: \$([\d,]+)", out, re.M)]
    assert sum(amounts) == 21000, out  # players + Bank + Jackpot (+ stakes)
    assert "jackpot: $" in out
    # the one house on an owned street is its owner's marker, not a building
    assert "house)" not in out, out
    assert "car: $1,100 - 8 houses left" in out and "dog: $1,200 - 9 houses left" in out, out


def test_state_shows_the_stakes_of_a_betting_round_open_at_the_stop(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bet is on the table, out of the bettor's cash, as the table saw it: ``state --json``
    during a betting round shows the stakes, and the money still adds up to $21,000."""
    import json

    game = played(tmp_path / "bet.sqlite", "jackpot", ["car", "dog"],
                  [("car", "chance"), ("dog", "bet 300")])
    assert main(["state", "--game", str(game), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["stakes"] == {"dog": 300}
    assert view["cash"] == {"car": 2000, "dog": 1700}
    assert sum(view["cash"].values()) + view["bank"] + view["jackpot"] + 300 == 21000


def test_state_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    game = played(tmp_path / "g.sqlite", "voice-banking", ["cat", "dog"], [("cat", "buy Boardwalk")])
    r_fd, w_fd = os.pipe()
    os.close(r_fd)  # the reader (``head -3``) has gone before the first write
    try:
        r = subprocess.run([sys.executable, "-m", "banker", "state", "--game", str(game)],
                           stdout=w_fd, stderr=subprocess.PIPE, text=True, timeout=60, cwd=ROOT)
    finally:
        os.close(w_fd)
    assert r.stderr == "" and r.returncode == 0, r.stderr


def test_an_unknown_edition_is_named_with_the_ones_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["play", "--keyboard", "--edition", "monopoly-classic", "--players", "cat,dog"],
                 ["transcribe", "--edition", "monopoly-classic", "a.wav"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == ("banker: There is no edition called 'monopoly-classic'; the editions are "
                       "classic, jackpot, secret-vault and voice-banking.\n"), err


def test_every_option_is_explained() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "play" in a.choices)
    assert isinstance(sub.choices, dict)
    bare = [f"{name} {opt.option_strings or opt.dest}" for name, p in sub.choices.items()
            for opt in p._actions if not opt.help]
    assert bare == []


def test_keyboard_hint_names_a_token_that_is_playing(tmp_path: Path) -> None:
    """A typed line with no token gets the hint, with a token at this table (no dog here)."""
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--no-screen",
                        "--players", "racecar,cat", "--game", str(tmp_path / "g.sqlite")],
                       input="buy Boardwalk\n", capture_output=True, text=True, timeout=120,
                       env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    hint = [ln.removeprefix("> ") for ln in r.stdout.splitlines() if "Start the line with" in ln]
    assert hint == ["Start the line with your token, like: racecar: buy Boardwalk"], r.stdout
