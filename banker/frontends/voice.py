"""``banker play`` with a microphone and a speaker: token buttons, listening, Mr. Monopoly's voice.

Receives button events (terminal keys, input devices), typed lines and microphone audio;
feeds presses and recognised utterances to the ``Session``; speaks (and prints) every line
the session says.

How a turn goes: a press beeps and starts listening (and stops Mr. Monopoly if he is
talking: barge-in); voice activity detection, a second press or the button's release ends
the utterance; the recogniser decodes it for what the session expects; ``session.hear``
decides. A press with no speech within a short window, while an auction runs or a yes/no is
asked of that player, is a bare press (a bid, a "yes"). He never listens while he speaks.

Decisions (the spec is silent):
- The table clock stands still while a player is talking (``PausableClock``): an auction is
  not sold under someone who pressed to bid before "Sold" was due.
- Presses from other players while one is talking wait their turn, in order.
- Lines that come up while someone is talking (typed lines, timers) are printed at once and
  spoken when the talking ends.
- A typed line that holds only a button key is that button (pipes); on a terminal, a button
  key on an empty line is a press, any other key starts a typed line.
- Joining by voice: each new button press joins (turn order = order of presses, and that
  button belongs to that player for this sitting); saying a token's name claims it, saying
  nothing takes the next free token. Joining closes 5 s after the last new player joined.
  Every join is answered with the button and the token it got ("Button 2, you're the Dog."):
  a misheard token is heard at once, and pressing again and saying the token changes it.
- The sound device goes away mid-game (unplugged, sound server died): a watchdog notices,
  Mr. Monopoly says so in one sentence (``audio.DEVICE_LOST``, printed, and spoken only if
  the speaker still works), once, and the game goes on in keyboard mode: typed lines as
  before, nothing more is spoken, and a button press is a bare press (a bid, a "yes"): there
  is no microphone to hear what comes after it. What he was saying is dropped, a turn being
  listened to is dropped (it changes nothing), and Ctrl-D ends the game at once.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np
import numpy.typing as npt

from banker.editions.model import Edition
from banker.interpreter.replies import Replies, load_replies
from banker.interpreter.session import Session
from banker.nlu.normalize import normalize
from banker.rules.events import CashMoved
from banker.rules.outcome import Line
from banker.speech.audio import DEVICE_LOST, AudioError, AudioIn, AudioOut, device_lost
from banker.speech.buttons import ButtonEvent, Buttons, TerminalKeys, input_devices, key_map
from banker.speech.denoise import LiveCleaner
from banker.speech.vad import EndOfSpeech, Utterance, VadSettings, speech_only

Pcm = npt.NDArray[np.int16]

PROMPT = "> "
PRESS_WINDOW = 1.0  # s: a press with no speech by then is a bid / a "yes"
JOIN_CLOSE = 5.0  # s after the last new player joined
EVDEV_ECHO = 0.5  # s: a terminal key this soon after the same input-device key is its echo
LATE_BEEP = 0.3  # s: a listener starting later than this after the press doesn't beep
WARM_MAX_CHARS = 40  # phrases rendered ahead of need at start-up
GUESS_AFTER_FRAMES = 3  # 90 ms of silence after speech: start recognising (the hang-over runs on)
WATCH_EVERY = 0.2  # s between looks at the sound devices
LOST_WAIT = 5.0  # s the exit waits for the last words when the sound device is gone
Expecting = tuple[str, frozenset[str]]


class AudioUnavailable(Exception):
    """No microphone or speaker: ``str()`` is the one sentence said before keyboard mode."""


class Recognizer(Protocol):
    """Decodes one utterance (16 kHz mono int16) for what the banker expects."""

    def recognize(self, audio: Pcm, expecting: Expecting) -> tuple[str, float]: ...


# ------------------------------------------------------------------------------------------
# time

class PausableClock:
    """The session's clock; it stands still while a player is talking."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._paused_at: float | None = None
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            if self._paused_at is not None:
                return self._paused_at - self._offset
            return time.monotonic() - self._offset

    def pause(self) -> None:
        with self._lock:
            if self._paused_at is None:
                self._paused_at = time.monotonic()

    def resume(self) -> None:
        with self._lock:
            if self._paused_at is not None:
                self._offset += time.monotonic() - self._paused_at
                self._paused_at = None


# ------------------------------------------------------------------------------------------
# speaking

