"""The phone loop on a decoder of its own (``speech.phone_loop``): the same numbers as the
binding's own pass, and the recogniser as before where it cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from banker.speech import phone_loop
from banker.speech.grammar import SpeechGrammar
from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer
from banker.speech.speaker_norm import from_details
from banker.tools import bench, clips


def _lines() -> list[np.ndarray]:
    """Six dev-set lines (commands and chatter, piper and espeak-ng), clean and in pink
    noise (filtered first), and one short word."""
    items = bench.dev_set(4, 2, 0, seed=2026)
    out = [bench.line_audio(i, it, cond) for i, it in enumerate(items)
           for cond in ("clean", "pink:10")]
    return [*out, clips.pad(clips.speech("yes", clips.PIPER))]


def _heard(rec: PocketsphinxRecognizer, pcm: np.ndarray, focus: str = "any") -> tuple[object, ...]:
    h = rec.recognize(pcm, focus)
    return h.text, h.confidence, h.words, h.details


def test_the_phone_loop_beside_the_grammar_gives_the_same_numbers_bit_for_bit(
        vb_grammar: SpeechGrammar) -> None:
    """Decoded on its own decoder while the grammar's search runs, the phone loop gives the
    same confidence, words and details (the margin, the cepstral mean after the turn) as
    decoded in turn on the first decoder, to the last bit, on every line; a speaker's start
    values (live normalisation) too."""
    beside, in_turn = PocketsphinxRecognizer(vb_grammar), PocketsphinxRecognizer(vb_grammar)
    assert beside.phones is not None
    in_turn.phones.close()  # type: ignore[union-attr]
    in_turn.phones = None
    lines = _lines()
    for pcm in lines:
        assert _heard(beside, pcm) == _heard(in_turn, pcm)
        assert _heard(beside, pcm, "yes_no") == _heard(in_turn, pcm, "yes_no")
    h = beside.recognize(lines[0], "any")
    assert "margin" in h.details and from_details(h.details)  # a clean line: a mean after it
    player = from_details(h.details)  # that player's next turn starts from it (live)
    for pcm in lines[2:4]:
        a, b = beside.recognize(pcm, "any", player), in_turn.recognize(pcm, "any", player)
        assert (a.text, a.confidence, a.details) == (b.text, b.confidence, b.details)


def test_the_recogniser_decodes_the_phone_loop_in_turn_where_it_cannot_run_beside(
        vb_grammar: SpeechGrammar, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another pocketsphinx build without the C functions: one sentence inside, and the
    phone loop decoded on the first decoder after the grammar's search, as before."""
    def missing() -> None:
        raise phone_loop.PhoneLoopUnavailable("The phone loop cannot run on its own here.")

    beside = PocketsphinxRecognizer(vb_grammar)
    monkeypatch.setattr(phone_loop, "_library", missing)
    alone = PocketsphinxRecognizer(vb_grammar)
    assert alone.phones is None
    pcm = _lines()[0]
    assert _heard(alone, pcm) == _heard(beside, pcm)
    assert alone.recognize(pcm, "any").details["margin"] != 0.0


def test_a_phone_loop_decode_that_fails_is_decoded_in_turn_instead(
        vb_grammar: SpeechGrammar) -> None:
    """The library refusing the audio on the second decoder (here: its ``ps_process_raw``
    answering -1) costs that turn the parallel pass, not its confidence: the same reading."""
    beside, in_turn = PocketsphinxRecognizer(vb_grammar), PocketsphinxRecognizer(vb_grammar)
    in_turn.phones = None
    assert beside.phones is not None

    class Refusing:
        def __init__(self, lib: object) -> None:
            self.lib = lib

        def __getattr__(self, name: str) -> object:
            if name == "ps_process_raw":
                return lambda *_a: -1
            return getattr(self.lib, name)

    beside.phones.lib = Refusing(beside.phones.lib)
    pcm = _lines()[0]
    beside.phones.start(pcm, "batch", beside._cmn0)
    with pytest.raises(RuntimeError):
        beside.phones.segments()
    assert _heard(beside, pcm) == _heard(in_turn, pcm)
