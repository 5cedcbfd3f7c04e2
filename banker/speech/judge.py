"""One fitted, calibrated hearing model: how likely a reading is right, and what to do with it.

Pure: no audio, no models loaded. It is handed what both ears said about an utterance
(pocketsphinx's reading with its confidence and phone-loop scores; Moonshine's snapped
reading, its snap distance and free words; whether the first ear's noise filter ran) and,
for each command a reading means, what the game says (its risk, whether the rules would take
it now, how well the matcher fitted the words). ``features`` turns that into numbers, a
logistic model (``hearing_model.json``, fitted by ``banker.tools.hearing_fit`` on the voice
corpus, ``banker.tools.corpus``) gives the probability the reading is right, and ``decide``
picks act / ask / "Sorry?" by the expected cost of each (``COSTS``, the one table of what a
wrong act costs against a question answered).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

MODEL_PATH = Path(__file__).with_name("hearing_model.json")

# What each outcome costs, in "questions answered" (a "Did you say…?" the player answers).
# A wrong act on money is what a family never forgives: it costs as much as fifty questions;
# a wrong low-risk act (go to jail, undo) eight; a wrong answer to a query three (a sentence
# said over the table's talk, for nothing); a money command without its slot one and a half
# (it only asks "Which street?"). "Sorry?" to a right reading loses the turn (said again: two
# questions' worth); "Sorry?" after talk costs a little (half). Asking about a wrong reading
# costs the "no" and the saying again on top of the question.
# A command rare at a table and costly to undo (a player joining or leaving, "I'm bankrupt",
# the end: ``interpreter.hearing.RARE``) that the rules would take is never done at once on
# speech (infinite): the ears' certainty cannot outweigh how seldom it is said, and asking
# costs one "yes" once a game.
COSTS: dict[str, Any] = {
    "act_wrong": {"money": 50.0, "rare": math.inf, "low": 8.0, "harmless": 3.0, "opens": 1.5},
    "ask": 1.0,
    "ask_wrong": 1.0,
    # "Boardwalk or Park Place?": a longer question than "Did you say…?", worth asking when
    # the second reading is likely enough to pay for the extra words
    "choose": 1.25,
    "sorry_right": 2.0,
    "sorry_talk": 0.5,
}
RISKS = ("money", "rare", "low", "harmless", "opens")
FEATURES = (
    "bias", "first_conf", "first_said", "first_margin", "first_worst", "first_fill",
    "second_said", "second_conf", "second_snap", "second_free_words", "second_held",
    "from_first", "from_second", "both", "match", "match_margin", "legal",
    "risk_money", "risk_low", "risk_opens", "filtered", "filtered_db", "words", "contradicted",
    "alone", "held_agrees", "held_elsewhere", "contradicted_sure",
)
Act = Literal["act", "ask", "choose", "sorry"]
# the first ear's per-frame scores brought to about 0-1 (their spread on the corpus, see
# ``features``): units, not fitted values
MARGIN_SCALE, WORST_SCALE = 10.0, 20.0


@dataclass(frozen=True)
class Ear:
    """One ear's reading as the judge needs it (``speech.base.Heard`` has these)."""

    text: str
    confidence: float
    details: Mapping[str, float]
    # a reading the ear found and did not take: Moonshine's search held to the grammar, when
    # its free words snapped elsewhere or to nothing (``Heard.alternatives``)
    held: str = ""


@dataclass(frozen=True)
class Candidate:
    """A command one or both ears' readings mean, with what the game says about it."""

    intent: str
    slots: tuple[tuple[str, Any], ...]
    from_first: bool
    from_second: bool
    match: float  # the matcher's score, 0-1
    match_margin: float  # points to the runner-up, 0-100
    # what acting on it risks (``interpreter.hearing.stake``): money / rare / low (also a
    # money command the rules would refuse: refusing moves nothing) / harmless / opens (a
    # money command without its slot)
    risk: str
    legal: bool
    words: int
    from_held: bool = False  # the second ear's held reading means it (``Ear.held``)


def _clip(x: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, x))


