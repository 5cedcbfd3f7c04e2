"""``banker replay``: exit codes, malformed files named with file and line, the JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

T = Path(__file__).resolve().parents[1] / "transcripts"
MALFORMED = {
    "bad_yaml.yaml": "line",
    "unknown_token.yaml": "line 5",
    "unknown_step.yaml": "line 5",
    "unknown_street.yaml": "line 6",
    "unknown_edition.yaml": "no edition called",
    "bad_next.yaml": "line 4",
    "jail_free_out.yaml": "line 6",
    "bomb.yaml": "aliases are not allowed",
}


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banker", "replay", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("name", "needle"), sorted(MALFORMED.items()))
def test_malformed_transcript_exits_2_naming_file_and_line(name: str, needle: str) -> None:
    r = replay(str(T / "malformed" / name))
    assert r.returncode == 2, r.stdout + r.stderr
    assert name in r.stdout and needle in r.stdout
    assert r.stdout.count(name) == 1, r.stdout  # the file is named once
    assert "Traceback" not in r.stdout + r.stderr


def test_failing_expectation_exits_1_and_reports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("edition: voice-banking\nplayers: [cat, dog]\nsteps:\n"
                   "  - cat: buy Boardwalk\n    expect: {cash: {cat: 1000}}\n")
    report = tmp_path / "r.json"
    good = T / "voice-banking" / "talk.yaml"
    r = replay(str(good), str(bad), "--report", str(report))
    assert r.returncode == 1
    assert "step 1" in r.stdout and "expected {'cat': 1000}, got {'cat': 1100}" in r.stdout
    data = json.loads(report.read_text())
    files = {Path(f["file"]).name: f for f in data["files"]}
    assert files["talk.yaml"]["ok"] is True and files["bad.yaml"]["ok"] is False
    step = files["bad.yaml"]["steps"][0]
    assert step == {"step": 1, "player": "cat", "heard": ["buy Boardwalk"], "intent": "buy",
                    "slots": {"property": "Boardwalk"}, "said": step["said"], "ok": False}
    assert "M400" in step["said"]


def test_malformed_and_failing_together_exit_2(tmp_path: Path) -> None:
    r = replay(str(T / "malformed" / "unknown_token.yaml"), str(T / "voice-banking" / "talk.yaml"))
    assert r.returncode == 2 and "ok: " in r.stdout


def test_yaml_words_stay_text(tmp_path: Path) -> None:
    t = tmp_path / "y.yaml"
    t.write_text("edition: voice-banking\nplayers: [cat, dog]\nsteps:\n  - cat: buy Boardwalk\n"
                 "  - dog: undo\n  - cat: yes\n    expect: {owner: {Boardwalk: bank}}\n")
    assert replay(str(t)).returncode == 0
