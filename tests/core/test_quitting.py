"""Leaving ``banker play --keyboard``: Ctrl-D (or the end of a pipe) and Ctrl-C both leave the
game saved and say so on a line of their own."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

SAVED = "Game saved. Resume with banker play --resume."


def _saved(game: Path) -> str:
    """The goodbye line for a game kept outside the default folder: it names the file."""
    return f"Game saved. Resume with banker play --resume --game {game}."


def _env(tmp: Path) -> dict[str, str]:
    return dict(os.environ, XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))


def test_end_of_input_says_the_game_is_saved_on_its_own_line(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players", "cat,dog",
                        "--game", str(game)], input="cat: buy Boardwalk\n", capture_output=True,
                       text=True, timeout=60, env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert _saved(game) in r.stdout.splitlines(), r.stdout
    assert r.stdout.rstrip("\n").endswith("\n" + _saved(game))


def test_a_game_in_the_default_folder_is_resumed_by_the_plain_command(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players", "cat,dog"],
                       input="cat: buy Boardwalk\n", capture_output=True, text=True, timeout=60,
                       env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n").endswith("\n" + SAVED), r.stdout


def test_the_line_it_prints_resumes_that_game(tmp_path: Path) -> None:
    """Another game in the default folder must not be the one the goodbye line resumes."""
    game = tmp_path / "my games" / "g.sqlite"
    env = _env(tmp_path)
    play = [sys.executable, "-m", "banker", "play", "--keyboard"]
    subprocess.run([*play, "--players", "cat,dog"], input="", capture_output=True, text=True,
                   timeout=60, env=env, check=True)
    r = subprocess.run([*play, "--players", "cat,dog", "--game", str(game)],
                       input="cat: buy Boardwalk\n", capture_output=True, text=True, timeout=60,
                       env=env)
    line = r.stdout.rstrip("\n").splitlines()[-1]
    assert line.startswith("Game saved. Resume with banker "), line
    args = shlex.split(line.removeprefix("Game saved. Resume with banker ").rstrip("."))
    r = subprocess.run([sys.executable, "-m", "banker", *args, "--keyboard"], input="",
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert "Boardwalk" in r.stdout, r.stdout


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
    assert _saved(game) in out.splitlines(), out
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
