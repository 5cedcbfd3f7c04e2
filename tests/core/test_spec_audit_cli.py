"""``banker play`` as cli.md describes it, checked from outside (spec audit): the players'
line typed at the start, and a mistake in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def play(tmp_path: Path, typed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--no-screen",
                           "--game", str(tmp_path / "g.sqlite")],
                          input=typed, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})


def test_a_mistyped_players_line_is_said_and_asked_again(tmp_path: Path) -> None:
    """A typo in the tokens doesn't end the program: the reason is printed and the question
    comes again; the corrected line starts the game."""
    r = play(tmp_path, "racecar, unicorn\nracecar\nracecar, T-Rex\ntrex: buy Boardwalk\n")
    assert r.returncode == 0, r.stderr
    lines = [ln.removeprefix("> ") for ln in r.stdout.splitlines()]
    assert sum("Who's playing?" in ln for ln in lines) == 3, r.stdout
    assert "There's no token called 'unicorn' in Monopoly Voice Banking" in r.stdout
    assert "needs 2 to 4 players" in r.stdout
    assert any("Boardwalk" in ln and "M1,100" in ln for ln in lines), r.stdout
    assert "Traceback" not in r.stderr


def test_no_players_at_all_is_still_bad_input(tmp_path: Path) -> None:
    """End of input before any players: exit 2 with one sentence on stderr, no game file."""
    r = play(tmp_path, "racecar, unicorn\n")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not (tmp_path / "g.sqlite").exists()
