"""The devices and models for one sitting: speaker, microphone, voice, recogniser, buttons.

Opened once (``open_voice``) and shared by joining and playing. The voice and the recogniser
load in the background; a watchdog notices the sound device going away (unplugged, the sound
server died) and posts ``SoundLost`` once: Mr. Monopoly says so in one sentence
(``audio.DEVICE_LOST``, printed, and spoken only if the speaker still works) and the game goes
on in keyboard mode.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from banker.editions.model import Edition
from banker.frontends.voice.events import (
    EndOfInput,
    InputEvent,
    KeyInput,
    SoundBack,
    SoundLost,
    TypedInput,
)
from banker.frontends.voice.phone_audio import PhoneEars
from banker.frontends.voice.speaker import Speaker
from banker.frontends.voice.trace import trace
from banker.speech.audio import DEVICE_LOST, AudioError, device_lost
from banker.speech.buttons import ButtonEvent, Buttons, TerminalKeys, input_devices, key_map
from banker.speech.denoise import Denoiser, LiveCleaner
from banker.speech.protocols import FOCI, AudioIn, AudioOut, Heard, Pcm, Recognizer, Synthesizer

EVDEV_ECHO = 0.5  # s: a terminal key this soon after the same input-device key is its echo
WATCH_EVERY = 0.2  # s between looks at the sound devices
STALL_GAP = 1.0  # s the watchdog's own wait may overrun before it counts as a stall of ours
STALL_GRACE = 2.0  # s after a stall of ours for the devices to call back before judging them
REOPEN_EVERY = 2.0  # s between tries to open the devices again after they ended
MIC_START_GRACE = 3.0  # s a reopened microphone gets for its first callback before it is judged
LOST_WAIT = 5.0  # s the exit waits for the last words when the sound device is gone


class AudioUnavailable(Exception):
    """No microphone or speaker: ``str()`` is the one sentence said before keyboard mode."""


@dataclass
class TurnTiming:
    """One spoken turn's stopwatch (monotonic seconds)."""

    token: str
    reason: str
    ended_at: float  # end of turn decided (VAD / release / press)
    decoded_at: float
    text: str
    first_audio: float | None = None  # first sample of the spoken reply handed to the device


