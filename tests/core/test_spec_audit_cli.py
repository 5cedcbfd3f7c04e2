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


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banker", "replay", *args], capture_output=True,
                          text=True, timeout=120)


GOOD = "edition: voice-banking\nplayers: [cat, dog]\nsteps:\n  - cat: buy Boardwalk\n"


def test_a_malformed_transcript_gives_its_reason_on_stderr(tmp_path: Path) -> None:
    """cli.md: exit 2 "with a one-line reason on stderr" (the run's log on stdout stays)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("edition: voice-banking\nplayers: [cat, unicorn]\nsteps: []\n")
    r = replay(str(bad))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "bad.yaml" in r.stderr, r.stderr
    assert "unicorn" in r.stderr and "Traceback" not in r.stderr


def test_a_report_that_cant_be_written_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    r = replay(str(good), "--report", str(tmp_path / "no" / "such" / "dir" / "r.json"))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "report" in r.stderr
