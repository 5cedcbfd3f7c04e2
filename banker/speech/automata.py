"""Word automata for the recogniser: template fragments (``banker.nlu.walk.builder``) in, the
minimal deterministic automaton out (what pocketsphinx decodes with: a few hundred states
instead of the thousands a literal JSGF expansion makes, so decoding is several times faster).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from banker.nlu.walk import Fragment


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


class Nfa:
    """Thompson-style construction target (null arcs are word None); state 0 is the start."""

    def __init__(self) -> None:
        self.arcs: list[tuple[int, str | None, int]] = []
        self.n = 1

    def new(self) -> int:
        self.n += 1
        return self.n - 1

    def arc(self, src: int, word: str | None, dst: int) -> None:
        self.arcs.append((src, word, dst))


def minimal_dfa(fragments: Sequence[Fragment]) -> tuple[int, list[tuple[int, str, int]], set[int]]:
    """The minimal deterministic word automaton accepting any of ``fragments`` (start 0)."""
    nfa = Nfa()
    finals_nfa: set[int] = set()
    for build in fragments:
        finals_nfa.add(build(nfa, 0))
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


Dfa = tuple[int, list[tuple[int, str, int]], set[int]]


def weighted_fsa(parts: Sequence[tuple[float, Dfa]]) -> Fsa:
    """One automaton from weighted parts (a focus and "anything else"): the start branches to
    each part by its weight; inside a part each arc (and stopping) is equally likely."""
    total = sum(w for w, _ in parts)
    arcs: list[tuple[int, str, int, float]] = []
    stop: dict[int, float] = {}
    offset = 1 if len(parts) > 1 else 0
    for weight, (n, sub, fin) in parts:
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
    return Fsa(offset, tuple(arcs), frozenset(stop), 0, stop)