@dataclass
class VoiceIO:
    """Everything opened once for the sitting: player, microphone, voice, buttons, events."""

    config: dict[str, Any]
    player: AudioOut
    mic: AudioIn
    out: TextIO
    keys: dict[str, int]
    events: queue.Queue[InputEvent] = field(default_factory=queue.Queue)
    key_tokens: dict[str, str] = field(default_factory=dict)  # set by joining
    live_keys: Callable[[str], bool] = lambda _k: True
    sources: list[Buttons] = field(default_factory=list)
    recognizer_factory: Callable[[Edition], Recognizer] | None = None
    reopen: Callable[[], tuple[AudioOut, AudioIn]] | None = None  # None: devices given, not opened
    phones: PhoneEars | None = None  # the players' phones (buttons and close microphones)
    _tts: Synthesizer | None = None
    _tts_error: BaseException | None = None
    _tts_ready: threading.Event = field(default_factory=threading.Event)
    _own_tts: bool = False
    _recognizers: dict[str, Recognizer] = field(default_factory=dict)
    _speaker: Speaker | None = None
    _denoiser: tuple[Denoiser, str] | None = None  # (Denoiser, mode) once loaded
    _denoiser_loaded: threading.Event = field(default_factory=threading.Event)
    beep: Pcm | None = None
    effects: dict[str, Pcm] = field(default_factory=dict)
    timings: list[TurnTiming] = field(default_factory=list)
    lost: threading.Event = field(default_factory=threading.Event)  # the sound device went away
    _closed: threading.Event = field(default_factory=threading.Event)
    _last_evdev: dict[str, float] = field(default_factory=dict)
    _lost_lock: threading.Lock = field(default_factory=threading.Lock)

    # -- the voice, loaded in the background -----------------------------------------------
    def load_tts_async(self, tts: Synthesizer | None = None) -> None:
        if tts is not None:
            self._tts = tts
            self._tts_ready.set()
            return
        self._own_tts = True

        def load() -> None:
            try:
                from banker.speech.tts import load_tts

                voice = load_tts(self.config)
                voice.warm([])  # the first onnx run is slow: pay it before anyone speaks
                self._tts = voice
            except BaseException as exc:  # reported when first needed
                self._tts_error = exc
            finally:
                self._tts_ready.set()
        threading.Thread(target=load, name="tts-load", daemon=True).start()

    def tts(self) -> Synthesizer:
        self._tts_ready.wait()
        if self._tts is None:
            raise AudioUnavailable(str(self._tts_error) if self._tts_error else "The voice can't be loaded.")
        return self._tts

    def ready(self, edition: Edition, timeout: float = 60.0) -> bool:
        """Block until the voice and the recogniser for ``edition`` are loaded."""
        try:
            self.tts()
        except AudioUnavailable:
            return False
        rec = self.recognizer(edition)
        wait = getattr(rec, "ready", None)
        ok = bool(wait(timeout)) if wait is not None else True
        self._denoiser_loaded.wait(timeout)
        return ok

    def __post_init__(self) -> None:
        # made here, not on first use: two threads asking at once must not get two speakers
        self._speaker = Speaker(self.tts, self.player, self._line_started)

    @property
    def speaker(self) -> Speaker:
        assert self._speaker is not None
        return self._speaker

    def _line_started(self, text: str, t: float) -> None:
        trace(f"first sound of {text[:40]!r}")
        for tt in reversed(self.timings):
            if tt.first_audio is None:
                tt.first_audio = t
            break

    # -- the recogniser and the noise filter -------------------------------------------------
    def recognizer(self, edition: Edition) -> Recognizer:
        """The recogniser for ``edition``, loaded once: in a process of its own
        (``asr_process``) unless a factory was given."""
        if edition.id not in self._recognizers:
            if self.recognizer_factory is None:
                self._recognizers[edition.id] = self._process_recognizer(edition)
            else:
                self._denoiser_loaded.set()  # the factory's engine filters noise itself
                rec = _Serialised(self.recognizer_factory(edition))
                threading.Thread(target=rec.warm, name="asr-warm", daemon=True).start()
                self._recognizers[edition.id] = rec
        return self._recognizers[edition.id]

    def use_recognizer(self, edition: Edition, recognizer: Recognizer) -> None:
        """Recognise ``edition`` with this one (a table that loads it only when needed)."""
        self._recognizers[edition.id] = recognizer
        self._denoiser_loaded.set()

    def _process_recognizer(self, edition: Edition) -> Recognizer:
        from banker.speech.asr_process import ProcessRecognizer

        asr = dict(self.config.get("asr") or {})
        mode = str(asr.get("denoise", "auto"))
        if mode != "off" and asr.get("engine", "pocketsphinx") == "pocketsphinx":
            # the noise filter runs here, on the audio as it comes in (LiveCleaner); the
            # recogniser gets audio already filtered when the room is noisy
            threading.Thread(target=self._load_denoiser, args=(mode,),
                             name="denoise-load", daemon=True).start()
            config = dict(self.config, asr=dict(asr, denoise="off"))
        else:
            config = self.config
            self._denoiser_loaded.set()
        return ProcessRecognizer(config, edition)

    def _load_denoiser(self, mode: str) -> None:
        from banker.speech import denoise

        try:
            d = denoise.load(mode)
            self._denoiser = None if d is None else (d, mode)
            trace("noise filter " + ("unavailable" if d is None else "loaded"))
        finally:
            self._denoiser_loaded.set()

    def cleaner(self) -> LiveCleaner | None:
        """A noise filter for one utterance (None: off, or not loaded yet)."""
        if self._denoiser is None:
            return None
        return LiveCleaner(self._denoiser[0], self._denoiser[1])

    # -- the devices going away, and coming back ------------------------------------------------
    def watch(self, every: float = WATCH_EVERY) -> None:
        """Look at the speaker and the microphone until ``close()``: the first time either
        has gone away, stop sound (``lose()``); when both answer again, ``regain()``.

        A stall of this process (memory pressure, a blocked main loop, SIGSTOP) looks like a
        microphone that stopped calling back: its last callback is seconds old. The watchdog
        tells the two apart by its own clock: when its own wait overran by more than
        ``STALL_GAP``, the whole process stood still, and the devices get ``STALL_GRACE``
        seconds to call back before anything is judged.
        """
        def run() -> None:
            last = time.monotonic()
            judge_from = next_try = last
            while not self._closed.wait(every):
                now = time.monotonic()
                if now - last > every + STALL_GAP:
                    trace(f"stalled for {now - last:.1f} s: the devices get time to answer")
                    judge_from = now + STALL_GRACE
                last = now
                if now < judge_from:
                    continue
                gone = device_lost(self.player) or device_lost(self.mic)
                if gone and not self.lost.is_set():
                    self.lose()
                    next_try = now + REOPEN_EVERY
                elif not gone and self.lost.is_set():
                    self.regain()
                elif gone and self.reopen is not None and now >= next_try:
                    next_try = now + REOPEN_EVERY
                    if self._reopened():
                        judge_from = time.monotonic() + MIC_START_GRACE
                        self.regain()
        threading.Thread(target=run, name="sound-watchdog", daemon=True).start()

    def _reopened(self) -> bool:
        """Open the devices afresh (the sound server was restarted, the card plugged back in);
        the dead ones are closed. False: still no sound."""
        assert self.reopen is not None
        try:
            player, mic = self.reopen()
        except AudioError:
            return False
        old = (self.player, self.mic)
        self.player, self.mic = player, mic
        self.speaker.player = player
        for dev in old:
            with contextlib.suppress(Exception):
                dev.close()
        trace("the sound devices were opened again")
        return True

    def lose(self) -> None:
        """The sound device is gone: drop what is being said and heard, and tell the loop
        (which says ``DEVICE_LOST`` and goes on with typed lines). Only the first call acts."""
        with self._lost_lock:
            if self.lost.is_set() or self._closed.is_set():
                return
            self.lost.set()
        trace("the sound device is gone")
        self.mic.stop_listening()
        self.speaker.mute(None if device_lost(self.player) else DEVICE_LOST)
        self.events.put(SoundLost())

    def regain(self) -> None:
        """The speaker and the microphone answer again (a hung sound server came back): voice
        from now on; the loop says so once."""
        with self._lost_lock:
            if not self.lost.is_set() or self._closed.is_set():
                return
            self.lost.clear()
        trace("the sound device is back")
        self.speaker.unmute()
        self.events.put(SoundBack())

    # -- input -------------------------------------------------------------------------------
    def start_input(self, stdin: TextIO) -> None:
        echo = self.out if _isatty(stdin) else None
        term = TerminalKeys(stdin, self.keys, lambda line: self.events.put(TypedInput(line)),
                            lambda: self.events.put(EndOfInput()), echo=echo,
                            is_live_key=lambda k: self.live_keys(k))
        self.sources = [term, *input_devices(self.keys)]
        for src in self.sources:
            src.start(self._on_button)

    def _on_button(self, ev: ButtonEvent) -> None:
        if ev.source == "evdev":
            self._last_evdev[ev.key] = ev.time
        elif ev.time - self._last_evdev.get(ev.key, -10.0) < EVDEV_ECHO:
            return  # the same USB key arriving again as a terminal key stroke
        self.events.put(KeyInput(ev))

    def close(self) -> None:
        self._closed.set()
        if self.phones is not None:
            self.phones.close()
        for src in self.sources:
            with contextlib.suppress(Exception):
                src.close()
        if self._speaker is not None:
            self._speaker.wait(LOST_WAIT if self.lost.is_set() else 10.0)
        if self._tts_ready.is_set() and self._tts is not None and self._own_tts:
            self._tts.close()
        for rec in self._recognizers.values():
            close = getattr(rec, "close", None)
            if close is not None:
                close()
        self.mic.close()
        self.player.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


