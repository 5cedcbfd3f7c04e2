"""WAV input: any PCM WAV becomes 16 kHz mono int16; a bad file is one plain sentence."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from banker.speech.base import AudioFileError, read_wav, speech_span


def _write(path: Path, data: bytes, rate: int, width: int, channels: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data)


def test_stereo_44k_24bit_is_converted(tmp_path: Path) -> None:
    t = np.arange(44100) / 44100
    tone = (np.sin(2 * np.pi * 440 * t) * 0.5 * (1 << 23)).astype(np.int32)
    stereo = np.repeat(tone, 2)
    raw = b"".join(int(v).to_bytes(4, "little", signed=True)[:3] for v in stereo)
    _write(tmp_path / "a.wav", raw, 44100, 3, 2)
    pcm = read_wav(tmp_path / "a.wav")
    assert pcm.dtype == np.int16 and abs(len(pcm) - 16000) <= 1
    assert 14000 < np.abs(pcm).max() < 17500  # half scale survives resampling


def test_8bit_mono_at_16k(tmp_path: Path) -> None:
    _write(tmp_path / "b.wav", bytes([128, 255, 128, 0] * 4000), 16000, 1, 1)
    pcm = read_wav(tmp_path / "b.wav")
    assert len(pcm) == 16000 and pcm.max() > 30000 and pcm.min() < -30000


FLOAT_WAV = (b"RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x03\x00\x01\x00"
             b"\x80\x3e\x00\x00\x00\xfa\x00\x00\x04\x00\x20\x00data\x08\x00\x00\x00" + bytes(8))


@pytest.mark.parametrize(("content", "says"), [
    (None, "does not exist"),
    (b"hello, not audio", "is not a WAV file"),
    (FLOAT_WAV, "is not an integer PCM WAV file"),
    (b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00", "is cut short"),
])
def test_bad_files_are_one_sentence(tmp_path: Path, content: bytes | None, says: str) -> None:
    path = tmp_path / "x.wav"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(AudioFileError) as exc:
        read_wav(path)
    msg = str(exc.value)
    assert says in msg and msg.endswith(".") and "\n" not in msg
    with pytest.raises(AudioFileError, match="folder"):
        read_wav(tmp_path)


def test_speech_span_finds_the_loud_stretch_in_background_talk() -> None:
    rng = np.random.default_rng(0)
    background = rng.normal(0, 300, 48000)
    speech = np.zeros(48000)
    speech[16000:32000] = rng.normal(0, 3000, 16000)
    lo, hi = speech_span((background + speech).astype(np.int16))
    assert 12000 <= lo <= 16000 and 32000 <= hi <= 36000
    flat = rng.normal(0, 300, 16000).astype(np.int16)
    assert speech_span(flat) == (0, 16000)  # nothing stands out: keep it all
