"""Mr. Monopoly's mouth: lines said in order on a worker thread, stopped by a press (barge-in)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from banker.speech.protocols import AudioOut, Pcm, Synthesizer


class Speaker:
    """Says lines in order on a worker thread; ``stop()`` is barge-in.

    Rendering is pipelined: a phrase is handed to the player as soon as it is rendered, and
    the next renders while it plays. ``on_line_start(text, t)`` reports when the first sample
    of each line reached the device (the latency bench's stopwatch).
    """

    def __init__(self, synth: Callable[[], Synthesizer], player: AudioOut,
                 on_line_start: Callable[[str, float], None] | None = None) -> None:
        self._synth = synth  # waits for the voice to finish loading
        self.player = player
        self.on_line_start = on_line_start
        self._q: queue.Queue[tuple[int, str | Pcm]] = queue.Queue()
        self._gen = 0
        self._pending = 0
        self._lock = threading.Lock()
        self.gate = threading.Event()  # cleared while a player talks: speech waits
        self.gate.set()
        self._muted = False  # the sound device is gone: nothing more is said
        self.spoken: list[str] = []  # lines rendered to the end (for tests and the bench)
        threading.Thread(target=self._work, name="speaker", daemon=True).start()

    def say(self, text: str) -> None:
        self._put(text)

    def effect(self, pcm: Pcm) -> None:
        self._put(pcm)

    def _put(self, item: str | Pcm) -> None:
        with self._lock:
            if self._muted:
                return
            self._pending += 1
            self._q.put((self._gen, item))

    def mute(self, last_words: str | None = None) -> None:
        """The sound device is gone: what is queued or playing is dropped and nothing more is
        said, except ``last_words`` (when the speaker still works)."""
        with self._lock:
            self._gen += 1
            self._muted = True
            self.player.stop()
            if last_words is not None:
                self._pending += 1
                self._q.put((self._gen, last_words))
        self.gate.set()  # a worker waiting for a player to finish talking moves on

    def unmute(self) -> None:
        """The sound device answers again: lines are said from now on."""
        with self._lock:
            self._muted = False

    def stop(self) -> None:
        """Barge-in: nothing queued is said, and what is playing stops now."""
        with self._lock:
            self._gen += 1
            self.player.stop()

    def busy(self) -> bool:
        with self._lock:
            pending = self._pending
        return pending > 0 or self.player.busy()

    def wait_rendered(self, timeout: float = 60.0) -> None:
        """Until every queued line has been rendered and handed to the player."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if self._pending == 0:
                    return
            time.sleep(0.01)

    def wait(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while self.busy() and time.monotonic() < end:
            time.sleep(0.02)

    def _work(self) -> None:
        while True:
            gen, item = self._q.get()
            try:
                if gen == self._gen:
                    self.gate.wait()
                    self._play(gen, item)
            except Exception:  # a line that can't be said is still printed
                pass
            finally:
                with self._lock:
                    self._pending -= 1

    def _hook(self, text: str) -> Callable[[float], None] | None:
        report = self.on_line_start
        if report is None:
            return None
        return lambda t: report(text, t)

    def _play(self, gen: int, item: str | Pcm) -> None:
        if not isinstance(item, str):
            self.player.play(item)
            return
        synth = self._synth()
        first = True
        for pcm in synth.speak(item):
            if gen != self._gen:
                return
            hook = self._hook(item) if first else None
            with self._lock:
                if gen != self._gen:
                    return
                self.player.play(pcm, hook)
            first = False
        self.spoken.append(item)
