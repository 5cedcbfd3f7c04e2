"""The end of turn by the grammar: the listener, real pocketsphinx and piper clips played in
real time. A whole command ends the turn after a short pause, one that could go on or is not
whole yet waits longer, a pause inside a command does not cut it, and the two-step form
("buy", then the street) still works."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from banker.frontends.voice.listener import Listener, Listening, TurnHeard
from banker.speech.endpoint import RULES, Continuations, wait_ms
from banker.speech.grammar import SpeechGrammar
from banker.speech.latency import ClipMic, TimedOut
from banker.speech.vad import VadSettings
from banker.tools import clips, pauses

SHORT = min(r.silence_ms for r in RULES)


@pytest.fixture(scope="module", autouse=True)
def _warm(recognizer: Any) -> None:
    """As the table's recogniser process does before the first press: each focus's search
    compiled and a first decode made (the first of all is several times slower)."""
    for focus in ("any", "street"):
        recognizer.recognize(clips.speech("pass go"), focus)


def _listen(recognizer: Any, pcm: np.ndarray, focus: str = "any",
            settings: VadSettings | None = None) -> tuple[TurnHeard, ClipMic]:
    """One press: the clip said into a stand-in microphone, heard by the real listener."""
    mic = ClipMic()
    mic.clip = np.concatenate([np.zeros(4000, dtype=np.int16), pcm,
                               np.zeros(48000, dtype=np.int16)])
    got: list[TurnHeard] = []
    done = threading.Event()

    def post(turn: TurnHeard) -> None:
        got.append(turn)
        done.set()
    listener = Listener(lambda: (mic, TimedOut(22050)), None, recognizer, post)
    listener.start(Listening("racecar", "1", False, focus, settings or VadSettings(),
                             time.monotonic()))
    assert done.wait(30), "the turn never ended"
    return got[0], mic


def _silence_before_end(turn: TurnHeard) -> float:
    det = turn.listening.detector
    assert det is not None
    return det.quiet_frames * 30


def test_the_grammar_places_readings() -> None:
    from banker.editions import load_edition

    g = SpeechGrammar(load_edition("voice-banking"))
    anything, street = Continuations(g.fsa("any")), Continuations(g.fsa("street"))
    assert anything.state(["buy", "baltic", "avenue"]) == "final"  # only "please" may follow
    assert anything.state(["what", "is", "my", "balance"]) == "final"
    assert anything.state(["buy"]) == "open"  # the two-step form's first half
    assert anything.state(["pay", "two", "hundred"]) == "open"  # ... fifty
    assert anything.state(["pay", "rent", "on"]) == "incomplete"
    assert anything.state(["avenue", "baltic"]) == "outside"
    # a street said alone is a path of its own (talk, or an answer), complete as it stands
    assert anything.state(["baltic", "avenue"]) == "final"
    assert street.state(["baltic", "avenue"]) == "final"  # the answer to "which street?"
    assert wait_ms("final", 0.9) == SHORT < wait_ms("final", 0.5) <= wait_ms("open", 0.9)
    assert wait_ms("open", 0.9) < wait_ms("outside", 0.0) < wait_ms("incomplete", 0.9) <= 1000


def test_a_whole_command_ends_the_turn_after_a_short_pause(recognizer: Any) -> None:
    turn, _ = _listen(recognizer, clips.speech("what is my balance"))
    assert turn.heard.text == "what is my balance"
    assert turn.utterance.reason == "vad"
    assert turn.listening.end_rule == "complete"
    det = turn.listening.detector
    # ended by that rule, unless the reading came after the long wait (a crowded machine)
    assert det is not None and det.hangover_ms == (1000 if turn.listening.late_reading else SHORT)
    # as the silence alone would have it: the plain hang-over, twice as long
    plain, _ = _listen(recognizer, clips.speech("what is my balance"),
                       settings=VadSettings(end_of_turn="silence"))
    assert plain.listening.detector is not None
    assert plain.listening.detector.hangover_ms == 300 > SHORT


def test_an_unfinished_command_waits_longer(recognizer: Any) -> None:
    turn, _ = _listen(recognizer, clips.speech("pay rent on"))
    det = turn.listening.detector
    assert det is not None
    assert det.hangover_ms >= 450, det.hangover_ms
    assert _silence_before_end(turn) >= 450


def test_a_pause_inside_a_command_does_not_cut_it(recognizer: Any) -> None:
    text, pcm = pauses.paused("pay rent on | Vermont Avenue", clips.speech(
        "pay rent on Vermont Avenue"), recognizer)
    assert len(pcm) > len(clips.speech(text)) + 4000, "the pause was put in"
    turn, mic = _listen(recognizer, pcm)
    assert turn.listening.ended_at is not None and turn.listening.ended_at > mic.end_of_speech
    assert turn.heard.text == "pay rent on vermont avenue"


def test_the_two_step_form_still_works(recognizer: Any) -> None:
    first, _ = _listen(recognizer, clips.speech("buy"))
    assert first.heard.text == "buy"
    assert first.listening.end_rule == "could go on"  # "buy" could go on: a longer wait
    assert first.listening.detector is not None
    assert first.listening.detector.hangover_ms > SHORT
    answer, _ = _listen(recognizer, clips.speech("Baltic Avenue"), "street")
    assert answer.heard.text == "baltic avenue"
    assert answer.listening.end_rule == "complete"  # a whole answer


def test_the_recognisers_process_tells_the_first_reading_before_the_second_ear() -> None:
    """Both ears in the recogniser's process: the first ear's reading reaches the caller
    before the answer (the second ear may still be listening); then the answer."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.asr_process import ProcessRecognizer

    config = load_config(overrides={"asr.second_ear": "moonshine"})
    config = dict(config, asr=dict(config.get("asr") or {}, second_ear_wait=True))
    rec = ProcessRecognizer(config, load_edition("voice-banking"))
    try:
        assert rec.ready(120)
        seen: list[tuple[float, str, str]] = []
        heard = rec.recognize_seen(clips.speech("pay rent on Park Place"), "any",
                                   first=lambda h: seen.append((time.monotonic(), h.text,
                                                                h.engine)))
        answered = time.monotonic()
        assert len(seen) == 1
        told_at, text, engine = seen[0]
        assert engine == "pocketsphinx" and text == "pay rent on park place" == heard.text
        assert told_at <= answered
        rec.stale()  # nothing is being recognised: the child ignores it
        again = rec.recognize(clips.speech("pass go"), "any")
        assert again.text == "pass go"
    finally:
        rec.close()


def test_a_second_opinion_on_a_pause_the_player_spoke_on_is_dropped() -> None:
    """Talk the first ear can't read sends the second ear listening; told at the first
    reading that the player spoke on, it stops (no opinion), so the rest of the command is
    read next instead of waiting for it. Untold, the same audio gets its opinion."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.asr_process import ProcessRecognizer

    config = load_config(overrides={"asr.second_ear": "moonshine"})
    config = dict(config, asr=dict(config.get("asr") or {}, second_ear_wait=True))
    rec = ProcessRecognizer(config, load_edition("voice-banking"))
    pcm = clips.speech("pass me the dice please")
    try:
        assert rec.ready(120)
        untold = rec.recognize_seen(pcm, "any", first=lambda _h: None)
        assert untold.details.get("second_ear_confidence", 0.0) > 0.0
        told = rec.recognize_seen(pcm, "any", first=lambda _h: rec.stale())
        assert told.details.get("second_ear_confidence", 0.0) == 0.0
        assert told.details.get("second_ear_seconds", 1.0) < 0.1
        after = rec.recognize(clips.speech("pass go"), "any")  # the next request is answered
        assert after.text == "pass go"
    finally:
        rec.close()
