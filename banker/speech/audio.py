"""Sound in and out through sounddevice (PortAudio): a stoppable player and a microphone.

Receives int16 mono audio to play (at the voice's rate) and gives 30 ms int16 frames at
16 kHz from the microphone. Both streams stay open for the whole game: opening a stream per
utterance costs latency and clips the first syllable.

No usable device raises ``AudioError`` with one plain sentence; the front end says it and
carries on with typed lines. A device that goes away during the game (unplugged, the sound
server died) is noticed by ``device_lost``: PortAudio ends the stream (its finished callback
runs without anyone having stopped it), or the microphone's callbacks stop coming. The
front end polls it, says ``DEVICE_LOST`` once and carries on with typed lines; a lost player
takes no more clips and is never busy, so nothing waits for a speaker that isn't there.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from banker.speech.protocols import AudioIn, AudioOut, drain

Pcm = npt.NDArray[np.int16]
__all__ = [
    "DEVICE_LOST",
    "MIC_STALL",
    "NO_DEVICE",
    "AudioError",
    "AudioIn",
    "AudioOut",
    "Microphone",
    "Player",
    "device_lost",
    "open_audio",
    "resample",
]

MIC_RATE = 16000
FRAME = 480  # 30 ms at 16 kHz: a webrtcvad frame
NO_DEVICE = "I can't open a microphone and a speaker, so we'll play with typed lines."
DEVICE_LOST = "I've lost the sound device, so we'll carry on with typed lines."
MIC_STALL = 5.0  # s without a microphone callback on a running stream: the device is gone
MIC_START = 15.0  # s from opening the microphone to its first callback (PulseAudio: ~2 s)


class AudioError(Exception):
    """No usable sound device: the message is one sentence for the table."""


_ALSA_QUIET: list[Any] = []  # keeps the ctypes callback alive


def _quiet_alsa() -> None:
    """ALSA prints "underrun occurred" and device probing noise straight to stderr, over the
    table's transcript; route it nowhere (harmless if libasound isn't there)."""
    if _ALSA_QUIET:
        return
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("asound")
    if not name:
        _ALSA_QUIET.append(None)
        return
    try:
        lib = ctypes.CDLL(name)
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                        ctypes.c_int, ctypes.c_char_p)
        handler = handler_type(lambda *_args: None)
        lib.snd_lib_error_set_handler(handler)
        _ALSA_QUIET.append(handler)
    except (OSError, AttributeError):
        _ALSA_QUIET.append(None)


def device_lost(device: object) -> bool:
    """True once a sound device has gone away; devices without a ``lost()`` never do."""
    check = getattr(device, "lost", None)
    return bool(check()) if callable(check) else False


class _Watched:
    """A stream that notices when it ends without having been closed (the device is gone)."""

    stream: Any

    def _watch_init(self) -> None:
        self._closing = False
        self._ended = False  # PortAudio ended the stream by itself

    def _finished(self) -> None:
        """PortAudio's finished callback: after ``close()``, or because the device failed."""
        if not self._closing:
            self._ended = True

    def _stream_lost(self) -> bool:
        if self._closing:
            return False
        if self._ended:
            return True
        try:
            return not bool(self.stream.active)
        except Exception:  # a stream PortAudio no longer knows
            return True


def _sd() -> Any:
    _quiet_alsa()
    try:
        import sounddevice
    except OSError:  # libportaudio2 missing
        raise AudioError(NO_DEVICE) from None
    try:
        found = len(sounddevice.query_devices())
    except Exception:
        found = 0
    if not found:
        # PortAudio lists devices once, when loaded: look again for a sound server or a USB
        # card that came up after that.
        try:
            sounddevice._terminate()
            sounddevice._initialize()
        except Exception:
            raise AudioError(NO_DEVICE) from None
    return sounddevice


def _device(value: Any) -> Any:
    """Config value -> sounddevice device: None (default), an index, or a name."""
    if value is None or value == "":
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isdecimal()):
        return int(value)
    return str(value)


def resample(pcm: Pcm, src: int, dst: int) -> Pcm:
    """Linear resampling: plenty for speech cues when a device refuses the voice's rate."""
    if src == dst or not len(pcm):
        return pcm
    n = round(len(pcm) * dst / src)
    x = np.linspace(0, len(pcm) - 1, n)
    return np.interp(x, np.arange(len(pcm)), pcm.astype(np.float64)).astype(np.int16)


