"""What the stand-in microphones of the benches share (``latency.ClipMic``, the simulated
table's ``VirtualMic``): the real voice loop listens to them as to ``audio.Microphone``.

Each turn a thread of its own feeds recorded frames into the queue the listener reads, from
``start_listening`` until ``stop_listening`` (which also drops what the listener did not take,
as the real microphone does); a new turn stops a feeder still running from the last one.
Only what is fed, and how fast, differs: that is the subclass's ``_feeder``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from banker.speech.protocols import drain


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
