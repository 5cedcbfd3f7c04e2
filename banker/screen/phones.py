"""The players' phones: who holds which token, their presses, their sound, and what was said to them.

The server's phone sockets (``phone_socket``) call in from the server's thread: a phone
connects, claims a token, presses and releases its button, sends 16 kHz audio frames, goes
away. The game side registers a ``PhoneSink`` (``frontends.voice.phone_audio``) that turns
those into button events and a microphone; it tells a phone, through ``listening``, when its
turn is being listened to and when it is over. Lines Mr. Monopoly says (``said``) go to the
phones they are said to.

Rules (the page's contract and the table's):
- One phone per token, one token per phone. A token held by a phone is refused to another
  until the first has gone: it left the page (its socket closed as "going away", or it picked
  another token), or its connection has been lost for ``GONE_AFTER`` seconds. A phone that
  comes back within that time (same phone id, kept by its page) has its token still.
- A release within ``TAP`` seconds of the press is a tap: the turn goes on as a key press's
  does (the end of speech ends it, a second tap ends it early). A longer hold ends the turn
  when the button is let go (hold-to-talk).
- A phone whose connection is lost, or whose microphone is refused, in the middle of a turn
  lets go of its button: the turn ends with what was heard so far, and nothing is lost.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

GONE_AFTER = 10.0  # s a phone whose connection was lost keeps its token
TAP = 0.35  # s: a release sooner than this after the press is a tap (press-to-talk)
KEY_PREFIX = "phone:"
TAKEN = "Another phone has that token. Pick another, or ask its player to leave it."
NO_SUCH = "That token isn't in this game."


def phone_key(token: str, phone_id: str) -> str:
    """The button a phone is, as the voice loop sees it: one per phone and token."""
    return f"{KEY_PREFIX}{token}:{phone_id}"


def parse_key(key: str) -> tuple[str, str] | None:
    """(token, phone id) of a phone's button; None for any other key."""
    if not key.startswith(KEY_PREFIX):
        return None
    token, _, phone_id = key[len(KEY_PREFIX):].partition(":")
    return (token, phone_id) if token and phone_id else None


class PhoneSink(Protocol):
    """What the game does with the phones (the voice front end's side)."""

    def press(self, key: str, at: float, mic: bool) -> None:
        """A phone's button went down; ``mic``: its audio is coming (or being asked for)."""

    def release(self, key: str, at: float) -> None:
        """The button went up (a hold), or the phone can no longer talk (lost, no mic)."""

    def audio(self, key: str, pcm: bytes, at: float) -> None:
        """16 kHz mono int16 little-endian samples from the phone's microphone."""


@dataclass
class Phone:
    id: str
    send: Callable[[dict[str, Any]], None]  # thread-safe: queues a message to its page
    token: str | None = None
    connected: bool = True
    lost_at: float | None = None
    mic: str = "none"  # none (never asked) | asking | on | off
    pressed_at: float | None = None  # the button is down (or a tap's turn goes on)
    holding: bool = False
    listening: bool = False
    listened_from: float = 0.0  # when the turn being listened to started
    streaming: bool = False  # its audio is wanted: from the press to the end of the turn


