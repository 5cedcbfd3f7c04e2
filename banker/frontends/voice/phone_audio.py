"""The phones as token buttons and close microphones for the voice loop.

``PhoneEars`` is the ``screen.phones.PhoneSink`` of a sitting: a phone's press and release
become the loop's ``KeyInput`` (source ``phone``, key ``phone:<token>:<phone id>``, a
hold-to-talk button), and its sound goes to that phone's ``PhoneAudio``, an ``AudioIn`` like
the microphone: the listener takes 30 ms frames from it, from the press on (the same
``since`` rule as the microphone: what came before the press, or before the beep has
sounded, is left out). When the phone's sound stops coming (the button let go, the
connection lost, no microphone), silence is fed in real time, so the end of speech is found
as for a microphone that hears a quiet room and no turn waits for a phone that has gone.

A phone without a microphone (refused, or never asked) is a button only: its turns are heard
by the table's microphone (``ear`` returns None).
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable

from banker.frontends.voice.events import InputEvent, KeyInput
from banker.screen.phones import Phones, parse_key
from banker.speech.buttons import ButtonEvent
from banker.speech.protocols import drain
from banker.speech.stand_ins import FedMic

FRAME_BYTES = 960  # 30 ms of 16 kHz int16
KEEP_SECONDS = 30.0  # s of a phone's sound kept from its press until its turn is listened to
SILENT_FRAME = bytes(FRAME_BYTES)


class PhoneAudio:
    """One phone's sound for the listener (an ``AudioIn``)."""

    def __init__(self, key: str, still_coming: Callable[[], bool],
                 on_listening: Callable[[bool], None] = lambda _on: None) -> None:
        self.key = key
        self.still_coming = still_coming  # the phone still sends sound for this turn
        self.on_listening = on_listening
        self._q: queue.Queue[bytes] = queue.Queue()
        self._held: collections.deque[tuple[float, bytes]] = collections.deque(
            maxlen=int(KEEP_SECONDS / 0.03))
        self._buf = b""
        self._lock = threading.Lock()
        self._listening = False
        self._since = 0.0
        self._turn = 0
        self._next_from: float | None = None  # pressed again while a turn is listened to

    def pressed(self, at: float) -> None:
        """A new press: what the phone sends from now on is the next turn's."""
        with self._lock:
            if self._listening:
                self._next_from = at  # kept for the next turn, which waits for this one
            else:
                self._held.clear()
                self._buf = b""

    def feed(self, pcm: bytes, at: float) -> None:
        with self._lock:
            self._buf += pcm
            while len(self._buf) >= FRAME_BYTES:
                frame, self._buf = self._buf[:FRAME_BYTES], self._buf[FRAME_BYTES:]
                if self._listening and (self._next_from is None or at < self._next_from):
                    if at >= self._since:
                        self._q.put(frame)
                else:
                    self._held.append((at, frame))

    def frames(self) -> queue.Queue[bytes]:
        return self._q

    def start_listening(self, since: float | None = None) -> None:
        with self._lock:
            drain(self._q)
            self._since = since or 0.0
            for at, frame in self._held:
                if at >= self._since:
                    self._q.put(frame)
            self._held.clear()
            self._next_from = None
            self._listening = True
            self._turn += 1
            turn = self._turn
        self.on_listening(True)
        threading.Thread(target=self._quiet_after, args=(turn,), name="phone-quiet", daemon=True).start()

    def _quiet_after(self, turn: int) -> None:
        """Once the phone's sound has stopped coming, feed silence in real time."""
        while True:
            time.sleep(0.03)
            with self._lock:
                if not self._listening or self._turn != turn:
                    return
                if self.still_coming() or not self._q.empty():
                    continue
                self._q.put(SILENT_FRAME)

    def stop_listening(self) -> None:
        with self._lock:
            was = self._listening
            self._listening = False
            drain(self._q)
            if self._next_from is None:
                self._held.clear()
        if was:
            self.on_listening(False)

    def close(self) -> None:
        self.stop_listening()


class SilentMic(FedMic):
    """The microphone of a table that has none: silence in real time while listening (a
    phone without a microphone is then a button, and its press a bid or a "yes")."""

    def _feeder(self, stop: threading.Event) -> Callable[[], None]:
        def feed() -> None:
            while not stop.wait(0.03):
                self._q.put(SILENT_FRAME)
        return feed


class PhoneEars:
    """The game's side of the phones (a ``PhoneSink``): presses to the loop, sound to ears."""

    def __init__(self, phones: Phones, post: Callable[[InputEvent], None]) -> None:
        self.phones = phones
        self.post = post
        self._ears: dict[str, PhoneAudio] = {}
        self._mic: dict[str, bool] = {}
        self._lock = threading.Lock()
        phones.sink = self

    def _ear(self, key: str) -> PhoneAudio:
        with self._lock:
            ear = self._ears.get(key)
            if ear is None:
                ear = self._ears[key] = PhoneAudio(
                    key, lambda: self.phones.streaming(key), lambda on: self.phones.listening(key, on))
            return ear

    def press(self, key: str, at: float, mic: bool) -> None:
        self._mic[key] = mic
        self._ear(key).pressed(at)
        self.post(KeyInput(ButtonEvent(key, "press", "phone", at)))

    def release(self, key: str, at: float) -> None:
        self.post(KeyInput(ButtonEvent(key, "release", "phone", at)))

    def audio(self, key: str, pcm: bytes, at: float) -> None:
        self._ear(key).feed(pcm, at)

    def ear(self, key: str) -> PhoneAudio | None:
        """The phone's own microphone for a turn pressed on ``key``; None: not a phone, or a
        phone without a microphone (the table's microphone listens)."""
        if parse_key(key) is None or not self._mic.get(key, False):
            return None
        return self._ear(key)

    def close(self) -> None:
        self.phones.sink = None
        with self._lock:
            for ear in self._ears.values():
                ear.close()
