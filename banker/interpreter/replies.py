"""Mr. Monopoly's words: reply templates (data in ``config/replies/``) rendered from ``Line``s.

Players print as their names (``{player:the}``: "the dog"), ``Money`` with the edition's sign. Variants are picked by a
rotating counter so he doesn't sound like a robot, deterministically for transcripts.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from banker.editions.model import Edition
from banker.paths import config_dir
from banker.rules.outcome import AllOf, Line, Money, Who


class RepliesError(Exception):
    pass


def load_replies(edition_id: str, folder: Path | None = None) -> dict[str, list[str]]:
    """Mr. Monopoly's lines for an edition (common, then the edition's own), read once per
    version of the files."""
    folder = folder or config_dir() / "replies"
    paths = [folder / f"{name}.yaml" for name in ("common", edition_id)]
    stamp = tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in paths)
    return {k: list(v) for k, v in _read_replies(edition_id, folder, stamp).items()}


@functools.lru_cache(maxsize=16)
def _read_replies(edition_id: str, folder: Path, _stamp: tuple[int, ...]
                  ) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in ("common", edition_id):
        path = folder / f"{name}.yaml"
        if not path.exists():
            continue
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise RepliesError(f"The replies file {path} can't be read ({exc.__class__.__name__}).") from None
        if not isinstance(data, dict):
            raise RepliesError(f"The replies file {path} must map keys to lists of lines.")
        for key, variants in data.items():
            if isinstance(variants, str):
                variants = [variants]
            if not isinstance(variants, list) or not variants:
                raise RepliesError(f"The replies file {path}: {key} needs a list of lines.")
            out[str(key)] = [str(v) for v in variants]
    return out


class _Safe(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


class _Formatter(string.Formatter):
    """``{player:the}`` speaks of a player (or the bank) in the third person: "the dog",
    "the T-Rex", "the bank" - for lines said to the table, not to that player."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "the":
            return the(str(value))
        return str(super().format_field(value, format_spec))


def the(name: str) -> str:
    """ "Dog" -> "the dog", "T-Rex" -> "the T-Rex", "the bank" stays."""
    if not name or name.lower().startswith("the "):
        return name
    plain = name[:1].isupper() and (name[1:].islower() or len(name) == 1)
    return "the " + (name.lower() if plain else name)


class Replies:
    def __init__(self, edition: Edition, templates: Mapping[str, list[str]]) -> None:
        self.edition = edition
        self.templates = templates
        self._turn = 0

    def name(self, token: str) -> str:
        if token == "bank":
            return "the bank"
        if token == "vault":
            return "the vault"
        if token == "jackpot":
            return "the Jackpot"
        try:
            return self.edition.token(token).name
        except KeyError:
            return token

    def value(self, v: Any) -> str:
        if isinstance(v, Money):
            return self.edition.fmt(int(v))
        if isinstance(v, Who):
            return self.name(str(v))
        if isinstance(v, AllOf):
            return _join([self.value(x) for x in v], "and")
        if isinstance(v, (list, tuple)):
            return _join([self.value(x) for x in v])
        return str(v)

    def render(self, line: Line) -> str:
        variants = self.templates.get(line.key)
        if not variants:
            # A missing template must never crash the table: say the facts plainly.
            facts = ", ".join(self.value(v) for v in line.params.values())
            return f"{line.key.replace('refused.', '').replace('_', ' ')}{': ' + facts if facts else ''}."
        self._turn += 1
        template = variants[self._turn % len(variants)]
        params = _Safe({k: self.value(v) for k, v in line.params.items()})
        text = _Formatter().vformat(template, (), params)
        return text[:1].upper() + text[1:]


def _join(items: list[str], conj: str = "or") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]
