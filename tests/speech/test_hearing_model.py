"""The fitted hearing model (``speech.judge``): the saved model is a fresh fit of the saved
features, its probability is calibrated on voice families left out of the fit, the cost
table orders act / ask / "Sorry?" as it says, and the judge loads no audio and no model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from banker.speech.judge import COSTS, FEATURES, MODEL_PATH, Model, costs_of, decide
from banker.tools.hearing_fit import FEATURES_PATH, calibration, held_out, load_rows, model_of


def test_the_saved_model_is_a_fresh_fit_of_the_saved_features() -> None:
    assert FEATURES_PATH.is_file() and MODEL_PATH.is_file()
    saved = Model.load()
    fresh = model_of(load_rows())
    assert saved.names == FEATURES and saved.fitted_on == fresh.fitted_on
    assert saved.weights == pytest.approx(fresh.weights, abs=1e-5)


def test_held_out_families_are_calibrated_within_five_points_a_decile() -> None:
    deciles = calibration(held_out(load_rows()), least=30)
    assert deciles, "no decile with 30 readings"
    off = [(lo, round(p, 3), round(share, 3), n) for lo, p, share, n in deciles
           if abs(p - share) > 0.05]
    assert not off, off


def test_money_needs_more_certainty_than_a_query() -> None:
    def act(p: float, risk: str) -> str:
        options = costs_of(p, risk)
        return min(options, key=lambda a: options[a])

    assert act(0.9, "money") == "ask" and act(0.995, "money") == "act"
    assert act(0.9, "low") == "act" and act(0.7, "low") == "ask"
    assert act(0.7, "harmless") == "act" and act(0.4, "harmless") == "sorry"
    assert "ask" not in costs_of(0.5, "harmless")  # "Did you say repeat?" helps nobody
    assert COSTS["act_wrong"]["money"] > COSTS["act_wrong"]["low"] > COSTS["ask"]


def test_the_likeliest_reading_is_the_one_decided_on() -> None:
    class C:
        def __init__(self, risk: str) -> None:
            self.risk = risk

    money, query = C("money"), C("harmless")
    assert decide([(money, 0.3), (query, 0.8)])[:2] == ("act", query)
    assert decide([]) == ("sorry", None, 0.0)
    assert decide([(money, 0.1)])[0] == "sorry"


def test_the_judge_loads_no_audio_and_no_model() -> None:
    code = ("import sys, banker.speech.judge as j; j.Model.load() if j.MODEL_PATH.is_file() else 0;"
            "heavy = {'pocketsphinx', 'onnxruntime', 'moonshine_cpp', 'sounddevice', 'piper'};"
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_bench_knows_a_stale_model() -> None:
    from dataclasses import replace

    from banker.tools.hearing_fit import stale

    rows = load_rows()
    assert not stale(rows)
    changed = [replace(rows[0], right=not rows[0].right), *rows[1:]]
    assert stale(changed)


def test_transcribe_by_the_model_judges_both_readings() -> None:
    """``asr.hearing: model``: the readings of both ears, judged by the saved model."""
    from types import SimpleNamespace

    from banker.tools.hearing_fit import ModelJudge

    judge = ModelJudge()
    sure = {"margin": 150.0, "worst": -500.0, "fill": 0.0}
    first = SimpleNamespace(text="buy baltic avenue", confidence=0.95, details=sure)
    second = SimpleNamespace(text="buy baltic avenue", confidence=1.0,
                             details={"snap_distance": 0.0, "free_words": 3.0})
    v = judge.verdict(first, second)
    assert (v.intent, v.slots) == ("buy", {"property": "Baltic Avenue"})
    assert v.decision in ("accept", "confirm") and 0.5 < v.confidence <= 1
    talk = SimpleNamespace(text="", confidence=0.0, details={})
    heard = SimpleNamespace(text="", confidence=0.0, details={"free_words": 6.0})
    assert judge.verdict(talk, heard).decision == "reject"


def test_an_unknown_hearing_setting_is_one_sentence() -> None:
    from banker.config import ConfigError, load_config

    assert load_config(overrides={"asr.hearing": "model"})["asr"]["hearing"] == "model"
    with pytest.raises(ConfigError, match=r"asr\.hearing"):
        load_config(overrides={"asr.hearing": "magic"})