def features(first: Ear, second: Ear, c: Candidate) -> list[float]:
    """The numbers the model weighs for candidate ``c`` (in ``FEATURES`` order), each scaled
    to about 0-1 so one regularisation fits all."""
    d1, d2 = first.details, second.details
    # words heard, a command or not: Moonshine's free words that snapped to no command, and
    # pocketsphinx's garbage path winning, are talk heard, not silence
    heard1 = bool(first.text) or d1.get("garbage", 0.0) > 0
    heard2 = bool(second.text) or d2.get("free_words", 0.0) > 0
    contradicted = ((c.from_first and not c.from_second and heard2)
                    or (c.from_second and not c.from_first and heard1))
    return [
        1.0,
        first.confidence if first.text else 0.0,
        float(bool(first.text)),
        # pocketsphinx's scores are per speech frame, in thousandths of its log units: the
        # margin to the phone loop runs about -7 to 0 on the corpus, the worst word -17 to -2
        _clip(d1.get("margin", 0.0) / MARGIN_SCALE, -1.5, 1.5) if first.text else 0.0,
        _clip(d1.get("worst", 0.0) / WORST_SCALE, -1.0, 0.0) if first.text else 0.0,
        _clip(d1.get("fill", 0.0), 0.0, 1.0) if first.text else 0.0,
        float(bool(second.text)),
        second.confidence if second.text else 0.0,
        d2.get("snap_distance", 1.0) if second.text else 1.0,
        min(d2.get("free_words", 0.0), 10.0) / 10.0,
        _clip(d2.get("held_score", -10.0), -10.0, 0.0) / 10.0,
        float(c.from_first),
        float(c.from_second),
        float(c.from_first and c.from_second),
        c.match,
        c.match_margin / 100.0,
        float(c.legal),
        float(c.risk in ("money", "rare")),
        float(c.risk == "low"),
        float(c.risk == "opens"),
        float("filtered_db" in d1),
        d1.get("filtered_db", 0.0) / 100.0,
        min(c.words, 12) / 12.0,
        # the other ear heard words that mean something else (another command, or talk)
        float(contradicted),
        # the other ear heard no words at all
        float((c.from_first and not heard2) or (c.from_second and not heard1)),
        # Moonshine's search held to the grammar (run when its free words snapped far or to
        # nothing) found the first ear's command (Moonshine backing its own snapped reading is
        # one ear twice, no news), or another reading (another command, a bare name)
        float(c.from_held and not c.from_second),
        float(bool(second.held) and not c.from_held),
        # how sure the other ear was of the other reading it heard
        (second.confidence if c.from_first else first.confidence) if contradicted else 0.0,
    ]


@dataclass(frozen=True)
class Model:
    """A logistic model over ``FEATURES``: P(reading right) = 1 / (1 + exp(-w·x))."""

    weights: tuple[float, ...]
    names: tuple[str, ...] = FEATURES
    fitted_on: str = ""  # a hash of the features it was fitted on

    def probability(self, x: Sequence[float]) -> float:
        z = sum(w * v for w, v in zip(self.weights, x, strict=True))
        return 1.0 / (1.0 + math.exp(-_clip(z, -30.0, 30.0)))

    @staticmethod
    def load(path: Path = MODEL_PATH) -> Model:
        data = json.loads(path.read_text(encoding="utf-8"))
        names = tuple(data["features"])
        if names != FEATURES:
            raise ValueError(f"{path} was fitted on other features; fit it again")
        return Model(tuple(float(w) for w in data["weights"]), names, str(data.get("fitted_on", "")))

    def save(self, path: Path = MODEL_PATH, about: Mapping[str, Any] | None = None) -> None:
        data = {"features": list(self.names), "weights": [round(w, 6) for w in self.weights],
                "fitted_on": self.fitted_on, **(about or {})}
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def costs_of(p: float, risk: str, costs: Mapping[str, Any] = COSTS) -> dict[Act, float]:
    """The expected cost of each act on a reading right with probability ``p``. A query is
    not asked about ("Did you say repeat?" helps nobody)."""
    wrong = costs["act_wrong"][risk]
    out: dict[Act, float] = {
        "act": (1.0 - p) * wrong if math.isfinite(wrong) else math.inf,
        "sorry": p * costs["sorry_right"] + (1.0 - p) * costs["sorry_talk"],
    }
    if risk != "harmless":
        out["ask"] = costs["ask"] + (1.0 - p) * costs["ask_wrong"]
    return out


class Risky(Protocol):
    @property
    def risk(self) -> str: ...


R = TypeVar("R", bound=Risky)


def decide(scored: Sequence[tuple[R, float]]) -> tuple[Act, R | None, float]:
    """The cheapest act on the likeliest candidate (none: "Sorry?"); "choose": ask between it
    and the runner-up (``runner_up``), when that is cheaper than anything done with one.
    The candidates are readings of one utterance, so at most one is right: the chance that
    one of two is right is the sum of theirs."""
    if not scored:
        return "sorry", None, 0.0
    ranked = sorted(scored, key=lambda cp: -cp[1])
    c, p = ranked[0]
    options = costs_of(p, c.risk)
    if len(ranked) > 1 and "ask" in options:
        either = min(1.0, p + ranked[1][1])
        options["choose"] = COSTS["choose"] + (1.0 - either) * COSTS["ask_wrong"]
    act = min(options, key=lambda a: (options[a], a))
    return act, (None if act == "sorry" else c), p


def runner_up(scored: Sequence[tuple[R, float]]) -> R | None:
    """The second likeliest candidate (the other one of a "choose")."""
    ranked = sorted(scored, key=lambda cp: -cp[1])
    return ranked[1][0] if len(ranked) > 1 else None
