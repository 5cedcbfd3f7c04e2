"""The README's "What to say" tables and Mr. Monopoly's "help" agree with ``banker phrases``:
every phrase they quote is understood by the matcher as a command, and is one of the sentences
``banker phrases`` lists for that command, with the names and amounts it happens to use
(streets, tokens, numbers) set aside. Typed, no audio: ``test_readme_phrases.py`` says the
README's phrases to the recogniser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from banker.editions import load_edition
from banker.nlu.matcher import Matcher, Recognized
from banker.nlu.normalize import normalize, with_placeholders
from banker.nlu.phrases import commands

from .readme_phrases import SECTIONS, phrases


def _shape(text: str, names: dict[str, str]) -> str:
    """``text`` with every street and token name a marker and every number ``#``."""
    norm = " " + with_placeholders(text)[0] + " "
    for spoken in sorted(names, key=len, reverse=True):
        norm = norm.replace(f" {spoken} ", f" {names[spoken]} ")
    return re.sub(r"\bthe (STREET|PLAYER)\b", r"\1", " ".join(norm.split()))


REPLIES = Path(__file__).resolve().parents[2] / "config" / "replies"


def _apart(edition: str, said: list[str]) -> list[tuple[str, str | None, str]]:
    """The phrases of ``said`` that are not a sentence ``banker phrases`` lists for the command
    the matcher understands them as."""
    ed = load_edition(edition)
    matcher = Matcher.for_edition(ed)
    values = matcher.slot_values()
    names = {normalize(v): "STREET" for v, _ in values["property"]}
    names.update({normalize(v): "PLAYER" for v, _ in values["player"]})
    for name, listed_values in matcher.grammar.lists.items():  # a card read aloud, a building
        if name not in ("number", "outcome"):
            names.update({normalize(v): "CARD" if name.endswith("_card") else name.upper()
                          for v in listed_values})
    listed: dict[str, set[str]] = {}
    for cmd in commands(ed, matcher.grammar):
        for phrasing in cmd.phrasings:
            for sentence in phrasing.sentences:
                listed.setdefault(_shape(sentence, names), set()).add(cmd.intent)
    apart = []
    for phrase in said:
        heard = matcher.match(phrase)
        intent = heard.intent if isinstance(heard, Recognized) else None
        if intent is None or intent not in listed.get(_shape(phrase, names), set()):
            apart.append((phrase, intent, _shape(phrase, names)))
    return apart


@pytest.mark.parametrize("edition", sorted(SECTIONS))
def test_the_readme_tables_agree_with_banker_phrases(edition: str) -> None:
    assert _apart(edition, phrases(edition)) == [] and len(phrases(edition)) >= 10


def _help_examples(edition: str) -> list[str]:
    """The commands Mr. Monopoly's "help" gives as examples ("…, like: a, b, or c.")."""
    own = yaml.safe_load((REPLIES / f"{edition}.yaml").read_text()) if (
        REPLIES / f"{edition}.yaml").exists() else {}
    text = (own or {}).get("help") or yaml.safe_load((REPLIES / "common.yaml").read_text())["help"]
    examples = []
    for variant in text:
        listed = variant.split("like: ", 1)[1].rstrip(".").replace("{other:the}", "the dog")
        examples += [item.removeprefix("or ").strip() for item in listed.split(", ")]
    return examples


@pytest.mark.parametrize("edition", sorted(SECTIONS))
def test_help_agrees_with_banker_phrases(edition: str) -> None:
    examples = _help_examples(edition)
    assert len(examples) >= 8 and _apart(edition, examples) == []
