"""The joining phase of the voice loop: players press their buttons to sit down.

Each new button press joins (turn order = order of presses, and that button belongs to that
player for this sitting); saying a token's name claims it, saying nothing takes the next free
token. Joining closes ``JOIN_CLOSE`` seconds after the last new player joined. Every join is
answered with the button and the token it got ("Button 2, you're the Dog."): a misheard token
is heard at once, and pressing again and saying the token changes it. A typed line of tokens
(as in keyboard mode) answers at once. Without sound (lost mid-way) a press takes the next
free token. The lines are ``join_*`` in ``config/replies/common.yaml``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from banker.editions.model import Edition
from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.listener import Listening, TurnHeard
from banker.interpreter.replies import Replies, load_replies
from banker.nlu.normalize import normalize
from banker.rules.outcome import Line
from banker.speech.buttons import ButtonEvent
from banker.speech.vad import VadSettings

if TYPE_CHECKING:
    from banker.frontends.voice.loop import VoiceLoop

JOIN_CLOSE = 5.0  # s after the last new player joined
JOIN_LISTEN = 2.5  # s: a joining press with no word by then takes the next free token


class Joining:
    """Seats players in the order they press; ``result`` is their tokens (``"dog, car"``)."""

    def __init__(self, io: VoiceIO, edition: Edition, out: TextIO,
                 close_after: float = JOIN_CLOSE) -> None:
        self.io = io
        self._edition = edition
        self.out = out
        self.close_after = close_after
        self.replies = Replies(edition, load_replies(edition.id))
        vad = VadSettings.from_config(io.config.get("audio") or {})
        self.vad = replace(vad, no_speech_seconds=min(JOIN_LISTEN, vad.no_speech_seconds))
        self.joined: list[tuple[str, str]] = []  # (key, token)
        self.last_join: float | None = None
        self.typed_line: str | None = None
        self.loop: VoiceLoop | None = None

    @property
    def edition(self) -> Edition:
        return self._edition

    def say(self, key: str, **params: Any) -> None:
        text = self.replies.render(Line(key, params))
        print(text, file=self.out, flush=True)
        self.io.speaker.say(text)

    def name(self, token: str) -> str:
        return self._edition.token(token).name

    def result(self) -> str:
        """The players in turn order; "" at end of input with nobody seated."""
        if self.typed_line is not None:
            return self.typed_line
        if not self.joined:
            return ""
        self.io.key_tokens = {k: tok for k, tok in self.joined}
        self.say("join_start", players=", ".join(self.name(tok) for _, tok in self.joined))
        return ", ".join(tok for _, tok in self.joined)

    # -- the phase's answers to the loop -----------------------------------------------------
    def start(self, loop: VoiceLoop) -> None:
        self.loop = loop
        self.say("join_ask")

    def token_for(self, key: str) -> str | None:
        return "" if key in self.io.keys else None

    def listening_for(self, token: str, ev: ButtonEvent) -> Listening:
        return Listening("", ev.key, ev.source == "evdev", "player", self.vad, ev.time,
                         early_guess=False)

    def listening_started(self) -> None:
        pass

    def heard(self, turn: TurnHeard) -> None:
        key = turn.listening.key
        if turn.listening.cut_off:  # the press still joins (no token heard)
            self.seat(key, None, False)
            return
        spoke = turn.utterance.has_speech
        self.seat(key, token_in(turn.heard.text, self._edition) if spoke else None, spoke)

    def pressed_without_sound(self, key: str, token: str) -> None:
        self.seat(key, None, False)  # nobody to hear the token: the next free one

    def typed(self, line: str) -> bool:
        if line.strip():
            self.typed_line = line.strip()
            return True
        if self.loop is not None:
            self.loop.prompt()
        return False

    def timeout(self) -> float | None:
        if self.last_join is None or len(self.joined) < self._edition.min_players:
            return None
        return max(0.0, self.last_join + self.close_after - time.monotonic())

    def timed_out(self) -> bool:
        return True

    def end_of_input(self) -> None:
        pass

    def interrupted(self) -> None:
        """Ctrl-C while joining: no game was started, so there is nothing to save or say."""
        raise KeyboardInterrupt

    # -- seats -------------------------------------------------------------------------------
    def seat(self, key: str, said: str | None, spoke: bool) -> None:
        """A press on ``key``, then ``said`` (a token heard, or None; ``spoke``: words were
        heard at all): join, or change token on a second press."""
        ed = self._edition
        button = self.io.keys.get(key, key)
        free = [t for t in ed.token_ids if t not in {tok for _, tok in self.joined}]
        mine = next((tok for k, tok in self.joined if k == key), None)
        if mine is not None:  # a second press: change token
            if said is not None and said in free:
                self.joined = [(k, said if k == key else tok) for k, tok in self.joined]
                self.say("join_changed", button=button, token=self.name(said))
            elif said is not None and said != mine:
                self.say("join_taken_kept", button=button, said=self.name(said), token=self.name(mine))
            else:
                self.say("join_kept", button=button, token=self.name(mine))
            return
        if len(self.joined) >= ed.max_players or not free:
            self.say("join_full", edition=ed.name, count=ed.max_players)
            return
        token = said if said in free else free[0]
        if said is not None and said != token:
            self.say("join_taken", button=button, said=self.name(said), token=self.name(token))
        elif said is None and spoke:
            self.say("join_unheard", button=button, token=self.name(token))
        else:
            self.say("join_in", button=button, token=self.name(token))
        self.joined.append((key, token))
        self.last_join = time.monotonic()


def token_in(text: str, edition: Edition) -> str | None:
    words = f" {normalize(text)} "
    for t in edition.tokens:
        for name in (t.name, t.id, *t.aliases):
            if f" {normalize(name)} " in words:
                return t.id
    return None


def join_by_voice(io: VoiceIO, edition: Edition, out: TextIO, close_after: float = JOIN_CLOSE) -> str:
    """Players press their buttons to join; returns the tokens in turn order (``"dog, car"``),
    or "" at end of input."""
    from banker.frontends.voice.loop import VoiceLoop

    phase = Joining(io, edition, out, close_after)
    VoiceLoop(io, out, phase).run()
    return phase.result()
