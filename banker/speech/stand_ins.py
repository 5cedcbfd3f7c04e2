"""Stand-ins for the sound devices. ``FedMic``: what the stand-in microphones of the benches
share (``latency.ClipMic``, the simulated table's ``VirtualMic``): the real voice loop listens
to them as to ``audio.Microphone``. ``SilentOut`` and ``SilentVoice``: a speaker and a voice
for a table whose lines are read, not heard (the simulated table; a table without sound whose
phones are its microphones).

Each turn a thread of its own feeds recorded frames into the queue the listener reads, from
``start_listening`` until ``stop_listening`` (which also drops what the listener did not take,
as the real microphone does); a new turn stops a feeder still running from the last one.
Only what is fed, and how fast, differs: that is the subclass's ``_feeder``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from banker.speech.protocols import RATE, Pcm, drain


class FedMic:
    """A microphone fed by a thread per turn (an ``AudioIn``); subclasses give ``_feeder``."""

    def __init__(self, maxsize: int = 0) -> None:
        """``maxsize``: how many frames may wait for the listener (0: any number)."""
        self._q: queue.Queue[bytes] = queue.Queue(maxsize=maxsize)
        self._stop = threading.Event()

    def frames(self) -> queue.Queue[bytes]:
        return self._q

    def start_listening(self, since: float | None = None) -> None:
        self._stop.set()  # a feeder still running from the last turn stops
        self._stop = threading.Event()
        threading.Thread(target=self._feeder(self._stop), daemon=True).start()

    def _feeder(self, stop: threading.Event) -> Callable[[], None]:
        """What this turn's thread runs until ``stop`` is set (bind here what must not change
        under it: the next turn may be set up while it still runs)."""
        raise NotImplementedError

    def stop_listening(self) -> None:
        self._stop.set()
        drain(self._q)

    def close(self) -> None:
        self._stop.set()


class SilentOut:
    """A loudspeaker nobody listens to (an ``AudioOut``): every sample is taken at once. The
    simulated table's, and the table's that has no speaker while phones are its microphones."""

    rate = RATE
    latency = 0.0

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None:
        if on_start is not None:
            on_start(time.monotonic())

    def stop(self) -> None:
        pass

    def busy(self) -> bool:
        return False

    def sounding_until(self) -> float:
        return 0.0

    def close(self) -> None:
        pass


class SilentVoice:
    """A voice that renders nothing (a ``Synthesizer``): the lines are read, not heard."""

    sample_rate = RATE

    def __init__(self) -> None:
        self.fixed: set[str] = set()

    def speak(self, text: str) -> Iterator[Pcm]:
        yield np.zeros(16, dtype=np.int16)

    def speak_all(self, text: str) -> Pcm:
        return np.zeros(16, dtype=np.int16)

    def add_fixed(self, lines: Any = (), openings: Any = ()) -> None:
        pass

    def warm(self, texts: Any = None, idle: Any = None, stop: Any = None) -> int:
        return 0

    def close(self) -> None:
        pass
