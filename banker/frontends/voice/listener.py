"""The players' ears: one press's listening, from the beep to the recognised words.

A press beeps and starts listening; voice activity detection, a second press or the button's
release ends the utterance; the recogniser decodes it for what the table expects, and the
result (``TurnHeard``: the speech stage's ``Heard``, unchanged, with the turn it belongs to)
is posted to the event loop.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from banker.frontends.voice.trace import T0, save_utterance, trace
from banker.speech import speaker_norm
from banker.speech.denoise import LiveCleaner
from banker.speech.endpoint import GUESS_AFTER_FRAMES, placed, rule_for, wait_for
from banker.speech.protocols import NOTHING, AudioIn, AudioOut, Heard, Pcm, Recognizer
from banker.speech.vad import EndOfSpeech, Utterance, VadSettings, speech_only

LATE_BEEP = 0.3  # s: a listener starting later than this after the press doesn't beep
ECHO_TAIL = 0.08  # s after the beep left the speaker that the microphone may still hear it


@dataclass
class Listening:
    """One press's listening, run on its own thread."""

    token: str  # "" while joining: the press has no token yet
    key: str
    holds: bool
    focus: str
    settings: VadSettings
    pressed_at: float
    detector: EndOfSpeech | None = None
    ended_at: float | None = None  # when the end of the turn was decided
    cut_off: bool = False  # the sound device went away: what was heard is dropped
    # Recognise at a pause, before the hang-over ends (saves ~0.2 s). That guess hears only
    # 60 ms after the last sound (the rest of its tail filled in), the final decode 200 ms: a
    # lone short word can come out differently ("dog" -> "yep" was measured), so joining,
    # where a word is all there is and 0.2 s doesn't matter, waits for the whole utterance.
    early_guess: bool = True
    voice: str = ""  # the pressing player's speech start values (speaker_norm; "": none yet)
    # the end-of-turn rule the first ear's reading of the last pause gave (``endpoint``), and
    # whether that reading came only after the turn had ended (a busy machine: the long wait)
    end_rule: str = ""
    late_reading: bool = False
    _end: str | None = None

    def end(self, reason: str) -> None:
        """A second press or a release: end the utterance at the next frame."""
        self._end = reason


@dataclass(frozen=True)
class TurnHeard:
    """An input event: a finished listening, the utterance, and what the recogniser heard."""

    listening: Listening
    utterance: Utterance
    heard: Heard
    decoded_at: float


