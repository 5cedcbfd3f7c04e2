"""Command templates (``grammars/commands.yaml``) parsed once into one object that both
expands every sentence (for the matcher and the recogniser grammars) and exports JSGF, both
through the one walker (``banker.nlu.walk``).

Syntax (``banker.nlu.syntax``): words, ``(a | b)``, ``[optional]``, ``<rule>``, ``{slot}``.
See the YAML's header.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from banker.nlu import walk
from banker.nlu.normalize import PLACEHOLDER, normalize
from banker.nlu.numbers import NUMBER_SLOTS
from banker.nlu.syntax import Alt, GrammarError, Node, RuleRef, Seq, Slot, Word, parse_template
from banker.paths import grammars_dir

__all__ = ["Alt", "Expansion", "Grammar", "GrammarError", "IntentSpec", "Node", "RuleRef", "Seq",
           "Slot", "Word", "load_grammar", "parse_template"]



# --- the grammar ---------------------------------------------------------------------------
@dataclass(frozen=True)
class IntentSpec:
    name: str
    editions: tuple[str, ...] | None  # None: all
    requires: tuple[str, ...]
    risk: str
    sentences: tuple[Node, ...]
    raw: tuple[str, ...]

    def in_edition(self, edition_id: str) -> bool:
        return self.editions is None or edition_id in self.editions


@dataclass(frozen=True)
class Expansion:
    """One concrete sentence: normalised words (numbers as ``#``) and the slot values."""

    text: str
    intent: str
    slots: tuple[tuple[str, str], ...]


@dataclass
class Grammar:
    rules: dict[str, Node]
    lists: dict[str, list[str]]
    intents: dict[str, IntentSpec]
    _cache: dict[Any, Any] = field(default_factory=dict)

    def for_edition(self, edition_id: str) -> list[IntentSpec]:
        return [i for i in self.intents.values() if i.in_edition(edition_id)]

    def expand(self, intent: IntentSpec, values: Mapping[str, Sequence[tuple[str, str]]]
               ) -> Iterator[Expansion]:
        """Every sentence of ``intent``. ``values[slot]`` lists (spoken form, canonical value)."""
        def slot(name: str) -> list[walk.Path]:
            if name in NUMBER_SLOTS:
                return [((PLACEHOLDER,), ((name, PLACEHOLDER),))]
            return [((spoken,), ((name, canonical),)) for spoken, canonical in values.get(name, ())]

        for node in intent.sentences:
            for words, slots in walk.paths(node, self.rules, slot, _normal_words):
                yield Expansion(" ".join(words), intent.name, slots)

    def to_jsgf_body(self, node: Node) -> str:
        """The JSGF text of one template (pocketsphinx)."""
        return walk.jsgf(node)


def _normal_words(text: str) -> list[str]:
    return normalize(text).split()


def load_grammar(path: Path | None = None) -> Grammar:
    path = path or grammars_dir() / "commands.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise GrammarError(f"{path}: can't be read ({exc.__class__.__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("intents"), dict):
        raise GrammarError(f"{path}: needs an `intents:` mapping")
    errors: list[str] = []
    rules: dict[str, Node] = {}
    for name, text in (data.get("rules") or {}).items():
        try:
            rules[str(name)] = parse_template(str(text))
        except (GrammarError, ValueError) as exc:
            errors.append(f"rules.{name}: {exc}")
    lists = {str(k): [str(x) for x in v] for k, v in (data.get("lists") or {}).items()}
    intents: dict[str, IntentSpec] = {}
    for name, spec in data["intents"].items():
        name = str(name)
        if not isinstance(spec, dict):
            errors.append(f"intents.{name}: must be a mapping")
            continue
        eds = spec.get("editions", "all")
        sentences: list[Node] = []
        raw = [str(s) for s in spec.get("sentences") or []]
        for i, s in enumerate(raw):
            try:
                sentences.append(parse_template(s))
            except (GrammarError, ValueError) as exc:
                errors.append(f"intents.{name}.sentences[{i}]: {exc}")
        intents[name] = IntentSpec(
            name=name,
            editions=None if eds == "all" else tuple(str(e) for e in eds),
            requires=tuple(str(x) for x in spec.get("requires") or ()),
            risk=str(spec.get("risk", "money")),
            sentences=tuple(sentences),
            raw=tuple(raw),
        )
    if errors:
        raise GrammarError(f"{path}: " + "; ".join(errors))
    return Grammar(rules, lists, intents)
