"""Faults of the sound side, on a private PulseAudio virtual card (as ``tests/speech_live``).

* the speech model folder is missing (vosk configured with a folder that isn't there): one
  sentence, the game goes on with the other engine;
* the sound device disappears in the middle of a game (the PulseAudio server dies): typed
  lines go on working and nothing is lost. Saying so in one sentence and ending promptly on
  Ctrl-D is the voice front end's job (``banker/frontends/voice.py``): see the strict xfail.

PulseAudio must be installed (``apt-get install pulseaudio pulseaudio-utils libportaudio2``):
like the live speech tests, these fail loudly rather than skip when it is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import PtyGame, assert_one_sentence, clean_env, state_json


@pytest.fixture
def pulse(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private PulseAudio with a null speaker and microphone; yields the child env."""
    exe = shutil.which("pulseaudio")
    assert exe, "pulseaudio is not installed: apt-get install pulseaudio pulseaudio-utils libportaudio2"
    runtime = Path(tempfile.mkdtemp(prefix="banker-pulse-"))
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), PULSE_RUNTIME_PATH=str(runtime),
                    PULSE_SERVER=f"unix:{runtime}/native")
    env.pop("PULSE_SINK", None)
    env.pop("PULSE_SOURCE", None)
    subprocess.run([exe, "--daemonize=yes", "--exit-idle-time=-1", "--system=false", "-n",
                    "--load=module-null-sink sink_name=spk",
                    "--load=module-null-sink sink_name=micsrc",
                    "--load=module-native-protocol-unix"],
                   env=env, check=True, capture_output=True, timeout=20)
    for _ in range(100):
        if (runtime / "native").exists():
            break
        time.sleep(0.05)
    for cmd in (["pactl", "set-default-sink", "spk"], ["pactl", "set-default-source", "micsrc.monitor"]):
        subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=20)
    try:
        yield env
    finally:
        subprocess.run([exe, "-k"], env=env, capture_output=True, timeout=20)
        shutil.rmtree(runtime, ignore_errors=True)


def _stop_pulse(env: dict[str, str]) -> None:
    exe = shutil.which("pulseaudio")
    assert exe
    subprocess.run([exe, "-k"], env=env, capture_output=True, timeout=20)
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


def test_sound_device_disappears_nothing_is_lost(pulse: dict[str, str], tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=pulse)
    try:
        greeting = g.until_prompt(timeout=60)
        assert not any("microphone" in ln for ln in greeting), "the virtual card was not used"
        assert any("1,700" in ln for ln in _answer(g, "cat: pass go"))
        _stop_pulse(pulse)  # speaker and microphone are gone
        g.send("press 1")  # a button press: listening on a microphone that isn't there
        time.sleep(1.0)
        g.send("dog: pass go")
        g.until_line(lambda ln: "passes GO" in ln or "passing GO" in ln, timeout=30)
        assert "1,700" in g.transcript[-1], g.transcript
        g.send("cat: what's my balance")
        g.until_line(lambda ln: ln.startswith("Cat has"), timeout=30)
        assert "1,700" in g.transcript[-1], g.transcript
        view = state_json(game)  # read while the game runs
        assert view["cash"] == {"cat": 1700, "dog": 1700}
    finally:
        g.close()  # SIGKILL if it is still running
    assert state_json(game)["cash"] == {"cat": 1700, "dog": 1700}


@pytest.mark.xfail(strict=True, reason="voice.py: a lost sound device is not announced, and the "
                   "exit waits for the dead speaker (up to 60 s)")
def test_sound_device_loss_is_announced_and_ctrl_d_ends_promptly(pulse: dict[str, str],
                                                               tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--players", "cat,dog", "--game", str(game)], env=pulse)
    try:
        g.until_prompt(timeout=60)
        _answer(g, "cat: pass go")
        _stop_pulse(pulse)
        answer = _answer(g, "dog: pass go") + g.glance(2.0)
        about_sound = [ln for ln in answer if any(w in ln.lower() for w in
                                                  ("sound", "microphone", "speaker", "audio"))]
        assert len(about_sound) == 1, answer
        started = time.monotonic()
        assert g.end_input(timeout=10) == 0
        assert time.monotonic() - started < 10
    finally:
        g.close()
