"""Two ears: pocketsphinx first, Moonshine as a second opinion on what it is unsure of.

Receives 16 kHz mono int16 audio and a focus; returns the first ear's ``Heard``, its
confidence raised when both ears mean the same command (act at once instead of "Did you
say…?"), doubled in doubt when Moonshine wrote down table talk in a quiet room (or steady
noise), or Moonshine's reading, doubted, when the first ear heard nothing at all or it is
the likelier one. The rules' values, and the pure functions that weigh two readings by
them, are ``ear_rules``; Moonshine itself (model, snap onto the grammar) is
``moonshine_asr``; the settings that build this are ``asr.second_ear``
(``engine.make_engine``). Measurements: docs/decisions.md
("A second ear", "The second ear by default").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from banker.speech import ear_rules as rules
from banker.speech import speaker_norm
from banker.speech.base import RATE, Heard, Pcm, Recognizer
from banker.speech.grammar import FOCUS_INTENTS
from banker.speech.meanings import (
    Meaning,
    a_unit_more,
    by_a_name,
    by_an_amount,
    has_amount,
    intent_of,
    kin,
    matcher_meaning,
)
from banker.speech.moonshine_asr import (
    BackgroundModel,
    MoonshineError,
    MoonshineRecognizer,
)

# Moonshine's threads at the table (``live``); offline (bench workers, two to a 2-core
# machine) one each
LIVE_THREADS = 2


class SecondEar:
    """Pocketsphinx first; Moonshine only when the first ear is unsure.

    ``unsure`` is the band of first-ear confidence that gets a second opinion: below it
    there is nothing worth rescuing, above it the banker acts anyway (the defaults sit around
    the hearing policy's confirm floor and money threshold). When both ears mean the same
    command the confidence becomes at least ``agreed``. When they differ, the first ear's
    words and doubt stay, unless ``swap_below`` is set and Moonshine's words needed at most
    that snap distance: then its reading is the one asked about (confidence at most
    ``DOUBTED``, so never acted on at once on money), when the first ear's confidence is below
    ``swap_under``; below the band, when Moonshine's words needed no snap at all and
    ``word_for_word`` is set. When the first ear heard nothing at all and
    ``empty_below`` is set, Moonshine's reading is taken, doubted, when its snap moved its
    words at most that far (a short command in a voice far from the first ear's model is
    often taken for a string of phones). With ``veto``, a disagreement where Moonshine wrote
    down several words that make no command, in a quiet room (or one whose steady noise the
    first ear's filter took out), doubles the doubt of an unsure first reading (table talk
    forced onto a command), unless those words are near a reading the first ear was fairly
    sure of (``unclear``). With ``word_for_word``, a first reading below the band is asked
    about (``DOUBTED``) when Moonshine wrote down the same command word for word, and one
    whose amount is a unit word longer than Moonshine's "-ty" (``a_unit_more``) gives way to
    Moonshine's, asked about; with
    ``loose`` too when its snap moved its words onto the same command; left as it was
    otherwise. With ``rescue`` (under, within), a first
    reading below ``under`` (too unsure to be asked about, or a command never asked about in
    its focus: ``rules.never_asked``) gives way to a different command Moonshine's snap moved
    at most ``within``, asked about. A swap needs a Moonshine reading
    of ``SWAP_WORDS`` words or more. With ``loose``, the same command from both ears, Moonshine's
    snap beyond ``AGREE_WITHIN``, makes the confidence at least ``loose`` (in the band). With
    ``offer``, a different command Moonshine's snap moved at most ``OFFER_WITHIN`` that no
    rule above took is one more reading (``Heard.alternatives``) at that confidence: the
    interpreter's prior asks about it where it would say "Sorry?" to the first reading. With
    ``named``, a first reading below ``RESCUE_UNDER`` that Moonshine's reading (its snap at most
    ``NAMED_WITHIN``) matches but for a name is asked between the two at that confidence.
    """

    def __init__(self, first: Recognizer, second: Recognizer, meaning: Meaning | None = None,
                 unsure: tuple[float, float] = rules.BAND, agreed: float = 0.97,
                 swap_below: float | None = None, empty_below: float | None = None,
                 veto: bool = False, word_for_word: bool = False,
                 swap_under: float = 1.0, rescue: tuple[float, float] | None = None,
                 loose: float | None = None, offer: float | None = None,
                 named: float | None = None) -> None:
        self.first, self.second, self.loose, self.offer = first, second, loose, offer
        self.named = named
        self.swap_under, self.rescue = swap_under, rescue
        self.meaning: Meaning = meaning or (lambda t: t)
        self.unsure, self.agreed, self.swap_below = unsure, agreed, swap_below
        self.empty_below, self.veto, self.word_for_word = empty_below, veto, word_for_word
        self.engine = f"{first.engine}+{second.engine}"

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        # the speaker's values are the first's; the audio as heard, for the room's judgement
        # and for the second ear, which hears unfiltered speech better (dev set, 50 commands
        # at 10 dB babble: 24 right as heard, 11 through the noise filter; pink 34 and 34)
        heard = self.first.recognize(pcm, focus, speaker, raw)
        heard_as = pcm if raw is None else raw
        lo, hi = self.unsure
        if not heard.text and self.empty_below is not None and len(pcm) >= RATE // 4:
            return self._instead_of_nothing(heard, heard_as, focus)
        meaning = lru_cache(maxsize=8)(self.meaning)  # a reading matched once (a few ms each)
        if rules.checks_amount(heard, lambda: has_amount(meaning(heard.text))):
            return self._amount_checked(heard, heard_as, focus, meaning)
        deep = ((self.word_for_word or self.rescue is not None) and bool(heard.text)
                and heard.confidence < lo)
        if not heard.text or not (lo <= heard.confidence < hi or deep):
            return heard
        other = self.second.recognize(heard_as, focus)
        near = other.details.get("snap_distance", 1.0)
        same = bool(other.text) and meaning(other.text) == meaning(heard.text)
        if not same and rules.disowned(other):  # its words as talk, not that command
            other = replace(other, text="", confidence=0.0)
        agree = same and near <= rules.AGREE_WITHIN
        details = {**heard.details, "second_ear_agrees": float(agree),
                   "second_ear_confidence": other.confidence,
                   "second_ear_seconds": other.seconds}
        text, words, conf = heard.text, heard.words, heard.confidence
        lift = self.named is not None and conf < rules.RESCUE_UNDER  # too unsure to ask about alone
        alternatives = heard.alternatives
        # a loose agreement of two words or more is as good as a word-for-word reading
        loose = None if self.loose is None else rules.twice(0.0, other.text, self.loose)
        clear = Room(pcm, raw)
        if same and deep:  # below the band: asked about, done at once only word for word
            if near == 0.0 and self.word_for_word:
                conf = rules.twice(near, other.text, rules.DOUBTED, clear)
                details["second_ear_word_for_word"] = 1.0
            elif self.loose is not None:  # two ears heard it, however unsure: not "Sorry?"
                conf = rules.DOUBTED
                details["second_ear_loosely_agrees"] = 1.0
        elif (not deep and bool(other.text) and (raised := rules.agreed_confidence(
                conf, same, near, rules.agreed_by(heard, other, self.agreed, clear), loose)) is not None):
            conf = raised
            if not agree:
                details["second_ear_loosely_agrees"] = 1.0
        elif self.veto and self._vetoed(heard, other, clear, meaning):
            conf *= rules.VETO_FACTOR
            details["second_ear_vetoed"] = 1.0
        elif self._takes_second(focus, heard, other, near, deep, meaning):
            by_name = by_a_name(meaning(other.text), meaning(heard.text))
            if by_name:
                alternatives = ((heard.text, rules.DOUBTED), *alternatives)  # "cat or hat?"
            text, words = other.text, other.words
            conf = rules.DOUBTED if by_name else rules.twice(near, other.text, rules.DOUBTED, clear)
            details["second_ear_swapped"] = 1.0
        elif (self.word_for_word and not deep and near <= rules.TAIL_WITHIN
              and a_unit_more(meaning(heard.text), meaning(other.text))):
            text, words, conf = other.text, other.words, min(conf, rules.DOUBTED)  # "sixty eight"
            details["second_ear_unit_less"] = 1.0
        elif rules.CHECK_AMOUNTS and not deep and _another_amount(heard, other, meaning):
            conf = min(conf, rules.DOUBTED)  # another amount, near: asked about, not paid
            details["second_ear_other_amount"] = 1.0
        elif (other.text and (near <= rules.AGREE_WITHIN or (lift and near <= rules.NAMED_WITHIN))
              and by_a_name(meaning(heard.text), meaning(other.text))):
            # the same command but for a name: one more reading for the interpreter, which
            # asks between the two ("the cat or the hat?"); a first reading too unsure to be
            # asked about is asked between the two all the same: two ears heard the command
            if self.named is not None and lift:
                conf = self.named
                details["second_ear_by_a_name"] = 1.0
            alternatives = ((other.text, conf), *alternatives)
        elif (self.offer is not None and other.text and near <= rules.OFFER_WITHIN
              and (len(other.text.split()) >= rules.SWAP_WORDS or near == 0.0)):
            # a different command, nearly word for word: a reading for the interpreter, which
            # asks about it only when it would have refused to hear the first one ("Sorry?")
            alternatives = (*alternatives, (other.text, self.offer))
            details["second_ear_offered"] = 1.0
        return Heard(text, conf, words, self.engine, focus, heard.seconds + other.seconds,
                     details, alternatives)

    def _vetoed(self, heard: Heard, other: Heard, clear: Room,
                meaning: Callable[[str], Hashable]) -> bool:
        """Table talk Moonshine wrote down (``_chatter``), not the first reading said
        unclearly: neither like its words (``rules.unclear``) nor, held to the grammar, those
        words as its likeliest command (``rules.held_to``). The cheap checks first: measuring
        the words against the first reading snaps."""
        return (self._chatter(heard, other, clear) and not rules.held_to(heard, other)
                and not rules.unclear(heard, other, bool(other.text)
                                      and kin(meaning(heard.text), meaning(other.text))))

    def _takes_second(self, focus: str, heard: Heard, other: Heard, near: float, deep: bool,
                      meaning: Meaning) -> bool:
        """Whether Moonshine's different reading is the one asked about (``rules.takes_second``;
        a first reading never asked about in ``focus`` counts as below every floor, when
        Moonshine's could be asked about), or is the answer the open question asks for
        (``_answers``: "no")."""
        never = (rules.never_asked(focus, intent_of(meaning(heard.text)))
                 and not rules.never_asked(focus, intent_of(meaning(other.text))))
        return (rules.takes_second(0.0 if never else heard.confidence, near,
                                   len(other.text.split()), deep, self.swap_below,
                                   self.swap_under, self.rescue, self.word_for_word)
                or self._answers(focus, heard, other, near, deep, meaning))

    def _answers(self, focus: str, heard: Heard, other: Heard, near: float, deep: bool,
                 meaning: Meaning) -> bool:
        """Moonshine wrote down, word for word, an answer the open question asks for, the
        first ear something else it was unsure of (``rules.an_answer``): a swap of one word
        (below the band, a rescue's rule is the one)."""
        if (deep or focus not in FOCUS_INTENTS or self.swap_below is None or not other.text
                or heard.confidence >= self.swap_under):
            return False
        return rules.an_answer(FOCUS_INTENTS[focus][0], intent_of(meaning(heard.text)),
                               intent_of(meaning(other.text)), near)

    @staticmethod
    def _chatter(heard: Heard, other: Heard, quiet: Room) -> bool:
        """Moonshine heard several words and no command, in a ``quiet`` room or steady
        noise."""
        return rules.vetoes(heard.confidence, other.text, other.details.get("free_words", 0.0),
                            other.details.get("snap_distance", 1.0),
                            lambda: rules.steady(heard.details.get("filtered_db", 0.0)) or quiet())

    def prepare(self, focus: str) -> None:
        """Compile both ears' searches for ``focus`` now (the recogniser's process warms its
        foci this way while nobody is waiting)."""
        for ear in (self.first, self.second):
            prepare = getattr(ear, "prepare", None)
            if callable(prepare):
                prepare(focus)

    def _amount_checked(self, heard: Heard, pcm: Pcm, focus: str, meaning: Meaning) -> Heard:
        """A sure reading that moves an amount, in a noisy room (``rules.checks_amount``):
        asked about (``DOUBTED``) when Moonshine's near reading is the same command with
        another amount; otherwise as it was."""
        other = self.second.recognize(pcm, focus)
        details = {**heard.details, "second_ear_seconds": other.seconds,
                   "second_ear_confidence": other.confidence}
        conf = heard.confidence
        if _another_amount(heard, other, meaning):
            conf = min(conf, rules.DOUBTED)
            details["second_ear_other_amount"] = 1.0
        return replace(heard, confidence=conf, engine=self.engine, details=details,
                       seconds=heard.seconds + other.seconds)

    def _instead_of_nothing(self, heard: Heard, pcm: Pcm, focus: str) -> Heard:
        other = self.second.recognize(pcm, focus)
        details = {**heard.details, "second_ear_seconds": other.seconds,
                   "second_ear_confidence": other.confidence}
        seconds = heard.seconds + other.seconds
        near = other.details.get("snap_distance", 1.0)
        words = len(other.text.split())
        if (not other.text or self.empty_below is None or rules.disowned(other)
                or near > rules.nothing_within(self.empty_below, self.rescue, words)):
            return Heard("", 0.0, (), heard.engine, focus, seconds, details)
        details["second_ear_alone"] = 1.0
        conf = rules.twice(near, other.text, rules.DOUBTED, Room(pcm, None))
        return Heard(other.text, conf, other.words, self.engine, focus, seconds, details)


def _another_amount(heard: Heard, other: Heard, meaning: Meaning) -> bool:
    """Moonshine's reading, snapped at most ``AGREE_WITHIN``, is the first reading's command
    with another amount (``rules.CHECK_AMOUNTS``: asked about, not paid)."""
    return (bool(other.text) and other.details.get("snap_distance", 1.0) <= rules.AGREE_WITHIN
            and by_an_amount(meaning(heard.text), meaning(other.text)))


class Room:
    """Whether the speech stood clear of a quiet room (``speaker_norm.quiet``), judged once
    and only when a rule asks: the audio as heard (``raw``) when the filter has had it."""

    def __init__(self, pcm: Pcm, raw: Pcm | None) -> None:
        self.pcm, self.raw = pcm, raw
        self._quiet: bool | None = None

    def __call__(self) -> bool:
        if self._quiet is None:
            self._quiet = speaker_norm.quiet(np.asarray(self.pcm, dtype=np.int16), self.raw)
        return self._quiet


def with_second_ear(first: Recognizer, grammar: Any, asr: Any,
                    notify: Callable[[str], None], meaning: Meaning | None = None,
                    live: bool = False) -> Recognizer:
    """``first`` behind a Moonshine second opinion when ``asr.second_ear`` is ``moonshine``
    (what ``engine.make_engine`` would call), its model loading in the background (``live``:
    not waited for); without the package, one sentence and ``first`` alone. At the table its
    decoder runs on two threads when there are two cores: the first ear is done by then, and
    the grammar-held search's eight hypotheses a step take about half the time (43 -> 23 ms a
    step); one ear's numbers are the same on any number of threads (checked bit for bit)."""
    if str((asr or {}).get("second_ear") or "none") != "moonshine":
        return first
    try:
        wait = not live or bool((asr or {}).get("second_ear_wait"))
        threads = LIVE_THREADS if live and (os.cpu_count() or 1) >= LIVE_THREADS else 1
        second = MoonshineRecognizer(grammar, model=BackgroundModel(notify, threads, wait=wait))
    except MoonshineError as exc:
        notify(f"{exc} Listening with {first.engine} alone.")
        return first
    return second_ear_over(first, second, meaning or matcher_meaning(grammar))


def second_ear_over(first: Recognizer, second: Recognizer, meaning: Meaning) -> SecondEar:
    """``first`` and ``second`` as ``play`` hears with both (every rule on, ``ear_rules``'
    values as they are now: ``tools.ear_records`` replays saved readings through it)."""
    return SecondEar(first, second, meaning, empty_below=rules.EMPTY_BELOW, veto=True,
                     word_for_word=True, swap_below=rules.SWAP_WITHIN,
                     swap_under=rules.SWAP_UNDER, rescue=(rules.RESCUE_UNDER, rules.RESCUE_WITHIN),
                     loose=rules.LOOSE_AGREED, offer=rules.OFFER, named=rules.NAMED)