class Speaker:
    """Says lines in order on a worker thread; ``stop()`` is barge-in.

    Rendering is pipelined: a phrase is handed to the player as soon as it is rendered, and
    the next renders while it plays. ``on_line_start(text, t)`` reports when the first sample
    of each line reached the device (the latency bench's stopwatch).
    """

    def __init__(self, synth: Callable[[], Any], player: AudioOut,
                 on_line_start: Callable[[str, float], None] | None = None) -> None:
        self._synth = synth  # waits for the voice to finish loading
        self.player = player
        self.on_line_start = on_line_start
        self._q: queue.Queue[tuple[int, str | Pcm]] = queue.Queue()
        self._gen = 0
        self._pending = 0
        self._lock = threading.Lock()
        self.gate = threading.Event()  # cleared while a player talks: speech waits
        self.gate.set()
        self._muted = False  # the sound device is gone: nothing more is said
        self.spoken: list[str] = []  # lines rendered to the end (for tests and the bench)
        threading.Thread(target=self._work, name="speaker", daemon=True).start()

    def say(self, text: str) -> None:
        with self._lock:
            if self._muted:
                return
            self._pending += 1
            self._q.put((self._gen, text))

    def effect(self, pcm: Pcm) -> None:
        with self._lock:
            if self._muted:
                return
            self._pending += 1
            self._q.put((self._gen, pcm))

    def mute(self, last_words: str | None = None) -> None:
        """The sound device is gone: what is queued or playing is dropped and nothing more is
        said, except ``last_words`` (when the speaker still works)."""
        with self._lock:
            self._gen += 1
            self._muted = True
            self.player.stop()
            if last_words is not None:
                self._pending += 1
                self._q.put((self._gen, last_words))
        self.gate.set()  # a worker waiting for a player to finish talking moves on

    def stop(self) -> None:
        """Barge-in: nothing queued is said, and what is playing stops now."""
        with self._lock:
            self._gen += 1
            self.player.stop()

    def busy(self) -> bool:
        with self._lock:
            pending = self._pending
        return pending > 0 or self.player.busy()

    def wait_rendered(self, timeout: float = 60.0) -> None:
        """Until every queued line has been rendered and handed to the player."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if self._pending == 0:
                    return
            time.sleep(0.01)

    def wait(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while self.busy() and time.monotonic() < end:
            time.sleep(0.02)

    def _work(self) -> None:
        while True:
            gen, item = self._q.get()
            try:
                if gen == self._gen:
                    self.gate.wait()
                    self._play(gen, item)
            except Exception:  # a line that can't be said is still printed
                pass
            finally:
                with self._lock:
                    self._pending -= 1

    def _hook(self, text: str) -> Callable[[float], None] | None:
        report = self.on_line_start
        if report is None:
            return None
        return lambda t: report(text, t)

    def _play(self, gen: int, item: str | Pcm) -> None:
        if not isinstance(item, str):
            self.player.play(item)
            return
        synth = self._synth()
        first = True
        for pcm in synth.speak(item):
            if gen != self._gen:
                return
            hook = self._hook(item) if first else None
            with self._lock:
                if gen != self._gen:
                    return
                self.player.play(pcm, hook)
            first = False
        self.spoken.append(item)


# ------------------------------------------------------------------------------------------
# listening

@dataclass
class Listening:
    """One press's listening, run on its own thread."""

    token: str
    key: str
    holds: bool
    expecting: Expecting
    settings: VadSettings
    pressed_at: float
    detector: EndOfSpeech | None = None
    ended_at: float | None = None  # when the end of the turn was decided
    cut_off: bool = False  # the sound device went away: what was heard is dropped
    # Recognise at a pause, before the hang-over ends (saves ~0.2 s). That guess hears only
    # 90 ms after the last voiced frame, the final decode 200 ms: a lone short word can come
    # out differently ("dog" -> "yep" was measured), so joining, where a word is all there
    # is and 0.2 s doesn't matter, waits for the whole utterance.
    early_guess: bool = True
    _end: str | None = None

    def end(self, reason: str) -> None:
        """A second press or a release: end the utterance at the next frame."""
        self._end = reason


@dataclass
class Heard:
    """A finished listening: the utterance and what the recogniser made of it."""

    listening: Listening
    utterance: Utterance
    text: str
    confidence: float
    decoded_at: float


@dataclass
class TurnTiming:
    """One spoken turn's stopwatch (monotonic seconds)."""

    token: str
    reason: str
    ended_at: float  # end of turn decided (VAD / release / press)
    decoded_at: float
    text: str
    first_audio: float | None = None  # first sample of the spoken reply handed to the device


