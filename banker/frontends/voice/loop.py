"""The one event loop of the voice front end, for joining and for playing.

The loop owns the input events (``events``), the one listening at a time, and the presses
waiting their turn; what a press, a heard turn, a typed line or a quiet moment *means* is the
phase's: ``Joining`` (players press to sit down) or ``Playing`` (the game). Both run on the
main thread, which owns the session and its SQLite journal.

How a turn goes: a press stops Mr. Monopoly if he is talking (barge-in) and starts a
listening (``listener``); a second press (or the button's release, on hold-to-talk buttons)
ends it early; the heard turn goes to the phase. Presses from other players while one is
talking wait their turn, in order; the speaker waits (its gate is shut) while a player talks.
When the sound device is gone (``SoundLost``) the loop says so once and a press is a bare
press, handed to the phase at once.
"""

from __future__ import annotations

import queue
import time
from typing import Protocol, TextIO

from banker.editions.model import Edition
from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.events import (
    EndOfInput,
    InputEvent,
    KeyInput,
    SoundBack,
    SoundLost,
    TypedInput,
)
from banker.frontends.voice.listener import Listener, Listening, TurnHeard
from banker.frontends.voice.trace import T0, trace
from banker.speech.audio import DEVICE_LOST
from banker.speech.buttons import ButtonEvent
from banker.speech.protocols import AudioIn

PROMPT = "> "
SIGNAL_SLICE = 0.25  # seconds: how soon a Ctrl-C is noticed while nothing happens
SOUND_BACK = "The sound is back; press your button to speak."


class Phase(Protocol):
    """What the presses and the words mean: joining or playing."""

    @property
    def edition(self) -> Edition:
        """Whose grammar the recogniser listens with."""

    def start(self, loop: VoiceLoop) -> None:
        """Before the first event: say the opening lines."""

    def token_for(self, key: str) -> str | None:
        """Who a button belongs to ("" for a button with no token yet); None: not a button."""

    def listening_for(self, token: str, ev: ButtonEvent) -> Listening:
        """A new listening for a press (focus, end-of-speech settings)."""

    def listening_started(self) -> None:
        """The listener runs (the player is talking): slow work costs nobody now."""

    def heard(self, turn: TurnHeard) -> None:
        """A turn ended (``turn.listening.cut_off``: the sound went away during it)."""

    def pressed_without_sound(self, key: str, token: str) -> None:
        """A press while there is no microphone: the press alone."""

    def typed(self, line: str) -> bool:
        """A typed line; True ends the phase."""

    def timeout(self) -> float | None:
        """Seconds until the phase wants ``timed_out`` (None: never)."""

    def timed_out(self) -> bool:
        """The timeout passed with nothing happening; True ends the phase."""

    def end_of_input(self) -> None:
        """Ctrl-D (or the pipe ended) and nobody is being listened to: the phase ends."""

    def interrupted(self) -> None:
        """Ctrl-C: the phase ends now (re-raise to leave without a word)."""


