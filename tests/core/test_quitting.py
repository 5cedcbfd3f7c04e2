"""Leaving ``banker play --keyboard``: Ctrl-D (or the end of a pipe) and Ctrl-C both leave the
game saved and say so on a line of their own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SAVED = "Game saved. Resume with banker play --resume."


def _env(tmp: Path) -> dict[str, str]:
    return dict(os.environ, XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))


def test_end_of_input_says_the_game_is_saved_on_its_own_line(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players", "cat,dog",
                        "--game", str(game)], input="cat: buy Boardwalk\n", capture_output=True,
                       text=True, timeout=60, env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert SAVED in r.stdout.splitlines(), r.stdout
    assert r.stdout.rstrip("\n").endswith("\n" + SAVED)


def test_ctrl_c_says_the_game_is_saved_and_resume_finds_it(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    cmd = [sys.executable, "-m", "banker", "play", "--keyboard", "--game", str(game)]
    p = subprocess.Popen([*cmd, "--players", "cat,dog"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=_env(tmp_path))
    assert p.stdin is not None
    p.stdin.write("cat: buy Boardwalk\n")
    p.stdin.flush()
    end = time.monotonic() + 30
    while time.monotonic() < end and not _bought(game, tmp_path):
        time.sleep(0.2)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)  # Ctrl-C; stdin stays open, as at a terminal
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "Traceback" not in err
    assert SAVED in out.splitlines(), out
    r = subprocess.run([*cmd, "--resume"], input="", capture_output=True, text=True, timeout=60,
                       env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "Boardwalk" in r.stdout  # what was bought before Ctrl-C is there on resume


def _bought(game: Path, tmp: Path) -> bool:
    if not game.exists():
        return False
    r = subprocess.run([sys.executable, "-m", "banker", "state", "--game", str(game)],
                       capture_output=True, text=True, timeout=30, env=_env(tmp))
    return "Boardwalk" in r.stdout
