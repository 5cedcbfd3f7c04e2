"""WAV input: any PCM WAV becomes 16 kHz mono int16; a bad file is one plain sentence."""

from __future__ import annotations

import struct
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


ALAW_WAV = (b"RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x06\x00\x01\x00"
            b"\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data\x08\x00\x00\x00" + bytes(8))


def riff(samples: bytes, rate: int, bits: int, tag: int, extensible: bool = False) -> bytes:
    """A mono WAV file's bytes: format ``tag`` (1 PCM, 3 float), plain or in the extensible
    layout (the sub-format's first two bytes carry the tag), as recorders and sox write them."""
    align = bits // 8
    head = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, 1, rate, rate * align, align, bits)
    if extensible:
        head += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H", tag) + bytes(14)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(head)) + head
    body += b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _tone(rate: int) -> np.ndarray:
    return np.sin(2 * np.pi * 440 * np.arange(rate) / rate) * 0.5


@pytest.mark.parametrize(("bits", "tag", "extensible"), [
    (32, 3, False), (32, 3, True), (64, 3, False), (32, 1, True), (24, 1, True), (16, 1, True)])
def test_float_and_extensible_wavs_are_converted(tmp_path: Path, bits: int, tag: int,
                                                 extensible: bool) -> None:
    x = _tone(48000)
    if tag == 3:
        raw = x.astype("<f4" if bits == 32 else "<f8").tobytes()
    else:
        ints = np.round(x * (1 << (bits - 1))).astype("<i4")
        raw = b"".join(int(v).to_bytes(4, "little", signed=True)[:bits // 8] for v in ints)
    (tmp_path / "f.wav").write_bytes(riff(raw, 48000, bits, tag, extensible))
    pcm = read_wav(tmp_path / "f.wav")
    assert pcm.dtype == np.int16 and abs(len(pcm) - 16000) <= 1
    assert 15000 < np.abs(pcm).max() < 17500  # half scale


@pytest.mark.parametrize(("content", "says"), [
    (None, "does not exist"),
    (b"hello, not audio", "is not a WAV file"),
    (ALAW_WAV, "is not a PCM or float WAV file"),
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
