"""The stop that used to forget a debt, through the real command line: Voice Banking, the
racecar owes the T-Rex and is asked which street to give up; the end of input (Ctrl-D) stops
the banker; ``banker play --resume`` (no ``--game``: the game played last, although its file
is not in the default folder) asks again by name, and "Park Place" answers the question."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BEFORE = ["trex: buy Baltic Avenue", "trex: buy Mediterranean Avenue",
          "trex: build a hotel on Baltic Avenue", "racecar: buy Park Place",
          "racecar: pay 1100", "racecar: pay rent on Baltic Avenue"]


def _play(tmp: Path, args: list[str], lines: list[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))
    return subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--no-screen",
                           *args], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_debt_survives_ctrl_d_and_resume_asks_it_again(tmp_path: Path) -> None:
    game = tmp_path / "elsewhere" / "family.sqlite"
    first = _play(tmp_path, ["--players", "trex,racecar", "--game", str(game)], BEFORE)
    assert first.returncode == 0, first.stderr
    assert "you owe T-Rex M450 but have only M50. Which street will you give up?" in first.stdout
    # a game outside the default folder is named; a plain --resume finds it too (below)
    assert first.stdout.rstrip().endswith(f"Resume with banker play --resume --game {game}.")
    second = _play(tmp_path, ["--resume"], ["racecar: Park Place", "racecar: what's my balance"])
    assert second.returncode == 0, second.stderr
    assert "Racecar, you still owe T-Rex M450: which street will you give up?" in second.stdout
    assert "Park Place now belongs to T-Rex" in second.stdout, second.stdout
    assert "Sorry" not in second.stdout
    state = subprocess.run([sys.executable, "-m", "banker", "state", "--json", "--game", str(game)],
                           capture_output=True, text=True, timeout=60)
    view = json.loads(state.stdout)
    assert view["owner"]["Park Place"] == "trex" and view["debts"] == [], view
    assert view["cash"]["racecar"] == 0