class VoiceLoop:
    """Events in, one at a time, until the phase ends."""

    def __init__(self, io: VoiceIO, out: TextIO, phase: Phase) -> None:
        self.io = io
        self.out = out
        self.phase = phase
        self.listening: Listening | None = None
        self.waiting: list[ButtonEvent] = []
        self.eof = False
        self.done = False  # the loop ended: background work stops
        self._ended = False
        self.listener: Listener | None = None

    def run(self) -> None:
        try:
            self.phase.start(self)
            self.prompt()
            self.listener = Listener(lambda: (self._ear(), self.io.player), self.io.beep,
                                     self.io.recognizer(self.phase.edition), self.io.events.put,
                                     self.io.cleaner)
            self._run()
        except KeyboardInterrupt:
            self.done = True
            self.phase.interrupted()
        finally:
            self.done = True

    def _ear(self) -> AudioIn:
        """What this turn is heard by: the pressing phone's own microphone, else the table's."""
        ls, phones = self.listening, self.io.phones
        ear = phones.ear(ls.key) if ls is not None and phones is not None else None
        return ear if ear is not None else self.io.mic

    def _run(self) -> None:
        while not self._ended:
            timeout: float | None = None
            if self.listening is None:
                if self.eof:
                    self.phase.end_of_input()
                    return
                timeout = self.phase.timeout()
            ev = self._next_event(timeout)
            if ev is None:
                self._ended = self.phase.timed_out()
                continue
            self.handle(ev)

    def _next_event(self, timeout: float | None) -> InputEvent | None:
        """The next event, or None once ``timeout`` has passed. Waited for in slices: a
        Ctrl-C that the kernel hands to another thread (the sound library's, onnxruntime's)
        only sets a flag, and a lock wait without a time-out never looks at it, so the
        banker went on waiting (seen under load); between slices Python runs the handler."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SIGNAL_SLICE if end is None else min(SIGNAL_SLICE, end - time.monotonic())
            if left <= 0:
                return None
            try:
                return self.io.events.get(timeout=left)
            except queue.Empty:
                continue

    def handle(self, ev: InputEvent) -> None:
        if isinstance(ev, EndOfInput):
            self.eof = True
        elif isinstance(ev, TypedInput):
            self._ended = self.phase.typed(ev.line)
        elif isinstance(ev, KeyInput):
            if ev.event.kind == "press":
                self._press(ev.event)
            else:
                self._release(ev.event)
        elif isinstance(ev, TurnHeard):
            self._heard(ev)
        elif isinstance(ev, SoundLost):
            self._lost()
        elif isinstance(ev, SoundBack):
            self._back()

    def stop(self) -> None:
        """The phase is over (its own decision, e.g. "that's everyone"): the loop ends after
        this event."""
        self._ended = True

    def prompt(self) -> None:
        print(PROMPT, end="", file=self.out, flush=True)

    def _lost(self) -> None:
        """The sound device went away (``VoiceIO.lose``): say so once; keyboard mode from now."""
        print(DEVICE_LOST, file=self.out, flush=True)
        self.waiting.clear()  # presses to talk: nobody can hear them now
        ls = self.listening
        if ls is not None:
            ls.cut_off = True
            ls.end("press")  # the listener stops at once; its turn is the phase's to drop
        self.prompt()

    def _back(self) -> None:
        """The sound device answers again (``VoiceIO.regain``): voice from now on, said once."""
        print(SOUND_BACK, file=self.out, flush=True)
        self.io.speaker.say(SOUND_BACK)
        self.prompt()

    # -- buttons -------------------------------------------------------------------------------
    def _press(self, ev: ButtonEvent) -> None:
        token = self.phase.token_for(ev.key)
        trace(f"press {ev.key} ({token}) from {ev.source} at {ev.time - T0:.3f}")
        if token is None:
            return
        ls = self.listening
        if self.io.lost.is_set():  # no microphone: the press alone (a bid, a "yes")
            if ls is None or ls.key != ev.key:
                self.phase.pressed_without_sound(ev.key, token)
            return
        if self.io.speaker.busy():
            self.io.speaker.stop()  # barge-in
        if ls is not None:
            if ls.key == ev.key and ls.ended_at is None:
                if not ls.holds:
                    ls.end("press")  # a second press ends the utterance early
                return
            self.waiting.append(ev)  # another player, or a new turn after this one
            return
        self.listening = self.phase.listening_for(token, ev)
        self.io.speaker.gate.clear()
        assert self.listener is not None
        self.listener.start(self.listening)
        self.phase.listening_started()

    def _release(self, ev: ButtonEvent) -> None:
        ls = self.listening
        if ls is not None and ls.key == ev.key and ls.holds:
            ls.end("release")

    def _heard(self, turn: TurnHeard) -> None:
        self.listening = None
        self.io.speaker.gate.set()
        self.phase.heard(turn)
        if self.waiting and self.listening is None:
            self._press(self.waiting.pop(0))
