"""Decide what was heard: accept, confirm or reject (pure; no audio, no ledger).

Combines the recogniser's confidence, the matcher's score and margin, whether the command is
legal right now, and its risk (``risk:`` in ``grammars/commands.yaml``: harmless, low, money).
Typed text (no recogniser confidence) is accepted whenever it matched one command; speech
that would move money is never executed on an uncertain hearing: it is confirmed first
("Did you say buy Baltic Avenue?"), and speech that fits no command well is ignored.

The thresholds were tuned on the ``banker bench`` dev set (piper and espeak-ng voices, clean
and with babble/pink noise): ``ACCEPT_MONEY`` keeps misbanked commands (a wrong money command
acted on without a question) under 0.5 %, ``CONFIRM_FLOOR`` keeps accepted table chatter low
while a misheard command still gets its "did you say…?".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from banker.nlu.matcher import Ambiguous, Match, NotRecognized, Recognized

Decision = Literal["accept", "confirm", "reject"]


@dataclass(frozen=True)
class Hearing:
    decision: Decision
    intent: str  # "none" when rejected
    slots: Mapping[str, Any] = field(default_factory=dict)
    confidence: float = 0.0  # 0-1
    candidates: tuple[Recognized, ...] = ()  # an ambiguous name: ask which
    choose: bool = False  # two close readings of speech: ask between them ("X or Y?")
    # (refusal code, the name heard): said before the question that replaced a reading
    # naming nobody at the table (``counterparts``)
    instead: tuple[str, str] | None = None


class Utterance(Protocol):
    """What a recogniser heard (``speech.base.Heard`` is one)."""

    @property
    def text(self) -> str: ...
    @property
    def confidence(self) -> float | None: ...  # None: typed


@dataclass(frozen=True)
class Said:
    """An utterance from its words and confidence (None: typed text)."""

    text: str
    confidence: float | None
    alternatives: tuple[tuple[str, float], ...] = ()  # other readings (n-best), best first


Legal = Callable[[str, Mapping[str, Any]], bool]

# Thresholds on the combined confidence (0-1).
ACCEPT_MONEY = 0.85  # act at once on a money command
ACCEPT_LOW = 0.75  # act at once on a low-risk command (go to jail, undo, a guess)
# answer a query (harmless) at once: it moves nothing, so a wrong answer costs one sentence
# and a "sorry?" a whole turn. 0.70 -> 0.60 on a dev set of its own seed (11; 500 commands,
# 100 chatter lines): clean +9 of 500 commands acted on at once, chatter acted on 1 of 100
# clean and 0 of 100 in 10 dB babble either way, no wrong money command
ACCEPT_SAFE = 0.60
CONFIRM_FLOOR = 0.30  # below this the utterance is ignored ("sorry?")
ILLEGAL_FACTOR = 0.85  # a command the rules would refuse now: be surer before acting on it
# ... but acting on it is refusing it with its reason (nothing moves), so a money command the
# rules would refuse needs a low-risk command's certainty, not a money command's: "I'm
# bankrupt" heard clearly with cash in hand is answered "you still have M1,500" at once, not
# "Did you say I'm bankrupt?" and then that. A misheard one costs the same as before: the
# refusal names what was heard, and the player says it again
ILLEGAL_RISK = "low"
CLOSE_MARGIN = 8.0  # matcher points: a runner-up this close makes the reading less sure
CLOSE_FACTOR = 0.9

# a money command heard without the slot it needs ("buy" alone, the two-step form): acting on
# it is asking for the rest ("Which property?"), and that answer is judged as the whole money
# command, so a query's certainty is enough; below it, "Did you say buy?" as before (a clean
# piper "buy" heard at 0.74 was asked "did you say buy?", then its street answered
# that question instead of the one it was meant for)
OPENS = "opens"
THRESHOLDS = {"money": ACCEPT_MONEY, "low": ACCEPT_LOW, "harmless": ACCEPT_SAFE,
              OPENS: ACCEPT_SAFE}


def lacks_slot(slots: Mapping[str, Any], required: Sequence[str]) -> bool:
    """Whether a command heard with ``slots`` misses one it ``required``: the first step of
    the two-step form ("buy" alone), which only asks for the rest."""
    return any(slots.get(s) is None for s in required)


def judge(match: Match, asr_confidence: float | None, risk_of: Callable[[str], str],
          legal: Legal, requires: Callable[[str], Sequence[str]] | None = None) -> Hearing:
    """One decision for one utterance. ``asr_confidence`` None means typed text.

    ``requires`` names the slots a command needs: a money command heard without them is the
    first step of the two-step form ("buy" -> beep -> "Baltic Avenue"); nothing moves until
    the rest is heard, so it only needs the certainty of a query (``OPENS``).
    """
    if requires is not None:
        base_risk = risk_of

        def risk_of(intent: str, _m: Match = match) -> str:
            r = base_risk(intent)
            slots = _m.slots if isinstance(_m, Recognized) else {"": 1}
            if r == "money" and lacks_slot(slots, requires(intent)):
                return OPENS
            return r

    if isinstance(match, NotRecognized):
        return Hearing("reject", "none")
    if isinstance(match, Ambiguous):
        legal_cands = [c for c in match.candidates if legal(c.intent, c.slots)]
        if len(legal_cands) == 1:
            return _decide(legal_cands[0], asr_confidence, risk_of, legal, margin=100.0)
        cands = tuple(legal_cands or match.candidates)
        conf = max(c.score for c in cands) / 100
        if asr_confidence is not None:
            conf *= asr_confidence
            if conf < CONFIRM_FLOOR:
                return Hearing("reject", "none", confidence=conf)
        return Hearing("confirm", cands[0].intent, cands[0].slots, conf, cands)
    return _decide(match, asr_confidence, risk_of, legal, margin=match.margin)


def _decide(rec: Recognized, asr_confidence: float | None, risk_of: Callable[[str], str],
            legal: Legal, margin: float) -> Hearing:
    text_conf = rec.score / 100
    if asr_confidence is None:  # typed: one command matched -> do it (the rules may refuse)
        return Hearing("accept", rec.intent, rec.slots, text_conf)
    conf = text_conf * asr_confidence
    if margin < CLOSE_MARGIN:
        conf *= CLOSE_FACTOR
    risk = risk_of(rec.intent)
    if not legal(rec.intent, rec.slots):
        conf *= ILLEGAL_FACTOR
        if risk == "money":
            risk = ILLEGAL_RISK
    if conf < CONFIRM_FLOOR:
        return Hearing("reject", "none", confidence=conf)
    if conf >= THRESHOLDS.get(risk, ACCEPT_MONEY):
        return Hearing("accept", rec.intent, rec.slots, conf)
    if risk == "harmless":  # "did you say repeat?" helps nobody: say "sorry?" instead
        return Hearing("reject", "none", confidence=conf)
    return Hearing("confirm", rec.intent, rec.slots, conf)


# Commands that sound alike and undo each other: a syllable apart ("unmortgage" is "mortgage"
# with an unstressed "un" before it, which pocketsphinx drops: "unmortgage Park Place" heard
# "mortgage Park Place" at 0.83 in three voices of four). Heard spoken, either is asked about,
# never done at once; and when the rules would refuse the one heard but take its twin, the
# twin is the one asked about (Park Place is mortgaged: "mortgage" can only be "unmortgage").
TWINS = {"mortgage": "unmortgage", "unmortgage": "mortgage"}


# Commands rare at a table whose wrong act is costly and hard to undo: a newcomer is paid the
# starting money, a player leaving hands their streets back, "I'm bankrupt" gives everything
# away, the end stops the game. Each comes once or twice a game, while talk about joining,
# leaving, losing and ending ("the dog is winning" heard "the dog is joining", "the cat jumped
# on the table" heard "the cat joins the game" by both ears) comes all the time; so when the
# rules would take one, a spoken reading of it is asked about, never done at once, however
# sure the ears: on a rare command the ears' certainty says less than the game's odds, and a
# question costs one "yes" once a game. One the rules would refuse is refused as before
# (refusing moves nothing). Not learned from the corpus: it samples every command alike, so it
# cannot show how rare these are at a table; the rule is in the meaning, like ``TWINS``.
RARE = frozenset({"add_player", "remove_player", "bankrupt", "end_game"})


def stake(intent: str, risk: str, legal: bool) -> str:
    """What acting on a reading risks: its ``risk``, "rare" for a ``RARE`` command the rules
    would take, and "low" for a money command they would refuse (refusing moves nothing)."""
    if not legal and risk in ("money", "rare"):
        return ILLEGAL_RISK
    return "rare" if intent in RARE else risk


def rare_checked(h: Hearing, legal: Legal) -> Hearing:
    """``h`` (spoken) asked about instead of acted on when it is a ``RARE`` command the rules
    would take now."""
    if h.decision != "accept" or h.intent not in RARE or not legal(h.intent, h.slots):
        return h
    return Hearing("confirm", h.intent, h.slots, min(h.confidence, ACCEPT_MONEY - 0.01),
                   h.candidates, h.choose, h.instead)


def twin_checked(h: Hearing, legal: Legal) -> Hearing:
    """``h`` (spoken) asked about instead of acted on when its command has a sound-alike twin
    (``TWINS``): the twin when only the twin is legal now."""
    twin = TWINS.get(h.intent)
    if twin is None or h.decision == "reject" or h.choose:
        return h
    conf = min(h.confidence, ACCEPT_MONEY - 0.01)
    if not legal(h.intent, h.slots) and legal(twin, h.slots):
        return Hearing("confirm", twin, h.slots, conf)
    return Hearing("confirm", h.intent, h.slots, conf)