@dataclass
class Phones:
    """The phones at the table (thread-safe: the server's thread and the game's call in)."""

    tokens: dict[str, str] = field(default_factory=dict)  # token -> name, in turn order
    sink: PhoneSink | None = None
    url: str = ""  # the address the players open (with its key off loopback)
    on_connect: Callable[[], None] = lambda: None  # a phone opened the page (load what it needs)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _phones: dict[str, Phone] = field(default_factory=dict)
    _said: dict[str, str] = field(default_factory=dict)  # token -> the last line said to them
    _turn: str | None = None  # the token whose phone turn was last taken

    # -- the server's side ---------------------------------------------------------------------
    def connect(self, phone_id: str, send: Callable[[dict[str, Any]], None]) -> None:
        with self._lock:
            old = self._phones.get(phone_id)
            phone = Phone(phone_id, send)
            if old is not None and old.token is not None and self._holder(old.token) in (None, phone_id):
                phone.token = old.token  # back within GONE_AFTER: the token is still its own
            self._phones[phone_id] = phone
            self._tell_all()
        self.on_connect()

    def disconnect(self, phone_id: str, left: bool, send: Callable[[dict[str, Any]], None]) -> None:
        """The socket closed. ``left``: the page was closed or navigated away (going away);
        otherwise the connection was lost and the phone may come back. ``send``: the closed
        socket's (a newer socket of the same phone is not disconnected by an old one)."""
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None or phone.send is not send:
                return
            self._let_go(phone)
            phone.connected = False
            phone.streaming = False
            phone.lost_at = time.monotonic()
            if left:
                phone.token = None
            self._tell_all()

    def claim(self, phone_id: str, token: str) -> None:
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None:
                return
            if token not in self.tokens:
                phone.send({"type": "refused", "text": NO_SUCH})
                return
            holder = self._holder(token)
            if holder not in (None, phone_id):
                phone.send({"type": "refused", "text": TAKEN})
                return
            if phone.token != token:
                self._let_go(phone)
                phone.token = token
            self._tell_all()

    def leave(self, phone_id: str) -> None:
        """The player gave the token back (to pick another, or to hand the phone on)."""
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is not None:
                self._let_go(phone)
                phone.token = None
                self._tell_all()

    def mic(self, phone_id: str, state: str) -> None:
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None or state not in ("asking", "on", "off"):
                return
            phone.mic = state
            if state == "off":
                self._let_go(phone)  # a turn waiting for this phone's sound ends with none

    def press(self, phone_id: str) -> None:
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None or phone.token is None or self.sink is None:
                return
            now = time.monotonic()
            if phone.streaming and not phone.holding:  # a second tap ends a tap's turn
                phone.streaming = False
                self.sink.release(phone_key(phone.token, phone.id), now)
                return
            phone.pressed_at, phone.holding, phone.streaming = now, True, phone.mic in ("asking", "on")
            self._turn = phone.token
            self.sink.press(phone_key(phone.token, phone.id), now, phone.streaming)

    def release(self, phone_id: str) -> None:
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None or phone.token is None or phone.pressed_at is None or not phone.holding:
                return
            phone.holding = False
            now = time.monotonic()
            if now - phone.pressed_at >= TAP and self.sink is not None:
                phone.streaming = False
                self.sink.release(phone_key(phone.token, phone.id), now)

    def audio(self, phone_id: str, pcm: bytes) -> None:
        with self._lock:
            phone = self._phones.get(phone_id)
            if phone is None or phone.token is None or self.sink is None or not phone.streaming:
                return
            key = phone_key(phone.token, phone.id)
            sink = self.sink
        sink.audio(key, pcm, time.monotonic())

    def view(self, phone_id: str) -> dict[str, Any]:
        """What one phone's page shows (besides the money, which comes with each snapshot)."""
        with self._lock:
            phone = self._phones.get(phone_id)
            mine = phone.token if phone is not None else None
            taken = [t for t in self.tokens if t != mine and self._holder(t) is not None]
            return {"type": "phone", "mine": mine, "taken": taken,
                    "said": self._said.get(mine or "", ""),
                    "listening": bool(phone is not None and phone.listening),
                    "streaming": bool(phone is not None and phone.streaming)}

    # -- the game's side -----------------------------------------------------------------------
    def said(self, text: str, asked: tuple[str, ...] = ()) -> None:
        """A line Mr. Monopoly said: it is said to the players it names, the players it asks,
        and the player whose phone turn it answers."""
        with self._lock:
            low = text.lower()
            to = {t for t, name in self.tokens.items()
                  if re.search(rf"\b{re.escape(name.lower())}\b", low)}
            to.update(t for t in asked if t in self.tokens)
            if self._turn is not None:
                to.add(self._turn)
            for t in to:
                self._said[t] = text
            for phone in self._phones.values():
                if phone.connected and phone.token in to:
                    phone.send(self.view(phone.id))

    def listening(self, key: str, on: bool) -> None:
        """The voice loop listens to this phone's turn (``on``), or the turn is over."""
        parsed = parse_key(key)
        if parsed is None:
            return
        with self._lock:
            phone = self._phones.get(parsed[1])
            if phone is None:
                return
            phone.listening = on
            now = time.monotonic()
            if on:
                phone.listened_from = now
            elif phone.pressed_at is None or phone.pressed_at <= phone.listened_from:
                phone.streaming = False  # (a press made since then waits its turn: it goes on)
                phone.pressed_at = None
            if phone.connected:
                phone.send(self.view(phone.id))

    def streaming(self, key: str) -> bool:
        """This phone's sound is still coming (its turn may wait for more of it)."""
        parsed = parse_key(key)
        with self._lock:
            phone = self._phones.get(parsed[1]) if parsed is not None else None
            return bool(phone is not None and phone.connected and phone.streaming
                        and phone.token == (parsed[0] if parsed else None))

    # -- inside the lock -----------------------------------------------------------------------
    def _holder(self, token: str) -> str | None:
        now = time.monotonic()
        for p in self._phones.values():
            if p.token == token and (p.connected or (p.lost_at is not None and now - p.lost_at < GONE_AFTER)):
                return p.id
        return None

    def _let_go(self, phone: Phone) -> None:
        """A turn this phone is in ends now (as if its button went up)."""
        was = phone.streaming or phone.holding
        phone.holding = phone.streaming = False
        if was and phone.token is not None and phone.pressed_at is not None and self.sink is not None:
            self.sink.release(phone_key(phone.token, phone.id), time.monotonic())

    def _tell_all(self) -> None:
        for phone in self._phones.values():
            if phone.connected:
                phone.send(self.view(phone.id))
