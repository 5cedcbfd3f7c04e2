"""The latency bench on two commands: the real loop, both ends of turn, cold start and memory."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from banker.frontends.voice.latency import measure
from banker.speech.audio import resample
from banker.speech.endpoint import RULES
from banker.speech.latency import cold_start
from banker.speech.tts import PiperTTS
from banker.tools.bench_latency import ALONE

SHORT = min(r.silence_ms for r in RULES)
LONG = max(r.silence_ms for r in RULES)


def test_measure_times_both_ends_of_turn_and_the_start(tts: PiperTTS) -> None:
    pad = np.zeros(4000, dtype=np.int16)
    clips = [(t, np.concatenate([pad, resample(tts.speak_all(t), tts.sample_rate, 16000)]))
             for t in ("what is my balance", "pay rent on Baltic Avenue")]
    report = measure(clips, tts=tts, cold=True, warm="openings")
    assert report.n_release == 2 and report.n_vad == 2
    for v in (report.release_p50, report.release_p95, report.vad_p50, report.vad_total_p95):
        assert math.isfinite(v) and 0 < v < 5000
    # a whole command's turn ends after the short pause the end-of-turn rules give it, or
    # when the first ear's reading of that pause is back; the long wait caps it (with the
    # same slack of twice the wait this test gave the plain hang-over: a crowded machine
    # measured 1.8 s)
    assert SHORT <= report.hangover_measured_p50 <= 2 * LONG
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
    assert report.rss_mb is not None and report.rss_mb < 1000  # both ears (the default)
    assert "cold start" in report.table()


def test_pocketsphinx_alone_stays_under_400_mb_and_two_ears_under_1_gb(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole banker (the table's process and the recogniser's) peaks under the 400 MB
    pocketsphinx alone is allowed (``asr.second_ear: none``), and under 1 GB with the second
    ear (the default). Alone is set as the bench sets its baseline: by overrides over the
    user's settings, which here would keep the second ear (they must not win)."""
    folder = tmp_path / "banker"
    folder.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    both = cold_start()[1]  # no settings of the user's: the default
    (folder / "banker.yaml").write_text("asr:\n  second_ear: moonshine\n", encoding="utf-8")
    alone = cold_start(overrides=ALONE)[1]
    assert alone < 400, alone
    assert alone + 200 < both < 1000, both  # the probe did load the second ear
