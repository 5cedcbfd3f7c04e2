"""Decide what was heard: accept, confirm or reject (pure; no audio, no ledger).

Combines the recogniser's confidence, the matcher's score and margin, whether the command is
legal right now, and its risk. Typed text (no recogniser confidence) is accepted whenever it
matched one command; speech that would move money is never executed on an uncertain hearing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from banker.nlu.matcher import Ambiguous, Match, NotRecognized, Recognized

Decision = Literal["accept", "confirm", "reject"]


@dataclass(frozen=True)
class Hearing:
    decision: Decision
    intent: str  # "none" when rejected
    slots: Mapping[str, Any] = field(default_factory=dict)
    confidence: float = 0.0  # 0-1
    candidates: tuple[Recognized, ...] = ()  # an ambiguous name: ask which


Legal = Callable[[str, Mapping[str, Any]], bool]

# Thresholds (0-1 scale). Tuned on the bench's dev set; see README "Speech".
ACCEPT_MONEY = 0.80
ACCEPT_SAFE = 0.60
CONFIRM_FLOOR = 0.45


def judge(match: Match, asr_confidence: float | None, risk_of: Callable[[str], str],
          legal: Legal) -> Hearing:
    """One decision for one utterance. ``asr_confidence`` None means typed text."""
    if isinstance(match, NotRecognized):
        return Hearing("reject", "none")
    if isinstance(match, Ambiguous):
        legal_cands = [c for c in match.candidates if legal(c.intent, c.slots)]
        if len(legal_cands) == 1:
            best = legal_cands[0]
            return _decide(best, asr_confidence, risk_of, legal, margin=100.0)
        cands = tuple(legal_cands or match.candidates)
        conf = max(c.score for c in cands) / 100
        if asr_confidence is not None and conf * asr_confidence < CONFIRM_FLOOR:
            return Hearing("reject", "none")
        return Hearing("confirm", cands[0].intent, cands[0].slots, conf, cands)
    return _decide(match, asr_confidence, risk_of, legal, margin=match.margin)


def _decide(rec: Recognized, asr_confidence: float | None, risk_of: Callable[[str], str],
            legal: Legal, margin: float) -> Hearing:
    text_conf = rec.score / 100
    if asr_confidence is None:  # typed: one command matched -> do it (the rules may refuse)
        return Hearing("accept", rec.intent, rec.slots, text_conf)
    conf = text_conf * asr_confidence
    if margin < 8:
        conf *= 0.9
    risk = risk_of(rec.intent)
    if not legal(rec.intent, rec.slots):
        conf *= 0.85  # still heard: the rules will say why, but be surer before acting
    if conf < CONFIRM_FLOOR:
        return Hearing("reject", "none", confidence=conf)
    threshold = ACCEPT_MONEY if risk == "money" else ACCEPT_SAFE
    if conf >= threshold:
        return Hearing("accept", rec.intent, rec.slots, conf)
    return Hearing("confirm", rec.intent, rec.slots, conf)
