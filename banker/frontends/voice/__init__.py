"""``banker play`` with a microphone and a speaker: token buttons, listening, Mr. Monopoly's voice.

Receives button events (terminal keys, input devices), typed lines and microphone audio;
feeds presses and recognised utterances to the ``Session``; speaks (and prints) every line
the session says. The pieces:

- ``devices``: what is opened once for the sitting (``VoiceIO``, ``open_voice``) and the
  watchdog that notices the sound device going away;
- ``speaker``: lines said in order, stopped by a press (barge-in);
- ``listener``: one press's listening, from the beep to the recognised words;
- ``events``: the input events (``KeyInput``, ``TypedInput``, ``TurnHeard``...);
- ``loop``: the one event loop, in one of two phases: ``joining`` (players press to sit
  down) and ``playing`` (the game);
- ``latency``: the latency bench that drives the real loop.

Decisions (the spec is silent):
- A typed line that holds only a button key is that button (pipes); on a terminal, a button
  key on an empty line is a press, any other key starts a typed line.
- The sound device goes away mid-game (unplugged, sound server died): a watchdog notices,
  Mr. Monopoly says so in one sentence (``audio.DEVICE_LOST``, printed, and spoken only if
  the speaker still works), once, and the game goes on in keyboard mode: typed lines as
  before, nothing more is spoken, and a button press is a bare press (a bid, a "yes"): there
  is no microphone to hear what comes after it. What he was saying is dropped, a turn being
  listened to is dropped (it changes nothing), and Ctrl-D ends the game at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from banker.editions.model import Edition
from banker.frontends.voice.devices import AudioUnavailable, TurnTiming, VoiceIO, open_voice
from banker.frontends.voice.joining import JOIN_CLOSE, Joining, join_by_voice
from banker.frontends.voice.listener import Listener, Listening, TurnHeard
from banker.frontends.voice.loop import PROMPT, VoiceLoop
from banker.frontends.voice.phone_audio import PhoneEars
from banker.frontends.voice.playing import PausableClock, Playing, run_voice
from banker.frontends.voice.speaker import Speaker
from banker.interpreter.session import Session
from banker.screen.phones import Phones

__all__ = [
    "JOIN_CLOSE",
    "PROMPT",
    "AudioUnavailable",
    "Joining",
    "Listener",
    "Listening",
    "PausableClock",
    "Playing",
    "Speaker",
    "TurnHeard",
    "TurnTiming",
    "VoiceFrontend",
    "VoiceIO",
    "VoiceLoop",
    "join_by_voice",
    "open_voice",
    "run_voice",
]


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

    def run(self, session: Session, phones: Phones | None = None) -> int | None:
        """The game by voice (and the players' ``phones``); None when there is no sound (the
        caller plays by keyboard, or by keyboard and phones)."""
        io = self.io()
        if io is None:
            return None
        if phones is not None:
            io.phones = PhoneEars(phones, io.events.put)
        return run_voice(session, self.config, self.stdin, self.out, io=io)

    def close(self) -> None:
        if self._io is not None:
            self._io.close()
