"""The fitted hearing model (``speech.judge``): the saved model is a fresh fit of the saved
features, its probability is calibrated on voice families left out of the fit, the cost
table orders act / ask / "Sorry?" as it says, and the judge loads no audio and no model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from banker.speech.judge import COSTS, FEATURES, MODEL_PATH, Candidate, Ear, Model, costs_of, decide, features
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


def _x(first: Ear, second: Ear, c: Candidate) -> dict[str, float]:
    return dict(zip(FEATURES, features(first, second, c), strict=True))


def _cand(first: bool, second: bool, held: bool = False) -> Candidate:
    return Candidate("buy", (("property", "Baltic Avenue"),), first, second, 1.0, 100.0, "money",
                     True, 3, held)


def test_the_first_ears_per_frame_scores_span_about_one() -> None:
    """pocketsphinx reports its margin to the phone loop and its worst word per speech frame
    (about -7 to 0 and -17 to -2 on the corpus): a far margin weighs as much as a confidence,
    not a hundredth of one."""
    far = Ear("buy baltic avenue", 0.3, {"margin": -7.0, "worst": -16.0})
    near = Ear("buy baltic avenue", 0.95, {"margin": -0.6, "worst": -2.0})
    none = Ear("", 0.0, {})
    x_far, x_near = _x(far, none, _cand(True, False)), _x(near, none, _cand(True, False))
    assert x_far["first_margin"] <= -0.5 and x_far["first_worst"] <= -0.5
    assert -0.1 <= x_near["first_margin"] < 0 and -0.15 <= x_near["first_worst"] < 0


def test_moonshines_held_reading_is_evidence_never_a_reading() -> None:
    """The reading Moonshine's grammar-held search found and did not take backs the command it
    means, counts against the others ("Baltic Avenue" said alone: held "baltic avenue", a bare
    name, against pocketsphinx's "is baltic owned"), and is never acted on by itself."""
    from banker.tools.hearing_fit import Readings

    readings = Readings()
    first = Ear("buy baltic avenue", 0.6, {})

    def cands(second: Ear) -> list[tuple[str, bool, float]]:
        return [(c.intent, c.from_held, _x(first, second, c)["held_elsewhere"])
                for c in readings.candidates(first, second)]

    assert cands(Ear("", 0.0, {}, held="buy baltic avenue")) == [("buy", True, 0.0)]
    assert cands(Ear("", 0.0, {}, held="baltic avenue")) == [("buy", False, 1.0)]
    assert cands(Ear("", 0.0, {})) == [("buy", False, 0.0)]
    alone = [c.intent for c in readings.candidates(Ear("", 0.0, {}),
                                                   Ear("", 0.0, {}, held="buy boardwalk"))]
    assert alone == []


def test_talk_the_other_ear_heard_contradicts_a_reading() -> None:
    """Moonshine's free words that snap to no command ("how many spaces was that") and
    pocketsphinx's garbage path winning are talk heard, against the other ear's command: not
    an ear that heard nothing."""
    said = Ear("buy baltic avenue", 0.6, {})
    talk2 = Ear("", 0.0, {"free_words": 5.0, "snap_distance": 0.49})
    talk1 = Ear("", 0.0, {"garbage": 2.0})
    silent = Ear("", 0.0, {"free_words": 0.0})
    for first, second, c in ((said, talk2, _cand(True, False)), (talk1, said, _cand(False, True))):
        x = _x(first, second, c)
        assert (x["contradicted"], x["alone"]) == (1.0, 0.0)
    x = _x(said, silent, _cand(True, False))
    assert (x["contradicted"], x["alone"]) == (0.0, 1.0)


def test_a_reading_contradicted_by_a_sure_ear_is_marked_by_how_sure() -> None:
    """"Baltic Avenue" said alone, heard "is baltic owned" by pocketsphinx: Moonshine's sure
    "baltic avenue" (no command) weighs more against it than an unsure reading would; and
    Moonshine's held reading backing its own snapped reading is one ear twice, no news."""
    said = Ear("buy baltic avenue", 0.7, {})
    assert _x(said, Ear("baltic avenue", 0.95, {}), _cand(True, False))["contradicted_sure"] \
        == pytest.approx(0.95)
    assert _x(said, Ear("baltic avenue", 0.4, {}), _cand(True, False))["contradicted_sure"] \
        == pytest.approx(0.4)
    assert _x(said, said, _cand(True, True))["contradicted_sure"] == 0.0
    held = Ear("buy baltic avenue", 0.65, {}, held="buy baltic avenue")
    assert _x(Ear("", 0.0, {}), held, _cand(False, True, held=True))["held_agrees"] == 0.0
    assert _x(said, held, _cand(True, True, held=True))["held_agrees"] == 0.0
    assert _x(said, Ear("", 0.0, {}, held="buy baltic avenue"),
              _cand(True, False, held=True))["held_agrees"] == 1.0
