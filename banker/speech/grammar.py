"""Recogniser grammars compiled from ``grammars/commands.yaml`` (the one source of commands).

Receives the parsed command templates (``banker.nlu.templates``) and an edition's names
(``Matcher.slot_values``); returns a pocketsphinx JSGF grammar and a vosk phrase list for
what the banker is waiting for (a *focus*: any command, a bid, yes/no, a street, a number, a
player, an amount), plus the words to look up in the pronunciation dictionary.

Every word a recogniser can output here is text the matcher understands: the only rewrite
is ``to_written`` (spoken "times two pay out" -> the template's "x2 pay out").
A test enumerates the grammar and checks the matcher returns the same intent and slots.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from banker.editions.model import Edition
from banker.money import number_words, parse_number
from banker.nlu.matcher import Matcher
from banker.nlu.normalize import normalize
from banker.nlu.templates import (
    Alt,
    Grammar,
    IntentSpec,
    Node,
    RuleRef,
    Seq,
    Slot,
    Word,
    load_grammar,
    parse_template,
)

FOCI = ("any", "bid", "yes_no", "street", "number", "player", "amount")

# Spoken numbers, in the templates' own syntax (so the same code exports and expands them).
# Covers what players say for money (tens, hundreds, "fifteen hundred", thousands) and the
# vault guess (1-6). banker.money.parse_number reads every sentence these produce.
NUMBER_RULES: dict[str, str] = {
    "n_digit": "(one | two | three | four | five | six | seven | eight | nine)",
    "n_teen": "(ten | eleven | twelve | thirteen | fourteen | fifteen | sixteen | seventeen"
              " | eighteen | nineteen)",
    "n_tens": "(twenty | thirty | forty | fifty | sixty | seventy | eighty | ninety)",
    "n_99": "(<n_digit> | <n_teen> | <n_tens> [<n_digit>])",
    "n_hundreds": "(a | <n_digit>) hundred [[and] <n_99>]",
    "n_year": "(<n_teen> | <n_tens> <n_digit>) hundred [[and] <n_99>]",
    "n_thousands": "(a | <n_99>) thousand [[and] (<n_hundreds> | <n_99>)]",
    "amount": "(<n_99> | <n_hundreds> | <n_year> | <n_thousands>)",
    "number": "(one | two | three | four | five | six)",
}

# Intents always open, whatever the banker waits for (queries and table talk about the game).
ALWAYS = ("balance", "owner", "status", "repeat", "help", "cancel", "undo")
# Per focus: the intents that answer it, and which sentence slots an `answer` may carry.
FOCUS_INTENTS: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "bid": (("bid",), frozenset()),
    "yes_no": (("yes", "no"), frozenset({"property"})),
    "street": (("no",), frozenset({"property", "none"})),
    "number": (("guess",), frozenset({"number"})),
    "player": (("no",), frozenset({"player", "none"})),
    "amount": (("bid",), frozenset({"amount"})),
}
# JSGF weights: the focus is far likelier than a new command, but a new command still fits.
FOCUS_WEIGHT, OTHER_WEIGHT = 20.0, 1.0

_REF = re.compile(r"<(\w+)>")
_X = re.compile(r"^x(\d)$")
_DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def spoken_forms(written: str) -> list[str]:
    """How a template phrase is said: ``x2 pay out`` -> ``times two pay out`` / ``x two …``."""
    forms = [[]]  # type: list[list[str]]
    for w in written.split():
        m = _X.match(w)
        alts = [[w]] if m is None else [["times", _DIGIT_WORDS[int(m.group(1))]],
                                        ["x", _DIGIT_WORDS[int(m.group(1))]]]
        forms = [f + a for f in forms for a in alts]
    return [" ".join(f) for f in forms]


@dataclass(frozen=True)
class Sentence:
    """One sentence the grammar can produce, with the meaning the templates give it."""

    text: str
    intent: str
    slots: tuple[tuple[str, object], ...]


class SpeechGrammar:
    """An edition's commands as recogniser grammars. Built once; cheap to query per focus."""

    def __init__(self, edition: Edition, grammar: Grammar | None = None,
                 matcher: Matcher | None = None) -> None:
        self.edition = edition
        self.grammar = grammar or (matcher.grammar if matcher is not None else load_grammar())
        self.matcher = matcher or Matcher.for_edition(edition, self.grammar)
        self.numbers = {k: parse_template(v) for k, v in NUMBER_RULES.items()}
        values = self.matcher.slot_values()
        # slot -> [(spoken, canonical)], spoken forms normalised like the matcher's input
        self.values: dict[str, list[tuple[str, str]]] = {}
        for slot, pairs in values.items():
            seen: dict[str, str] = {}
            for spoken, canon in pairs:
                for form in spoken_forms(normalize(spoken)):
                    seen.setdefault(form, canon)
            self.values[slot] = list(seen.items())
        self._cache: dict[tuple[str, str], Fsa] = {}
        self._written = {form: normalize(canon) for form, canon in self.values["outcome"]
                         if form != normalize(canon)}

    # --- which sentences ------------------------------------------------------------------
    def intents(self) -> list[IntentSpec]:
        return self.grammar.for_edition(self.edition.id)

    def sentences_for(self, focus: str) -> list[tuple[IntentSpec, Node]]:
        """The (intent, template) pairs a focus listens for. ``any``: every command."""
        if focus not in FOCI:
            raise ValueError(f"unknown focus {focus!r}")
        specs = {s.name: s for s in self.intents()}
        if focus == "any":
            return [(s, self._no_bare_slot(n)) for s in specs.values() for n in s.sentences
                    if s.name != "answer"]
        names, answer_slots = FOCUS_INTENTS[focus]
        out: list[tuple[IntentSpec, Node]] = []
        for name in (*names, *ALWAYS):
            if name in specs:
                if focus == "number" and name == "guess":
                    out.extend((specs[name], n) for n in specs[name].sentences
                               if "number" in _slots_of(n, self.grammar))
                else:
                    out.extend((specs[name], n) for n in specs[name].sentences)
        if "answer" in specs:
            for n in specs["answer"].sentences:
                slots = _slots_of(n, self.grammar) or {"none"}
                if focus == "number" and slots == {"amount"}:
                    out.append((specs["answer"], n))  # "four": the amount rule becomes 1-6
                elif slots <= answer_slots:
                    out.append((specs["answer"], n))
        return out

    def _no_bare_slot(self, node: Node) -> Node:
        """``node`` without the sentences that are a bare name or number ("[the bank pays me]
        {amount}" said as just "forty two"): with no question asked they are answers to
        nothing, and chatter decoded against a grammar falls into such short sentences."""
        carriers = self._carriers(node)
        keep = [c for c in carriers if not (len(c) == 1 and c[0].startswith("{"))]
        if len(keep) == len(carriers):
            return node
        return Alt(tuple(Seq(tuple(Slot(w[1:-1]) if w.startswith("{") else Word(w) for w in c))
                         for c in keep))

    # --- JSGF ----------------------------------------------------------------------------
    def jsgf(self, focus: str = "any") -> str:
        """A pocketsphinx JSGF grammar for ``focus`` (weighted: focus first, any command after)."""
        lines = ["#JSGF V1.0;", "grammar banker;"]
        if focus == "any":
            body = self._alternatives(self.sentences_for("any"), focus)
            lines.append(f"public <command> = {body};")
            lines.extend(self._rule_lines([body]))
        else:
            focused = self._alternatives(self.sentences_for(focus), focus)
            anything = self._alternatives(self.sentences_for("any"), "any")
            lines.append(f"public <command> = /{FOCUS_WEIGHT}/ <focus> | /{OTHER_WEIGHT}/ <other>;")
            lines.append(f"<focus> = {focused};")
            lines.append(f"<other> = {anything};")
            lines.extend(self._rule_lines([focused, anything]))
        return "\n".join(lines) + "\n"

    def _alternatives(self, pairs: Sequence[tuple[IntentSpec, Node]], focus: str) -> str:
        bodies = list(dict.fromkeys(self._body(n, focus) for _, n in pairs))
        return "(" + " | ".join(bodies) + ")"

    def _body(self, node: Node, focus: str) -> str:
        body = self.grammar.to_jsgf_body(node)
        if focus == "number":
            body = body.replace("<amount>", "<number>")
        return body

    def _rule_lines(self, tops: Sequence[str]) -> list[str]:
        """Definitions of the rules ``tops`` refer to, directly or not (and no others)."""
        defs = {name: self.grammar.to_jsgf_body(node) for name, node in self.grammar.rules.items()}
        defs["property"] = "(" + " | ".join(v for v, _ in self.values["property"]) + ")"
        defs["give"] = defs["get"] = "<property>"
        defs["player"] = "(" + " | ".join(v for v, _ in self.values["player"]) + ")"
        defs["outcome"] = "(" + (" | ".join(v for v, _ in self.values["outcome"]) or "<VOID>") + ")"
        defs.update((name, self.grammar.to_jsgf_body(node)) for name, node in self.numbers.items())
        todo = [r for t in tops for r in _REF.findall(t)]
        done: dict[str, None] = {}
        while todo:
            name = todo.pop(0)
            if name in done or name not in defs:
                continue
            done[name] = None
            todo.extend(_REF.findall(defs[name]))
        return [f"<{name}> = {defs[name]};" for name in done]

    # --- automata ------------------------------------------------------------------------
    def fsa(self, focus: str = "any") -> Fsa:
        """The focus grammar as a minimal word automaton with branch probabilities (what the
        pocketsphinx adapter decodes with: a few hundred states instead of the thousands a
        literal JSGF expansion makes, so decoding is several times faster)."""
        key = ("fsa", focus)
        if key in self._cache:
            return self._cache[key]
        parts = [(1.0, "any")] if focus == "any" else [(FOCUS_WEIGHT, focus), (OTHER_WEIGHT, "any")]
        total = sum(w for w, _ in parts)
        arcs: list[tuple[int, str, int, float]] = []
        stop: dict[int, float] = {}
        offset = 1 if len(parts) > 1 else 0
        for weight, part in parts:
            n, sub, fin = minimal_dfa([node for _, node in self.sentences_for(part)], self, part)
            if len(parts) > 1:
                arcs.append((0, "", offset, weight / total))
            fanout: dict[int, int] = {}
            for s, _w, _d in sub:
                fanout[s] = fanout.get(s, 0) + 1
            for s, w, d in sub:
                arcs.append((s + offset, w, d + offset, 1.0 / (fanout[s] + (s in fin))))
            for s in fin:
                stop[s + offset] = 1.0 / (fanout.get(s, 0) + 1)
            offset += n
        out = Fsa(offset, tuple(arcs), frozenset(stop), 0, stop)
        self._cache[key] = out
        return out

    # --- vosk ----------------------------------------------------------------------------
    def phrases(self, focus: str = "any") -> list[str]:
        """A vosk phrase list. Vosk builds a bigram model from the phrases, so every word
        transition matters, not every sentence: each carrier is listed with its slot values
        taken in turn, so each value appears between each carrier's neighbouring words."""
        out: dict[str, None] = {}
        pairs = self.sentences_for(focus)
        if focus != "any":
            pairs = pairs + self.sentences_for("any")
        contexts: set[tuple[str, str, str]] = set()
        for n_carrier, (_spec, node) in enumerate(pairs):
            for words in self._carriers(node):
                slots = [(i, w[1:-1]) for i, w in enumerate(words) if w.startswith("{")]
                lists = [self.slot_phrases(name, focus) for _, name in slots]
                rounds = 1
                for (i, name), lst in zip(slots, lists, strict=True):
                    ctx = (name, words[i - 1] if i else "^",
                           words[i + 1] if i + 1 < len(words) else "$")
                    if ctx not in contexts:  # values in a new context: list them all once
                        contexts.add(ctx)
                        rounds = max(rounds, len(lst))
                for r in range(rounds):
                    fill = iter([lst[(n_carrier + r * (k + 1)) % len(lst)]
                                 for k, lst in enumerate(lists)])
                    out.setdefault(" ".join(next(fill) if w.startswith("{") else w
                                            for w in words), None)
        return list(out)

    def slot_phrases(self, slot: str, focus: str = "any") -> list[str]:
        """Spoken forms of a slot (numbers: a list that covers every word transition)."""
        if slot in ("amount", "number"):
            return covering(p for p, _ in number_phrases(self.number_rule(slot, focus)))
        return [v for v, _ in self.values.get(slot, [])]

    @staticmethod
    def number_rule(slot: str, focus: str) -> str:
        return "number" if slot == "number" or focus == "number" else "amount"

    # --- enumeration ---------------------------------------------------------------------
    def sentences(self, focus: str = "any", rng: random.Random | None = None,
                  values_per_slot: int | None = None) -> Iterator[Sentence]:
        """Every carrier of the focus, with slot values: all of them, or ``values_per_slot``
        sampled ones per slot (numbers: from the number list and random number-grammar paths)."""
        rng = rng or random.Random(0)
        for spec, node in self.sentences_for(focus):
            for words in self._carriers(node):
                names = [w[1:-1] for w in words if w.startswith("{")]
                choices = [self.slot_values(n, focus, rng, values_per_slot) for n in names]
                for combo in itertools.product(*choices):
                    yield self._fill(spec.name, words, combo)

    def sample(self, rng: random.Random, focus: str = "any", intents: Sequence[str] | None = None
               ) -> Sentence:
        """One random sentence: an intent, one of its templates, a random path, random values."""
        pairs = [(s, n) for s, n in self.sentences_for(focus)
                 if intents is None or s.name in intents]
        spec, node = rng.choice(pairs)
        words = self._walk(node, rng)
        names = [w[1:-1] for w in words if w.startswith("{")]
        combo = [rng.choice(self.slot_values(n, focus, rng, None)) for n in names]
        return self._fill(spec.name, words, combo)

    def _fill(self, intent: str, words: Sequence[str], combo: Sequence[tuple[str, object]]
              ) -> Sentence:
        it = iter(combo)
        text: list[str] = []
        slots: list[tuple[str, object]] = []
        for w in words:
            if w.startswith("{"):
                spoken, value = next(it)
                text.append(spoken)
                slots.append((w[1:-1], value))
            else:
                text.append(w)
        return Sentence(" ".join(t for t in text if t), intent, tuple(slots))

    def slot_values(self, slot: str, focus: str, rng: random.Random, n: int | None
                    ) -> list[tuple[str, object]]:
        """(spoken, canonical value) pairs for a slot; ``n`` of them sampled when given."""
        if slot in ("amount", "number"):
            rule = self.number_rule(slot, focus)
            listed = number_phrases(rule)
            walked = [" ".join(self._walk(self.numbers[rule], rng)) for _ in range(n or 0)]
            pairs: list[tuple[str, object]] = [*listed, *((p, parse_number(p)) for p in walked)]
            return pairs if n is None else rng.sample(pairs, min(n, len(pairs)))
        vals: list[tuple[str, object]] = list(self.values.get(slot, []))
        return vals if n is None or n >= len(vals) else rng.sample(vals, n)

    def _carriers(self, node: Node) -> list[list[str]]:
        """Every word sequence of a template, with slots left as ``{name}`` markers."""
        if isinstance(node, Word):
            return [node.text.split()]
        if isinstance(node, Slot):
            return [["{" + node.name + "}"]]
        if isinstance(node, RuleRef):
            return self._carriers(self.grammar.rules[node.name])
        if isinstance(node, Alt):
            out: list[list[str]] = [[]] if node.optional else []
            for o in node.options:
                out.extend(self._carriers(o))
            return out
        parts = [self._carriers(n) for n in node.items]
        return [[w for part in combo for w in part] for combo in itertools.product(*parts)]

    def _walk(self, node: Node, rng: random.Random) -> list[str]:
        """One random path through a template (slots stay markers; number rules expand)."""
        if isinstance(node, Word):
            return node.text.split()
        if isinstance(node, Slot):
            return ["{" + node.name + "}"]
        if isinstance(node, RuleRef):
            sub = self.numbers.get(node.name) or self.grammar.rules[node.name]
            return self._walk(sub, rng)
        if isinstance(node, Alt):
            if node.optional and rng.random() < 0.5:
                return []
            return self._walk(rng.choice(node.options), rng)
        return [w for n in node.items for w in self._walk(n, rng)]

    # --- words ---------------------------------------------------------------------------
    @cached_property
    def words(self) -> frozenset[str]:
        """Every word any focus can output (for the pronunciation dictionary)."""
        found: set[str] = set()
        for focus in FOCI:
            for line in self.jsgf(focus).splitlines():
                if " = " in line:
                    body = re.sub(r"<[^>]+>|/[0-9.]+/", " ", line.split(" = ", 1)[1])
                    found.update(re.findall(r"[a-z0-9']+", body))
        return frozenset(found)

    def to_written(self, text: str) -> str:
        """Recogniser words -> the text the matcher expects (``times two pay out`` -> ``x2 pay out``)."""
        for spoken, written in self._written.items():
            if spoken in text:
                text = re.sub(rf"\b{re.escape(spoken)}\b", written, text)
        return text


