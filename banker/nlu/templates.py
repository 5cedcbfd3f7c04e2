"""Command templates (``grammars/commands.yaml``) parsed once into one object that both
expands every sentence (for the matcher and the recogniser grammars) and exports JSGF.

Syntax: words, ``(a | b)``, ``[optional]``, ``<rule>``, ``{slot}``. See the YAML's header.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from banker.nlu.normalize import PLACEHOLDER, normalize
from banker.paths import grammars_dir

NUMBER_SLOTS = frozenset({"amount", "number"})


class GrammarError(Exception):
    """A template file that can't be used."""


# --- AST -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Slot:
    name: str


@dataclass(frozen=True)
class RuleRef:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]
    optional: bool = False


Node = Word | Slot | RuleRef | Seq | Alt


def parse_template(text: str) -> Node:
    tokens = _tokenize(text)
    pos, node = _parse_alt(tokens, 0, closer=None)
    if pos != len(tokens):
        raise GrammarError(f"unbalanced brackets in {text!r}")
    return node


def _tokenize(text: str) -> list[str]:
    out: list[str] = []
    buf = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "()[]|":
            if buf.strip():
                out.extend(buf.split())
            buf = ""
            out.append(ch)
        elif ch in "{<":
            end = text.index("}" if ch == "{" else ">", i)
            if buf.strip():
                out.extend(buf.split())
            buf = ""
            out.append(text[i:end + 1])
            i = end
        else:
            buf += ch
        i += 1
    if buf.strip():
        out.extend(buf.split())
    return out


def _parse_alt(tokens: list[str], pos: int, closer: str | None) -> tuple[int, Node]:
    options: list[Node] = []
    seq: list[Node] = []
    while pos < len(tokens):
        t = tokens[pos]
        if t == closer:
            break
        if t in (")", "]"):
            raise GrammarError(f"unexpected {t!r}")
        if t == "|":
            options.append(Seq(tuple(seq)))
            seq = []
            pos += 1
            continue
        if t in ("(", "["):
            pos, inner = _parse_alt(tokens, pos + 1, ")" if t == "(" else "]")
            if pos >= len(tokens):
                raise GrammarError("unclosed bracket")
            pos += 1
            if t == "[":
                opts = inner.options if isinstance(inner, Alt) else (inner,)
                seq.append(Alt(opts, optional=True))
            else:
                seq.append(inner)
            continue
        if t.startswith("{"):
            seq.append(Slot(t[1:-1].strip()))
        elif t.startswith("<"):
            seq.append(RuleRef(t[1:-1].strip()))
        else:
            seq.append(Word(t))
        pos += 1
    options.append(Seq(tuple(seq)))
    node: Node = options[0] if len(options) == 1 else Alt(tuple(options))
    return pos, node


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
        for node in intent.sentences:
            for words, slots in self._expand(node, values):
                yield Expansion(" ".join(words), intent.name, tuple(slots))

    def _expand(self, node: Node, values: Mapping[str, Sequence[tuple[str, str]]]
                ) -> Iterator[tuple[list[str], list[tuple[str, str]]]]:
        if isinstance(node, Word):
            yield normalize(node.text).split(), []
        elif isinstance(node, Slot):
            if node.name in NUMBER_SLOTS:
                yield [PLACEHOLDER], [(node.name, PLACEHOLDER)]
                return
            for spoken, canonical in values.get(node.name, ()):
                yield [spoken], [(node.name, canonical)]
        elif isinstance(node, RuleRef):
            yield from self._expand(self.rules[node.name], values)
        elif isinstance(node, Alt):
            if node.optional:
                yield [], []
            for opt in node.options:
                yield from self._expand(opt, values)
        else:
            parts = [list(self._expand(n, values)) for n in node.items]
            for combo in itertools.product(*parts):
                words: list[str] = []
                slots: list[tuple[str, str]] = []
                for w, s in combo:
                    words.extend(w)
                    slots.extend(s)
                if len({k for k, _ in slots}) < len(slots):
                    names = [k for k, _ in slots]
                    # the same slot twice (never in our templates): keep the first
                    slots = [s for i, s in enumerate(slots) if s[0] not in names[:i]]
                yield words, slots

    # --- JSGF export (pocketsphinx) -------------------------------------------------------
    def to_jsgf_body(self, node: Node) -> str:
        if isinstance(node, Word):
            return node.text
        if isinstance(node, Slot):
            return f"<{node.name}>"
        if isinstance(node, RuleRef):
            return f"<{node.name}>"
        if isinstance(node, Alt):
            inner = " | ".join(self.to_jsgf_body(o) for o in node.options)
            return f"[{inner}]" if node.optional else f"({inner})"
        return " ".join(self.to_jsgf_body(n) for n in node.items if
                        not (isinstance(n, Seq) and not n.items)) or "<NULL>"


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
