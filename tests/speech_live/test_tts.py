"""Mr. Monopoly's voice: real piper (joe), phrase splitting, cached openings, money in words."""

from __future__ import annotations

import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from banker.speech.tts import PiperTTS, TTSError, find_voice, fixed_lines, phrases, sentences

from .conftest import decode, to16k


@pytest.mark.parametrize(("text", "openings", "expected"), [
    ("Dog pays twenty two rent on Park Place to Racecar. You have ten left.", {"Dog", "Racecar"},
     [("Dog", True), ("pays twenty two rent on Park Place to Racecar.", False), ("You have ten left.", False)]),
    ("Racecar, your balance is five.", {"Racecar"}, [("Racecar,", True), ("your balance is five.", False)]),
    ("Park Place belongs to Dog.", {"Park Place", "Park"}, [("Park Place", True), ("belongs to Dog.", False)]),
    ("Sorry, say that again?", set(), [("Sorry, say that again?", False)]),
    ("Any final bids?", set(), [("Any final bids?", False)]),
    ("Welcome to Monopoly! I'm Mr. Monopoly, your banker.", set(),
     [("Welcome to Monopoly!", False), ("I'm Mr. Monopoly, your banker.", False)]),
    ("Rent on Boardwalk is fifty, paid to Dog.", set(),
     [("Rent on Boardwalk is fifty,", False), ("paid to Dog.", False)]),
    ("Doge has five.", {"Dog"}, [("Doge has five.", False)]),  # a name must end at a word boundary
    # a name a few words in still opens, and "Rent on Baltic Avenue" is cached for next time
    ("Rent on Baltic Avenue is four, paid to Dog.", {"Baltic Avenue", "Dog"},
     [("Rent on Baltic Avenue", True), ("is four, paid to Dog.", False)]),
    # ... but not with an amount in it, and never leaving nothing to say after the name
    ("Here's fifty, Dog. You now have ten.", {"Dog"},
     [("Here's fifty,", False), ("Dog.", False), ("You now have ten.", False)]),
    # an amount that opens a sentence is its own (cacheable) phrase
    ("Two hundred for passing GO, Dog.", {"Dog"},
     [("Two hundred", True), ("for passing GO, Dog.", False)]),
])
def test_a_reply_is_cut_into_phrases_first_one_short(text: str, openings: set[str],
                                                      expected: list[tuple[str, bool]]) -> None:
    assert phrases(text, openings) == expected


def test_sentences_do_not_break_after_mister() -> None:
    assert sentences("I'm Mr. Monopoly. Hi!") == ["I'm Mr. Monopoly.", "Hi!"]


def test_fixed_lines_and_cues_come_from_the_reply_templates() -> None:
    whole, cues = fixed_lines({"a": ["Any final bids?", "Sold! {street} is yours."],
                               "b": ["{player} pays {amount}."], "c": ["Chance: {title}."],
                               "d": ["Did you say {what}?", "Here's {amount}, {player}."]})
    assert whole == {"Any final bids?"}
    assert cues == {"Sold!", "Chance:", "Did you say"}


def test_unknown_voice_is_one_sentence() -> None:
    with pytest.raises(TTSError, match="no voice called"):
        find_voice("nobody-here")


def test_joe_voice_files_come_from_the_package() -> None:
    v = find_voice("joe-us")
    assert v.model.suffix == ".onnx" and v.model.exists() and v.config.exists()


def test_money_is_said_in_words_and_recognisable(tts: PiperTTS) -> None:
    pcm = tts.speak_all("Dog has M1,440.")
    heard = decode(to16k(pcm, tts.sample_rate))
    assert "one thousand four hundred" in heard and "forty" in heard


def test_speak_yields_the_opening_before_rendering_the_rest(tts: PiperTTS) -> None:
    tts.add_fixed(openings=["Racecar"])
    tts.render("Racecar")  # cached once, as at start-up
    n = tts.renders
    gen = tts.speak("Racecar pays one hundred and twenty to the bank. You have nine hundred left.")
    t0 = time.perf_counter()
    first = next(gen)
    took = time.perf_counter() - t0
    assert tts.renders == n, "the opening came from the cache, nothing rendered yet"
    assert len(first) > 0.2 * tts.sample_rate and took < 0.05
    rest = list(gen)
    assert len(rest) == 2 and tts.renders == n + 2


def test_fixed_phrases_are_cached_in_memory_and_on_disk(tts: PiperTTS, tmp_path: Path) -> None:
    tts.add_fixed(["Any final bids?"])
    a = tts.speak_all("Any final bids?")
    n = tts.renders
    b = tts.speak_all("Any final bids?")
    assert tts.renders == n and np.array_equal(a, b)
    assert list(tts.cache_dir.glob("*.wav")), "fixed phrases are written to the disk cache"
    # a new voice object (a new run of banker) reads them back without rendering
    again = PiperTTS("joe-us", cache_dir=tts.cache_dir.parent)
    again.add_fixed(["Any final bids?"])
    c = again.speak_all("Any final bids?")
    assert again.renders == 0 and np.array_equal(a, c)


def test_banker_say_writes_a_valid_wav(tmp_path: Path) -> None:
    out = tmp_path / "x.wav"
    r = subprocess.run([sys.executable, "-m", "banker", "say", "hello", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with wave.open(str(out)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 22050)
        assert 0.3 < w.getnframes() / w.getframerate() < 2.0
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    assert np.abs(pcm).max() > 3000
    voiced = np.abs(pcm.astype(np.int32)) > 1000
    assert 0.2 < voiced.mean() < 0.9, "speech, trimmed: not silence, not noise"


def test_banker_say_to_a_missing_folder_is_one_sentence(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "banker", "say", "hi", "--out",
                        str(tmp_path / "no" / "x.wav")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
