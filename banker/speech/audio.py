"""Sound in and out through sounddevice (PortAudio): a stoppable player and a microphone.

Receives int16 mono audio to play (at the voice's rate) and gives 30 ms int16 frames at
16 kHz from the microphone. Both streams stay open for the whole game: opening a stream per
utterance costs latency and clips the first syllable.

No usable device raises ``AudioError`` with one plain sentence; the front end says it and
carries on with typed lines.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Pcm = npt.NDArray[np.int16]

MIC_RATE = 16000
FRAME = 480  # 30 ms at 16 kHz: a webrtcvad frame
NO_DEVICE = "I can't open a microphone and a speaker, so we'll play with typed lines."


class AudioError(Exception):
    """No usable sound device: the message is one sentence for the table."""


class AudioOut(Protocol):
    rate: int

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None: ...
    def stop(self) -> None: ...
    def busy(self) -> bool: ...
    def close(self) -> None: ...


class AudioIn(Protocol):
    def frames(self) -> queue.Queue[bytes]: ...
    def close(self) -> None: ...


def _sd() -> Any:
    try:
        import sounddevice
    except OSError:  # libportaudio2 missing
        raise AudioError(NO_DEVICE) from None
    return sounddevice


def _device(value: Any) -> Any:
    """Config value -> sounddevice device: None (default), an index, or a name."""
    if value is None or value == "":
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    return str(value)


def resample(pcm: Pcm, src: int, dst: int) -> Pcm:
    """Linear resampling: plenty for speech cues when a device refuses the voice's rate."""
    if src == dst or not len(pcm):
        return pcm
    n = round(len(pcm) * dst / src)
    x = np.linspace(0, len(pcm) - 1, n)
    return np.interp(x, np.arange(len(pcm)), pcm.astype(np.float64)).astype(np.int16)


class Player:
    """The speaker: queued clips played by a PortAudio callback; ``stop()`` cuts them off.

    ``on_start`` of a clip is called (in the audio thread) with ``time.monotonic()`` when its
    first sample is handed to the device: that is what the latency bench measures.
    """

    def __init__(self, rate: int, device: Any = None, blocksize: int = 256) -> None:
        sd = _sd()
        self.rate = rate
        self.device_rate = rate
        self._clips: collections.deque[tuple[Pcm, Callable[[float], None] | None]] = collections.deque()
        self._current: Pcm | None = None
        self._pos = 0
        self._lock = threading.Lock()
        self._ends_at = 0.0
        self.played = 0  # samples handed to the device (tests check playback stopped)
        try:
            self.stream = self._open(sd, rate, device, blocksize)
        except Exception:  # any PortAudio failure: try the device's own rate
            try:
                info = sd.query_devices(_device(device), "output")
                self.device_rate = int(info["default_samplerate"])
                self.stream = self._open(sd, self.device_rate, device, blocksize)
            except Exception:
                raise AudioError(NO_DEVICE) from None
        self.latency = float(self.stream.latency)

    def _open(self, sd: Any, rate: int, device: Any, blocksize: int) -> Any:
        stream = sd.OutputStream(samplerate=rate, channels=1, dtype="int16", blocksize=blocksize,
                                 device=_device(device), callback=self._callback, latency="low")
        stream.start()
        return stream

    def _callback(self, outdata: Any, frames: int, _time: Any, _status: Any) -> None:
        out = outdata[:, 0]
        filled = 0
        with self._lock:
            while filled < frames:
                if self._current is None:
                    if not self._clips:
                        break
                    self._current, on_start = self._clips.popleft()
                    self._pos = 0
                    if on_start is not None:
                        on_start(time.monotonic())
                take = min(frames - filled, len(self._current) - self._pos)
                out[filled:filled + take] = self._current[self._pos:self._pos + take]
                filled += take
                self._pos += take
                if self._pos >= len(self._current):
                    self._current = None
            self.played += filled
            if filled:
                self._ends_at = time.monotonic() + frames / self.device_rate + self.latency
        if filled < frames:
            out[filled:] = 0

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None:
        clip = resample(pcm, self.rate, self.device_rate)
        with self._lock:
            self._clips.append((clip, on_start))
            self._ends_at = max(self._ends_at, time.monotonic() + self.latency)

    def stop(self) -> None:
        """Barge-in: drop everything queued and the rest of the current clip."""
        with self._lock:
            self._clips.clear()
            self._current = None
            self._ends_at = min(self._ends_at, time.monotonic() + self.latency)

    def busy(self) -> bool:
        """Still sounding (queued, playing, or in the device's buffer)."""
        with self._lock:
            return bool(self._clips) or self._current is not None or time.monotonic() < self._ends_at

    def wait(self, timeout: float = 30.0) -> bool:
        end = time.monotonic() + timeout
        while self.busy():
            if time.monotonic() > end:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        try:
            self.stream.stop()
            self.stream.close()
        except Exception:  # closing a dead device must not hide the real exit
            pass


class Microphone:
    """The microphone: 30 ms frames at 16 kHz into a queue, only while ``listening`` is set.

    Frames are dropped while nobody listens, so Mr. Monopoly's own voice (and the table's
    chatter) never piles up waiting to be recognised.
    """

    def __init__(self, device: Any = None) -> None:
        sd = _sd()
        self.listening = threading.Event()
        self._q: queue.Queue[bytes] = queue.Queue()
        self.device_rate = MIC_RATE
        self._buf = np.zeros(0, dtype=np.int16)
        try:
            self.stream = self._open(sd, MIC_RATE, device)
        except Exception:
            try:
                info = sd.query_devices(_device(device), "input")
                self.device_rate = int(info["default_samplerate"])
                self.stream = self._open(sd, self.device_rate, device)
            except Exception:
                raise AudioError(NO_DEVICE) from None

    def _open(self, sd: Any, rate: int, device: Any) -> Any:
        block = FRAME if rate == MIC_RATE else int(rate * 0.03)
        stream = sd.InputStream(samplerate=rate, channels=1, dtype="int16", blocksize=block,
                                device=_device(device), callback=self._callback, latency="low")
        stream.start()
        return stream

    def _callback(self, indata: Any, _frames: int, _time: Any, _status: Any) -> None:
        if not self.listening.is_set():
            return
        pcm = np.asarray(indata[:, 0], dtype=np.int16)
        if self.device_rate != MIC_RATE:
            pcm = resample(pcm, self.device_rate, MIC_RATE)
        self._buf = np.concatenate([self._buf, pcm])
        while len(self._buf) >= FRAME:
            self._q.put(self._buf[:FRAME].tobytes())
            self._buf = self._buf[FRAME:]

    def frames(self) -> queue.Queue[bytes]:
        return self._q

    def start_listening(self) -> None:
        self.flush()
        self.listening.set()

    def stop_listening(self) -> None:
        self.listening.clear()

    def flush(self) -> None:
        self._buf = np.zeros(0, dtype=np.int16)
        while True:
            try:
                self._q.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        self.listening.clear()
        try:
            self.stream.stop()
            self.stream.close()
        except Exception:
            pass


def open_audio(config: dict[str, Any], rate: int) -> tuple[Player, Microphone]:
    """Both ends or ``AudioError``: a game needs to hear *and* speak."""
    audio = config.get("audio") or {}
    player = Player(rate, audio.get("output_device"))
    try:
        mic = Microphone(audio.get("input_device"))
    except AudioError:
        player.close()
        raise
    return player, mic
