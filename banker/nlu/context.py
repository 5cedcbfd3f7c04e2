"""A speech-to-intent context in Picovoice Rhino's YAML format, read with our template walker.

Receives a file like::

    context:
      expressions:
        orderDrink:
          - "[can I get, give me] (a) $size:size $coffeeDrink:drink"
      slots:
        size: [small, large]
        coffeeDrink: [latte, mocha]
      macros:            # optional: @name in an expression is one of these phrases
        please: [please, thanks]

``[a, b]`` is exactly one of the choices, ``(x)`` is optional, ``$type:name`` a value of slot
list ``type`` reported under ``name``. Returns a ``Context``: the expressions as templates (the
same trees ``commands.yaml`` gives, walked by ``banker.nlu.walk``) and ``understand(text)``,
which parses a recogniser's words into intent and slots (slot name -> the value as written in
the context). Nothing here knows about Monopoly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from banker.nlu import walk
from banker.nlu.matcher import Ambiguous, Match, NotRecognized, Recognized
from banker.nlu.syntax import GrammarError, Node, parse_template

Filled = tuple[tuple[str, str], ...]  # (slot name, value as written)
Parse = Callable[[Sequence[str], int], set[tuple[int, Filled]]]


class ContextError(Exception):
    """A context file that can't be used (one plain sentence)."""


def words_of(text: str) -> list[str]:
    """A phrase as recogniser words: lower case, punctuation other than ``'`` dropped."""
    return "".join(c if c.isalnum() or c in "' " else " " for c in text.lower()).split()


def rhino_to_template(expression: str) -> str:
    """Rhino syntax in our template syntax: ``[a, b]`` -> ``(a | b)``, ``(x)`` -> ``[x]``,
    ``$type:name`` -> ``{type:name}``, ``@macro`` -> ``<macro>``."""
    out: list[str] = []
    depth: list[str] = []
    i = 0
    while i < len(expression):
        ch = expression[i]
        if ch in "$@":
            j = i + 1
            while j < len(expression) and (expression[j].isalnum() or expression[j] in "_:"):
                j += 1
            ref = expression[i + 1:j]
            out.append(f" {{{ref}}} " if ch == "$" else f" <{ref}> ")
            i = j
            continue
        if ch in "[(":
            depth.append(ch)
            out.append(" ( " if ch == "[" else " [ ")
        elif ch in "])":
            if not depth:
                raise ContextError(f"The expression {expression!r} closes a bracket it never opened.")
            out.append(" ) " if depth.pop() == "[" else " ] ")
        elif ch == "," or ch == "|":
            out.append(" | ")
        else:
            out.append(ch)
        i += 1
    if depth:
        raise ContextError(f"The expression {expression!r} leaves a bracket open.")
    text = "".join(out)
    return " ".join(w if w[:1] in "{<([])|" else " ".join(words_of(w)) for w in text.split())


@dataclass
class Context:
    """A compiled context: intents -> templates, slot lists, macros (as rules)."""

    name: str
    intents: dict[str, tuple[Node, ...]]
    slots: dict[str, list[str]]  # slot type -> values as written
    rules: dict[str, Node]

    def slot_type(self, marker: str) -> tuple[str, str]:
        """``size:cupSize`` -> (``size``, ``cupSize``); ``size`` alone names both."""
        kind, _, name = marker.partition(":")
        return kind, name or kind

    def phrases(self, marker: str) -> list[tuple[str, str]]:
        """(recogniser words, value as written) for the slot behind ``{marker}``."""
        kind, _ = self.slot_type(marker)
        return [(" ".join(words_of(v)), v.strip()) for v in self.slots.get(kind, [])]

    def parses(self, text: str) -> list[tuple[str, Filled]]:
        """Every (intent, slots) reading of ``text`` that uses all of its words."""
        target = words_of(text)
        found: dict[tuple[str, Filled], None] = {}
        for intent, nodes in self.intents.items():
            for node in nodes:
                for end, filled in self._parser(node)(target, 0):
                    if end == len(target):
                        found.setdefault((intent, tuple(sorted(filled))), None)
        return list(found)

    def understand(self, text: str) -> Match:
        """The recogniser's words -> ``Recognized`` (one reading), ``Ambiguous`` or not."""
        readings = self.parses(text)
        if not readings:
            return NotRecognized(text)
        recs = [Recognized(intent, dict(filled), 100.0, 100.0, text) for intent, filled in readings]
        if len(recs) > 1:
            return Ambiguous(tuple(recs), text)
        return recs[0]

    def _parser(self, node: Node) -> Parse:
        return walk.fold(node, _Capture(self), self.rules)