class Player(_Watched):
    """The speaker: queued clips played by a PortAudio callback; ``stop()`` cuts them off.

    ``on_start`` of a clip is called (in the audio thread) with ``time.monotonic()`` when its
    first sample is handed to the device: that is what the latency bench measures.
    """

    def __init__(self, rate: int, device: Any = None, blocksize: int = 512) -> None:
        sd = _sd()
        self.rate = rate
        self.device_rate = rate
        self._clips: collections.deque[tuple[Pcm, Callable[[float], None] | None]] = collections.deque()
        self._current: Pcm | None = None
        self._pos = 0
        self._lock = threading.Lock()
        self._ends_at = 0.0
        self.played = 0  # samples handed to the device (tests check playback stopped)
        self._watch_init()
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
                                 device=_device(device), callback=self._callback, latency="low",
                                 finished_callback=self._finished)
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

    def lost(self) -> bool:
        """The speaker has gone away (the stream ended without ``close()``)."""
        return self._stream_lost()

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None:
        if self.lost():
            return  # nobody would ever take it: it must not keep the player "busy"
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
        """Still sounding (queued, playing, or in the device's buffer); never, once lost."""
        if self.lost():
            return False
        with self._lock:
            return bool(self._clips) or self._current is not None or time.monotonic() < self._ends_at

    def sounding_until(self) -> float:
        """When the last sample handed out will have left the loudspeaker (monotonic)."""
        with self._lock:
            return self._ends_at

    def wait(self, timeout: float = 30.0) -> bool:
        end = time.monotonic() + timeout
        while self.busy():
            if time.monotonic() > end:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        self._closing = True
        try:
            self.stream.stop()
            self.stream.close()
        except Exception:  # closing a dead device must not hide the real exit
            pass


class Microphone(_Watched):
    """The microphone: 30 ms frames at 16 kHz into a queue, only while ``listening`` is set.

    Frames are dropped while nobody listens, so Mr. Monopoly's own voice (and the table's
    chatter) never piles up waiting to be recognised.
    """

    PREROLL = 2.0  # s of recent frames kept while nobody listens

    def __init__(self, device: Any = None) -> None:
        sd = _sd()
        self.listening = threading.Event()
        self._q: queue.Queue[bytes] = queue.Queue()
        self._recent: collections.deque[tuple[float, bytes]] = collections.deque(
            maxlen=int(self.PREROLL / 0.03))
        self._lock = threading.Lock()
        self._samples = 0
        self._anchor = float("inf")
        self._since = 0.0  # while listening, frames captured before this are left out
        self.device_rate = MIC_RATE
        self._buf = np.zeros(0, dtype=np.int16)
        self._watch_init()
        self._opened = time.monotonic()
        self._last_callback: float | None = None
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
                                device=_device(device), callback=self._callback, latency="low",
                                finished_callback=self._finished)
        stream.start()
        return stream

    def _callback(self, indata: Any, _frames: int, _time: Any, _status: Any) -> None:
        pcm = np.asarray(indata[:, 0], dtype=np.int16)
        if self.device_rate != MIC_RATE:
            pcm = resample(pcm, self.device_rate, MIC_RATE)
        now = time.monotonic()
        self._last_callback = now
        with self._lock:
            # When was each sample captured? Callbacks can come late and in bursts (a busy
            # CPU), so count samples from an anchor: the earliest the stream could have
            # started, given every callback so far (allowing a little clock drift).
            self._samples += len(pcm)
            self._anchor = min(self._anchor + 5e-5, now - self._samples / MIC_RATE)
            first = self._samples - len(pcm) - len(self._buf)  # index of self._buf[0] after concat
            self._buf = np.concatenate([self._buf, pcm])
            n = len(self._buf) // FRAME
            for i in range(n):
                frame = self._buf[i * FRAME:(i + 1) * FRAME].tobytes()
                captured = self._anchor + (first + i * FRAME) / MIC_RATE  # its first sample
                if self.listening.is_set() and captured >= self._since:
                    self._q.put(frame)
                elif not self.listening.is_set():
                    self._recent.append((captured, frame))
            self._buf = self._buf[n * FRAME:]

    def frames(self) -> queue.Queue[bytes]:
        return self._q

    def lost(self) -> bool:
        """The microphone has gone away: its stream ended without ``close()``, or it stopped
        delivering sound (a device can hang without PortAudio noticing)."""
        if self._stream_lost():
            return True
        if self._closing:
            return False
        last = self._last_callback
        now = time.monotonic()
        return now - last > MIC_STALL if last is not None else now - self._opened > MIC_START

    def start_listening(self, since: float | None = None) -> None:
        """Listen from ``since`` (a ``time.monotonic()`` moment): in the last two seconds when
        the listener got going late (the player's first word isn't lost), or still to come,
        after the beep has sounded (the beep, heard by the microphone, is not speech)."""
        with self._lock:
            drain(self._q)
            self._since = since if since is not None else 0.0
            if since is not None:
                for captured, frame in self._recent:
                    if captured >= since:
                        self._q.put(frame)
            self._recent.clear()
            self.listening.set()

    def stop_listening(self) -> None:
        self.listening.clear()

    def flush(self) -> None:
        with self._lock:
            drain(self._q)

    def close(self) -> None:
        self._closing = True
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
