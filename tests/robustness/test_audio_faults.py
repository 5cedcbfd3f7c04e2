"""Faults of the sound side, on a private PulseAudio virtual card (as ``tests/speech_live``).

* the speech model folder is missing (vosk configured with a folder that isn't there): one
  sentence, the game goes on with the other engine;
* the sound device disappears in the middle of a game (the PulseAudio server dies): Mr. Monopoly
  says so in one sentence, once, and the game goes on with typed lines: nothing is lost, and
  Ctrl-D ends it at once (``banker/frontends/voice/devices.py`` watches the devices).

PulseAudio must be installed (``apt-get install pulseaudio pulseaudio-utils libportaudio2``):
like the live speech tests, these fail loudly rather than skip when it is missing
(``tests/pulse_card.py`` starts the daemon for both).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pulse_card import PulseDaemon, start_pulse

from .support import PtyGame, assert_one_sentence, clean_env, state_json


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[PulseDaemon]:
    """A private PulseAudio with a null speaker and microphone (``tests/pulse_card.py``)."""
    d = start_pulse(clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture
def pulse(daemon: PulseDaemon) -> dict[str, str]:
    """The environment of a child banker that uses the private PulseAudio."""
    return daemon.env


def _stop_pulse(daemon: PulseDaemon) -> None:
    """The speaker and the microphone are gone (as if the USB sound card were pulled)."""
    daemon.kill()
    time.sleep(0.5)


def _answer(g: PtyGame, line: str) -> list[str]:
    g.send(line)
    return [ln for ln in g.until_prompt(timeout=30) if ln.strip() != line]


def test_missing_model_folder_is_one_sentence_and_play_goes_on(pulse: dict[str, str],
                                                               tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game), "--option", "asr.engine=vosk",
                 "--option", "asr.vosk_model=/nonexistent"], env=pulse)
    try:
        g.until_prompt(timeout=60)
        assert any("1,700" in ln for ln in _answer(g, "cat: pass go"))
        assert g.proc.stderr is not None
        os.set_blocking(g.proc.stderr.fileno(), False)
        err = b""
        for _ in range(100):  # the recogniser is made in the background: wait for its word
            err += g.proc.stderr.read() or b""
            if err.endswith(b"\n"):
                break
            time.sleep(0.1)
        time.sleep(0.3)
        err += g.proc.stderr.read() or b""
        sentence = assert_one_sentence(err.decode())
        assert "/nonexistent" in sentence
        # (a clean exit would wait until Mr. Monopoly has said everything, ~15 s: not needed)
    finally:
        g.close()
    assert state_json(game)["cash"]["cat"] == 1700


def test_sound_device_disappears_nothing_is_lost(daemon: PulseDaemon, tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=daemon.env)
    try:
        greeting = g.until_prompt(timeout=60)
        assert not any("microphone" in ln for ln in greeting), "the virtual card was not used"
        assert any("1,700" in ln for ln in _answer(g, "cat: pass go"))
        _stop_pulse(daemon)  # speaker and microphone are gone
        g.send("press 1")  # a button press: listening on a microphone that isn't there
        time.sleep(1.0)
        g.send("dog: pass go")
        g.until_line(lambda ln: "passes GO" in ln or "passing GO" in ln, timeout=30)
        assert "1,700" in g.transcript[-1], g.transcript
        g.send("cat: what's my balance")
        g.until_line(lambda ln: ln.startswith("The cat has"), timeout=30)
        assert "1,700" in g.transcript[-1], g.transcript
        view = state_json(game)  # read while the game runs
        assert view["cash"] == {"cat": 1700, "dog": 1700}
    finally:
        g.close()  # SIGKILL if it is still running
    assert state_json(game)["cash"] == {"cat": 1700, "dog": 1700}


def _about_sound(lines: list[str]) -> list[str]:
    return [ln for ln in lines if any(w in ln.lower() for w in ("sound", "microphone", "speaker", "audio"))]


def test_sound_device_loss_is_announced_and_ctrl_d_ends_promptly(daemon: PulseDaemon,
                                                               tmp_path: Path) -> None:
    """One plain sentence, once; typed lines and button presses go on; nothing of the ledger
    changes because of the loss; Ctrl-D ends at once (no waiting for a dead speaker)."""
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=daemon.env)
    try:
        g.until_prompt(timeout=60)
        _answer(g, "cat: pass go")
        g.send("dog: pay 100")  # he is still talking (queued speech) when the card goes
        _stop_pulse(daemon)
        g.send("dog: pass go")
        os.write(g.master, b"1")  # the button key: a bare press now (no auction: nothing happens)
        g.send("cat: what's my balance")
        seen = g.until_line(lambda ln: ln.startswith("The cat has") and "1,700" in ln, timeout=30)
        assert any("1,600" in ln for ln in seen), seen  # dog: paid 100, passed GO
        about_sound = _about_sound(seen + g.glance(2.0))
        assert len(about_sound) == 1, seen  # said once
        sentence = about_sound[0]
        assert sentence.count(".") == 1 and sentence.endswith("."), sentence  # one sentence
        assert "keyboard" in sentence or "typed" in sentence, sentence
        started = time.monotonic()
        assert g.end_input(timeout=10) == 0
        assert time.monotonic() - started < 10
        assert "Traceback" not in g.stderr()
    finally:
        g.close()
    assert state_json(game)["cash"] == {"cat": 1700, "dog": 1600}


def test_sound_device_lost_while_joining_presses_still_join(daemon: PulseDaemon,
                                                            tmp_path: Path) -> None:
    """Joining by buttons when the card goes: said once; each press then takes the next free
    token (nobody can be heard saying one), and the game is played with typed lines."""
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--game", str(game)], env=daemon.env)
    try:
        g.until_line(lambda ln: ln.startswith("Who's playing?"), timeout=60)
        _stop_pulse(daemon)
        lost = g.until_line(lambda ln: "sound" in ln, timeout=10)
        assert lost[-1].count(".") == 1, lost
        os.write(g.master, b"2")
        g.until_line(lambda ln: ln.startswith("Button 2, you're the T-Rex."), timeout=10)
        os.write(g.master, b"1")
        g.until_line(lambda ln: ln.startswith("Button 1, you're the Racecar."), timeout=10)
        seen = g.until_line(lambda ln: ln.startswith("Let's play"), timeout=15)  # 5 s after the last
        assert seen[-1] == "Let's play: T-Rex, Racecar.", seen
        g.send("trex: pass go")
        seen = g.until_line(lambda ln: "1,700" in ln, timeout=30)
        assert "T-Rex" in seen[-1], seen
        assert not _about_sound(seen + g.glance(1.0)), "said once only"
        started = time.monotonic()
        assert g.end_input(timeout=10) == 0
        assert time.monotonic() - started < 10
    finally:
        g.close()
    assert state_json(game)["cash"] == {"trex": 1700, "racecar": 1500}


# --- the devices themselves (in this process) --------------------------------------------------

@pytest.fixture
def devices(daemon: PulseDaemon, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """The real speaker and microphone (``banker.speech.audio``) on the private daemon."""
    from banker.speech.audio import open_audio

    monkeypatch.setenv("PULSE_RUNTIME_PATH", daemon.env["PULSE_RUNTIME_PATH"])
    monkeypatch.setenv("PULSE_SERVER", daemon.env["PULSE_SERVER"])
    player, mic = open_audio({}, 22050)
    try:
        yield player, mic
    finally:
        player.close()
        mic.close()


def _until(check: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``check()`` holds (fails after ``timeout``)."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "never happened"
        time.sleep(0.02)
    return time.monotonic() - started


def test_a_dead_sound_server_is_noticed_at_once(daemon: PulseDaemon, devices: tuple[Any, Any]) -> None:
    from banker.speech.audio import device_lost

    player, mic = devices
    _until(lambda: mic._last_callback is not None, 20)  # the microphone runs
    assert not device_lost(player) and not device_lost(mic)
    player.play(np.zeros(22050 * 5, dtype=np.int16))  # 5 s of sound queued
    assert player.busy()
    daemon.kill()
    assert _until(lambda: device_lost(player) and device_lost(mic), 5) < 2
    assert not player.busy()  # nothing waits for a speaker that isn't there
    player.play(np.zeros(22050, dtype=np.int16))
    assert not player.busy()


def test_a_hung_microphone_is_noticed(daemon: PulseDaemon, devices: tuple[Any, Any]) -> None:
    """The sound server stops answering (SIGSTOP) without closing anything: no callbacks."""
    from banker.speech.audio import MIC_STALL, device_lost

    _player, mic = devices
    _until(lambda: mic._last_callback is not None, 20)
    pid = int((daemon.runtime / "pid").read_text().split()[0])
    os.kill(pid, signal.SIGSTOP)
    try:
        took = _until(lambda: device_lost(mic), MIC_STALL + 5)
        assert took >= MIC_STALL - 1.0, took  # not before it has been quiet for a while
    finally:
        os.kill(pid, signal.SIGCONT)


def test_closing_is_not_losing(devices: tuple[Any, Any]) -> None:
    from banker.speech.audio import device_lost

    player, mic = devices
    _until(lambda: mic._last_callback is not None, 20)
    player.close()
    mic.close()
    time.sleep(0.3)
    assert not device_lost(player) and not device_lost(mic)


# --- stalls: of the banker itself, of the sound server ------------------------

SOUND_BACK = "The sound is back; press your button to speak."


def _silent_press_is_heard(g: PtyGame) -> None:
    """Voice is on: a press with nothing said is listened to, and answered (in keyboard mode a
    bare press with no auction or question says nothing)."""
    os.write(g.master, b"1")
    seen = g.until_line(lambda ln: "I didn't hear anything." in ln, timeout=30)
    assert not any("lost the sound" in ln for ln in seen), seen


def test_a_stall_of_the_banker_is_not_a_lost_device(daemon: PulseDaemon, tmp_path: Path) -> None:
    """The banker process stands still for 5.5 s (SIGSTOP, as under memory pressure) while the
    sound server and both streams stay alive: nothing is said about the sound, and voice goes on."""
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=daemon.env)
    try:
        g.until_prompt(timeout=60)
        assert any("1,700" in ln for ln in _answer(g, "cat: pass go"))
        time.sleep(3.0)  # the recogniser and the voice are loaded
        os.kill(g.proc.pid, signal.SIGSTOP)
        time.sleep(5.5)
        os.kill(g.proc.pid, signal.SIGCONT)
        assert not _about_sound(g.glance(4.0)), g.transcript
        _silent_press_is_heard(g)
        assert not _about_sound(g.transcript), g.transcript
    finally:
        g.close()
    assert state_json(game)["cash"]["cat"] == 1700


def test_a_hung_sound_server_that_answers_again_brings_voice_back(daemon: PulseDaemon,
                                                                 tmp_path: Path) -> None:
    """The sound server stops answering (SIGSTOP) long enough to be given up for lost, then
    answers again: the loss is said once, the return is said once, and voice is back."""
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=daemon.env)
    pid = int((daemon.runtime / "pid").read_text().split()[0])
    try:
        g.until_prompt(timeout=60)
        time.sleep(3.0)
        os.kill(pid, signal.SIGSTOP)
        try:
            g.until_line(lambda ln: "lost the sound device" in ln, timeout=20)
        finally:
            os.kill(pid, signal.SIGCONT)
        seen = g.until_line(lambda ln: SOUND_BACK in ln, timeout=20)
        seen += g.glance(2.0)
        assert sum(SOUND_BACK in ln for ln in seen) == 1, seen
        _silent_press_is_heard(g)
        about = _about_sound(g.transcript)
        assert len(about) == 2, about  # lost once, back once
        assert g.end_input(timeout=30) == 0
    finally:
        g.close()


def test_a_sound_server_that_starts_again_brings_voice_back(daemon: PulseDaemon,
                                                           tmp_path: Path) -> None:
    """The sound server dies (its streams end) and is started again: the devices are opened
    afresh by themselves, the return is said once, and presses are listened to again."""
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=daemon.env)
    try:
        g.until_prompt(timeout=60)
        time.sleep(3.0)
        _stop_pulse(daemon)
        g.until_line(lambda ln: "lost the sound device" in ln, timeout=20)
        g.send("cat: pass go")  # typed lines meanwhile
        g.until_line(lambda ln: "1,700" in ln, timeout=30)
        daemon.restart()
        seen = g.until_line(lambda ln: SOUND_BACK in ln, timeout=30)
        seen += g.glance(2.0)
        assert sum(SOUND_BACK in ln for ln in seen) == 1, seen
        _silent_press_is_heard(g)
        assert g.end_input(timeout=30) == 0
    finally:
        g.close()
    assert state_json(game)["cash"]["cat"] == 1700
