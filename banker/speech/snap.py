"""Free text snapped onto a grammar: the nearest sentence of a word automaton.

Moonshine writes open-vocabulary text ("Pascoe", "Pay to hunt, rid"); the banker needs the
sentence of the moment's grammar it most likely was. This is a word-level edit distance in
which a written word may also stand for two grammar words run together ("pascoe" for "pass
go", "an mortgage" for "unmortgage" the other way round) and two written words for one
grammar word ("hunt rid" for "hundred"): the words of another voice's model are cut in other
places. Substituting costs 1 - the spelling similarity of the two strings; inserting or
dropping a word costs 1. Pure logic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from banker.speech.automata import Fsa

# a written word for two grammar words, or two for one, counts only when the strings need at
# most this many edits a character (of the longer), and costs JOIN_FACTOR times that:
# otherwise table talk folds onto any long command
JOIN_LIMIT, JOIN_FACTOR = 0.4, 1.0
# a tie is broken by the other measure of likeness (edits per character against the ratio of
# matching characters): Moonshine's "free" is as near "three" as "four" and "fourteen" by
# sound, and as near "three" as "fourteen" by spelling (a ratio favours a longer word that
# holds it), but one edit from "three" by sound. The tie-break is small enough never to
# outweigh a real difference (at most TIE a word), and the distance reported is without it
TIE = 1e-4


@dataclass(frozen=True)
class Snap:
    """The grammar sentence closest to some free text, and how far it was (0 = identical;
    edits per word of the longer of the two)."""

    text: str
    distance: float


Sound = Callable[[str], "str | None"]  # a word's pronunciation, one character a phone


@dataclass
class _Arcs:
    """An automaton read for snapping: word arcs, two-word paths (through null arcs) and the
    strings either may be compared with."""

    order: tuple[int, ...]
    words: tuple[tuple[int, int, int, str], ...]  # (src, dst, vocab index, word)
    pairs: tuple[tuple[int, int, int, str, str], ...]  # (src, dst, vocab index, w1, w2)
    vocab: tuple[tuple[str, ...], ...]  # one grammar word, or two run together
    spelled: list[str]  # each vocabulary entry written as one string
    # state -> (destination, word): null arcs ("") and word arcs, for a column's own moves
    within: dict[int, list[tuple[int, str]]]
    sounds: dict[int, list[str | None]] = field(default_factory=dict)  # by id of a Sound

    def sounded(self, sound: Sound) -> list[str | None]:
        got = self.sounds.get(id(sound))
        if got is None:
            got = self.sounds[id(sound)] = [_sounds(v, sound) for v in self.vocab]
        return got


_PREPARED: dict[int, tuple[Fsa, _Arcs]] = {}


def _prepare(fsa: Fsa) -> _Arcs:
    got = _PREPARED.get(id(fsa))
    if got is not None and got[0] is fsa:
        return got[1]
    vocab: dict[tuple[str, ...], int] = {}
    out: dict[int, list[tuple[str, int]]] = {}
    nulls: dict[int, list[int]] = {}
    for s, w, d, _p in fsa.arcs:
        (out.setdefault(s, []).append((w, d)) if w else nulls.setdefault(s, []).append(d))
    words = tuple((s, d, vocab.setdefault((w,), len(vocab)), w)
                  for s, ws in out.items() for w, d in ws)
    pairs: list[tuple[int, int, int, str, str]] = []
    for s, ws in out.items():
        for w1, m in ws:
            for m2 in _closure(m, nulls):
                for w2, d in out.get(m2, ()):
                    pairs.append((s, d, vocab.setdefault((w1, w2), len(vocab)), w1, w2))
    within: dict[int, list[tuple[int, str]]] = {}
    for s, ds in nulls.items():
        within.setdefault(s, []).extend((d, "") for d in ds)
    for s, d, _k, w in words:
        within.setdefault(s, []).append((d, w))
    arcs = _Arcs(tuple(_topological(fsa)), words, tuple(pairs), tuple(vocab),
                 ["".join(v) for v in vocab], within)
    if len(_PREPARED) > 64:
        _PREPARED.clear()
    _PREPARED[id(fsa)] = (fsa, arcs)
    return arcs


def warm(fsa: Fsa, sound: Sound | None = None) -> None:
    """Read ``fsa`` for snapping now (and how its words sound), while nobody is waiting: the
    first snap of a focus otherwise pays for it (a few tenths of a second)."""
    arcs = _prepare(fsa)
    if sound is not None:
        arcs.sounded(sound)


def _closure(state: int, nulls: dict[int, list[int]]) -> list[int]:
    seen, todo = [state], [state]
    while todo:
        for d in nulls.get(todo.pop(), ()):
            if d not in seen:
                seen.append(d)
                todo.append(d)
    return seen


def _sounds(words: Sequence[str], sound: Sound) -> str | None:
    parts = [sound(w) for w in words]
    return None if any(p is None for p in parts) else "".join(p or "" for p in parts)


def _distance(queries: Sequence[str | None], vocab: Sequence[str | None], strict: bool
               ) -> Any:
    """How unlike every query is every vocabulary string, 0-1 (1 where either is None: no
    pronunciation): 1 - rapidfuzz's ratio, or with ``strict`` the edits per character of the
    longer (a ratio lets "guess time" pass for "guess": a join must be close all along)."""
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import Levenshtein

    out = np.ones((len(queries), len(vocab)), dtype=np.float64)
    qi = [i for i, q in enumerate(queries) if q is not None]
    vi = [j for j, v in enumerate(vocab) if v is not None]
    if qi and vi:
        q, v = [queries[i] for i in qi], [vocab[j] for j in vi]
        if strict:
            out[np.ix_(qi, vi)] = process.cdist(q, v, scorer=Levenshtein.normalized_distance,
                                                dtype=np.float64)
        else:
            out[np.ix_(qi, vi)] = 1.0 - process.cdist(q, v, scorer=fuzz.ratio,
                                                      dtype=np.float64) / 100.0
    return out


def _costs(queries: Sequence[Sequence[str]], arcs: _Arcs, sound: Sound | None,
           strict: bool = False) -> Any:
    """Substitution costs of each query (one written word or two) against the vocabulary:
    by spelling, or by sound when that is closer."""
    cost = _distance(["".join(q) for q in queries], arcs.spelled, strict)
    if sound is not None and queries:
        cost = np.minimum(cost, _distance([_sounds(q, sound) for q in queries],
                                          arcs.sounded(sound), strict))
    return cost


def _tie_broken(cost: Any, other: Any) -> tuple[Any, Any]:
    """The costs, and the same plus ``TIE`` times the costs by the other measure (edits per
    character against the ratio): the search uses the second, the distance the first."""
    return cost, cost + TIE * other


def _joined(costs: tuple[Any, Any]) -> tuple[Any, Any]:
    """Costs of joins: too unlike is no join at all."""
    cost, tied = costs
    near = cost <= JOIN_LIMIT
    return (np.where(near, cost * JOIN_FACTOR, np.inf),
            np.where(near, tied * JOIN_FACTOR, np.inf))


def snap(words: Sequence[str], fsa: Fsa, sound: Sound | None = None) -> Snap:
    """The nearest sentence of the (acyclic) automaton to ``words``, by the edit distance
    described above; with ``sound`` (a word's pronunciation), words may also be alike by
    sound."""
    arcs = _prepare(fsa)
    n = len(words)
    singles = [(w,) for w in words]
    pairs = [(words[i], words[i + 1]) for i in range(n - 1)]
    ratio, edits = _costs(singles, arcs, sound), _costs(singles, arcs, sound, True)
    one = _tie_broken(ratio, edits)
    one_joined = _joined(_tie_broken(edits, ratio))  # a join is judged by edits
    two = _joined(_tie_broken(_costs(pairs, arcs, sound, True), _costs(pairs, arcs, sound)))
    inf = float("inf")
    # cost[i][s]: the search's cost (ties broken) and the distance without the tie-break
    cost = [[inf] * fsa.n for _ in range(n + 1)]
    real = [[inf] * fsa.n for _ in range(n + 1)]
    # back[i][s]: (previous column, previous state, grammar words said on the way)
    back: list[list[tuple[int, int, tuple[str, ...]] | None]] = [[None] * fsa.n for _ in range(n + 1)]
    cost[0][fsa.start] = real[0][fsa.start] = 0.0

    def relax(i: int, s: int, step: tuple[float, float], how: tuple[int, int, tuple[str, ...]]
              ) -> None:
        j, p = how[0], how[1]
        c = cost[j][p] + step[1]
        if c < cost[i][s]:
            cost[i][s], real[i][s], back[i][s] = c, real[j][p] + step[0], how

    for i in range(n + 1):
        if i > 0:
            prev = cost[i - 1]
            row, tied = one[0][i - 1], one[1][i - 1]
            for s in range(fsa.n):
                if prev[s] < inf:
                    relax(i, s, (1.0, 1.0), (i - 1, s, ()))  # a written word of no command
            for s, d, k, w in arcs.words:
                if prev[s] < inf:
                    relax(i, d, (float(row[k]), float(tied[k])), (i - 1, s, (w,)))
            joined, joined_tied = one_joined[0][i - 1], one_joined[1][i - 1]
            for s, d, k, w1, w2 in arcs.pairs:
                if prev[s] < inf:
                    relax(i, d, (float(joined[k]), float(joined_tied[k])), (i - 1, s, (w1, w2)))
        if i > 1:
            prev2, row2, tied2 = cost[i - 2], two[0][i - 2], two[1][i - 2]
            for s, d, k, w in arcs.words:
                if prev2[s] < inf:
                    relax(i, d, (float(row2[k]), float(tied2[k])), (i - 2, s, (w,)))
        _within_column(i, arcs, cost, relax)
    return _read_back(words, fsa, cost, real, back)


def distance_to(words: Sequence[str], sentence: Sequence[str], sound: Sound | None = None
                ) -> float:
    """How far ``words`` are from one ``sentence`` (grammar words), by the snap's measure."""
    fsa = Fsa(len(sentence) + 1, tuple((i, w, i + 1, 1.0) for i, w in enumerate(sentence)),
              frozenset({len(sentence)}))
    try:
        return snap(words, fsa, sound).distance if words else 1.0
    finally:
        _PREPARED.pop(id(fsa), None)  # a sentence of the moment: not kept beside the grammars


def _within_column(i: int, arcs: _Arcs, cost: list[list[float]], relax: Any) -> None:
    """Null arcs are free, a grammar word nobody wrote costs 1 (in topological order)."""
    row = cost[i]
    for s in arcs.order:
        if row[s] == float("inf"):
            continue
        for d, w in arcs.within.get(s, ()):
            step = 1.0 if w else 0.0
            relax(i, d, (step, step), (i, s, (w,) if w else ()))


def _read_back(words: Sequence[str], fsa: Fsa, cost: list[list[float]],
               real: list[list[float]],
               back: list[list[tuple[int, int, tuple[str, ...]] | None]]) -> Snap:
    n = len(words)
    last = cost[n]
    end = min(fsa.finals, key=lambda s: last[s], default=None)
    if end is None or last[end] == float("inf"):
        return Snap("", 1.0)
    said: list[str] = []
    i, s = n, end
    while (b := back[i][s]) is not None:
        said.extend(reversed(b[2]))
        i, s = b[0], b[1]
    said.reverse()
    return Snap(" ".join(said), real[n][end] / max(1, n, len(said)))


def _topological(fsa: Fsa) -> list[int]:
    indeg = [0] * fsa.n
    out: dict[int, list[int]] = {}
    for s, _w, d, _p in fsa.arcs:
        out.setdefault(s, []).append(d)
        indeg[d] += 1
    todo = [s for s in range(fsa.n) if indeg[s] == 0]
    order: list[int] = []
    while todo:
        s = todo.pop()
        order.append(s)
        for d in out.get(s, ()):
            indeg[d] -= 1
            if indeg[d] == 0:
                todo.append(d)
    return order