class Listener:
    """Microphone frames -> end of speech -> recognised text, for one press at a time."""

    def __init__(self, devices: Callable[[], tuple[AudioIn, AudioOut]], beep: Pcm | None,
                 recognizer: Recognizer, post: Callable[[TurnHeard], None],
                 cleaner: Callable[[], LiveCleaner | None] = lambda: None) -> None:
        self.devices = devices  # asked at each press: the devices may have been opened again
        self.beep = beep
        self.recognizer = recognizer
        self.post = post
        self.cleaner = cleaner  # a noise filter fed while the player talks (None: off)

    def start(self, listening: Listening) -> None:
        threading.Thread(target=self._run, args=(listening,), name="listener", daemon=True).start()

    @property
    def mic(self) -> AudioIn:
        return self.devices()[0]

    @property
    def player(self) -> AudioOut:
        return self.devices()[1]

    def _since(self, ls: Listening) -> float:
        """When the player's words may start: after the press, after his last sound.

        A listener that gets going late (the table was busy) skips the beep: the player is
        already talking; the microphone's last two seconds fill the gap. He never listens
        while he speaks, not even to his own beep: what the microphone caught before his last
        sound (a barge-in stops him first) is left out, and so is the beep: a microphone that
        hears the speaker (a laptop at a table) would otherwise take it for the player's first
        word and end the turn on it. The times are computed, not waited for, so a busy CPU
        can't make the listener miss words.
        """
        since = max(ls.pressed_at, self.player.sounding_until())
        now = time.monotonic()
        if self.beep is not None and now - ls.pressed_at < LATE_BEEP:
            self.player.play(self.beep)
            since = max(since, now + len(self.beep) / self.player.rate + self.player.latency
                        + ECHO_TAIL)
        return since

    def _run(self, ls: Listening) -> None:
        since = self._since(ls)
        det = EndOfSpeech(ls.settings)
        ls.detector = det
        trace(f"listening to {ls.token or ls.key} (pressed {ls.pressed_at - T0:.3f}, "
              f"from {since - T0:.3f})")
        self.mic.start_listening(since)
        clean, guess = self._hear(ls, det)
        ls.ended_at = time.monotonic()
        utt = det.utterance()
        trace(f"end of turn: {utt.reason}, {len(utt.audio) / 16000:.2f} s heard, speech "
              f"{utt.speech_start} to {utt.speech_end}")
        save_utterance(utt)
        heard = NOTHING
        if utt.has_speech and not ls.cut_off:
            try:
                if guess is not None and guess.last_voiced == det.last_voiced:
                    heard = guess.result()  # nothing was said after the pause
                else:
                    audio, raw = decodable(utt, clean, True)
                    heard = self.recognizer.recognize(audio, ls.focus, _voice(ls, utt), raw)
            except Exception:  # a recogniser hiccup is "sorry?", not a crash
                heard = NOTHING
        if guess is not None and not guess.judged and guess.last_voiced == det.last_voiced:
            ls.late_reading = guess.first is not None
            if guess.first is not None:
                ls.end_rule = rule_for(*placed(guess.first))
        trace(f"recognised {heard.text!r} ({heard.confidence:.2f}) in "
              f"{time.monotonic() - ls.ended_at:.3f} s")
        self.post(TurnHeard(ls, utt, heard, time.monotonic()))

    def _hear(self, ls: Listening, det: EndOfSpeech) -> tuple[LiveCleaner | None, _Guess | None]:
        """Feed the detector until the turn ends; a guess is started at a pause."""
        frames = self.mic.frames()
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
                    guess = _Guess(self.recognizer, *decodable(det.utterance(), clean, False),
                                   ls.focus, det.last_voiced, _voice(ls, det.utterance()))
                if ls.early_guess and ls.settings.end_of_turn == "grammar":
                    self._end_rule(ls, det, guess)
        finally:
            self.mic.stop_listening()
        return clean, guess

    def _end_rule(self, ls: Listening, det: EndOfSpeech, guess: _Guess | None) -> None:
        """The silence that ends this turn, by the first ear's reading of the pause
        (``endpoint``): the long wait while the player speaks or the reading is not back;
        a pause he spoke on is stale for the second ear."""
        if guess is None or guess.last_voiced != det.last_voiced:
            if guess is not None and not guess.told_stale:
                guess.told_stale = True
                stale = getattr(self.recognizer, "stale", None)
                if callable(stale):
                    stale()
            det.wait(wait_for(None))
            return
        first = guess.first
        if first is not None and not guess.judged:
            guess.judged = True
            ls.end_rule = rule_for(*placed(first))
            trace(f"pause read as {first.text!r} ({first.confidence:.2f}): "
                  f"{placed(first)[0]}, rule {ls.end_rule!r} after {det.quiet_frames * 30} ms")
        det.wait(wait_for(first))


def decodable(utt: Utterance, clean: LiveCleaner | None, final: bool) -> tuple[Pcm, Pcm | None]:
    """The speech to decode: the noise-filtered audio when the room is noisy, with the same
    speech as heard (None when the audio is unfiltered), so the recogniser judges the room
    as it does when it filters a file itself, and the second ear hears what it does best."""
    raw = speech_only(utt, fill=not final)
    if clean is None or not clean.wanted(raw):
        trace("noise filter: " + ("not loaded" if clean is None else "not needed"))
        return raw, None
    trace("noise filter: on")
    audio = clean.finish(len(utt.audio)) if final else clean.so_far(len(utt.audio))
    return speech_only(replace(utt, audio=audio), fill=not final), raw


def _voice(ls: Listening, utt: Utterance) -> str:
    """The player's start values, unless the room is noisy (judged on the raw audio: the
    filtered audio would look quiet to the recogniser): in noise a turn is heard alone."""
    return ls.voice if ls.voice and speaker_norm.quiet(speech_only(utt)) else ""


class _Guess:
    """Recognition started early, at a pause, on a thread of its own."""

    def __init__(self, recognizer: Recognizer, audio: Pcm, raw: Pcm | None, focus: str,
                 last_voiced: int | None, voice: str = "") -> None:
        self.last_voiced = last_voiced
        self.first: Heard | None = None  # the first ear's reading, once it exists
        self.judged = False  # its end-of-turn rule traced
        self.told_stale = False  # the player spoke on, and the recogniser was told
        self._done = threading.Event()
        self._value: Heard = NOTHING
        self._error: BaseException | None = None

        def run() -> None:
            try:
                seen = getattr(recognizer, "recognize_seen", None)
                if callable(seen):  # the first ear's reading before the second ear's
                    self._value = seen(audio, focus, voice, raw, self._told)
                else:
                    self._value = recognizer.recognize(audio, focus, voice, raw)
            except BaseException as exc:  # re-raised where the result is used
                self._error = exc
            finally:
                self.first = self.first or self._value
                self._done.set()
        threading.Thread(target=run, name="early-asr", daemon=True).start()

    def _told(self, heard: Heard) -> None:
        self.first = heard

    def result(self) -> Heard:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value
