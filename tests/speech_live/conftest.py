"""A virtual sound card for the live tests: PulseAudio null sinks as speaker and microphone.

``spk`` is where banker plays (default sink); ``micsrc`` is where a test "speaks" (paplay),
and banker records its monitor (default source). The daemon is started and stopped by
``tests/pulse_card.py`` (shared with the robustness tests): a missing ``pulseaudio`` fails these
tests loudly rather than skipping them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from pulse_card import start_pulse

ROOT = Path(__file__).resolve().parents[2]
Pcm = npt.NDArray[np.int16]


@dataclass
class SoundCard:
    runtime: Path
    env: dict[str, str]

    def speak_into_mic(self, wav: Path, wait: bool = True) -> subprocess.Popen[bytes]:
        """Play a WAV into the virtual microphone (what a player says)."""
        p = subprocess.Popen(["paplay", "--device=micsrc", str(wav)], env=self.env)
        if wait:
            p.wait(timeout=30)
        return p

    def record_speaker(self, path: Path) -> Recording:
        """Record what banker plays, 16 kHz mono, until ``stop()``."""
        p = subprocess.Popen(["parecord", "--device=spk.monitor", "--rate=16000", "--channels=1",
                              "--format=s16le", "--raw", str(path)], env=self.env)
        time.sleep(0.15)
        return Recording(p, path)


@dataclass
class Recording:
    proc: subprocess.Popen[bytes]
    path: Path

    def stop(self) -> Pcm:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        return np.frombuffer(self.path.read_bytes(), dtype="<i2").astype(np.int16)


@pytest.fixture(scope="session")
def sound_card() -> Iterator[SoundCard]:
    """One private daemon for the session; this process's PulseAudio clients use it too."""
    daemon = start_pulse(os.environ)
    saved = {k: os.environ.get(k) for k in ("PULSE_RUNTIME_PATH", "PULSE_SERVER")}
    os.environ["PULSE_RUNTIME_PATH"] = daemon.env["PULSE_RUNTIME_PATH"]
    os.environ["PULSE_SERVER"] = daemon.env["PULSE_SERVER"]
    try:
        yield SoundCard(daemon.runtime, daemon.env)
    finally:
        daemon.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def echo(sound_card: SoundCard) -> Iterator[None]:
    """The microphone hears the speaker, 20 dB down (a laptop at a table): a PulseAudio
    loopback from the speaker's monitor into the microphone, for one test."""
    env = sound_card.env
    index = subprocess.run(["pactl", "load-module", "module-loopback", "source=spk.monitor",
                            "sink=micsrc", "latency_msec=30", "source_dont_move=true",
                            "sink_dont_move=true"], env=env, check=True, capture_output=True,
                           text=True, timeout=20).stdout.strip()
    try:
        end = time.monotonic() + 10
        inputs: list[str] = []
        while not inputs and time.monotonic() < end:
            rows = subprocess.run(["pactl", "list", "short", "sink-inputs"], env=env, check=True,
                                  capture_output=True, text=True, timeout=20).stdout.splitlines()
            inputs = [r.split()[0] for r in rows if "module-loopback" in r]
            time.sleep(0.1)
        assert inputs, "the loopback has no stream into the microphone"
        for sink_input in inputs:
            subprocess.run(["pactl", "set-sink-input-volume", sink_input, "-20dB"], env=env,
                           check=True, capture_output=True, timeout=20)
        yield
    finally:
        subprocess.run(["pactl", "unload-module", index], env=env, capture_output=True, timeout=20)


@pytest.fixture(scope="session")
def tts(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One real piper voice for the session, with its own empty disk cache."""
    from banker.speech.tts import PiperTTS

    voice = PiperTTS("joe-us", cache_dir=tmp_path_factory.mktemp("tts-cache"))
    yield voice
    voice.close()


def to16k(pcm: Pcm, rate: int) -> Pcm:
    from banker.speech.audio import resample

    return resample(pcm, rate, 16000)


def write_wav(path: Path, pcm: Pcm, rate: int) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.astype("<i2").tobytes())
    return path


@pytest.fixture(scope="session")
def said(tts, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``said("what's my balance")`` -> a 16 kHz WAV of piper saying it (cached per session)."""
    folder = tmp_path_factory.mktemp("said")
    made: dict[str, Path] = {}

    def make(text: str, silence: float = 0.3) -> Path:
        if text not in made:
            pcm = to16k(tts.speak_all(text), tts.sample_rate)
            pad = np.zeros(int(16000 * silence), dtype=np.int16)
            name = "".join(c if c.isalnum() else "_" for c in text)[:60]
            made[text] = write_wav(folder / f"{name}.wav", np.concatenate([pad, pcm, pad]), 16000)
        return made[text]
    return make


_DECODER = None


def decode(pcm: Pcm) -> str:
    """What pocketsphinx (general English model) hears in 16 kHz audio: how a listener at the
    table would check that Mr. Monopoly said the amount."""
    global _DECODER
    if _DECODER is None:
        from pocketsphinx import Decoder

        _DECODER = Decoder(samprate=16000, loglevel="FATAL")
    d = _DECODER
    d.start_utt()
    # the null sink records digital silence while nothing plays: keep only what sounded
    frames = pcm[: len(pcm) // 160 * 160].reshape(-1, 160)
    loud = np.abs(frames.astype(np.int32)).max(axis=1) > 0
    keep = np.convolve(loud, np.ones(31), mode="same") > 0  # and 150 ms around it
    pcm = frames[keep].reshape(-1)
    pad = np.zeros(4800, dtype=np.int16)  # silence around it, as in a room
    d.process_raw(np.concatenate([pad, pcm.astype(np.int16), pad]).astype("<i2").tobytes(),
                  full_utt=True)
    d.end_utt()
    hyp = d.hyp()
    return hyp.hypstr if hyp is not None else ""
