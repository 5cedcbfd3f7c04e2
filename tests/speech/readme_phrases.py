"""The phrasings the README's "What to say" tables quote for each edition, as sentences to
speak: every "quoted" phrase in the right-hand column of the edition's table (commas dropped).
Read from the README, never copied."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTIONS = {"voice-banking": "### Voice Banking", "secret-vault": "### Secret Vault",
            "jackpot": "### Jackpot", "classic": "### Classic"}


def _section(text: str, heading: str) -> list[str]:
    """The lines under ``heading`` up to the next heading."""
    lines = text[text.index(heading):].splitlines()[1:]
    end = next((i for i, ln in enumerate(lines) if ln.startswith("#")), len(lines))
    return lines[:end]


def phrases(edition: str, readme: Path = README) -> list[str]:
    rows = [ln for ln in _section(readme.read_text(encoding="utf-8"), SECTIONS[edition])
            if ln.startswith("|") and not ln.startswith("|---")]
    said = [q for row in rows[1:] for q in re.findall(r'"([^"]+)"', row.rstrip(" |").rsplit("|", 1)[-1])]
    return list(dict.fromkeys(" ".join(q.replace(",", "").split()) for q in said))
