"""Mr. Monopoly's sound effects, generated with numpy (no recorded samples to license).

``python -m banker.speech.sfx [FOLDER]`` writes ``beep.wav``, ``cash_register.wav`` and
``gavel.wav`` (the small files committed in ``audio/``); the front end loads them from the
data folder and regenerates one in memory if a file is missing.
"""

from __future__ import annotations

import sys
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

RATE = 22050
Pcm = npt.NDArray[np.int16]


def _t(seconds: float) -> npt.NDArray[np.float64]:
    return np.arange(int(RATE * seconds)) / RATE


def _fade(x: npt.NDArray[np.float64], ms: float = 5.0) -> npt.NDArray[np.float64]:
    """Short ramps at both ends, so a clip never clicks."""
    n = min(len(x) // 2, int(RATE * ms / 1000))
    if n:
        ramp = np.linspace(0.0, 1.0, n)
        x[:n] *= ramp
        x[-n:] *= ramp[::-1]
    return x


def _pcm(x: npt.NDArray[np.float64], level: float = 0.5) -> Pcm:
    peak = float(np.max(np.abs(x))) or 1.0
    return (x / peak * level * 32767).astype(np.int16)


def beep() -> Pcm:
    """The "I'm listening" cue: 90 ms at 880 Hz, short so it barely delays the player."""
    t = _t(0.09)
    return _pcm(_fade(np.sin(2 * np.pi * 880 * t)), 0.4)


def cash_register() -> Pcm:
    """A bell ding over a short drawer rattle: money has moved."""
    t = _t(0.7)
    bell = sum(np.sin(2 * np.pi * f * t) * np.exp(-t * d)
               for f, d in ((2093.0, 4.0), (2637.0, 5.0), (4186.0, 7.0)))
    rng = np.random.default_rng(7)
    rattle = rng.standard_normal(len(t)) * np.exp(-((t - 0.05) ** 2) / 0.002) * 0.6
    return _pcm(_fade(bell + rattle), 0.5)


def gavel() -> Pcm:
    """Two wooden knocks: an auction is closed."""
    t = _t(0.12)
    rng = np.random.default_rng(11)
    knock = (np.sin(2 * np.pi * 180 * t) + 0.5 * np.sin(2 * np.pi * 420 * t)
             + 0.3 * rng.standard_normal(len(t))) * np.exp(-t * 45)
    gap = np.zeros(int(RATE * 0.18))
    return _pcm(_fade(np.concatenate([knock, gap, knock * 0.8])), 0.6)


EFFECTS: dict[str, Callable[[], Pcm]] = {
    "beep": beep, "cash_register": cash_register, "gavel": gavel}


def write_wav(path: Path, pcm: Pcm, rate: int = RATE) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.astype("<i2").tobytes())


def read_wav(path: Path) -> tuple[Pcm, int]:
    """Mono 16-bit samples and rate (the first channel of a stereo file)."""
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2:
            raise ValueError(f"{path} is not 16-bit PCM.")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        if w.getnchannels() > 1:
            data = data[:: w.getnchannels()]
        return data.astype(np.int16), w.getframerate()


def load(name: str, folder: Path | None = None) -> Pcm:
    """An effect at ``RATE``: the committed WAV if present, else generated."""
    from banker.paths import audio_dir

    path = (folder or audio_dir()) / f"{name}.wav"
    if path.exists():
        try:
            pcm, rate = read_wav(path)
            if rate == RATE:
                return pcm
        except (OSError, ValueError, wave.Error):
            pass
    return EFFECTS[name]()


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path("audio")
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in EFFECTS.items():
        write_wav(folder / f"{name}.wav", make())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