def _slots_of(node: Node, grammar: Grammar) -> set[str]:
    if isinstance(node, Slot):
        return {node.name}
    if isinstance(node, RuleRef):
        return _slots_of(grammar.rules[node.name], grammar) if node.name in grammar.rules else set()
    if isinstance(node, Word):
        return {"none"} if node.text == "none" else set()
    items = node.options if isinstance(node, Alt) else node.items
    out: set[str] = set()
    for n in items:
        out |= _slots_of(n, grammar)
    return out


def covering(phrases: Iterable[str]) -> list[str]:
    """The phrases needed to show every word pair (and first and last word) of ``phrases``."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for p in phrases:
        w = ["^", *p.split(), "$"]
        pairs = set(itertools.pairwise(w))
        if not pairs <= seen:
            out.append(p)
            seen |= pairs
    return out


@lru_cache(maxsize=4)
def number_phrases(rule: str) -> tuple[tuple[str, int], ...]:
    """Spoken numbers the grammar covers, with their values: 1-6 for ``number``; for
    ``amount`` every value below 100, round hundreds and fifties, "fifteen hundred" forms and
    thousands, said with and without "and" (together they use every word pair of the rule)."""
    if rule == "number":
        return tuple((number_words(n), n) for n in range(1, 7))
    out: dict[str, int] = {}

    def add(text: str, value: int) -> None:
        out.setdefault(text, value)

    for n in range(1, 100):
        add(number_words(n), n)
    for n in range(100, 1000, 10):
        add(number_words(n), n)
        add(number_words(n).replace(" and ", " "), n)
    for n in (100, 150, 200, 250):
        add("a " + number_words(n).split(" ", 1)[1], n)
    for n in range(1100, 10000, 100):
        if n % 1000:
            add(number_words(n // 100) + " hundred", n)
        add(number_words(n), n)
    for n in (1000, 1050, 1250, 1500, 2000, 2500, 3000, 5000, 10000, 15000, 20000, 21000):
        add(number_words(n), n)
        add(number_words(n).replace(" and ", " "), n)
    for n in (1000, 1500):
        add("a " + number_words(n).split(" ", 1)[1], n)
    add("fifteen hundred and fifty", 1550)
    add("twelve hundred fifty", 1250)
    return tuple(out.items())


def accepts(grammar: SpeechGrammar, focus: str, text: str) -> bool:
    """True when ``text`` (recogniser words) is a sentence of the focus grammar."""
    target = text.split()
    for _spec, node in grammar.sentences_for(focus) + (
            grammar.sentences_for("any") if focus != "any" else []):
        if len(target) in _match(grammar, node, target, 0, focus):
            return True
    return False


def _match(g: SpeechGrammar, node: Node, words: list[str], pos: int, focus: str) -> set[int]:
    """End positions reachable by matching ``node`` from ``pos``."""
    if isinstance(node, Word):
        parts = node.text.split()
        return {pos + len(parts)} if words[pos:pos + len(parts)] == parts else set()
    if isinstance(node, Slot):
        name = node.name
        if name in ("amount", "number"):
            return _match(g, g.numbers[g.number_rule(name, focus)], words, pos, focus)
        ends: set[int] = set()
        for v, _ in g.values.get(name, []):
            parts = v.split()
            if words[pos:pos + len(parts)] == parts:
                ends.add(pos + len(parts))
        return ends
    if isinstance(node, RuleRef):
        sub = g.numbers.get(node.name) or g.grammar.rules[node.name]
        return _match(g, sub, words, pos, focus)
    if isinstance(node, Alt):
        ends = {pos} if node.optional else set()
        for o in node.options:
            ends |= _match(g, o, words, pos, focus)
        return ends
    positions = {pos}
    for item in node.items:
        nxt: set[int] = set()
        for p in positions:
            nxt |= _match(g, item, words, p, focus)
        positions = nxt
        if not positions:
            break
    return positions


# --- word automata (what pocketsphinx decodes with) -----------------------------------------
@dataclass(frozen=True)
class Fsa:
    """A word automaton: states ``0..n-1``, start ``start``, arcs ``(src, word, dst, prob)``
    where ``word`` "" is a null arc, and accepting states ``finals``. Acyclic."""

    n: int
    arcs: tuple[tuple[int, str, int, float], ...]
    finals: frozenset[int]
    start: int = 0
    stop: Mapping[int, float] = field(default_factory=dict)  # P(the sentence ends here)

    def accepts(self, text: str) -> bool:
        states = self._closure({self.start})
        for w in text.split():
            states = self._closure({d for s, word, d, _ in self.arcs if s in states and word == w})
            if not states:
                return False
        return bool(states & self.finals)

    def _closure(self, states: set[int]) -> set[int]:
        todo, seen = list(states), set(states)
        while todo:
            s = todo.pop()
            for src, word, dst, _ in self.arcs:
                if src == s and word == "" and dst not in seen:
                    seen.add(dst)
                    todo.append(dst)
        return seen

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w for _, w, _, _ in self.arcs if w)


class _Nfa:
    """Thompson-style construction from the template AST (null arcs are word None)."""

    def __init__(self, g: SpeechGrammar, focus: str) -> None:
        self.g, self.focus = g, focus
        self.arcs: list[tuple[int, str | None, int]] = []
        self.n = 1  # state 0: start

    def new(self) -> int:
        self.n += 1
        return self.n - 1

    def words(self, src: int, words: Sequence[str]) -> int:
        for w in words:
            dst = self.new()
            self.arcs.append((src, w, dst))
            src = dst
        return src

    def build(self, node: Node, src: int) -> int:
        g = self.g
        if isinstance(node, Word):
            return self.words(src, node.text.split())
        if isinstance(node, Slot):
            if node.name in ("amount", "number"):
                return self.build(g.numbers[g.number_rule(node.name, self.focus)], src)
            dst = self.new()
            for spoken, _ in g.values.get(node.name, []):
                self.arcs.append((self.words(src, spoken.split()), None, dst))
            return dst
        if isinstance(node, RuleRef):
            return self.build(g.numbers.get(node.name) or g.grammar.rules[node.name], src)
        if isinstance(node, Alt):
            dst = self.new()
            if node.optional:
                self.arcs.append((src, None, dst))
            for o in node.options:
                self.arcs.append((self.build(o, src), None, dst))
            return dst
        for item in node.items:
            src = self.build(item, src)
        return src


def minimal_dfa(nodes: Sequence[Node], g: SpeechGrammar, focus: str) -> tuple[
        int, list[tuple[int, str, int]], set[int]]:
    """The minimal deterministic word automaton accepting any of ``nodes`` (start state 0)."""
    nfa = _Nfa(g, focus)
    finals_nfa: set[int] = set()
    for node in nodes:
        finals_nfa.add(nfa.build(node, 0))
    eps: dict[int, list[int]] = {}
    out: dict[int, list[tuple[str, int]]] = {}
    for s, w, d in nfa.arcs:
        if w is None:
            eps.setdefault(s, []).append(d)
        else:
            out.setdefault(s, []).append((w, d))

    def closure(states: frozenset[int]) -> frozenset[int]:
        todo, seen = list(states), set(states)
        while todo:
            for d in eps.get(todo.pop(), ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return frozenset(seen)

    # subset construction
    start = closure(frozenset({0}))
    index = {start: 0}
    order = [start]
    trans: dict[int, dict[str, int]] = {}
    i = 0
    while i < len(order):
        cur = order[i]
        moves: dict[str, set[int]] = {}
        for s in cur:
            for w, d in out.get(s, ()):
                moves.setdefault(w, set()).add(d)
        trans[i] = {}
        for w, ds in moves.items():
            nxt = closure(frozenset(ds))
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            trans[i][w] = index[nxt]
        i += 1
    accepting = {k for k, st in enumerate(order) if st & finals_nfa}
    # minimise (acyclic: merge states with the same finality and the same moves, bottom-up)
    depth: dict[int, int] = {}

    def height(s: int) -> int:
        if s not in depth:
            depth[s] = 1 + max((height(d) for d in trans[s].values()), default=0)
        return depth[s]

    for s in range(len(order)):
        height(s)
    klass: dict[int, int] = {}
    sigs: dict[tuple[object, ...], int] = {}
    for s in sorted(range(len(order)), key=lambda x: depth[x]):
        sig = (s in accepting, tuple(sorted((w, klass[d]) for w, d in trans[s].items())))
        klass[s] = sigs.setdefault(sig, len(sigs))
    # renumber so that the start state is 0
    remap: dict[int, int] = {klass[0]: 0}
    for s in range(len(order)):
        remap.setdefault(klass[s], len(remap))
    arcs = sorted({(remap[klass[s]], w, remap[klass[d]]) for s in trans for w, d in trans[s].items()})
    return len(remap), arcs, {remap[klass[s]] for s in accepting}
