"""The end of speech by the room's level (``vad._Room``): in a quiet room the frames after a
word's last loud sample are back at the room's level long before webrtcvad stops calling them
voiced; in a noisy room the level is not trusted and the VAD alone decides. Real piper clips,
frame by frame through the real detector."""

from __future__ import annotations

import numpy as np
import pytest

from banker.speech.latency import true_end
from banker.speech.vad import EndOfSpeech, VadSettings, frames_of
from banker.tools import clips

SAID = ("buy Baltic Avenue", "what is my balance", "pass go", "pay rent on Park Place",
        "who is winning", "how much money do I have")
LEAD, TAIL = 0.25, 1.0


def _in_room(text: str, noise_dbfs: float | None, seed: int) -> tuple[np.ndarray, float]:
    """The clip with quiet before and after it, in a room whose noise (pink, ``noise_dbfs``
    RMS; None: digital silence) runs throughout; and where its last loud sample is."""
    pcm = clips.speech(text)
    end = LEAD + true_end(pcm)
    x = np.concatenate([np.zeros(int(LEAD * 16000)), pcm.astype(np.float64),
                        np.zeros(int(TAIL * 16000))])
    if noise_dbfs is not None:
        x += clips.pink_noise(len(x), np.random.default_rng(seed)) * 32768 * 10 ** (noise_dbfs / 20)
    return np.clip(x, -32768, 32767).astype(np.int16), end


def _speech_end(pcm: np.ndarray, end_of_turn: str) -> float:
    """Where the detector says the speech ended (the long hang-over: nothing ends the turn)."""
    det = EndOfSpeech(VadSettings(hangover_ms=5000, end_of_turn=end_of_turn))
    for frame in frames_of(pcm):
        det.feed(frame)
    utt = det.utterance()
    assert utt.speech_end is not None
    return utt.speech_end


@pytest.mark.parametrize("noise", [None, -60.0], ids=["digital silence", "quiet room"])
def test_a_quiet_room_hears_the_end_of_speech_sooner(noise: float | None) -> None:
    by_level, by_vad = [], []
    for i, text in enumerate(SAID):
        pcm, end = _in_room(text, noise, i)
        by_level.append(_speech_end(pcm, "grammar") - end)
        by_vad.append(_speech_end(pcm, "silence") - end)
    # never before the last loud sample's frame, and closer to it than the VAD alone
    assert min(by_level) >= -0.03, by_level
    assert max(by_level) <= 0.06, by_level
    assert float(np.median(by_vad)) - float(np.median(by_level)) >= 0.05, (by_vad, by_level)


def test_a_noisy_room_leaves_the_end_to_the_vad() -> None:
    for i, text in enumerate(SAID):
        pcm, _ = _in_room(text, -30.0, i)  # ~15-20 dB under the speech's loudest frames
        assert _speech_end(pcm, "grammar") == _speech_end(pcm, "silence")
