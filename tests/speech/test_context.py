"""``banker transcribe --context``: a Picovoice Rhino context compiled by the same walker and
automaton code as the commands, decoded by the same recogniser, with nothing of Monopoly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from banker.nlu.context import ContextError, load_context, parse_context, rhino_to_template
from banker.nlu.matcher import Ambiguous, NotRecognized, Recognized
from banker.speech.context_grammar import ContextSpeechGrammar
from banker.tools import clips
from banker.tools.clips import ESPEAK, PIPER, Voice

LIGHTS = Path(__file__).parent / "contexts" / "lights.yaml"


def test_rhino_syntax_becomes_template_syntax() -> None:
    assert rhino_to_template("[turn, make] (the) $location:room Lights") == \
        "( turn | make ) [ the ] {location:room} lights"
    assert rhino_to_template("I'd like @please") == "i'd like <please>"


def test_understand_reports_slot_names_and_values_as_written() -> None:
    ctx = load_context(LIGHTS)
    got = ctx.understand("make the living room lights blue")
    assert isinstance(got, Recognized)
    assert (got.intent, dict(got.slots)) == ("changeColor", {"room": "living room", "color": "blue"})
    off = ctx.understand("switch the bedroom lights off thank you")
    assert isinstance(off, Recognized) and dict(off.slots) == {"state": "off", "room": "bedroom"}
    assert isinstance(ctx.understand("order a pizza"), NotRecognized)
    assert isinstance(ctx.understand("make the lights"), NotRecognized)


def test_two_readings_are_ambiguous() -> None:
    ctx = parse_context({"context": {"expressions": {"a": ["go $x:first $x:second"]},
                                     "slots": {"x": ["big", "big red", "red wine", "wine"]}}})
    got = ctx.understand("go big red wine")  # (big, red wine) or (big red, wine)
    assert isinstance(got, Ambiguous)
    assert sorted(dict(c.slots)["first"] for c in got.candidates) == ["big", "big red"]


def test_automaton_accepts_exactly_the_context() -> None:
    fsa = ContextSpeechGrammar(load_context(LIGHTS)).fsa()
    assert fsa.accepts("turn kitchen lights green")
    assert fsa.accepts("turn on the kitchen lights please")
    assert not fsa.accepts("turn on the kitchen lights pretty please")
    assert not fsa.accepts("buy baltic avenue")


@pytest.mark.parametrize("bad, says", [
    ({"context": {"expressions": {"a": ["go $nope:x"]}, "slots": {}}}, "no slot list called nope"),
    ({"context": {"expressions": {"a": ["go @nope"]}}}, "no macro called nope"),
    ({"context": {"expressions": {"a": ["go [a, b"]}}}, "leaves a bracket open"),
    ({"nothing": 1}, "needs a `context:`"),
])
def test_bad_context_is_one_sentence(bad: object, says: str) -> None:
    with pytest.raises(ContextError, match=says):
        parse_context(bad)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banker", "transcribe", *args],
                          capture_output=True, text=True, timeout=300, check=False)


SPOKEN: list[tuple[str, Voice, str, dict[str, str]]] = [
    ("make the living room lights blue", PIPER, "changeColor", {"room": "living room", "color": "blue"}),
    ("switch off the kitchen lights", PIPER, "changeState", {"state": "off", "room": "kitchen"}),
    ("turn the lights in the bedroom red", ESPEAK, "changeColor", {"room": "bedroom", "color": "red"}),
]


@pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")
def test_context_compiled_and_decoded(tmp_path: Path) -> None:
    wavs = []
    for i, (text, voice, _, _) in enumerate(SPOKEN):
        wavs.append(tmp_path / f"{i}.wav")
        clips.write_wav(wavs[-1], clips.pad(clips.speech(text, voice)))
    missing = tmp_path / "missing.wav"
    proc = _run("--context", str(LIGHTS), "--json", str(wavs[0]), str(missing), *map(str, wavs[1:]))
    assert proc.returncode == 2  # a bad file is bad input, but the others were decoded
    assert proc.stderr.strip() == f"banker: {missing} does not exist."
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["file"] for r in rows] == [str(w) for w in wavs]
    for row, (text, _voice, intent, slots) in zip(rows, SPOKEN, strict=True):
        assert set(row) == {"file", "text", "intent", "slots", "confidence", "decision"}
        assert (row["intent"], row["slots"]) == (intent, slots), (text, row)
        assert row["decision"] != "reject" and 0 < row["confidence"] <= 1
