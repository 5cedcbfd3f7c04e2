"""The one walker over template trees, and the readings built on it.

``fold(node, algebra, rules)`` visits a template bottom-up and combines what an *algebra*
makes of each part (a word, a slot, a sequence, alternatives); a ``<rule>`` is walked into
once per fold. Every reader of the templates is an algebra of this one walk (in the style of
hassil's ``sample_expression``), so they cannot drift apart:

- ``paths``: every word sequence with its slots (the matcher's carriers, ``Grammar.expand``);
- ``jsgf``: the JSGF text of a template;
- ``slots_of``: the slot names a template can fill;
- ``sampler``: one random path (the bench's and tests' sentences);
- ``recogniser``: which word positions a template can reach (does a sentence fit?);
- ``builder``: a word automaton fragment (``banker.speech.automata``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, Protocol, TypeVar

from banker.nlu.syntax import Alt, Node, RuleRef, Slot, Word

T = TypeVar("T")
T_co = TypeVar("T_co")

Path = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]  # words, (slot, value) pairs
Reach = Callable[[Sequence[str], int], set[int]]  # words, start -> reachable end positions
Sampler = Callable[[random.Random], list[str]]


class Algebra(Protocol[T]):
    """What a reading makes of each kind of template part."""

    def word(self, text: str) -> T: ...
    def slot(self, name: str) -> T: ...
    def seq(self, items: Sequence[T]) -> T: ...
    def alt(self, options: Sequence[T], optional: bool) -> T: ...
    def ref(self, name: str) -> T | None:
        """A reading of ``<name>`` itself, or None to walk into the rule."""
        ...


def fold(node: Node, algebra: Algebra[T], rules: Mapping[str, Node]) -> T:
    """``node`` read by ``algebra``; ``<rule>`` references resolve in ``rules``."""
    memo: dict[str, T] = {}

    def go(n: Node) -> T:
        if isinstance(n, Word):
            return algebra.word(n.text)
        if isinstance(n, Slot):
            return algebra.slot(n.name)
        if isinstance(n, RuleRef):
            own = algebra.ref(n.name)
            if own is not None:
                return own
            if n.name not in memo:
                memo[n.name] = go(rules[n.name])
            return memo[n.name]
        if isinstance(n, Alt):
            return algebra.alt([go(o) for o in n.options], n.optional)
        return algebra.seq([go(i) for i in n.items])

    return go(node)


class _Walk(Generic[T_co]):
    """Rules are walked into unless an algebra says otherwise."""

    def ref(self, name: str) -> T_co | None:
        return None


# --- paths: every sentence ------------------------------------------------------------------
class _Paths(_Walk[list[Path]]):
    def __init__(self, words: Callable[[str], Sequence[str]],
                 slot: Callable[[str], list[Path]]) -> None:
        self._words, self._slot = words, slot

    def word(self, text: str) -> list[Path]:
        return [(tuple(self._words(text)), ())]

    def slot(self, name: str) -> list[Path]:
        return self._slot(name)

    def alt(self, options: Sequence[list[Path]], optional: bool) -> list[Path]:
        out: list[Path] = [((), ())] if optional else []
        for o in options:
            out.extend(o)
        return out

    def seq(self, items: Sequence[list[Path]]) -> list[Path]:
        out: list[Path] = []
        for combo in itertools.product(*items):
            words = tuple(w for ws, _ in combo for w in ws)
            slots = [s for _, ss in combo for s in ss]
            if len({k for k, _ in slots}) < len(slots):
                names = [k for k, _ in slots]
                # the same slot twice (never in our templates): keep the first
                slots = [s for i, s in enumerate(slots) if s[0] not in names[:i]]
            out.append((words, tuple(slots)))
        return out


def marker(name: str) -> list[Path]:
    """A slot left as a ``{name}`` marker word (for carriers)."""
    return [(("{" + name + "}",), ())]


def paths(node: Node, rules: Mapping[str, Node],
          slot: Callable[[str], list[Path]] = marker,
          words: Callable[[str], Sequence[str]] = str.split) -> list[Path]:
    """Every word sequence of ``node`` with its slot values (``slot`` says what a slot
    may be: its values, a marker, a placeholder)."""
    return fold(node, _Paths(words, slot), rules)


# --- JSGF -----------------------------------------------------------------------------------
class _Jsgf:
    def word(self, text: str) -> str:
        return text

    def slot(self, name: str) -> str:
        return f"<{name}>"

    def ref(self, name: str) -> str | None:
        return f"<{name}>"

    def alt(self, options: Sequence[str], optional: bool) -> str:
        inner = " | ".join(options)
        return f"[{inner}]" if optional else f"({inner})"

    def seq(self, items: Sequence[str]) -> str:
        return " ".join(i for i in items if i != _NULL) or _NULL


_NULL = "<NULL>"


def jsgf(node: Node) -> str:
    """The JSGF body of a template (rules and slots stay references)."""
    return fold(node, _Jsgf(), {})


# --- slot names -----------------------------------------------------------------------------
class _Slots:
    def __init__(self, rules: Mapping[str, Node]) -> None:
        self._rules = rules

    def word(self, text: str) -> set[str]:
        return {"none"} if text == "none" else set()

    def slot(self, name: str) -> set[str]:
        return {name}

    def ref(self, name: str) -> set[str] | None:
        return None if name in self._rules else set()

    def alt(self, options: Sequence[set[str]], optional: bool) -> set[str]:
        return set().union(*options)

    def seq(self, items: Sequence[set[str]]) -> set[str]:
        return set().union(*items)


def slots_of(node: Node, rules: Mapping[str, Node]) -> set[str]:
    """The slots ``node`` can fill (and "none" for a spoken "none")."""
    return fold(node, _Slots(rules), rules)


# --- random paths ---------------------------------------------------------------------------
class _Sample(_Walk[Sampler]):
    def word(self, text: str) -> Sampler:
        return lambda _rng: text.split()

    def slot(self, name: str) -> Sampler:
        return lambda _rng: ["{" + name + "}"]

    def alt(self, options: Sequence[Sampler], optional: bool) -> Sampler:
        def pick(rng: random.Random) -> list[str]:
            if optional and rng.random() < 0.5:
                return []
            return rng.choice(options)(rng)
        return pick

    def seq(self, items: Sequence[Sampler]) -> Sampler:
        return lambda rng: [w for f in items for w in f(rng)]


def sampler(node: Node, rules: Mapping[str, Node]) -> Sampler:
    """A function giving one random path through ``node`` (slots stay ``{name}`` markers)."""
    return fold(node, _Sample(), rules)


# --- does a sentence fit --------------------------------------------------------------------
class _Reach(_Walk[Reach]):
    def __init__(self, slot: Callable[[str], Reach]) -> None:
        self._slot = slot

    def word(self, text: str) -> Reach:
        parts = text.split()
        return lambda ws, pos: {pos + len(parts)} if list(ws[pos:pos + len(parts)]) == parts else set()

    def slot(self, name: str) -> Reach:
        return self._slot(name)

    def alt(self, options: Sequence[Reach], optional: bool) -> Reach:
        def ends(ws: Sequence[str], pos: int) -> set[int]:
            out = {pos} if optional else set()
            for o in options:
                out |= o(ws, pos)
            return out
        return ends

    def seq(self, items: Sequence[Reach]) -> Reach:
        def ends(ws: Sequence[str], pos: int) -> set[int]:
            positions = {pos}
            for item in items:
                positions = {e for p in positions for e in item(ws, p)}
                if not positions:
                    break
            return positions
        return ends


def phrases_reach(phrases: Sequence[str]) -> Reach:
    """A slot filled by one of ``phrases``."""
    split = [p.split() for p in phrases]
    return lambda ws, pos: {pos + len(p) for p in split if list(ws[pos:pos + len(p)]) == p}


def recogniser(node: Node, rules: Mapping[str, Node], slot: Callable[[str], Reach]) -> Reach:
    """A function giving the end positions ``node`` reaches from a start position."""
    return fold(node, _Reach(slot), rules)


# --- automaton fragments --------------------------------------------------------------------
class Arcs(Protocol):
    """What ``builder`` fragments write into: new states and arcs (word None: a null arc)."""

    def new(self) -> int: ...
    def arc(self, src: int, word: str | None, dst: int) -> None: ...


Fragment = Callable[[Arcs, int], int]  # automaton, start state -> end state


def chain(nfa: Arcs, src: int, words: Sequence[str]) -> int:
    """Arcs for ``words`` one after another from ``src``; returns the last state."""
    for w in words:
        dst = nfa.new()
        nfa.arc(src, w, dst)
        src = dst
    return src


class _Build(_Walk[Fragment]):
    def __init__(self, slot: Callable[[str], Fragment]) -> None:
        self._slot = slot

    def word(self, text: str) -> Fragment:
        return lambda nfa, src: chain(nfa, src, text.split())

    def slot(self, name: str) -> Fragment:
        return self._slot(name)

    def alt(self, options: Sequence[Fragment], optional: bool) -> Fragment:
        def build(nfa: Arcs, src: int) -> int:
            dst = nfa.new()
            if optional:
                nfa.arc(src, None, dst)
            for o in options:
                nfa.arc(o(nfa, src), None, dst)
            return dst
        return build

    def seq(self, items: Sequence[Fragment]) -> Fragment:
        def build(nfa: Arcs, src: int) -> int:
            for item in items:
                src = item(nfa, src)
            return src
        return build


def phrases_fragment(phrases: Sequence[str]) -> Fragment:
    """A slot filled by one of ``phrases`` (each its own path, joined by null arcs)."""
    def build(nfa: Arcs, src: int) -> int:
        dst = nfa.new()
        for p in phrases:
            nfa.arc(chain(nfa, src, p.split()), None, dst)
        return dst
    return build


def builder(node: Node, rules: Mapping[str, Node], slot: Callable[[str], Fragment]) -> Fragment:
    """A function that writes ``node``'s automaton from a start state, returning its end."""
    return fold(node, _Build(slot), rules)
