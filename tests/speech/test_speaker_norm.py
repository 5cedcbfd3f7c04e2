"""Per-player acoustic normalisation: learnt from that player's confirmed turns only, stored
with the game, back on ``--resume``; offline decoding untouched by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from banker.app import start_game
from banker.frontends.voice.voices import PlayerVoices
from banker.journal import GameFile
from banker.speech.protocols import Heard
from banker.speech.speaker_norm import KEYS, BadVoice, Voices, from_details, parse, to_details
from banker.tools import clips

PIPER_SLOW = clips.Voice("piper", "joe", 1.2, noise=0.5)


def _clip(text: str) -> clips.Pcm:
    return clips.pad(clips.speech(text, PIPER_SLOW))


def test_values_are_checked() -> None:
    assert len(parse(",".join(["1.5"] * 13))) == 13
    for bad in ("", "1,2,3", ",".join(["x"] * 13), ",".join(["nan"] * 13)):
        with pytest.raises(BadVoice):
            parse(bad)
    # a damaged stored value: that player starts afresh, the others keep theirs
    v = Voices({"cat": "1,2", "dog": ",".join(["2"] * 13)})
    assert v.start("cat") == "" and v.start("dog").startswith("2,2")


def test_only_a_turn_with_a_mean_teaches() -> None:
    v = Voices()
    assert not v.learn("cat", Heard("buy boardwalk", 0.9))  # an engine that reports none
    mean = ",".join(str(40.0 + i) for i in range(13))
    assert v.learn("cat", Heard("buy boardwalk", 0.9, details=to_details(mean)))
    assert parse(v.start("cat")) == parse(mean) and v.start("dog") == ""
    assert from_details({"cmn0": 1.0}) == ""


def test_offline_decoding_is_not_touched_by_a_speaker(recognizer) -> None:  # type: ignore[no-untyped-def]
    pcm = _clip("pay two hundred to the bank")
    alone = recognizer.recognize(pcm)
    first = from_details(alone.details)  # a first turn: its own mean
    assert first and all(k in alone.details for k in KEYS)
    voiced = recognizer.recognize(_clip("buy boardwalk"), "any", first)
    after = recognizer.recognize(pcm)  # the speaker's turn leaves nothing behind
    assert (after.text, after.confidence) == (alone.text, alone.confidence)
    # with start values the turn is normalised by them: the mean after it moves from the
    # start toward this turn's own, and the same start gives the same result every time
    moved = from_details(voiced.details)
    assert moved and moved != first
    again = recognizer.recognize(_clip("buy boardwalk"), "any", first)
    assert (again.text, again.confidence, again.details) == (
        voiced.text, voiced.confidence, voiced.details)


def test_voice_kept_across_resume(recognizer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "game.sqlite"
    game = start_game("voice-banking", "cat dog", [], path, False, lambda _t: None,
                      lambda _e: "")
    voices = PlayerVoices(game.session)
    s = game.session

    def turn(token: str, text: str, confidence: float | None = None) -> None:
        heard = recognizer.recognize(_clip(text), "any", voices.start(token))
        s.begin_step()
        s.hear(token, text, heard.confidence if confidence is None else confidence)
        voices.after(token, heard, s.finish_step())

    turn("dog", "tell me a joke", 0.99)  # chatter: the game does nothing, nothing is learnt
    assert voices.start("dog") == ""
    turn("cat", "buy boardwalk", 0.5)  # "Did you say…?": not learnt until confirmed
    assert voices.start("cat") == ""
    turn("cat", "yes", 0.99)
    learnt = voices.start("cat")
    assert learnt and voices.start("dog") == ""
    turn("cat", "what is my balance", 0.99)  # acted on at once: learnt again, from the last
    learnt = voices.start("cat")
    game.file.close()

    resumed = start_game(None, None, [], path, True, lambda _t: None, lambda _e: "")
    try:
        back = PlayerVoices(resumed.session)
        assert back.start("cat") == learnt and back.start("dog") == ""
        heard = recognizer.recognize(_clip("what is my balance"), "any", back.start("cat"))
        assert heard.text == "what is my balance"
    finally:
        resumed.file.close()


def test_old_game_files_have_no_voices(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    game = start_game("voice-banking", "cat dog", [], path, False, lambda _t: None,
                      lambda _e: "")
    game.file.close()
    gf = GameFile(path)
    loaded = gf.open()
    try:
        assert loaded.voices == {} and gf.voice_starts == {}
        gf.save_voice("cat", "1,2,3,4,5,6,7,8,9,10,11,12,13")
        gf.save_voice("cat", "2,2,3,4,5,6,7,8,9,10,11,12,13")  # the latest counts
    finally:
        gf.close()
    again = GameFile(path)
    try:
        assert again.open().voices == {"cat": "2,2,3,4,5,6,7,8,9,10,11,12,13"}
    finally:
        again.close()


def test_a_voice_note_is_not_committed_on_the_replys_way(tmp_path: Path) -> None:
    """Learnt right after a reply is queued, a voice waits for the journal's next write (or a
    flush, made while the next turn is listened to): no fsync of its own before the reply's
    first sample, and a kill loses at most the latest turn's values."""
    path = tmp_path / "game.sqlite"
    game = start_game("voice-banking", "cat dog", [], path, False, lambda _t: None,
                      lambda _e: "")
    s, gf = game.session, game.file
    one, two, three = (",".join([str(n)] * 13) for n in (1, 2, 3))
    try:
        gf.save_voice("cat", one)
        assert GameFile(path).peek().voices == {}  # nothing committed yet
        assert gf.voice_starts == {"cat": one}  # but used from now on
        PlayerVoices(s).flush()  # the next turn is being listened to
        assert GameFile(path).peek().voices == {"cat": one}  # on disk, with the game still open
        gf.save_voice("cat", two)
        gf.save_voice("dog", three)
        before = len(GameFile(path).peek().transactions)
        s.begin_step()
        s.hear("cat", "pay two hundred to the bank", None)  # typed: a transaction, written now
        s.finish_step()
        on_disk = GameFile(path).peek()
        assert len(on_disk.transactions) == before + 1  # the transaction still on disk at once
        assert on_disk.voices == {"cat": two, "dog": three}  # the notes went with it
        gf.save_voice("dog", one)
    finally:
        gf.close()  # closing writes what is still due
    assert GameFile(path).peek().voices == {"cat": two, "dog": one}


def test_start_values_cross_the_recognisers_process(recognizer) -> None:  # type: ignore[no-untyped-def]
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.asr_process import ProcessRecognizer

    start = from_details(recognizer.recognize(_clip("pay two hundred to the bank")).details)
    rec = ProcessRecognizer(load_config(), load_edition("voice-banking"))
    try:
        assert rec.ready(60)
        pcm = _clip("buy boardwalk")
        there = rec.recognize(pcm, "any", start)
        here = recognizer.recognize(pcm, "any", start)
        assert from_details(there.details) == from_details(here.details) != start
        assert from_details(rec.recognize(pcm).details) != from_details(there.details)
    finally:
        rec.close()


def test_a_noisy_turn_is_heard_on_its_own(recognizer) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    start = from_details(recognizer.recognize(_clip("pay two hundred to the bank")).details)
    noisy = clips.mix(_clip("buy boardwalk"), "babble", 10, np.random.default_rng(3))
    alone = recognizer.recognize(noisy)
    voiced = recognizer.recognize(noisy, "any", start)
    assert (voiced.text, voiced.confidence) == (alone.text, alone.confidence)
    assert from_details(voiced.details) == ""  # and it teaches nothing
