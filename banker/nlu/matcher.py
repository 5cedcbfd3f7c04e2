"""Text -> intent: a ladder with explicit outcomes (``Recognized | Ambiguous | NotRecognized``).

1. Normalise; spoken and written numbers become ``#``.
2. Spot names: word spans that fuzzily match a street (of any edition, so another board's
   street can be refused by name) or a player, replaced by a class marker (``@s``, ``@p``).
3. Fuzzy-match the result against every command *carrier* (a template sentence with markers
   for its slots) using rapidfuzz with a score cutoff; fill the slots in order.
4. Two different readings within ``margin`` of each other are ``Ambiguous``; the interpreter
   breaks such ties with what is legal right now.

"Not understood" is a value, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rapidfuzz import fuzz, process

from banker.editions.model import Edition
from banker.money import words_to_tokens
from banker.nlu.canonical import STREET_SLOTS
from banker.nlu.normalize import PLACEHOLDER, normalize, times_variants, with_placeholders
from banker.nlu.numbers import NUMBER_SLOTS
from banker.nlu.templates import Grammar, IntentSpec, load_grammar

STREET, PLAYER = "@s", "@p"
GENERIC_TAILS = ("avenue", "place", "gardens")
# No command is longer than a few dozen words; longer text is chatter (or a pasted file), and
# fuzzy-matching it would take seconds per 100 KB, so it is not understood at once.
MAX_TEXT = 1000


@dataclass(frozen=True)
class Recognized:
    intent: str
    slots: Mapping[str, Any]
    score: float  # 0-100: how closely the text matched
    margin: float  # score minus the best different reading's score (100 if none)
    text: str = ""


@dataclass(frozen=True)
class Ambiguous:
    candidates: tuple[Recognized, ...]
    text: str = ""


@dataclass(frozen=True)
class NotRecognized:
    text: str = ""
    best: Recognized | None = None


Match = Recognized | Ambiguous | NotRecognized


def street_variants(name: str) -> list[str]:
    """How people say a street: in full, and without its generic tail ("Baltic")."""
    full = normalize(name)
    out = [full]
    words = full.split()
    if len(words) > 1 and words[-1] in GENERIC_TAILS:
        out.append(" ".join(words[:-1]))
    if full == "boardwalk":
        out.append("board walk")
    if full.startswith("saint "):
        out.append(full.replace("saint ", "st ", 1))
    return out


def outcome_variants(written: str) -> list[str]:
    """How people type or say a spinner outcome: ``x2 pay out`` is also "times two pay out",
    "x two pay out", "2x pay out" and "two times pay out" (the recogniser's ``to_written``
    maps its own spoken forms back; typed text reaches the matcher as it was typed)."""
    return times_variants(normalize(written).split(), typed=True)


def literal_number_slot(value: int) -> str:
    """The pseudo-slot of a number word written in a template ("collect *two hundred* for
    passing go", "undo the last *one*"): the input's number must be exactly ``value``."""
    return f"={value}"


@dataclass
class _Carrier:
    text: str
    intent: str
    slot_order: tuple[str, ...]  # slot names of markers and '#', left to right ("=N": a literal)
    fixed: tuple[tuple[str, str], ...]  # slots with literal values (outcome)


# matchers built on the default grammar, by what of an edition they read (``Matcher.for_edition``)
_BUILT: dict[tuple[object, ...], Matcher] = {}
_BUILT_MAX = 8


@dataclass
class Matcher:
    """Compiled once per edition: carriers, name lexicon and thresholds."""

    edition: Edition
    grammar: Grammar
    cutoff: float = 78.0
    margin: float = 4.0
    name_cutoff: float = 80.0
    carriers: list[_Carrier] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list)
    _lexicon: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    _exact: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def for_edition(cls, edition: Edition, grammar: Grammar | None = None) -> Matcher:
        """The matcher of ``edition`` over ``grammar`` (default: grammars/commands.yaml). With
        the default grammar, the compiled sentences are shared between editions with the same
        names (a matcher is read-only once built): building the classic box's, about 60,000
        sentences, takes ~3 s, which every new game, resume and transcript would pay again."""
        key = (edition.id, tuple(edition.street_names), tuple(edition.foreign_streets),
               tuple((t.id, t.name, tuple(t.aliases)) for t in edition.tokens))
        if grammar is None and key in _BUILT:
            return replace(_BUILT[key], edition=edition)
        m = cls(edition, grammar or load_grammar())
        m._build()
        if grammar is None:
            if len(_BUILT) >= _BUILT_MAX:
                _BUILT.pop(next(iter(_BUILT)))
            _BUILT[key] = m
        return m

    # --- compile --------------------------------------------------------------------------
    def intents(self) -> list[IntentSpec]:
        return self.grammar.for_edition(self.edition.id)

    def slot_values(self) -> dict[str, list[tuple[str, str]]]:
        """Spoken forms and canonical values of every name slot (for grammars and tests)."""
        streets = [(v, n) for n in self.edition.street_names + self.edition.foreign_streets
                   for v in street_variants(n)]
        players = [(normalize(a), t.id) for t in self.edition.tokens
                   for a in dict.fromkeys((t.id, t.name, *t.aliases))]
        players = [(v.removeprefix("the "), c) for v, c in players]
        players = list(dict.fromkeys(players))
        lists = {name: [(normalize(o), o) for o in values]  # outcome, the spoken card lists
                 for name, values in self.grammar.lists.items() if name not in NUMBER_SLOTS}
        return {**dict.fromkeys(sorted(STREET_SLOTS), streets), "player": players,
                "outcome": [], **lists}

    def _build(self) -> None:
        values = self.slot_values()
        self._lexicon = {STREET: values["property"], PLAYER: values["player"]}
        outcomes = list(dict.fromkeys((form, canon) for spoken, canon in values["outcome"]
                                      for form in outcome_variants(spoken)))
        markers: dict[str, list[tuple[str, str]]] = {
            **{s: [(STREET, "")] for s in STREET_SLOTS}, "player": [(PLAYER, "")],
            **{name: pairs for name, pairs in values.items() if name in self.grammar.lists},
            "outcome": outcomes}
        seen: set[tuple[str, str]] = set()
        for spec in self.intents():
            for exp in self.grammar.expand(spec, markers):
                order = tuple(k for k, v in exp.slots if v in ("", PLACEHOLDER))
                fixed = tuple((k, v) for k, v in exp.slots if v not in ("", PLACEHOLDER))
                text, order = _literal_numbers(exp.text, order)
                key = (text + " " + " ".join(order), spec.name)
                if key in seen:
                    continue
                seen.add(key)
                self._exact.setdefault(text, []).append(len(self.carriers))
                self.carriers.append(_Carrier(text, spec.name, order, fixed))
        self._texts = [c.text for c in self.carriers]

    # --- match ----------------------------------------------------------------------------
    def spot(self, words: list[str], cutoff: float | None = None
             ) -> list[tuple[int, int, str, list[tuple[str, float]]]]:
        """Name spans: (start, end, marker, [(canonical, score), ...] best first)."""
        cutoff = self.name_cutoff if cutoff is None else cutoff
        found: list[tuple[float, int, int, str, list[tuple[str, float]]]] = []
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + 4) + 1):
                span = " ".join(words[i:j])
                if PLACEHOLDER in span.split():
                    continue
                for marker, entries in self._lexicon.items():
                    res = process.extract(span, [e[0] for e in entries], scorer=fuzz.ratio,
                                          score_cutoff=cutoff, limit=8)
                    if not res:
                        continue
                    best: dict[str, float] = {}
                    for _text, score, idx in res:
                        canon = entries[idx][1]
                        best[canon] = max(best.get(canon, 0.0), float(score))
                    ranked = sorted(best.items(), key=lambda kv: -kv[1])
                    found.append((ranked[0][1] + 0.5 * (j - i), i, j, marker, ranked))
        found.sort(key=lambda f: -f[0])
        taken: set[int] = set()
        chosen: list[tuple[int, int, str, list[tuple[str, float]]]] = []
        for _score, i, j, marker, ranked in found:
            if taken.intersection(range(i, j)):
                continue
            taken.update(range(i, j))
            chosen.append((i, j, marker, ranked))
        chosen.sort()
        return chosen

    def match(self, text: str, allowed: Iterable[str] | None = None) -> Match:
        """Understand ``text``. ``allowed`` restricts the intents considered (a question's)."""
        if len(text) > MAX_TEXT:
            return NotRecognized(text[:MAX_TEXT])
        norm, numbers = with_placeholders(text)
        if not norm:
            return NotRecognized(text)
        words = norm.split()
        allowed_set = set(allowed) if allowed is not None else None
        spans = self.spot(words)
        # Readings: with every spotted name as a marker, and with none (names inside a
        # carrier's own words, e.g. "free parking", must still match).
        readings = [self._reading(words, spans), (norm, [])]
        # ...and with only the exactly spotted names, when others were fuzzy: a command word
        # close to a name ("card" ~ "car") must not hide the real name in the sentence.
        exact = [s for s in spans if s[3][0][1] >= 100]
        if exact and len(exact) < len(spans):
            readings.append(self._reading(words, exact))
        results: dict[tuple[str, tuple[tuple[str, Any], ...]], Recognized] = {}
        ambiguous_names: list[Recognized] = []
        for cand_text, names in readings:
            for carrier, score in self._carriers_for(cand_text, allowed_set):
                if len(carrier.slot_order) != len(names) + cand_text.split().count(PLACEHOLDER):
                    continue
                filled = self._fill(carrier, names, numbers)
                if filled is None:
                    continue
                slots, name_score, alternatives = filled
                total = _combine(score, name_score, cand_text)
                rec = Recognized(carrier.intent, slots, total, 100.0, text)
                key = (carrier.intent, tuple(sorted((k, str(v)) for k, v in slots.items())))
                if key not in results or results[key].score < total:
                    results[key] = rec
                for alt in alternatives:
                    ambiguous_names.append(Recognized(carrier.intent, alt, total, 0.0, text))
        ranked = sorted(results.values(), key=lambda r: -r.score)
        if not ranked or ranked[0].score < self.cutoff:
            vague = self._vague_name(words, numbers, allowed_set, text)
            if vague is not None:
                return vague
            return NotRecognized(text, ranked[0] if ranked else None)
        best = ranked[0]
        close = [r for r in ranked[1:] if best.score - r.score < self.margin]
        name_alts = [a for a in ambiguous_names if a.intent == best.intent and a.slots != best.slots]
        if close or name_alts:
            cands = [best, *close, *name_alts]
            uniq: dict[tuple[str, tuple[tuple[str, str], ...]], Recognized] = {}
            for c in cands:
                uniq.setdefault((c.intent, tuple(sorted((k, str(v)) for k, v in c.slots.items()))), c)
            if len(uniq) > 1:
                return Ambiguous(tuple(uniq.values()), text)
        margin = best.score - ranked[1].score if len(ranked) > 1 else 100.0
        return Recognized(best.intent, best.slots, best.score, margin, text)

    def _vague_name(self, words: list[str], numbers: list[int], allowed: set[str] | None,
                    text: str) -> Ambiguous | None:
        """A street name merely close to two names ("buy pa avenue"): ask which, never guess.

        Only when the command words match a carrier exactly and the name span fits two or
        more streets loosely (60-80) and about equally.
        """
        spans = [s for s in self.spot(words, cutoff=60.0) if s[2] == STREET]
        if len(spans) != 1:
            return None
        i, j, _marker, ranked = spans[0]
        cand_text = " ".join([*words[:i], STREET, *words[j:]])
        carriers = [c for c, sc in self._carriers_for(cand_text, allowed)
                    if sc >= 100.0 and c.intent != "answer"]
        if not carriers:
            return None
        top = ranked[0][1]
        board = set(self.edition.street_names)
        close = [name for name, sc in ranked if top - sc <= 12.0 and name in board]
        if len(close) < 2:
            return None
        carrier = carriers[0]
        out = []
        for name in close[:3]:
            filled = self._fill(carrier, [(STREET, [(name, 100.0)])], numbers)
            if filled is not None:
                out.append(Recognized(carrier.intent, filled[0], top, 0.0, text))
        return Ambiguous(tuple(out), text) if len(out) >= 2 else None

    def _reading(self, words: list[str], spans: Sequence[tuple[int, int, str, list[tuple[str, float]]]]
                 ) -> tuple[str, list[tuple[str, list[tuple[str, float]]]]]:
        out: list[str] = []
        names: list[tuple[str, list[tuple[str, float]]]] = []
        i = 0
        starts = {s[0]: s for s in spans}
        while i < len(words):
            if i in starts:
                _, j, marker, ranked = starts[i]
                out.append(marker)
                names.append((marker, ranked))
                i = j
            else:
                out.append(words[i])
                i += 1
        return " ".join(out), names

    def _carriers_for(self, cand: str, allowed: set[str] | None) -> list[tuple[_Carrier, float]]:
        exact = self._exact.get(cand)
        if exact:
            hits = [(self.carriers[i], 100.0) for i in exact]
        else:
            res = process.extract(cand, self._texts, scorer=fuzz.ratio,
                                  score_cutoff=self.cutoff - 15, limit=40)
            hits = [(self.carriers[idx], float(score)) for _t, score, idx in res]
        return [(c, s) for c, s in hits if allowed is None or c.intent in allowed]

    def _fill(self, carrier: _Carrier, names: list[tuple[str, list[tuple[str, float]]]],
              numbers: list[int]) -> tuple[dict[str, Any], float, list[dict[str, Any]]] | None:
        slots: dict[str, Any] = dict(carrier.fixed)
        name_iter = iter(names)
        num_iter = iter(numbers)
        scores: list[float] = []
        alternatives: list[dict[str, Any]] = []
        for slot in carrier.slot_order:
            if slot.startswith("="):  # a number word of the template itself: must be said
                if next(num_iter, None) != int(slot[1:]):
                    return None
                continue
            if slot in ("amount", "number"):
                value = next(num_iter, None)
                if value is None:
                    return None
                slots[slot] = value
                continue
            nm = next(name_iter, None)
            if nm is None:
                return None
            marker, ranked = nm
            if (marker == STREET) != (slot in STREET_SLOTS):
                return None
            slots[slot] = ranked[0][0]
            scores.append(ranked[0][1])
            for canon, sc in ranked[1:]:
                if ranked[0][1] - sc < self.margin and ranked[0][1] < 100:
                    alternatives.append({**slots, slot: canon})
        name_score = min(scores) if scores else 100.0
        return slots, name_score, alternatives


def _literal_numbers(text: str, order: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """A carrier as the input will look: number words of the template ("two hundred",
    "one") become ``#`` like the input's numbers do, each with a literal pseudo-slot placed
    among the real slots in reading order (so the input's numbers fill them left to right)."""
    tokens = words_to_tokens(text.split())
    if all(value is None for _w, value in tokens):
        return text, order
    slots = iter(order)
    out: list[str] = []
    for word, value in tokens:
        if value is not None:
            out.append(literal_number_slot(value))
        elif word in (PLACEHOLDER, STREET, PLAYER):
            out.append(next(slots))
    out.extend(slots)
    return " ".join(w for w, _v in tokens), tuple(out)


def _combine(carrier_score: float, name_score: float, text: str) -> float:
    """One score for a reading: the carrier's, pulled down by a poorly matched name."""
    if name_score >= 100:
        return carrier_score
    return min(carrier_score, 100 - (100 - name_score) * 0.8)
