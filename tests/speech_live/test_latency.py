"""The latency bench on two commands: the real loop, both ends of turn, cold start and memory."""

from __future__ import annotations

import math

import numpy as np

from banker.frontends.voice.latency import measure
from banker.speech.audio import resample
from banker.speech.tts import PiperTTS


def test_measure_times_both_ends_of_turn_and_the_start(tts: PiperTTS) -> None:
    pad = np.zeros(4000, dtype=np.int16)
    clips = [(t, np.concatenate([pad, resample(tts.speak_all(t), tts.sample_rate, 16000)]))
             for t in ("what is my balance", "pay rent on Baltic Avenue")]
    report = measure(clips, tts=tts, cold=True, warm="openings")
    assert report.n_release == 2 and report.n_vad == 2
    for v in (report.release_p50, report.release_p95, report.vad_p50, report.vad_total_p95):
        assert math.isfinite(v) and 0 < v < 5000
    # VAD's turn ends one hang-over (plus a frame or two) after the true end of speech
    assert 250 <= report.hangover_measured_p50 <= 600
    assert report.vad_total_p50 > report.vad_p50
    # the reply's first phrase is an opening from the cache: speaking starts as soon as the
    # command is understood (what is left is recognition)
    understood = [t for t in report.turns if t["heard"] == t["text"].lower()]
    assert understood, report.turns
    for t in understood:
        # 0.1 s: a cached opening (rendering the phrase with piper would take longer); the
        # per-player voice note is no longer committed on this path (written at the next press)
        assert t["first_audio"] - t["decoded"] < 0.1, (t["text"], t["mode"], report.turns)
    assert report.cold_start_s is not None and report.cold_start_s < 10
    assert report.rss_mb is not None and report.rss_mb < 400
    assert "cold start" in report.table()
