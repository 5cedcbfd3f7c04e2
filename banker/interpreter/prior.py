"""What the game makes likely: weigh a recogniser's readings with the game (pure).

A recogniser may hand over more than its best reading (``Heard.alternatives``, n-best), and a
player who was told "Sorry, say that again?" says it again. Each reading is matched to a
command and weighed: its acoustic confidence (the engine's), times a modest weight for what the
rules would accept now (``legal``: who pressed, who owns what, the auction or question open).

The weight is a prior, never a filter, and it never acts by itself:
- the best acoustic reading is what the banker acts on or confirms, legal or not ("buy
  Boardwalk" when Boardwalk is owned stays "buy Boardwalk" and is refused with its reason);
- when another command is close to it (``CLOSE``), either is above the floor below which
  speech is ignored, and the two differ only by names, the banker asks between them
  ("Boardwalk or Park Place?"); the weight only decides which is named first (two readings
  that differ in an amount or the command are read back whole: the choice says only names);
- the try before "Sorry?" counts as evidence for the same command heard again (``EARLIER``;
  heard on both tries, it is at least asked about: ``REPEATED``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from banker.interpreter.hearing import CONFIRM_FLOOR, Hearing, Legal
from banker.nlu.matcher import Match, Recognized

CLOSE = 0.6  # another command with this share of the best one's confidence is close
ILLEGAL_WEIGHT = 0.7  # the prior of a command the rules would refuse now (legal: 1)
EARLIER = 0.5  # how much the try before "Sorry?" counts beside the new one
SEEN_FLOOR = 0.10  # readings weaker than this are not remembered nor asked about (0.15 left
# a clear "I'll buy Baltic Avenue" heard right at 0.13 and 0.15 at "Sorry?" three times)
# the same command on both tries is at least this sure: asked about ("Did you say…?"), a
# query answered, never a money command acted on at once (ACCEPT_MONEY is 0.85). In babble
# pocketsphinx often hears the command right twice at 0.15-0.3, which the formula alone
# left below the floor: "Sorry?" three, four times for "who owns Mediterranean Avenue".
# Simulated table (3 games x 18 commands a condition): clean extra turns a command 0.78 ->
# 0.67, pink 10 dB completed 16 -> 17 of 18 and 0.56 -> 0.39; babble unchanged (5 of 18:
# there the "yes" that answers is what goes unheard); no wrong money command added
REPEATED = 0.69

Key = tuple[str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Reading:
    """One command some reading of the audio matched, with its evidence."""

    match: Recognized
    confidence: float  # acoustic (engine) confidence x the matcher's score, 0-1
    legal: bool

    @property
    def key(self) -> Key:
        return self.match.intent, tuple(sorted((k, str(v)) for k, v in self.match.slots.items()))

    @property
    def weight(self) -> float:
        return self.confidence * (1.0 if self.legal else ILLEGAL_WEIGHT)


def readings(texts: Iterable[tuple[str, float]], match: Callable[[str], Match], legal: Legal
             ) -> tuple[Reading, ...]:
    """The commands the texts match (one reading per command: its best evidence), best
    acoustic first. Texts that match no single command are left out."""
    best: dict[Key, Reading] = {}
    for text, conf in texts:
        m = match(text)
        if not isinstance(m, Recognized):
            continue
        r = Reading(m, conf * m.score / 100, legal(m.intent, m.slots))
        if r.key not in best or r.confidence > best[r.key].confidence:
            best[r.key] = r
    return tuple(sorted(best.values(), key=lambda r: -r.confidence))


def combine(earlier: Sequence[Reading], now: Sequence[Reading]) -> tuple[Reading, ...]:
    """Both tries as evidence: a command heard in both gets 1 - (1-c_now)(1-EARLIER*c_before)
    (the earlier try counts for less: the same voice tends to repeat the same confusion), and
    at least ``REPEATED`` when both tries were worth remembering. A command heard only before
    keeps EARLIER of its confidence."""
    before = {r.key: r for r in earlier}
    out = []
    for r in now:
        b = before.pop(r.key, None)
        c = r.confidence if b is None else 1 - (1 - r.confidence) * (1 - EARLIER * b.confidence)
        if b is not None and min(r.confidence, b.confidence) >= SEEN_FLOOR:
            c = max(c, REPEATED)
        out.append(replace(r, confidence=c))
    out += [replace(b, confidence=EARLIER * b.confidence) for b in before.values()]
    return tuple(sorted(out, key=lambda r: -r.confidence))


def close_pair(rs: Sequence[Reading]) -> tuple[Reading, Reading] | None:
    """The two readings to ask between when the runner-up is close to the best, heaviest
    (by the prior) first; None when one stands out."""
    if len(rs) < 2 or rs[1].confidence < CLOSE * rs[0].confidence:
        return None
    a, b = rs[0], rs[1]
    return (b, a) if b.weight > a.weight else (a, b)


def weigh(top: Hearing, rs: Sequence[Reading], judge_one: Callable[[Recognized, float], Hearing],
          names: Callable[[Sequence[Mapping[str, Any]]], list[str]]) -> Hearing:
    """The hearing with the readings' evidence. ``top`` is the best reading judged alone (an
    accept stays: a clear acoustic winner always wins). ``judge_one`` judges one command at a
    combined confidence; ``names`` tells whether two commands differ by a name to ask about."""
    if top.decision == "accept" or not rs:
        return top
    pair = close_pair(rs)
    if (pair is not None and max(r.confidence for r in pair) >= CONFIRM_FLOOR
            and names([pair[0].match.slots, pair[1].match.slots]) and _by_names(*pair)):
        a = pair[0]
        cands = tuple(Recognized(r.match.intent, r.match.slots, 100 * r.confidence, 0.0,
                                 r.match.text) for r in pair)
        return Hearing("confirm", a.match.intent, a.match.slots, a.confidence, cands, choose=True)
    best = rs[0]
    if top.decision == "reject" or (best.match.intent, best.match.slots) == (top.intent, top.slots):
        judged = judge_one(best.match, min(1.0, best.confidence / max(best.match.score / 100, 1e-9)))
        if judged.decision != "reject" or top.decision == "reject":
            return judged
    return top


def _by_names(a: Reading, b: Reading) -> bool:
    """The same command but for names: the choice question says only the names ("Cat or
    Hat?"), so an amount that differed too would move unread."""
    sa, sb = a.match.slots, b.match.slots
    return a.match.intent == b.match.intent and sa.keys() == sb.keys() and all(
        sa[k] == sb[k] for k in sa if not isinstance(sa[k], str) or not isinstance(sb[k], str))


def remembered(rs: Sequence[Reading]) -> tuple[Reading, ...]:
    """What is kept of a try that got "Sorry?" (the readings worth counting next time)."""
    return tuple(r for r in rs if r.confidence >= SEEN_FLOOR)[:4]