class Listener:
    """Microphone frames -> end of speech -> recognised text, for one press at a time."""

    def __init__(self, mic: AudioIn, player: AudioOut, beep: Pcm | None,
                 recognize: Callable[[Pcm, Expecting], tuple[str, float]],
                 post: Callable[[Heard], None],
                 cleaner: Callable[[], LiveCleaner | None] = lambda: None) -> None:
        self.mic = mic
        self.player = player
        self.beep = beep
        self.recognize = recognize
        self.post = post
        self.cleaner = cleaner  # a noise filter fed while the player talks (None: off)

    def start(self, listening: Listening) -> None:
        threading.Thread(target=self._run, args=(listening,), name="listener", daemon=True).start()

    def _run(self, ls: Listening) -> None:
        # A listener that gets going late (the table was busy) skips the beep: the player
        # is already talking; the microphone's last two seconds fill the gap.
        # He never listens while he speaks, not even to his own beep: what the microphone
        # caught before his last sound (a barge-in stops him first) is left out. The times
        # are computed, not waited for, so a busy CPU can't make the listener miss words.
        since = max(ls.pressed_at, self.player.sounding_until())
        now = time.monotonic()
        if self.beep is not None and now - ls.pressed_at < LATE_BEEP:
            self.player.play(self.beep)
            since = max(since, now + len(self.beep) / self.player.rate + self.player.latency)
        det = EndOfSpeech(ls.settings)
        ls.detector = det
        frames = self.mic.frames()
        _trace(f"listening to {ls.token or ls.key} (pressed {ls.pressed_at - _T0:.3f}, "
               f"from {since - _T0:.3f})")
        self.mic.start_listening(since)
        guess: _Guess | None = None
        clean = self.cleaner()
        try:
            while det.reason is None:
                if ls._end is not None:
                    det.end("release" if ls._end == "release" else "press")
                    break
                try:
                    frame = frames.get(timeout=0.05)
                except queue.Empty:
                    if det.seconds == 0 and time.monotonic() - ls.pressed_at > ls.settings.max_seconds + 3:
                        det.end("silence")  # a dead microphone must not hang the table
                    continue
                det.feed(frame)
                if clean is not None:
                    clean.feed(frame)
                elif (clean := self.cleaner()) is not None:  # loaded while listening: catch up
                    clean.feed(det.utterance().audio.tobytes())
                if (ls.early_guess and det.reason is None and det.in_speech
                        and det.quiet_frames == GUESS_AFTER_FRAMES):
                    # A pause: maybe the end. Recognise what we have while the hang-over
                    # runs; if no more speech comes, the answer is ready when the turn ends.
                    guess = _Guess(self.recognize, _decodable(det.utterance(), clean, False),
                                   ls.expecting, det.last_voiced)
        finally:
            self.mic.stop_listening()
        ls.ended_at = time.monotonic()
        utt = det.utterance()
        _trace(f"end of turn: {utt.reason}, {len(utt.audio) / 16000:.2f} s heard, speech "
               f"{utt.speech_start} to {utt.speech_end}")
        _save_utterance(utt)
        text, conf = "", 0.0
        if utt.has_speech and not ls.cut_off:
            try:
                if guess is not None and guess.last_voiced == det.last_voiced:
                    text, conf = guess.result()  # nothing was said after the pause
                else:
                    text, conf = self.recognize(_decodable(utt, clean, True), ls.expecting)
            except Exception:  # a recogniser hiccup is "sorry?", not a crash
                text, conf = "", 0.0
        _trace(f"recognised {text!r} ({conf:.2f}) in {time.monotonic() - ls.ended_at:.3f} s")
        self.post(Heard(ls, utt, text, conf, time.monotonic()))


def _decodable(utt: Utterance, clean: LiveCleaner | None, final: bool) -> Pcm:
    """The speech to decode: the noise-filtered audio when the room is noisy."""
    raw = speech_only(utt)
    if clean is None or not clean.wanted(raw):
        _trace("noise filter: " + ("not loaded" if clean is None else "not needed"))
        return raw
    _trace("noise filter: on")
    audio = clean.finish(len(utt.audio)) if final else clean.so_far(len(utt.audio))
    return speech_only(replace(utt, audio=audio))


class _Guess:
    """Recognition started early, at a pause, on a thread of its own."""

    def __init__(self, recognize: Callable[[Pcm, Expecting], tuple[str, float]], audio: Pcm,
                 expecting: Expecting, last_voiced: int | None) -> None:
        self.last_voiced = last_voiced
        self._done = threading.Event()
        self._value: tuple[str, float] = ("", 0.0)
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value = recognize(audio, expecting)
            except BaseException as exc:  # re-raised where the result is used
                self._error = exc
            finally:
                self._done.set()
        threading.Thread(target=run, name="early-asr", daemon=True).start()

    def result(self) -> tuple[str, float]:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


_T0 = time.monotonic()


def _trace(msg: str) -> None:
    """``BANKER_TRACE=1``: timestamps of presses, listening and replies on stderr."""
    if os.environ.get("BANKER_TRACE"):
        print(f"[{time.monotonic() - _T0:7.3f}] {msg}", file=sys.stderr, flush=True)