class _Serialised:
    """One recogniser used from two threads (the listener, the start-up warm-up): one
    decode at a time."""

    def __init__(self, inner: Recognizer) -> None:
        self.inner = inner
        self.engine = inner.engine
        self._lock = threading.Lock()

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        with self._lock:
            return self.inner.recognize(pcm, focus, speaker, raw)

    def warm(self) -> None:
        """Decode a moment of room noise once per focus: a grammar is compiled on first use
        (~0.1-0.3 s), which the first real command would otherwise wait for."""
        noise = np.random.default_rng(0).integers(-40, 40, 8000).astype(np.int16)
        for focus in FOCI:
            # an engine that can't take a focus will say so when it is used for real
            with contextlib.suppress(Exception):
                self.recognize(noise, focus)


def open_voice(config: dict[str, Any], stdin: TextIO, out: TextIO, *,
               tts: Synthesizer | None = None, player: AudioOut | None = None,
               mic: AudioIn | None = None,
               recognizer_factory: Callable[[Edition], Recognizer] | None = None) -> VoiceIO:
    """Open the speaker and microphone (or raise ``AudioUnavailable``), start loading the
    voice in the background, and start reading buttons and typed lines."""
    from banker.speech import sfx
    from banker.speech.audio import open_audio

    def reopen() -> tuple[AudioOut, AudioIn]:
        return open_audio(config, 22050)

    own = player is None or mic is None
    if player is None or mic is None:
        try:
            player, mic = reopen()
        except AudioError as exc:
            raise AudioUnavailable(str(exc)) from None
    io = VoiceIO(config, player, mic, out, key_map(config), recognizer_factory=recognizer_factory,
                 reopen=reopen if own else None)
    io.load_tts_async(tts)
    io.beep = sfx.load("beep")
    audio = config.get("audio") or {}
    if audio.get("effects", True):
        io.effects = {name: sfx.load(name) for name in ("cash_register", "gavel")}
    io.start_input(stdin)
    io.watch()
    return io
