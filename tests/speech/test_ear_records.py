"""Kept readings of both ears, replayed through the live two-ear rules, give what the live
recogniser gives on the same audio (the tool the session-14 measurements were made with)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from banker.tools import bench, clips, ear_records

pytestmark = pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")


def test_a_replay_of_kept_readings_is_what_the_live_ears_hear(tmp_path: Path) -> None:
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine
    from banker.speech.two_ears import SecondEar

    items = bench.dev_set(4, 2, 0)
    out = tmp_path / "kept.jsonl"
    conditions = ("clean", "babble:10")
    assert ear_records.decode(items, out, conditions) == 12
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["i"], r["cond"]) for r in records} == {(i, c) for c in conditions
                                                        for i in range(6)}
    assert all(isinstance(r["free"], str) for r in records)  # Moonshine's words, snapped again
    # and the guided search's reading where the free text needed a snap (kept, not searched
    # again: a replay gives it back)
    assert any(r["guided"] is not None for r in records if r["cond"] == "babble:10")
    config = load_config()
    live = make_engine({**config, "asr": {**config["asr"], "second_ear": "moonshine"}},
                       load_edition(bench.EDITION))
    assert isinstance(live, SecondEar)
    for i, cond, text, conf, _secs, alts in ear_records.replay(items, records):
        heard = live.recognize(bench.line_audio(i, items[i], cond), items[i].focus)
        assert (text, round(conf, 6), alts) == (heard.text, round(heard.confidence, 6),
                                                heard.alternatives), (items[i].text, cond)


def test_a_replay_changes_a_value_for_a_while_and_refuses_unknown_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from banker.speech import ear_rules

    before = ear_rules.TWICE
    with ear_records.values({"TWICE": 0.69}):
        assert ear_rules.TWICE == 0.69
    assert before == ear_rules.TWICE
    (tmp_path / "none.jsonl").write_text("")
    assert ear_records.main(["replay", str(tmp_path / "none.jsonl"), "--set", "NOPE=1"]) == 2
    assert "no value called 'NOPE'" in capsys.readouterr().err
    assert ear_records.main(["replay", str(tmp_path / "none.jsonl"), "--set", "TWICE=x"]) == 2
    assert "TWICE='x' is not a number." in capsys.readouterr().err
