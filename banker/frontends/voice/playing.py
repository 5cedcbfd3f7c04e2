"""The game phase of the voice loop: presses and words go to the ``Session``, its lines are
said (and printed), with a sound effect for money moving and the gavel.

A press with no speech within a short window, while an auction runs or a yes/no is asked of
that player, is a bare press (a bid, a "yes"). The table clock stands still while a player is
talking (``PausableClock``): an auction is not sold under someone who pressed to bid before
"Sold" was due. Lines that come up while someone is talking (typed lines, timers) are printed
at once and spoken when the talking ends.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from banker.app import SAVED, farewell
from banker.editions.model import Edition
from banker.frontends.voice.devices import LOST_WAIT, AudioUnavailable, TurnTiming, VoiceIO
from banker.frontends.voice.listener import Listening, TurnHeard
from banker.frontends.voice.voices import PlayerVoices
from banker.interpreter.replies import the
from banker.interpreter.session import Session, Step
from banker.rules.events import CashMoved
from banker.screen.phones import parse_key
from banker.speech.buttons import ButtonEvent
from banker.speech.vad import VadSettings

if TYPE_CHECKING:
    from banker.frontends.voice.loop import VoiceLoop

PRESS_WINDOW = 1.0  # s: a press with no speech by then is a bid / a "yes"
WARM_MAX_CHARS = 40  # phrases rendered ahead of need at start-up
NOTHING_HEARD = "I didn't hear anything."  # a press, then silence, when no bare press is due


def seated_openings(session: Session) -> list[str]:
    """How replies open on the seated players, most used first: "Dog" and "Dog," (said to
    them) and "The dog" (said of them: ``{player:the}`` starting a line, as the balance does),
    so the first such reply never waits for piper to render its opening."""
    names = [session.replies.name(t) for t in session.state.order]
    of_them = [the(n) for n in names]
    return names + [f"{n}," for n in names] + [t[:1].upper() + t[1:] for t in of_them]


def voice_of(token: str, key: str) -> str:
    """Whose voice values a turn is decoded with: the token's own, or, for a phone, the
    token on that phone (a phone a hand's breadth away sounds unlike the table's microphone)."""
    phone = parse_key(key)
    return f"{token}@phone:{phone[1]}" if phone is not None else token


class PausableClock:
    """The session's clock; it stands still while a player is talking. ``source`` is the
    time it follows: the real one at the table, a virtual one on the simulated table."""

    def __init__(self, source: Callable[[], float] = time.monotonic) -> None:
        self._source = source
        self.ident = uuid.uuid4().hex  # a deadline noted here is kept only here
        self._offset = 0.0
        self._paused_at: float | None = None
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            if self._paused_at is not None:
                return self._paused_at - self._offset
            return self._source() - self._offset

    def pause(self) -> None:
        with self._lock:
            if self._paused_at is None:
                self._paused_at = self._source()

    def resume(self) -> None:
        with self._lock:
            if self._paused_at is not None:
                self._offset += self._source() - self._paused_at
                self._paused_at = None


class Playing:
    """One game at the table, by voice and by typed lines."""

    def __init__(self, session: Session, io: VoiceIO, out: TextIO, *, warm_ahead: bool = True,
                 clock: PausableClock | None = None) -> None:
        self.session = session
        self.io = io
        self.out = out
        self.warm_ahead = warm_ahead
        self.vad = VadSettings.from_config(io.config.get("audio") or {})
        self.clock = clock or PausableClock()
        session.clock = self.clock
        self.loop: VoiceLoop | None = None
        self.voices = PlayerVoices(session)  # each button is one person: learn that voice
        self._farewell_said = False
        printed = session.on_say

        def on_say(text: str) -> None:
            printed(text)
            io.speaker.say(text)
        session.on_say = on_say
        io.live_keys = lambda key: self.token_for(key) is not None

    @property
    def edition(self) -> Edition:
        return self.session.edition

    def start(self, loop: VoiceLoop) -> None:
        self.loop = loop
        if self.warm_ahead:  # openings worth caching: names of players and streets, fixed cues
            threading.Thread(target=self._warm, name="tts-warm", daemon=True).start()
        for text in list(self.session.step.said):  # said before the voice was attached
            self.io.speaker.say(text)

    def _warm(self) -> None:
        from banker.speech.tts import fixed_lines

        try:
            tts = self.io.tts()
        except AudioUnavailable:
            return
        whole, cues = fixed_lines(dict(self.session.replies.templates))
        ed = self.session.edition
        seated = seated_openings(self.session)
        names = seated + [t.name for t in ed.tokens] + [s.name for s in ed.streets]
        tts.add_fixed(whole, list(cues) + names)
        # Most useful first: the players' names open most replies. Only short phrases are
        # rendered ahead (each costs < 0.2 s of CPU, so a turn never waits long behind one);
        # long fixed lines are cached the first time they are said.
        first = seated + sorted(whole, key=len) + sorted(cues)
        order = [p for p in dict.fromkeys(first + sorted(tts.fixed)) if len(p) <= WARM_MAX_CHARS]
        tts.warm(order, self._idle, self._stopped)

    def _idle(self) -> bool:
        """Nobody talking, nothing being said: a good moment to render ahead."""
        return (self.loop is None or self.loop.listening is None) and not self.io.speaker.busy()

    def _stopped(self) -> bool:
        return (self.loop is not None and self.loop.done) or self.io.lost.is_set()

    def token_for(self, key: str) -> str | None:
        order = self.session.state.order
        phone = parse_key(key)
        if phone is not None:  # a phone's button: the token it claimed
            return phone[0] if phone[0] in order else None
        if key in self.io.key_tokens:
            tok = self.io.key_tokens[key]
            return tok if tok in order else None
        seat = self.io.keys.get(key)
        if seat is None or not 1 <= seat <= len(order):
            return None
        return order[seat - 1]

    # -- the phase's answers to the loop -----------------------------------------------------
    def timeout(self) -> float | None:
        due = self.session.deadline()
        return None if due is None else max(0.0, due - self.clock.now())

    def timed_out(self) -> bool:
        self._step(self.session.tick)
        return False

    def end_of_input(self) -> None:
        """Let a running auction finish, let him finish speaking."""
        while self.session.auction is not None:
            due = self.session.deadline()
            if due is None:
                break
            time.sleep(max(0.0, due - self.clock.now()) + 0.01)
            self._step(self.session.tick)
        self._farewell()
        self.io.speaker.wait(LOST_WAIT if self.io.lost.is_set() else 60.0)

    def interrupted(self) -> None:
        """Ctrl-C: what he was saying stops; the game is saved, and he says so."""
        self.io.speaker.stop()
        self.io.speaker.gate.set()  # a turn being listened to is dropped
        self._farewell()
        self.io.speaker.wait(LOST_WAIT)

    def _farewell(self) -> None:
        line = farewell(self.session)
        if line is not None and not self._farewell_said:  # once, even if Ctrl-C comes after Ctrl-D
            self._farewell_said = True
            print(f"\n{line}", file=self.out, flush=True)
            self.io.speaker.say(SAVED)  # a file's path is read on the screen, not aloud

    def typed(self, line: str) -> bool:
        from banker.frontends.keyboard import handle_line

        s = self.session
        tx_before, auction_before = len(s.history), s.auction
        handle_line(line, s, self.out)
        self._effects(tx_before, auction_before)
        self._prompt()
        return False

    def pressed_without_sound(self, key: str, token: str) -> None:
        self.voices.after(token, None, self._step(lambda: self.session.press(token)))
        self.voices.flush()  # no turn is listened to without sound: the next moment is now

    def listening_for(self, token: str, ev: ButtonEvent) -> Listening:
        kind, who = self.session.expecting(token)
        settings = self.vad
        if kind in ("bid", "yes_no") and token in who:
            settings = replace(settings, no_speech_seconds=min(PRESS_WINDOW, settings.no_speech_seconds))
        return Listening(token, ev.key, ev.source in ("evdev", "phone"), kind, settings, ev.time,
                         voice=self.voices.start(voice_of(token, ev.key)))

    def listening_started(self) -> None:
        self.clock.pause()
        self.voices.flush()  # the player is talking: the last turn's voice note costs nobody

    def heard(self, turn: TurnHeard) -> None:
        self.clock.resume()
        ls, heard = turn.listening, turn.heard
        token = ls.token
        if ls.cut_off or token not in self.session.state.players:
            return
        if not turn.utterance.has_speech:
            # a bare press: a bid or a "yes" when one is due; otherwise the player pressed
            # and said nothing (or the microphone heard nothing), and is told so
            step = self._step(lambda: self.session.press(token))
            self.voices.after(token, None, step)
            if step.intent == "none":
                self.session.on_say(NOTHING_HEARD)
            return
        self.io.timings.append(TurnTiming(token, turn.utterance.reason, ls.ended_at or 0.0,
                                          turn.decoded_at, heard.text))
        if heard.text.strip():
            print(f"({self.session.replies.name(token)}: {heard.text})", file=self.out, flush=True)
            step = self._step(lambda: self.session.hear(token, heard.text, heard.confidence,
                                                         heard.alternatives))
            self.voices.after(token, heard, step, voice_of(token, ls.key))
        else:  # speech, no words in it: "Sorry?" (to a question, an answer not understood)
            self._step(lambda: self.session.not_heard(token))
        self._prompt()

    # -- steps of the session ------------------------------------------------------------------
    def _prompt(self) -> None:
        if self.loop is not None:
            self.loop.prompt()

    def _step(self, fn: Callable[[], Any]) -> Step:
        """One step of the session, with the sound effects of what happened."""
        s = self.session
        tx_before = len(s.history)
        auction_before = s.auction
        s.begin_step()
        fn()
        step = s.finish_step()
        self._effects(tx_before, auction_before)
        return step

    def _effects(self, tx_before: int, auction_before: object) -> None:
        s = self.session
        if auction_before is not None and s.auction is None and "gavel" in self.io.effects:
            self.io.speaker.effect(self.io.effects["gavel"])
        elif len(s.history) > tx_before and "cash_register" in self.io.effects and any(
                isinstance(e, CashMoved) for tx in s.history[tx_before:] for e in tx.events):
            self.io.speaker.effect(self.io.effects["cash_register"])


def run_voice(session: Session, config: dict[str, Any], stdin: TextIO, out: TextIO,
              io: VoiceIO | None = None) -> int:
    """The live game. Raises ``AudioUnavailable`` (before reading any input) when there is no
    usable microphone and speaker."""
    from banker.frontends.voice.devices import open_voice
    from banker.frontends.voice.loop import VoiceLoop

    own = io is None
    if io is None:
        io = open_voice(config, stdin, out)
    try:
        VoiceLoop(io, out, Playing(session, io, out)).run()
        return 0
    finally:
        if own:
            io.close()
