"""The joining phase of the voice loop: players press their buttons to sit down.

Each new button press joins (turn order = order of presses, and that button belongs to that
player for this sitting); saying a token's name claims it, saying nothing takes the next free
token. Every join is
answered with the button and the token it got ("Button 2, you're the Dog."): a misheard token
is heard at once, and pressing again and saying the token changes it. A typed line of tokens
(as in keyboard mode) answers at once. Without sound (lost mid-way) a press takes the next
free token. The lines are ``join_*`` in ``config/replies/common.yaml``.

Closing: once enough players sit, ``JOIN_CLOSE - JOIN_COUNTDOWN`` seconds of quiet after the
last join bring "Anyone else? Starting in 3 seconds.", and the window closes three seconds
after he has finished saying it; any press in between keeps it open. The first player may
start at once: press and say "that's everyone" (or "no"), or hold a hold-to-talk button for
``LONG_PRESS`` seconds.
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

JOIN_CLOSE = 5.0  # s of quiet after the last join before the window starts to close
JOIN_COUNTDOWN = 3.0  # s: "Anyone else? Starting in 3 seconds.", counted once it is said
JOIN_LISTEN = 2.5  # s: a joining press with no word by then takes the next free token
LONG_PRESS = 1.0  # s: the first player holding a hold-to-talk button this long starts
ENOUGH = frozenset({"no", "nope", "nah", "no thanks", "that is everyone", "that is all"})


class Joining:
    """Seats players in the order they press; ``result`` is their tokens (``"dog, car"``)."""

    def __init__(self, io: VoiceIO, edition: Edition, out: TextIO,
                 close_after: float = JOIN_CLOSE, countdown: float = JOIN_COUNTDOWN) -> None:
        self.io = io
        self._edition = edition
        self.out = out
        self.close_after = close_after
        self.countdown = countdown
        self.warned_at: float | None = None  # "Anyone else?" was said (queued) then
        self.warning_heard: float | None = None  # ... and had finished sounding then
        self.started = False  # the first player started the game
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
        ls = turn.listening
        self._keep_open()
        if ls.cut_off:  # the press still joins (no token heard)
            self.seat(ls.key, None, False)
            return
        spoke = turn.utterance.has_speech
        held = ls.holds and not spoke and (ls.ended_at or ls.pressed_at) - ls.pressed_at >= LONG_PRESS
        if self._is_first(ls.key) and (held or (spoke and normalize(turn.heard.text) in ENOUGH)):
            self._start_now()
            return
        self.seat(ls.key, token_in(turn.heard.text, self._edition) if spoke else None, spoke)

    def _is_first(self, key: str) -> bool:
        return bool(self.joined) and self.joined[0][0] == key

    def _start_now(self) -> None:
        """The first player says that's everyone: start, if enough players sit."""
        ed = self._edition
        if len(self.joined) < ed.min_players:
            self.say("join_need", edition=ed.name, count=ed.min_players)
            return
        self.started = True
        if self.loop is not None:
            self.loop.stop()

    def _keep_open(self) -> None:
        """Someone pressed: the closing starts again from the quiet after this."""
        if self.joined:
            self.last_join = time.monotonic()
        self.warned_at = self.warning_heard = None

    def pressed_without_sound(self, key: str, token: str) -> None:
        self._keep_open()
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
        now = time.monotonic()
        if self.warned_at is None:
            return max(0.0, self.last_join + self.close_after - self.countdown - now)
        if self.warning_heard is None:
            return 0.05  # until he has finished saying it
        return max(0.0, self.warning_heard + self.countdown - now)

    def timed_out(self) -> bool:
        """Quiet since the last join: warn, wait for the warning to be heard, then close."""
        if self.warned_at is None:
            self.warned_at = time.monotonic()
            self.say("join_closing", seconds=f"{self.countdown:g}")
            return False
        if self.warning_heard is None:
            if not self.io.speaker.busy():
                self.warning_heard = time.monotonic()
            return False
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


def join_by_voice(io: VoiceIO, edition: Edition, out: TextIO, close_after: float = JOIN_CLOSE,
                  countdown: float = JOIN_COUNTDOWN) -> str:
    """Players press their buttons to join; returns the tokens in turn order (``"dog, car"``),
    or "" at end of input."""
    from banker.frontends.voice.loop import VoiceLoop

    phase = Joining(io, edition, out, close_after, countdown)
    VoiceLoop(io, out, phase).run()
    return phase.result()
