"""The phrasings the README lists under "What you can say" and each edition's section, as
sentences to speak: placeholders filled (X, Y streets, N an amount), optional words both ways,
notes in parentheses dropped, "a / b" alternatives split. Read from the README, never copied."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTIONS = {"voice-banking": "### What you can say", "secret-vault": "### Secret Vault",
            "jackpot": "### Jackpot"}
STREETS = ("Baltic Avenue", "Park Place")
AMOUNT = "two hundred"


def _section(text: str, heading: str) -> str:
    start = text.index("\n", text.index(heading)) + 1
    end = re.search(r"\.(\s|$)", text[start:])
    return text[start:start + (end.start() if end else len(text))]


def _alternatives(item: str) -> list[str]:
    """``a / b``: two commands, or (``b`` starting "the"/"a") two objects of one verb
    ("sell a hotel / the get out of jail free card to the dog for N")."""
    if " / " not in item:
        return [item]
    left, right = item.split(" / ", 1)
    if right.split()[0] not in ("the", "a"):
        return [left, right]
    verb, left_np = left.split(" ", 1)
    tail = right[right.index(" to "):] if " to " in right else ""
    return [f"{verb} {left_np}{tail}", f"{verb} {right}"]


def _optional(item: str) -> list[str]:
    parts = re.split(r"\[([^\]]*)\]", item)
    options = [[p] if i % 2 == 0 else ["", p] for i, p in enumerate(parts)]
    return [" ".join("".join(c).split()) for c in itertools.product(*options)]


def _fill(item: str) -> str:
    if re.search(r"\b(on|to)$", item):
        item += " X"
    item = re.sub(r"\bX\b", STREETS[0], item)
    item = re.sub(r"\bY\b", STREETS[1], item)
    return re.sub(r"\bN\b", AMOUNT, item).replace(",", "")


def phrases(edition: str, readme: Path = README) -> list[str]:
    text = _section(readme.read_text(encoding="utf-8"), SECTIONS[edition])
    out: dict[str, None] = {}
    for raw in text.replace("\n", " ").split("·"):
        item = re.sub(r"\([^)]*\)", " ", raw).strip()
        for alt in _alternatives(" ".join(item.split())):
            for variant in _optional(alt):
                out.setdefault(_fill(variant), None)
    return [p for p in out if p]
