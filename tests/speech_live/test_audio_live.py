"""The speaker and the microphone on the virtual sound card (PulseAudio null sinks)."""

from __future__ import annotations

import queue
import time
from pathlib import Path

import numpy as np

from banker.speech.audio import Microphone, Player
from banker.speech.tts import PiperTTS

from .conftest import SoundCard, decode


def test_the_player_is_heard_on_the_speaker(sound_card: SoundCard, tts: PiperTTS,
                                            tmp_path: Path) -> None:
    rec = sound_card.record_speaker(tmp_path / "spk.raw")
    player = Player(tts.sample_rate)
    started: list[float] = []
    try:
        for pcm in tts.speak("Dog has M1,500."):
            player.play(pcm, started.append if not started else None)
        assert player.busy()
        assert player.wait(10)
        time.sleep(0.2)
    finally:
        player.close()
    heard = rec.stop()
    assert len(started) == 1
    assert "one thousand five hundred" in decode(heard)


def test_stop_cuts_a_clip_off(sound_card: SoundCard, tts: PiperTTS) -> None:
    player = Player(tts.sample_rate)
    try:
        long = tts.speak_all("Welcome to Monopoly! I'm Mr. Monopoly, your banker. Everyone starts "
                             "with fifteen hundred.")
        player.play(long)
        time.sleep(0.5)
        player.stop()
        at_stop = player.played
        time.sleep(0.3)
        assert not player.busy()
        assert at_stop < len(long) / 2
        # the stream keeps running with silence: nothing more of the clip is handed out
        assert player.played - at_stop < 0.3 * tts.sample_rate
    finally:
        player.close()


def test_the_microphone_hears_only_while_listening(sound_card: SoundCard, said) -> None:  # type: ignore[no-untyped-def]
    mic = Microphone()
    try:
        sound_card.speak_into_mic(said("how much money do I have"))
        assert mic.frames().qsize() == 0, "frames are dropped while nobody listens"
        mic.start_listening()
        proc = sound_card.speak_into_mic(said("how much money do I have"), wait=False)
        frames: list[bytes] = []
        end = time.monotonic() + 6
        while time.monotonic() < end and (proc.poll() is None or len(frames) < 10):
            try:
                frames.append(mic.frames().get(timeout=0.3))
            except queue.Empty:
                if proc.poll() is not None:
                    break
        mic.stop_listening()
        assert all(len(f) == 960 for f in frames)
        pcm = np.frombuffer(b"".join(frames), dtype=np.int16)
        assert "money" in decode(pcm)
    finally:
        mic.close()