def _save_utterance(utt: Utterance) -> None:
    """``BANKER_SAVE_UTTERANCES=FOLDER`` keeps every utterance as a WAV: to see what the
    microphone really heard when recognition goes wrong, or to grow a dev set."""
    folder = os.environ.get("BANKER_SAVE_UTTERANCES")
    if not folder or not len(utt.audio):
        return
    import wave

    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        name = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}-{utt.reason}.wav"
        with wave.open(str(Path(folder) / name), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(utt.audio.astype("<i2").tobytes())
    except OSError:
        pass


# ------------------------------------------------------------------------------------------
# the devices and models for one sitting

@dataclass
class _Key:
    event: ButtonEvent


@dataclass
class _Typed:
    line: str


@dataclass
class _Eof:
    pass


@dataclass
class _Lost:
    """The sound device went away (posted once, by the watchdog)."""


Event = _Key | _Typed | _Eof | _Lost | Heard


@dataclass
class VoiceIO:
    """Everything opened once for the sitting: player, microphone, voice, buttons, events."""

    config: dict[str, Any]
    player: AudioOut
    mic: AudioIn
    out: TextIO
    keys: dict[str, int]
    events: queue.Queue[Event] = field(default_factory=queue.Queue)
    key_tokens: dict[str, str] = field(default_factory=dict)  # set by joining
    live_keys: Callable[[str], bool] = lambda _k: True
    sources: list[Buttons] = field(default_factory=list)
    recognizer_factory: Callable[[Edition], Recognizer] | None = None
    _tts: Any = None
    _tts_error: BaseException | None = None
    _tts_ready: threading.Event = field(default_factory=threading.Event)
    _own_tts: bool = False
    _recognizers: dict[str, Recognizer] = field(default_factory=dict)
    _speaker: Speaker | None = None
    _denoiser: tuple[Any, str] | None = None  # (Denoiser, mode) once loaded
    _denoiser_loaded: threading.Event = field(default_factory=threading.Event)
    beep: Pcm | None = None
    effects: dict[str, Pcm] = field(default_factory=dict)
    timings: list[TurnTiming] = field(default_factory=list)
    lost: threading.Event = field(default_factory=threading.Event)  # the sound device went away
    _closed: threading.Event = field(default_factory=threading.Event)
    _last_evdev: dict[str, float] = field(default_factory=dict)

    # -- the voice, loaded in the background -----------------------------------------------
    def load_tts_async(self, tts: Any = None) -> None:
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

    def tts(self) -> Any:
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
        _trace(f"first sound of {text[:40]!r}")
        for tt in reversed(self.timings):
            if tt.first_audio is None:
                tt.first_audio = t
            break

    def recognizer(self, edition: Edition) -> Recognizer:
        """The recogniser for ``edition``, loaded once: in a process of its own
        (``asr_process``) unless a factory was given."""
        if edition.id not in self._recognizers:
            if self.recognizer_factory is None:
                from banker.speech.asr_process import ProcessRecognizer

                asr = dict(self.config.get("asr") or {})
                mode = str(asr.get("denoise", "auto"))
                if mode != "off" and asr.get("engine", "pocketsphinx") == "pocketsphinx":
                    # the noise filter runs here, on the audio as it comes in (LiveCleaner);
                    # the recogniser gets audio already filtered when the room is noisy
                    threading.Thread(target=self._load_denoiser, args=(mode,),
                                     name="denoise-load", daemon=True).start()
                    config = dict(self.config, asr=dict(asr, denoise="off"))
                else:
                    config = self.config
                    self._denoiser_loaded.set()
                self._recognizers[edition.id] = ProcessRecognizer(config, edition)
            else:
                self._denoiser_loaded.set()  # the factory's engine filters noise itself
                rec = _Serialised(self.recognizer_factory(edition))
                threading.Thread(target=rec.warm, name="asr-warm", daemon=True).start()
                self._recognizers[edition.id] = rec
        return self._recognizers[edition.id]

    def _load_denoiser(self, mode: str) -> None:
        from banker.speech import denoise

        try:
            d = denoise.load(mode)
            self._denoiser = None if d is None else (d, mode)
            _trace("noise filter " + ("unavailable" if d is None else "loaded"))
        finally:
            self._denoiser_loaded.set()

    def cleaner(self) -> LiveCleaner | None:
        """A noise filter for one utterance (None: off, or not loaded yet)."""
        if self._denoiser is None:
            return None
        return LiveCleaner(self._denoiser[0], self._denoiser[1])

    # -- the devices going away ----------------------------------------------------------------
    def watch(self, every: float = WATCH_EVERY) -> None:
        """Look at the speaker and the microphone until ``close()``; the first time either
        has gone away, stop sound (``lose()``)."""
        def run() -> None:
            while not self._closed.wait(every):
                if device_lost(self.player) or device_lost(self.mic):
                    self.lose()
                    return
        threading.Thread(target=run, name="sound-watchdog", daemon=True).start()

    def lose(self) -> None:
        """The sound device is gone: drop what is being said and heard, and tell the loop
        (which says ``DEVICE_LOST`` and goes on with typed lines). Only the first call acts."""
        if self.lost.is_set() or self._closed.is_set():
            return
        self.lost.set()
        _trace("the sound device is gone")
        self.mic.stop_listening()
        self.speaker.mute(None if device_lost(self.player) else DEVICE_LOST)
        self.events.put(_Lost())

    # -- input -------------------------------------------------------------------------------
    def start_input(self, stdin: TextIO) -> None:
        echo = self.out if _isatty(stdin) else None
        term = TerminalKeys(stdin, self.keys, lambda line: self.events.put(_Typed(line)),
                            lambda: self.events.put(_Eof()), echo=echo,
                            is_live_key=lambda k: self.live_keys(k))
        self.sources = [term, *input_devices(self.keys)]
        for src in self.sources:
            src.start(self._on_button)

    def _on_button(self, ev: ButtonEvent) -> None:
        if ev.source == "evdev":
            self._last_evdev[ev.key] = ev.time
        elif ev.time - self._last_evdev.get(ev.key, -10.0) < EVDEV_ECHO:
            return  # the same USB key arriving again as a terminal key stroke
        self.events.put(_Key(ev))

    def close(self) -> None:
        self._closed.set()
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


def default_recognizer(config: Mapping[str, Any]) -> Callable[[Edition], Recognizer]:
    """The configured engine (``banker.speech.engine``), adapted to ``Recognizer``."""
    def make(edition: Edition) -> Recognizer:
        import importlib

        try:
            engine: Any = importlib.import_module("banker.speech.engine")
        except ImportError:
            engine = None
        if engine is not None and hasattr(engine, "make_engine"):
            return _EngineAdapter(engine.make_engine(dict(config), edition))
        from banker.speech.grammar import SpeechGrammar
        from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

        return _EngineAdapter(PocketsphinxRecognizer(SpeechGrammar(edition)))
    return make


FOCI = ("any", "yes_no", "bid", "street", "amount", "number", "player")


class _Serialised:
    """One recogniser used from two threads (the listener, the start-up warm-up): one
    decode at a time."""

    def __init__(self, inner: Recognizer) -> None:
        self.inner = inner
        self._lock = threading.Lock()

    def recognize(self, audio: Pcm, expecting: Expecting) -> tuple[str, float]:
        with self._lock:
            return self.inner.recognize(audio, expecting)

    def warm(self) -> None:
        """Decode a moment of room noise once per focus: a grammar is compiled on first use
        (~0.1-0.3 s), which the first real command would otherwise wait for."""
        noise = np.random.default_rng(0).integers(-40, 40, 8000).astype(np.int16)
        for focus in FOCI:
            # an engine that can't take a focus will say so when it is used for real
            with contextlib.suppress(Exception):
                self.recognize(noise, (focus, frozenset()))


class _EngineAdapter:
    """An engine's ``recognize(pcm, focus) -> Heard`` as ``(text, confidence)``."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def recognize(self, audio: Pcm, expecting: Expecting) -> tuple[str, float]:
        heard = self.engine.recognize(audio, expecting[0])
        return str(heard.text), float(heard.confidence)


def open_voice(config: dict[str, Any], stdin: TextIO, out: TextIO, *,
               tts: Any = None, player: AudioOut | None = None, mic: AudioIn | None = None,
               recognizer_factory: Callable[[Edition], Recognizer] | None = None) -> VoiceIO:
    """Open the speaker and microphone (or raise ``AudioUnavailable``), start loading the
    voice in the background, and start reading buttons and typed lines."""
    from banker.speech import sfx
    from banker.speech.audio import open_audio

    if player is None or mic is None:
        try:
            player, mic = open_audio(config, 22050)
        except AudioError as exc:
            raise AudioUnavailable(str(exc)) from None
    io = VoiceIO(config, player, mic, out, key_map(config), recognizer_factory=recognizer_factory)
    io.load_tts_async(tts)
    io.beep = sfx.load("beep")
    audio = config.get("audio") or {}
    if audio.get("effects", True):
        io.effects = {name: sfx.load(name) for name in ("cash_register", "gavel")}
    io.start_input(stdin)
    io.watch()
    return io


# ------------------------------------------------------------------------------------------
# the game loop

class VoiceLoop:
    """One game at the table, by voice and by typed lines (the main thread owns the session)."""

    def __init__(self, session: Session, io: VoiceIO, out: TextIO, *, warm_ahead: bool = True) -> None:
        self.session = session
        self.io = io
        self.out = out
        self.vad = VadSettings.from_config(io.config.get("audio") or {})
        self.clock = PausableClock()
        session.clock = self.clock
        self.listening: Listening | None = None
        self.done = False  # the loop ended: background work stops
        self.waiting: list[ButtonEvent] = []
        self.eof = False
        printed = session.on_say

        def on_say(text: str) -> None:
            printed(text)
            io.speaker.say(text)
        session.on_say = on_say
        io.live_keys = self._live_key
        self.recognizer = io.recognizer(session.edition)
        self.listener = Listener(io.mic, io.player, io.beep, self.recognizer.recognize,
                                 lambda h: io.events.put(h), io.cleaner)
        if warm_ahead:
            self._fixed_phrases()

    def _fixed_phrases(self) -> None:
        """Openings worth caching: names of players and streets, fixed cues and lines."""
        threading.Thread(target=self._warm, name="tts-warm", daemon=True).start()

    def _warm(self) -> None:
        from banker.speech.tts import fixed_lines

        try:
            tts = self.io.tts()
        except AudioUnavailable:
            return
        whole, cues = fixed_lines(dict(self.session.replies.templates))
        ed = self.session.edition
        seated = [self.session.replies.name(t) for t in self.session.state.order]
        names = seated + [t.name for t in ed.tokens] + [s.name for s in ed.streets]
        tts.add_fixed(whole, list(cues) + names)
        # Most useful first: the players' names open most replies. Only short phrases are
        # rendered ahead (each costs < 0.2 s of CPU, so a turn never waits long behind one);
        # long fixed lines are cached the first time they are said.
        first = seated + [f"{n}," for n in seated] + sorted(whole, key=len) + sorted(cues)
        order = [p for p in dict.fromkeys(first + sorted(tts.fixed)) if len(p) <= WARM_MAX_CHARS]
        tts.warm(order, self._idle, lambda: self.done or self.io.lost.is_set())

    def _idle(self) -> bool:
        """Nobody talking, nothing being said: a good moment to render ahead."""
        return self.listening is None and not self.io.speaker.busy()

    def _live_key(self, key: str) -> bool:
        return self.token_for_key(key) is not None

    def token_for_key(self, key: str) -> str | None:
        order = self.session.state.order
        if key in self.io.key_tokens:
            tok = self.io.key_tokens[key]
            return tok if tok in order else None
        seat = self.io.keys.get(key)
        if seat is None or not 1 <= seat <= len(order):
            return None
        return order[seat - 1]

    # -- the loop ------------------------------------------------------------------------------
    def run(self) -> int:
        try:
            return self._run()
        finally:
            self.done = True

    def _run(self) -> int:
        for text in list(self.session.step.said):  # said before the voice was attached
            self.io.speaker.say(text)
        self._prompt()
        while True:
            timeout: float | None = None
            if self.listening is None:
                if self.eof:
                    return self._finish()
                due = self.session.deadline()
                timeout = None if due is None else max(0.0, due - self.clock.now())
            try:
                ev = self.io.events.get(timeout=timeout)
            except queue.Empty:
                self._step(self.session.tick)
                continue
            self._handle(ev)

    def _handle(self, ev: Event) -> None:
        if isinstance(ev, _Eof):
            self.eof = True
        elif isinstance(ev, _Typed):
            self._typed(ev.line)
        elif isinstance(ev, _Key):
            if ev.event.kind == "press":
                self._press(ev.event)
            else:
                self._release(ev.event)
        elif isinstance(ev, Heard):
            self._heard(ev)
        elif isinstance(ev, _Lost):
            self._lost()

    def _lost(self) -> None:
        """The sound device went away (``VoiceIO.lose``): say so once; keyboard mode from now."""
        print(DEVICE_LOST, file=self.out, flush=True)
        self.waiting.clear()  # presses to talk: nobody can hear them now
        ls = self.listening
        if ls is not None:
            ls.cut_off = True
            ls.end("press")  # the listener stops at once; its Heard is dropped
        self._prompt()

    def _finish(self) -> int:
        """End of input: let a running auction finish, let him finish speaking."""
        while self.session.auction is not None:
            due = self.session.deadline()
            if due is None:
                break
            time.sleep(max(0.0, due - self.clock.now()) + 0.01)
            self._step(self.session.tick)
        self.io.speaker.wait(LOST_WAIT if self.io.lost.is_set() else 60.0)
        return 0

    def _prompt(self) -> None:
        print(PROMPT, end="", file=self.out, flush=True)

    def _step(self, fn: Callable[[], Any]) -> None:
        """One step of the session, with the sound effects of what happened."""
        s = self.session
        tx_before = len(s.history)
        auction_before = s.auction
        s.begin_step()
        fn()
        s.finish_step()
        self._effects(tx_before, auction_before)

    def _effects(self, tx_before: int, auction_before: Any) -> None:
        s = self.session
        if auction_before is not None and s.auction is None and "gavel" in self.io.effects:
            self.io.speaker.effect(self.io.effects["gavel"])
        elif len(s.history) > tx_before and "cash_register" in self.io.effects and any(
                isinstance(e, CashMoved) for tx in s.history[tx_before:] for e in tx.events):
            self.io.speaker.effect(self.io.effects["cash_register"])

    def _typed(self, line: str) -> None:
        from banker.frontends.keyboard import handle_line

        s = self.session
        tx_before, auction_before = len(s.history), s.auction
        handle_line(line, s, self.out)
        self._effects(tx_before, auction_before)
        self._prompt()

    # -- buttons -------------------------------------------------------------------------------
    def _press(self, ev: ButtonEvent) -> None:
        token = self.token_for_key(ev.key)
        _trace(f"press {ev.key} ({token}) from {ev.source} at {ev.time - _T0:.3f}")
        if token is None:
            return
        if self.io.lost.is_set():  # no microphone: the press alone (a bid, a "yes")
            self._step(lambda: self.session.press(token))
            return
        if self.io.speaker.busy():
            self.io.speaker.stop()  # barge-in
        ls = self.listening
        if ls is not None:
            if ls.key == ev.key and ls.ended_at is None:
                if not ls.holds:
                    ls.end("press")  # a second press ends the utterance early
                return
            self.waiting.append(ev)  # another player, or a new turn after this one
            return
        self._listen(token, ev)

    def _release(self, ev: ButtonEvent) -> None:
        ls = self.listening
        if ls is not None and ls.key == ev.key and ls.holds:
            ls.end("release")

    def _listen(self, token: str, ev: ButtonEvent) -> None:
        kind, who = self.session.expecting()
        settings = self.vad
        if kind in ("bid", "yes_no") and token in who:
            settings = replace(settings, no_speech_seconds=min(PRESS_WINDOW, settings.no_speech_seconds))
        self.clock.pause()
        self.io.speaker.gate.clear()
        self.listening = Listening(token, ev.key, ev.source == "evdev", (kind, who), settings,
                                   ev.time)
        self.listener.start(self.listening)

    def _heard(self, h: Heard) -> None:
        self.listening = None
        self.clock.resume()
        self.io.speaker.gate.set()
        token = h.listening.token
        if h.listening.cut_off or token not in self.session.state.players:
            return
        if not h.utterance.has_speech:
            self._step(lambda: self.session.press(token))
        else:
            self.io.timings.append(TurnTiming(token, h.utterance.reason, h.listening.ended_at or 0.0,
                                              h.decoded_at, h.text))
            if h.text.strip():
                print(f"({self.session.replies.name(token)}: {h.text})", file=self.out, flush=True)
                self._step(lambda: self.session.hear(token, h.text, h.confidence))
            else:
                self._step(lambda: self.session.say("sorry"))
            self._prompt()
        if self.waiting:
            nxt = self.waiting.pop(0)
            self._press(nxt)


def run_voice(session: Session, config: dict[str, Any], stdin: TextIO, out: TextIO,
              io: VoiceIO | None = None) -> int:
    """The live game. Raises ``AudioUnavailable`` (before reading any input) when there is no
    usable microphone and speaker."""
    own = io is None
    if io is None:
        io = open_voice(config, stdin, out)
    try:
        return VoiceLoop(session, io, out).run()
    finally:
        if own:
            io.close()


# ------------------------------------------------------------------------------------------
# joining by voice

def join_by_voice(io: VoiceIO, edition: Edition, out: TextIO) -> str:
    """Players press their buttons to join; returns the tokens in turn order (``"dog, car"``).

    A typed line of tokens (as in keyboard mode) answers at once. Returns "" at end of input.
    Each join is answered with the button's number and the token it got, so a misheard token
    is noticed and changed by pressing again and saying it (the lines are ``join_*`` in
    ``config/replies/common.yaml``). Without sound (lost mid-way) a press takes the next
    free token.
    """
    speaker = io.speaker
    replies = Replies(edition, load_replies(edition.id))

    def say(key: str, **params: Any) -> None:
        text = replies.render(Line(key, params))
        print(text, file=out, flush=True)
        speaker.say(text)

    def name(token: str) -> str:
        return edition.token(token).name

    say("join_ask")
    print(PROMPT, end="", file=out, flush=True)
    recognizer = io.recognizer(edition)
    vad = VadSettings.from_config(io.config.get("audio") or {})
    vad = replace(vad, no_speech_seconds=min(2.5, vad.no_speech_seconds))
    listener = Listener(io.mic, io.player, io.beep, recognizer.recognize, lambda h: io.events.put(h),
                        io.cleaner)
    joined: list[tuple[str, str]] = []  # (key, token)
    last_join: float | None = None
    listening: Listening | None = None
    queued: list[ButtonEvent] = []
    eof = False
    everyone = frozenset(edition.token_ids)

    def seat(key: str, said: str | None, spoke: bool) -> None:
        """A press on ``key``, then ``said`` (a token heard, or None; ``spoke``: words were
        heard at all): join, or change token on a second press."""
        nonlocal joined, last_join
        button = io.keys.get(key, key)
        free = [t for t in edition.token_ids if t not in {tok for _, tok in joined}]
        mine = next((tok for k, tok in joined if k == key), None)
        if mine is not None:  # a second press: change token
            if said is not None and said in free:
                joined = [(k, said if k == key else tok) for k, tok in joined]
                say("join_changed", button=button, token=name(said))
            elif said is not None and said != mine:
                say("join_taken_kept", button=button, said=name(said), token=name(mine))
            else:
                say("join_kept", button=button, token=name(mine))
            return
        if len(joined) >= edition.max_players or not free:
            say("join_full", edition=edition.name, count=edition.max_players)
            return
        token = said if said in free else free[0]
        if said is not None and said != token:
            say("join_taken", button=button, said=name(said), token=name(token))
        elif said is None and spoke:
            say("join_unheard", button=button, token=name(token))
        else:
            say("join_in", button=button, token=name(token))
        joined.append((key, token))
        last_join = time.monotonic()

    while True:
        timeout = None
        if listening is None:
            if queued:
                ev = queued.pop(0)
                speaker.stop()
                listening = Listening("", ev.key, ev.source == "evdev", ("player", everyone), vad,
                                      ev.time, early_guess=False)
                speaker.gate.clear()
                listener.start(listening)
                continue
            if eof:
                break
            if last_join is not None and len(joined) >= edition.min_players:
                timeout = max(0.0, last_join + JOIN_CLOSE - time.monotonic())
        try:
            ev_any = io.events.get(timeout=timeout)
        except queue.Empty:
            break
        if isinstance(ev_any, _Eof):
            eof = True
        elif isinstance(ev_any, _Typed):
            if ev_any.line.strip():
                return ev_any.line.strip()
            print(PROMPT, end="", file=out, flush=True)
        elif isinstance(ev_any, _Lost):
            print(DEVICE_LOST, file=out, flush=True)
            queued.clear()
            if listening is not None:
                listening.cut_off = True
                listening.end("press")
            print(PROMPT, end="", file=out, flush=True)
        elif isinstance(ev_any, _Key):
            ev = ev_any.event
            if ev.kind == "release":
                if listening is not None and listening.key == ev.key and listening.holds:
                    listening.end("release")
                continue
            if ev.key not in io.keys:
                continue
            if io.lost.is_set():
                if listening is None or listening.key != ev.key:
                    seat(ev.key, None, False)  # nobody to hear the token: the next free one
                continue
            if listening is not None:
                if listening.key == ev.key and listening.ended_at is None:
                    if not listening.holds:
                        listening.end("press")
                else:
                    queued.append(ev)
                continue
            queued.append(ev)
        elif isinstance(ev_any, Heard):
            speaker.gate.set()
            listening = None
            heard = ev_any
            if heard.listening.cut_off:  # the press still joins (no token heard)
                seat(heard.listening.key, None, False)
                continue
            spoke = heard.utterance.has_speech
            seat(heard.listening.key, _token_in(heard.text, edition) if spoke else None, spoke)
    if not joined:
        return ""
    io.key_tokens = {k: tok for k, tok in joined}
    say("join_start", players=", ".join(name(tok) for _, tok in joined))
    return ", ".join(tok for _, tok in joined)


def _token_in(text: str, edition: Edition) -> str | None:
    words = f" {normalize(text)} "
    for t in edition.tokens:
        for name in (t.name, t.id, *t.aliases):
            if f" {normalize(name)} " in words:
                return t.id
    return None


# ------------------------------------------------------------------------------------------
# what ``banker play`` uses

class VoiceFrontend:
    """``banker play`` without ``--keyboard``: opens the sound devices once, when first needed
    (to let players join by their buttons, or to play); if they can't be opened it says so
    once and the caller goes on with typed lines."""

    def __init__(self, config: dict[str, Any], stdin: TextIO, out: TextIO,
                 on_say: Callable[[str], None]) -> None:
        self.config = config
        self.stdin = stdin
        self.out = out
        self.on_say = on_say
        self._io: VoiceIO | None = None
        self._tried = False

    def io(self) -> VoiceIO | None:
        if not self._tried:
            self._tried = True
            try:
                self._io = open_voice(self.config, self.stdin, self.out)
            except AudioUnavailable as exc:
                self.on_say(str(exc))
        return self._io

    def ask_players(self, edition: Edition) -> str:
        io = self.io()
        if io is None:
            from banker.frontends.keyboard import ask_players_stdin

            return ask_players_stdin(self.stdin, self.out, list(edition.token_ids))
        return join_by_voice(io, edition, self.out)

    def run(self, session: Session) -> int | None:
        """The game by voice; None when there is no sound (the caller plays by keyboard)."""
        io = self.io()
        if io is None:
            return None
        return run_voice(session, self.config, self.stdin, self.out, io=io)

    def close(self) -> None:
        if self._io is not None:
            self._io.close()
