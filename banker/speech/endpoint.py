"""When is a turn over? End-of-turn rules over the first ear's reading, as Kaldi's online
endpointing does (``online-endpoint.h``: each rule a small piece of data saying whether the
decoder must be in a final state, how sure it must be, and how much trailing silence ends
the turn).

While the player talks, the listener recognises at each pause (``GUESS_AFTER_FRAMES``
of silence); the first ear's reading of the audio so far is placed in the edition's command
grammar for the focus:

- ``final``: a whole command nothing in the grammar continues ("pass go", "buy Baltic
  Avenue"), or only a last word that leaves it as it is (the optional "please", "repeat
  that"): a short pause ends the turn;
- ``open``: a whole command that could go on ("pay two hundred" -> "... fifty", "buy" ->
  "buy Baltic Avenue", the first half of the two-step form): a medium pause, longer than a
  pause between two words;
- ``incomplete``: the start of a command ("pay rent on"): the long wait, so the player is
  not cut off while he looks for the street;
- ``outside``: words no command starts with, or nothing heard: more than a pause between
  words;
- ``pending``: no reading yet (the recogniser is still at work): the long wait caps it.

A turn ends when any rule holds (Kaldi's semantics): ``wait_ms`` is the least trailing
silence over the rules that a reading satisfies. Measurements: docs/decisions.md, "End of turn".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from banker.speech.automata import Fsa
from banker.speech.protocols import Heard

# A pause is read after 60 ms of silence (two frames), while the player may still go on:
# with the room's level marking silence (``vad._Room``) that is ~80 ms after the last loud
# sample, and the reading (~100-200 ms) is back about when the shortest rule's silence has
# passed; three frames measured ~30 ms later at the median on the latency bench (2 runs of
# 24 turns each way).
GUESS_AFTER_FRAMES = 2

State = Literal["final", "open", "incomplete", "outside", "pending"]
STATES: tuple[State, ...] = ("final", "open", "incomplete", "outside", "pending")
DETAIL = "grammar_end"  # ``Heard.details`` key: the reading's state, as its index in STATES


@dataclass(frozen=True)
class EndRule:
    """One way a turn ends: a reading in one of ``states``, the first ear at least
    ``min_confidence`` sure of it (Kaldi's relative cost), then ``silence_ms`` of quiet."""

    name: str
    states: tuple[State, ...]
    silence_ms: int
    min_confidence: float = 0.0


# A pause between two words of a command, as webrtcvad measures it, reaches ~390 ms when
# 300 ms of silence are put between them (the words' own soft edges count as voiced; the
# room's level measures ~300 ms in a quiet room): a reading that can go on waits past that.
RULES: tuple[EndRule, ...] = (
    EndRule("complete", ("final",), 150, 0.75),
    EndRule("complete, unsure", ("final",), 450),
    EndRule("could go on", ("open",), 450),
    # the first ear reads the first words of a command as nothing at all more often than as
    # the start of one (its search ends in a whole command or nowhere)
    EndRule("no command yet", ("outside",), 600),
    EndRule("incomplete", ("incomplete", "pending"), 1000),
)


def wait_ms(state: State, confidence: float, rules: Sequence[EndRule] = RULES) -> int:
    """The trailing silence that ends a turn whose reading is in ``state`` (the longest
    rule's when none applies)."""
    fits = [r.silence_ms for r in rules if state in r.states and confidence >= r.min_confidence]
    return min(fits) if fits else max(r.silence_ms for r in rules)


def rule_for(state: State, confidence: float, rules: Sequence[EndRule] = RULES) -> str:
    """The name of the rule that ends such a turn first (for the trace and the bench)."""
    fits = [r for r in rules if state in r.states and confidence >= r.min_confidence]
    return min(fits, key=lambda r: r.silence_ms).name if fits else "longest"


class Continuations:
    """Where a sequence of words stands in a word automaton: whole, whole but able to go
    on, the start of something, or outside it."""

    def __init__(self, fsa: Fsa) -> None:
        self.start, self.finals = fsa.start, fsa.finals
        self._eps: dict[int, list[int]] = {}
        self._out: dict[int, dict[str, list[int]]] = {}
        for s, w, d, _ in fsa.arcs:
            if w:
                self._out.setdefault(s, {}).setdefault(w, []).append(d)
            else:
                self._eps.setdefault(s, []).append(d)

    def _closure(self, states: Iterable[int]) -> set[int]:
        todo = list(states)
        seen = set(todo)
        while todo:
            for d in self._eps.get(todo.pop(), ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return seen

    def state(self, words: Sequence[str]) -> State:
        if not words:
            return "outside"
        states = self._closure([self.start])
        for w in words:
            states = self._closure(d for s in states for d in self._out.get(s, {}).get(w, ()))
            if not states:
                return "outside"
        if not states & self.finals:
            return "incomplete"
        nxt = [self._closure([d]) for s in states for ds in self._out.get(s, {}).values()
               for d in ds]
        if all(n <= self.finals and not any(self._out.get(s) for s in n) for n in nxt):
            return "final"  # nothing follows, or one last word that changes nothing ("please")
        return "open"


_KNOWN: dict[int, tuple[Fsa, Continuations]] = {}  # per automaton (kept alive with it)


def reading_state(fsa: Fsa, words: Sequence[str]) -> State:
    """``words`` (spoken forms, as the decoder wrote them) placed in ``fsa``."""
    known = _KNOWN.get(id(fsa))
    if known is None or known[0] is not fsa:
        known = _KNOWN[id(fsa)] = (fsa, Continuations(fsa))
    return known[1].state(words)


def state_of(details: Mapping[str, float]) -> State:
    """A reading's state as the first ear noted it in ``Heard.details`` (``outside`` when it
    did not)."""
    i = int(details.get(DETAIL, STATES.index("outside")))
    return STATES[i] if 0 <= i < len(STATES) else "outside"


def wait_for(first: Heard | None, rules: Sequence[EndRule] = RULES) -> int:
    """The trailing silence that ends a turn whose pause the first ear read as ``first``
    (None: not read yet)."""
    if first is None:
        return wait_ms("pending", 0.0, rules)
    return wait_ms(*placed(first), rules=rules)


def placed(first: Heard) -> tuple[State, float]:
    """The first ear's reading of a pause: its place in the grammar, and how sure it is."""
    return (state_of(first.details) if first.text else "outside"), first.confidence
