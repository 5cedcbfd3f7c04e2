"""The repository speaks of the code, not of its history: no tracked file names the session
or the issue, by number, that changed something (nor a "work" "period"). A reader can't look
those up and git already records them; a comment says what a thing does and why, with the
measurement. (The examples below are split in two so this file passes itself.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the word, then a number: after a space, an underscore (a test's name) or a comment's line break
HISTORY = re.compile(r"(?<![a-z])(?:session|issue)s?(?:[ \t_]*|[ \t]*\n[ \t]*(?:#|//|\*)?[ \t]*)\d+"
                     r"|\bwork[ ]periods?\b", re.IGNORECASE)


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        return [p for p in out.stdout.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file there
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                if p.is_file() and ".git" not in p.parts]


def mentions(text: str) -> list[str]:
    """Each place ``text`` names a session or an issue by its number."""
    return [" ".join(m.group(0).split()) for m in HISTORY.finditer(text)]


def test_the_pattern_finds_what_it_is_for() -> None:
    found = mentions("tuned (sess" "ion 21), see Iss" "ue 10 item 5; in the last\n# sess" "ion\n# 23 run;"
                     " one work" " period; def test_iss" "ue_11_bail")
    assert len(found) == 5, found
    assert mentions("the Session class keeps one session per game; issue a refund of 200") == []


def test_no_tracked_file_names_a_work_period_or_an_issue() -> None:
    files = _tracked()
    assert len(files) > 100
    found = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # audio, images: no words
        found += [f"{rel}: {m}" for m in mentions(text)]
    assert found == []
