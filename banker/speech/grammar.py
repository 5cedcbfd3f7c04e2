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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from banker.editions.model import Edition
from banker.money import parse_number
from banker.nlu import walk
from banker.nlu.canonical import STREET_SLOTS
from banker.nlu.matcher import Matcher
from banker.nlu.normalize import normalize, times_variants
from banker.nlu.numbers import NUMBER_RULES, NUMBER_SLOTS, number_phrases, number_rule
from banker.nlu.templates import (
    Grammar,
    IntentSpec,
    Node,
    load_grammar,
    parse_template,
)
from banker.speech.automata import Dfa, Fsa, minimal_dfa, weighted_fsa
from banker.speech.protocols import FOCI

__all__ = ["FOCI", "Fsa", "Sentence", "SpeechGrammar", "accepts", "covering", "number_phrases",
           "spoken_forms"]


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
# a bare street, token or amount with no question asked for it (``ALONE``, the ``answer``
# sentences): a path of its own, so it is heard as itself, but less likely than a command
ALONE, ALONE_WEIGHT = "alone", 0.25

_REF = re.compile(r"<(\w+)>")


def spoken_forms(written: str) -> list[str]:
    """How a template phrase is said: ``x2 pay out`` -> ``times two pay out`` / ``x two …``."""
    return times_variants(written.split(), typed=False)


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
        # an amount as said, its unit after it ("pay ten dollars to the bank"): without
        # "dollars" the search wrote the nearest word it had, "pay ten hundred", and paid M1,000
        self.numbers[SAID_AMOUNT] = parse_template("<amount> [dollars]")
        self.rules = {**self.grammar.rules, **self.numbers}  # a number rule wins a name clash
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
        self._dfas: dict[str, Dfa] = {}  # per part: each focus's grammar has "any" in it
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
            # a bare street, token or amount ("Boardwalk", "the dog", "forty") is heard as
            # itself, an ``answer``: without its path, the search forced it into the nearest
            # command and put a word in ("buy Boardwalk" at 0.97, bought). With no question
            # open an answer is talk or half a two-step command: nothing is done
            return [(s, n) for s in specs.values() for n in s.sentences]
        names, answer_slots = FOCUS_INTENTS[focus]
        out: list[tuple[IntentSpec, Node]] = []
        for name in (*names, *ALWAYS):
            if name in specs:
                if focus == "number" and name == "guess":
                    out.extend((specs[name], n) for n in specs[name].sentences
                               if "number" in walk.slots_of(n, self.grammar.rules))
                else:
                    out.extend((specs[name], n) for n in specs[name].sentences)
        if "answer" in specs:
            for n in specs["answer"].sentences:
                slots = walk.slots_of(n, self.grammar.rules) or {"none"}
                if focus == "number" and slots == {"amount"}:
                    out.append((specs["answer"], n))  # "four": the amount rule becomes 1-6
                elif slots <= answer_slots:
                    out.append((specs["answer"], n))
        return out

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
        defs.update((name, "<property>") for name in STREET_SLOTS if name != "property")
        defs["player"] = "(" + " | ".join(v for v, _ in self.values["player"]) + ")"
        defs.update((name, "(" + (" | ".join(v for v, _ in self.values.get(name, [])) or "<VOID>") + ")")
                    for name in ("outcome", *self.grammar.lists) if name not in defs)
        defs.update((name, self.grammar.to_jsgf_body(node)) for name, node in self.numbers.items())
        # every <amount> of the commands is an amount as said (``SAID_AMOUNT``)
        defs["n_amount"] = defs["amount"]
        defs["amount"] = defs.pop(SAID_AMOUNT).replace("<amount>", "<n_amount>")
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
    def _dfa(self, part: str) -> Dfa:
        """One part's minimal automaton, made once (half of building a focus's automaton
        was making the "any" part again)."""
        if part not in self._dfas:
            focus = "any" if part == ALONE else part
            pairs = [(s, n) for s, n in self.sentences_for(focus)
                     if focus != "any" or (s.name == "answer") == (part == ALONE)]
            self._dfas[part] = minimal_dfa([self.fragment(node, focus) for _, node in pairs])
        return self._dfas[part]

    def fsa(self, focus: str = "any") -> Fsa:
        """The focus grammar as a minimal word automaton with branch probabilities (what the
        pocketsphinx adapter decodes with: a few hundred states instead of the thousands a
        literal JSGF expansion makes, so decoding is several times faster)."""
        key = ("fsa", focus)
        if key in self._cache:
            return self._cache[key]
        # a question's own part has the answers it asks for (``FOCUS_INTENTS``)
        parts = ([(OTHER_WEIGHT, "any"), (ALONE_WEIGHT, ALONE)] if focus == "any"
                 else [(FOCUS_WEIGHT, focus), (OTHER_WEIGHT, "any")])
        out = weighted_fsa([(weight, self._dfa(part)) for weight, part in parts])
        self._cache[key] = out
        return out

    def fragment(self, node: Node, focus: str) -> walk.Fragment:
        """``node``'s automaton: names as their spoken forms, numbers as the focus's rule."""
        def slot(name: str) -> walk.Fragment:
            if name in NUMBER_SLOTS:
                return walk.builder(self.numbers[said(name, focus)], self.rules, slot)
            return walk.phrases_fragment([v for v, _ in self.values.get(name, [])])
        return walk.builder(node, self.rules, slot)

    def reach(self, node: Node, focus: str) -> walk.Reach:
        """Which word positions ``node`` reaches (``accepts``), read like ``fragment``."""
        def slot(name: str) -> walk.Reach:
            if name in NUMBER_SLOTS:
                return walk.recogniser(self.numbers[said(name, focus)], self.rules, slot)
            return walk.phrases_reach([v for v, _ in self.values.get(name, [])])
        return walk.recogniser(node, self.rules, slot)

    def _carriers(self, node: Node) -> list[list[str]]:
        """Every word sequence of a template, with slots left as ``{name}`` markers."""
        return [list(words) for words, _ in walk.paths(node, self.grammar.rules)]

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
            spoken = [p for p, _ in number_phrases(self.number_rule(slot, focus))]
            if said(slot, focus) == SAID_AMOUNT:
                spoken += [f"{p} dollars" for p in spoken]
            return covering(spoken)
        return [v for v, _ in self.values.get(slot, [])]

    @staticmethod
    def number_rule(slot: str, focus: str) -> str:
        return number_rule(slot, focus)

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
        words = walk.sampler(node, self.rules)(rng)
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
            path = walk.sampler(self.numbers[rule], self.rules)
            walked = [" ".join(path(rng)) for _ in range(n or 0)]
            pairs: list[tuple[str, object]] = [*listed, *((p, parse_number(p)) for p in walked)]
            return pairs if n is None else rng.sample(pairs, min(n, len(pairs)))
        vals: list[tuple[str, object]] = list(self.values.get(slot, []))
        return vals if n is None or n >= len(vals) else rng.sample(vals, n)

    # --- words ---------------------------------------------------------------------------
    @cached_property
    def words(self) -> frozenset[str]:
        """Every word any focus can output (for the pronunciation dictionary): those of the
        "any" grammar and of each focus's own part (every focus's grammar is its part and
        "any": writing all of them out again cost the recogniser's start ~0.1 s)."""
        found: set[str] = set()
        texts = [self.jsgf("any")]
        for focus in FOCI:
            if focus != "any":
                focused = self._alternatives(self.sentences_for(focus), focus)
                texts.append("\n".join([f"<focus> = {focused};", *self._rule_lines([focused])]))
        for text in texts:
            for line in text.splitlines():
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


SAID_AMOUNT = "said_amount"


def said(slot: str, focus: str) -> str:
    """The number rule a slot is heard with: an amount with its unit word after it."""
    rule = number_rule(slot, focus)
    return SAID_AMOUNT if rule == "amount" else rule


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


def accepts(grammar: SpeechGrammar, focus: str, text: str) -> bool:
    """True when ``text`` (recogniser words) is a sentence of the focus grammar."""
    target = text.split()
    for _spec, node in grammar.sentences_for(focus) + (
            grammar.sentences_for("any") if focus != "any" else []):
        if len(target) in grammar.reach(node, focus)(target, 0):
            return True
    return False
