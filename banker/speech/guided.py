"""Moonshine's decoder held to the grammar: a beam search that only writes commands.

Free, Moonshine writes down whatever it hears; in a room of other talkers that is their words
as often as the player's ("I'm Arvind Karadhan from WPT." for "buy Marvin Gardens"), and no
snap brings those back. Held to the focus's word automaton (``SpeechGrammar.fsa``), each step
may only write a token that keeps the text on some command, so the model's own scores choose
among commands: the one that fits the sound best per token. That mean log-probability per
token says how well the command fits: chatter forced onto a command scores far below a
command said (bench dev set, seed 2026, 260 lines a condition: every chatter line below -2,
176 of 177 clean commands at -1.75 or better written right, babble 10 dB 99 of 102;
measured when the search still kept the best sum), unless the talk began with a command word
(``covers``).

Pure logic: ``TokenWalk`` follows the automaton token by token and ``search`` runs the beam
over any ``Step`` (``moonshine_asr.Moonshine`` gives its decoder). No audio, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from banker.speech.automata import Fsa

# a guided reading is trusted when its mean log-probability per token is at least this: the
# dev set's chatter stood at -2 and below (180 lines), commands written right above it.
# Chosen by the mean, 5 chatter lines of 360 on two seeds came above it, all a
# command word inside talk ("chance", "no" for "I rolled a set road"), which COVERS keeps out
TRUSTED_ABOVE = -1.75
# asked for only when the free text needed a snap beyond this (or made no command): a free
# text that needed none is already the command Moonshine heard
AFTER_SNAP = 0.05
# the snap distance a trusted guided reading is reported at: "nearly word for word", so the
# two ears' rules may swap it in or ask about it, but never take it as written word for word
REPORTED_NEAR = 0.05
# the foci it is asked in: a command at any moment. The answers to a question ("yes", a
# street's name) were not measured with it, and keep the two ears' rules they were tuned with
GUIDED_FOCI = frozenset({"any"})
# a search stops when an ended reading's mean is this much above every open one's: a mean
# can still rise as tokens are added, so the open ones get some room. Chosen by the sum (the
# first version) a short reading won over every long one: "yeah" for "i would like to use get
# out of jail free card" (-12.5 a token), which the mean finds (-1.3). Bench dev set, 10 dB
# babble, guided readings trusted and right: 68 -> 80 (seed 2026) and 54 -> 63 (seed 7) of
# 200 commands; pink 62 -> 68 and 54 -> 66. It costs more: the search's median 0.26 -> 0.52 s
# (60 dev clips, the same process; a margin of 0.25 saved only a fifth of that)
STOP_MARGIN = 1.0
# a trusted reading must be at least this share of the words Moonshine wrote down freely:
# held to the grammar, talk that begins with a command word ("Chance would be a fine thing.")
# ends after that word ("chance", -1.5 to -1.6 a token, trusted). Two dev seeds: every such
# chatter reading covered 0.14-0.20 of the words, every right command 0.33 or more
COVERS = 0.25
BEAM, TOP = 8, 200  # hypotheses kept a step; tokens looked at per hypothesis (of ~32,000)
_PUNCT = ".,?!;:"

States = frozenset[int]


class TokenWalk:
    """The automaton read through Moonshine's tokens: lower case, punctuation only between
    words, no digits (amounts are the grammar's words), a space starting a new word."""

    def __init__(self, fsa: Fsa, tokens: Sequence[bytes]) -> None:
        self.fsa = fsa
        self._out: dict[int, dict[str, set[int]]] = {}
        self._nulls: dict[int, list[int]] = {}
        for src, word, dst, _p in fsa.arcs:
            if word:
                self._out.setdefault(src, {}).setdefault(word, set()).add(dst)
            else:
                self._nulls.setdefault(src, []).append(dst)
        self.text = [_token_text(t) for t in tokens]
        self._next: dict[States, tuple[dict[str, States], frozenset[str]]] = {}

    @property
    def start(self) -> tuple[States, str]:
        return frozenset({self.fsa.start}), ""

    def _closure(self, states: States) -> States:
        todo, seen = list(states), set(states)
        while todo:
            for d in self._nulls.get(todo.pop(), ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return frozenset(seen)

    def _words(self, states: States) -> tuple[dict[str, States], frozenset[str]]:
        """The words that may come next (with where each leads) and all their prefixes."""
        if states not in self._next:
            nxt: dict[str, set[int]] = {}
            for s in self._closure(states):
                for word, dsts in self._out.get(s, {}).items():
                    nxt.setdefault(word, set()).update(dsts)
            words = {w: frozenset(d) for w, d in nxt.items()}
            self._next[states] = words, frozenset(w[:i] for w in words for i in range(len(w) + 1))
        return self._next[states]

    def step(self, at: tuple[States, str], token: int) -> tuple[States, str] | None:
        """Where the walk is after ``token`` (the states after the last whole word, and the
        word being spelt), or None when no command goes on that way. A space or a hyphen
        starts a new word, as ``moonshine_asr.spoken_words`` reads them ("T-Rex" is "t rex";
        "C-o-l-l-e-c-t", a spelling the model falls back on when held, is letters)."""
        text = self.text[token]
        if not text:
            return None
        states, partial = at
        body = text.rstrip(_PUNCT)
        if any(c in _PUNCT for c in body):
            return None
        for k, piece in enumerate(body.replace("-", " ").split(" ")):
            if k > 0 and partial:  # a word ended: it must be one the automaton goes on by
                words, _ = self._words(states)
                if partial not in words:
                    return None
                states, partial = words[partial], ""
            partial += piece
        words, prefixes = self._words(states)
        if partial not in prefixes:
            return None
        if body != text and partial:  # punctuation after a word ends it
            return (words[partial], "") if partial in words else None
        return states, partial

    def can_end(self, at: tuple[States, str]) -> bool:
        states, partial = at
        if partial:
            words, _ = self._words(states)
            if partial not in words:
                return False
            states = words[partial]
        return bool(self._closure(states) & self.fsa.finals)


def words_of(text: str) -> list[str]:
    """The grammar's words in what a walk wrote (its tokens' text, spaces for word starts):
    read as the walk reads them, not as free text is (``spoken_words`` would make the
    grammar's "i'd" "i would")."""
    out = (w.strip(_PUNCT) for w in text.lower().replace("-", " ").split())
    return [w for w in out if w]


def _token_text(token: bytes) -> str:
    """A token as the walk reads it ("" for one it never writes: digits, part of a
    character)."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    if any(c.isdigit() for c in text):
        return ""
    return text.replace("\u2581", " ").lower()


# one decoder step for several hypotheses: (each one's last token, each one's cache, step
# number) -> (log-probabilities of the next token, a row each; each one's cache after it)
Step = Callable[[Sequence[int], Sequence[Any], int], tuple[npt.NDArray[np.float64], Sequence[Any]]]


@dataclass(frozen=True)
class Guided:
    """The command the guided search wrote (``tokens``, without BOS) and how well it fit."""

    tokens: tuple[int, ...]
    score: float  # log-probability of the tokens and EOS, over the number of tokens


def search(walk: TokenWalk, step: Step, cache: Any, limit: int, eos: int, bos: int,
           beam: int = BEAM, top: int = TOP) -> Guided | None:
    """The token sequence the walk allows, ended where a command may end, whose mean
    log-probability per token is the highest; None when every hypothesis ran out of ways on.

    Chosen by the mean, not the sum: by the sum a short command ("yes", "okay") outscores
    any long one, however well the long one fits the sound (``STOP_MARGIN`` has the figures)."""
    beams: list[tuple[float, list[int], tuple[States, str], Any]] = [(0.0, [bos], walk.start,
                                                                      cache)]
    best: tuple[float, list[int]] | None = None  # the best ended one: its mean, its tokens
    for n in range(limit):
        grown = []
        logps, afters = step([ids[-1] for _s, ids, _a, _p in beams], [p for *_, p in beams], n)
        for (score, ids, at, _past), logp, after in zip(beams, logps, afters, strict=True):
            kept = 0  # a hypothesis gives at most ``beam`` of the next step's, its likeliest
            for token in likeliest(logp, top):
                if token == eos:
                    mean = _per_token(score + float(logp[token]), ids)
                    if walk.can_end(at) and (best is None or mean > best[0]):
                        best = mean, ids[1:]
                elif kept < beam and (nxt := walk.step(at, token)) is not None:
                    grown.append((score + float(logp[token]), [*ids, token], nxt, after))
                    kept += 1
        grown.sort(key=lambda h: -h[0])
        beams = grown[:beam]
        if not beams or (best is not None and best[0] > max(
                _per_token(s, ids) for s, ids, *_ in beams) + STOP_MARGIN):
            break  # an ended one well ahead of every open one: the open ones seldom catch up
    return None if best is None else Guided(tuple(best[1]), best[0])


def _per_token(total: float, ids: Sequence[int]) -> float:
    """A hypothesis's mean log-probability per token it wrote (``ids`` starts with BOS; an
    ended one's ``total`` has its EOS too, which is not counted as a token)."""
    return total / max(1, len(ids) - 1)


def likeliest(logp: npt.NDArray[np.float64], top: int) -> list[int]:
    """The ``top`` likeliest tokens, likeliest first (a partition, then a sort of those:
    a fifth of sorting all ~32,000)."""
    if top >= len(logp):
        return [int(t) for t in np.argsort(-logp)]
    part = np.argpartition(-logp, top)[:top]
    return [int(t) for t in part[np.argsort(-logp[part])]]


def covers(reading: str, heard: int) -> bool:
    """Whether a guided ``reading`` accounts for enough of the ``heard`` words Moonshine wrote
    down freely (after ``moonshine_asr.once``) to be what was said, not one command word
    inside talk (``COVERS``)."""
    return len(reading.split()) >= COVERS * heard