class _Capture:
    """The walker's algebra for parsing: reachable end positions with the slots filled."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    def word(self, text: str) -> Parse:
        parts = text.split()
        return lambda ws, pos: ({(pos + len(parts), ())} if list(ws[pos:pos + len(parts)]) == parts
                                else set())

    def slot(self, marker: str) -> Parse:
        _kind, name = self._ctx.slot_type(marker)
        values = [(spoken.split(), value) for spoken, value in self._ctx.phrases(marker)]
        return lambda ws, pos: {(pos + len(p), ((name, v),)) for p, v in values
                                if list(ws[pos:pos + len(p)]) == p}

    def ref(self, name: str) -> Parse | None:
        return None

    def alt(self, options: Sequence[Parse], optional: bool) -> Parse:
        def ends(ws: Sequence[str], pos: int) -> set[tuple[int, Filled]]:
            out: set[tuple[int, Filled]] = {(pos, ())} if optional else set()
            for o in options:
                out |= o(ws, pos)
            return out
        return ends

    def seq(self, items: Sequence[Parse]) -> Parse:
        def ends(ws: Sequence[str], pos: int) -> set[tuple[int, Filled]]:
            states: set[tuple[int, Filled]] = {(pos, ())}
            for item in items:
                states = {(e, f + g) for p, f in states for e, g in item(ws, p)}
                if not states:
                    break
            return states
        return ends


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise ContextError(f"{where} must be a list of phrases.")
    return [str(v) for v in value]


def parse_context(data: object, name: str = "context") -> Context:
    """A context from its parsed YAML (``context:`` with ``expressions`` and ``slots``)."""
    body = data.get("context") if isinstance(data, Mapping) else None
    if not isinstance(body, Mapping) or not isinstance(body.get("expressions"), Mapping):
        raise ContextError(f"{name} needs a `context:` with `expressions:` for each intent.")
    slots = {str(k): _strings(v, f"slots.{k}") for k, v in (body.get("slots") or {}).items()}
    rules: dict[str, Node] = {}
    for macro, phrases in (body.get("macros") or {}).items():
        alts = " | ".join(" ".join(words_of(p)) for p in _strings(phrases, f"macros.{macro}"))
        rules[str(macro)] = parse_template(f"({alts})")
    intents: dict[str, tuple[Node, ...]] = {}
    for intent, expressions in body["expressions"].items():
        nodes: list[Node] = []
        for text in _strings(expressions, f"expressions.{intent}"):
            try:
                nodes.append(parse_template(rhino_to_template(text)))
            except GrammarError as exc:
                raise ContextError(f"The expression {text!r} can't be read ({exc}).") from None
        intents[str(intent)] = tuple(nodes)
    ctx = Context(name, intents, slots, rules)
    _check(ctx)
    return ctx


def _check(ctx: Context) -> None:
    """Every ``$type`` names a slot list, every ``@macro`` a macro."""
    for intent, nodes in ctx.intents.items():
        for node in nodes:
            for marker in walk.slots_of(node, ctx.rules):
                kind, _ = ctx.slot_type(marker)
                if marker != "none" and kind not in ctx.slots:
                    raise ContextError(f"{intent}: there is no slot list called {kind}.")
            for ref in _refs(node):
                if ref not in ctx.rules:
                    raise ContextError(f"{intent}: there is no macro called {ref}.")


def _refs(node: Node) -> set[str]:
    class Refs(walk.Algebra[set[str]]):
        def word(self, text: str) -> set[str]:
            return set()

        def slot(self, name: str) -> set[str]:
            return set()

        def ref(self, name: str) -> set[str] | None:
            return {name}

        def alt(self, options: Sequence[set[str]], optional: bool) -> set[str]:
            return set().union(*options)

        def seq(self, items: Sequence[set[str]]) -> set[str]:
            return set().union(*items)

    return walk.fold(node, Refs(), {})


def load_context(path: Path) -> Context:
    """A context file; ``ContextError`` (one sentence) when it can't be used."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContextError(f"{path} does not exist.") from None
    except (OSError, UnicodeDecodeError):
        raise ContextError(f"{path} can't be read.") from None
    except yaml.YAMLError:
        raise ContextError(f"{path} is not valid YAML.") from None
    return parse_context(data, str(path))
