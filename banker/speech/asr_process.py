"""The speech recogniser in a process of its own, for the live table.

Receives 16 kHz mono int16 utterances and a focus; returns the configured engine's ``Heard``
(``banker.speech.engine.make_engine``) unchanged. Parent and child talk in the small
dataclass messages of ``protocols`` (``Transcribe`` -> ``Transcript``, ``Ready``, ``Quit``...).

Why a process: pocketsphinx holds Python's lock while it decodes (gaps of 140 ms were
measured), which stalls the sound callbacks (Mr. Monopoly stutters) and the listener (the end
of a turn is noticed late). In its own process the decoder also gets the second core, so the
listener can start recognising at a pause while it keeps listening for more speech.
If the process dies, recognition carries on in this process.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from banker.editions.model import Edition
from banker.speech.protocols import (
    FOCI,
    EngineFailed,
    FirstReading,
    FromChild,
    Heard,
    Pcm,
    Quit,
    Ready,
    Recognizer,
    Stale,
    ToChild,
    Transcribe,
    TranscribeFailed,
    Transcript,
)


def _bytes(pcm: Pcm) -> bytes:
    return np.asarray(pcm, dtype=np.int16).tobytes()


def _pcm(data: bytes) -> Pcm:
    return np.frombuffer(data, dtype=np.int16)


def _serve(conn: Connection, config: dict[str, Any], edition: Edition) -> None:
    """The child: load the engine, warm every focus's grammar, then answer requests.

    It leaves quietly when its parent is gone (the pipe breaks or ends): a parent killed
    outright must not leave a traceback from here over the table's terminal, which the child
    shares. Ctrl-C is the parent's to handle (it reaches the whole process group): the child
    ignores it and ends with the parent.
    """
    with contextlib.suppress(ValueError, OSError):  # not possible off the main thread
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _answer_requests(conn, config, edition)
    except (EOFError, OSError):  # BrokenPipeError, ConnectionResetError: the parent is gone
        return


def _answer_requests(conn: Connection, config: dict[str, Any], edition: Edition) -> None:
    from banker.speech.engine import make_engine

    try:
        engine = make_engine(config, edition, live=True)
    except Exception as exc:  # the parent says so and recognises in-process instead
        conn.send(EngineFailed(f"{type(exc).__name__}: {exc}"))
        return
    conn.send(Ready(os.getpid()))
    noise = np.random.default_rng(0).integers(-40, 40, 8000).astype(np.int16)
    warmed: set[str] = set()
    prepare = getattr(engine, "prepare", None)
    pending: list[ToChild] = []  # read while the first ear's reading was sent
    told = _told(engine, conn, pending)
    while True:
        # a grammar is compiled on its first use: do it while nobody is waiting. The first
        # decode of all is slow too (~2x): one is made; the others would only burn the CPU
        # the table's start and the first turn need (~0.1 s each)
        while not pending and not conn.poll(0) and len(warmed) < len(FOCI):
            focus = next(f for f in FOCI if f not in warmed)
            with contextlib.suppress(Exception):
                if warmed and callable(prepare):
                    prepare(focus)
                else:
                    engine.recognize(noise, focus)
            warmed.add(focus)
        msg: ToChild = pending.pop(0) if pending else conn.recv()
        if isinstance(msg, Quit):
            return
        if isinstance(msg, Stale):  # about a request already answered
            continue
        warmed.add(msg.focus)
        if told is not None:
            told.early = msg.early
        try:
            heard = engine.recognize(_pcm(msg.audio), msg.focus, msg.speaker,
                                     None if msg.raw is None else _pcm(msg.raw))
        except Exception as exc:
            conn.send(TranscribeFailed(f"{type(exc).__name__}: {exc}"))
            continue
        conn.send(Transcript(heard))


class _Told:
    """The first of two ears, as the child runs it: its reading goes to the parent at once
    for an ``early`` request (``FirstReading``: the end-of-turn rules judge it while the
    second ear listens), and whether the parent has said since that the audio is ``Stale``
    is noted (other messages read on the way wait in ``pending``)."""

    def __init__(self, ear: Recognizer, conn: Connection, pending: list[ToChild]) -> None:
        self.ear, self.conn, self.pending = ear, conn, pending
        self.engine = ear.engine
        self.early = self.stale = False

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        heard = self.ear.recognize(pcm, focus, speaker, raw)
        self.stale = False
        if self.early:
            self.conn.send(FirstReading(heard))
            self.spoke_on()
        return heard

    def spoke_on(self) -> bool:
        """Whether the parent has said since the first reading that the audio is stale (an
        early request only: a turn that has ended is never stale)."""
        while self.early and not self.stale and self.conn.poll(0):
            msg: ToChild = self.conn.recv()
            if isinstance(msg, Stale):
                self.stale = True
            else:
                self.pending.append(msg)
        return self.stale

    def __getattr__(self, name: str) -> Any:  # ``prepare``, the grammar...: the ear's own
        return getattr(self.ear, name)


class _Skipping:
    """The second of two ears, as the child runs it: it hears nothing of audio the parent
    has said is stale (the player spoke on; the longer utterance is recognised next), and
    stops listening when that is said while it listens."""

    def __init__(self, ear: Recognizer, told: _Told) -> None:
        self.ear, self.told = ear, told
        self.engine = ear.engine

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        from banker.speech.moonshine_asr import Abandoned, abandoned_when

        if not self.told.stale:
            try:  # abandoned when the player speaks on while it listens
                with abandoned_when(self.told.spoke_on):
                    return self.ear.recognize(pcm, focus, speaker, raw)
            except Abandoned:
                pass
        return Heard("", 0.0, engine=self.engine, focus=focus)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ear, name)


def _told(engine: Recognizer, conn: Connection, pending: list[ToChild]) -> _Told | None:
    """Two ears (``first`` and ``second``): both wrapped as above; one ear: None (its
    ``Transcript`` is the first reading)."""
    ears: Any = engine
    if not (hasattr(ears, "first") and hasattr(ears, "second")):
        return None
    told = _Told(ears.first, conn, pending)
    ears.first, ears.second = told, _Skipping(ears.second, told)
    return told


class ProcessRecognizer:
    """A ``Recognizer`` whose engine runs in a child process; one decode at a time."""

    def __init__(self, config: Mapping[str, Any], edition: Edition) -> None:
        self.config = dict(config)
        self.edition = edition
        self.engine = "process"
        self._lock = threading.Lock()
        self._sending = threading.Lock()  # a ``Stale`` may be sent while a decode is waited for
        self._local: Recognizer | None = None
        ctx = mp.get_context("spawn")  # no fork: this process already runs threads
        self._conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.config, edition),
                                name="banker-asr", daemon=True)
        self.proc.start()
        child.close()
        self._ready: bool | None = None

    def _wait_ready(self) -> bool:
        if self._ready is None:
            try:
                if self._conn.poll(60):
                    self._ready = isinstance(self._conn.recv(), Ready)
                else:
                    self._ready = False
            except (EOFError, OSError):
                self._ready = False
        return self._ready

    def ready(self, timeout: float = 60.0) -> bool:
        """Wait until the child has loaded its engine (False: it couldn't)."""
        end = time.monotonic() + timeout
        with self._lock:
            while self._ready is None and time.monotonic() < end:
                if self._conn.poll(0.05):
                    return self._wait_ready()
            return bool(self._ready)

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        return self.recognize_seen(pcm, focus, speaker, raw)

    def recognize_seen(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                       raw: Pcm | None = None, first: Callable[[Heard], None] | None = None
                       ) -> Heard:
        """``recognize``, and ``first`` told the first ear's reading as soon as it exists
        (before the second ear's opinion; with one ear, the reading itself)."""
        told = first or (lambda _h: None)
        with self._lock:
            if self._local is None and self._wait_ready():
                try:
                    with self._sending:
                        self._conn.send(Transcribe(_bytes(pcm), focus, speaker,
                                                   None if raw is None else _bytes(raw),
                                                   early=first is not None))
                    answer: FromChild = self._conn.recv()
                    if isinstance(answer, FirstReading):
                        told(answer.heard)
                        told = lambda _h: None  # noqa: E731 (once)
                        answer = self._conn.recv()
                    if isinstance(answer, Transcript):
                        told(answer.heard)
                        return answer.heard
                    raise RuntimeError(getattr(answer, "error", repr(answer)))
                except (EOFError, OSError, BrokenPipeError):
                    pass  # the child is gone: carry on here
            heard = self._in_process(pcm, focus, speaker, raw)
            told(heard)
            return heard

    def stale(self) -> None:
        """The utterance being recognised went on: its second opinion is not needed (the
        child skips it if it has not started)."""
        with self._sending, contextlib.suppress(OSError):
            if self._local is None and self._ready:
                self._conn.send(Stale())

    def _in_process(self, pcm: Pcm, focus: str, speaker: str = "",
                    raw: Pcm | None = None) -> Heard:
        if self._local is None:
            from banker.speech.engine import make_engine

            self._local = make_engine(self.config, self.edition, live=True)
        return self._local.recognize(np.asarray(pcm, dtype=np.int16), focus, speaker, raw)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.send(Quit())
        self.proc.join(2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(2)
        self._conn.close()
