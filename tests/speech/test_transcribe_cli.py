"""``banker transcribe`` as a user runs it: JSON lines with the contract's keys; a bad WAV is
one sentence on stderr and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from banker.tools import clips


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banker", "transcribe", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_json_lines_for_each_file(tmp_path: Path) -> None:
    a, b = tmp_path / "buy.wav", tmp_path / "lights.wav"
    clips.write_wav(a, clips.pad(clips.speech("buy Baltic Avenue")))
    clips.write_wav(b, clips.pad(clips.speech("turn on the lights")))
    proc = _run("--json", str(a), str(b))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [set(r) for r in rows] == [{"file", "text", "intent", "slots", "confidence",
                                       "decision"}] * 2
    assert rows[0]["intent"] == "buy" and rows[0]["slots"] == {"property": "Baltic Avenue"}
    assert rows[0]["decision"] == "accept" and 0 < rows[0]["confidence"] <= 1
    assert rows[1]["intent"] == "none" and rows[1]["decision"] == "reject"
    plain = _run(str(a))
    assert plain.returncode == 0 and "buy" in plain.stdout and "Baltic Avenue" in plain.stdout


def test_bad_or_missing_wav_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.wav"
    bad.write_text("not audio")
    for path in (bad, tmp_path / "missing.wav"):
        proc = _run("--json", str(path))
        assert proc.returncode == 2
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_unknown_edition_is_exit_2(tmp_path: Path) -> None:
    a = tmp_path / "a.wav"
    clips.write_wav(a, clips.pad(clips.speech("chance card")))
    proc = _run("--edition", "no-such-edition", str(a))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_a_combined_deal_is_named_as_the_contract_names_it(tmp_path: Path) -> None:
    """intents.md knows a ``trade``; the grammar's finer shape (cash with the street) is
    internal, as in ``replay --report``."""
    wav = tmp_path / "deal.wav"
    clips.write_wav(wav, clips.pad(clips.speech(
        "trade Baltic Avenue and two hundred for Park Place with the dog")))
    proc = _run("--edition", "secret-vault", "--json", str(wav))
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.splitlines()[0])
    assert row["intent"] == "trade", row
    assert row["slots"]["get"] == "Park Place"


@pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")
def test_a_choice_question_is_reported_with_both_readings(tmp_path: Path) -> None:
    """espeak-ng's "buy Park Place from the hat for five hundred": pocketsphinx hears "the
    cat", unsure, and the second ear writes "the hat"; ``play`` would ask "Cat or Hat?", so
    the JSON line has ``choices`` (the extra key) with both readings, the first in
    ``intent``/``slots``."""
    wav = tmp_path / "hat.wav"
    clips.write_wav(wav, clips.pad(clips.speech("buy Park Place from the hat for five hundred",
                                                clips.ESPEAK)))
    proc = _run("--edition", "secret-vault", "--json", str(wav))
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.splitlines()[0])
    assert row["decision"] == "confirm", row
    assert {c["slots"]["player"] for c in row["choices"]} == {"cat", "hat"}, row
    assert {c["intent"] for c in row["choices"]} == {row["intent"]} == {"buy_from"}
    assert (row["intent"], row["slots"]) == (row["choices"][0]["intent"],
                                             row["choices"][0]["slots"])
    text = _run("--edition", "secret-vault", str(wav))
    assert "cat" in text.stdout and " or " in text.stdout, text.stdout


def test_a_32_bit_wav_float_or_integer_is_transcribed(tmp_path: Path) -> None:
    """What a recorder saves at 32 bits (float, or integer in the extensible layout) is
    converted like any other WAV, and heard the same as its 16-bit original."""
    import numpy as np

    from tests.speech.test_audio_input import riff

    pcm = clips.pad(clips.speech("buy Baltic Avenue")).astype(np.float64) / 32768.0
    f32, i32 = tmp_path / "float.wav", tmp_path / "int32.wav"
    f32.write_bytes(riff(pcm.astype("<f4").tobytes(), 16000, 32, 3))
    i32.write_bytes(riff(np.round(pcm * 2**31).astype("<i4").tobytes(), 16000, 32, 1, True))
    proc = _run("--json", str(f32), str(i32))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["intent"], r["slots"]) for r in rows] == [("buy", {"property": "Baltic Avenue"})] * 2
