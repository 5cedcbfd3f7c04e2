"""The speech stages' contracts: one place for what flows between them.

- ``Recognizer``: one utterance (16 kHz mono int16) and a *focus* (what the banker waits for:
  ``any``, ``bid``, ``yes_no``, ``street``, ``number``, ``player``, ``amount``) in, ``Heard``
  out. Engines (``pocketsphinx_asr``, ``vosk_asr``) and the recogniser's own process
  (``asr_process``) all answer it, so ``Heard`` travels unchanged from the engine to the
  front end.
- ``Synthesizer``: text in, audio out, a phrase at a time (``tts.PiperTTS``).
- ``AudioOut`` / ``AudioIn``: the speaker and the microphone (``audio.Player``/``Microphone``).
- The messages between the front end and the recogniser's process: small frozen
  dataclasses (as wyoming's events), pickled as they are across the pipe.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

RATE = 16000
Pcm = npt.NDArray[np.int16]
FOCI = ("any", "yes_no", "bid", "street", "amount", "number", "player")


@dataclass(frozen=True)
class WordScore:
    word: str
    confidence: float  # 0-1
    start: float = 0.0  # seconds
    end: float = 0.0


@dataclass(frozen=True)
class Heard:
    """One recognised utterance. ``text`` is "" when nothing command-like was heard."""

    text: str
    confidence: float  # 0-1: how sure the engine is that ``text`` is what was said
    words: tuple[WordScore, ...] = ()
    engine: str = ""
    focus: str = "any"
    seconds: float = 0.0  # decoding time
    details: dict[str, float] = field(default_factory=dict)  # engine-specific scores
    # other readings the engine found close (n-best), best first: (text, confidence as if it
    # had won). Empty: none looked for, or none close. The interpreter weighs them with what
    # the game makes likely (``interpreter.prior``).
    alternatives: tuple[tuple[str, float], ...] = ()


NOTHING = Heard("", 0.0)  # what a recogniser that failed, or heard no speech, reports


class Recognizer(Protocol):
    """A speech recogniser constrained to an edition's command grammar."""

    engine: str

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        """Recognise one utterance (16 kHz mono int16). ``speaker``: the pressing player's
        start values (``speaker_norm``; "" = the utterance on its own). An engine that can't
        use them ignores them. ``raw``: None when ``pcm`` is the audio as heard; when the
        listener has filtered its noise already, the audio as heard (the same samples before
        the filter), so the room is judged as it was and not as the filter left it, and an
        engine that does better on unfiltered speech (Moonshine) can hear that."""
        ...


class Synthesizer(Protocol):
    """What the speaker needs from a voice (``tts.PiperTTS``)."""

    sample_rate: int
    fixed: set[str]

    def speak(self, text: str) -> Iterator[Pcm]:
        """Audio for ``text``, one phrase at a time (the first one as early as possible)."""
        ...

    def speak_all(self, text: str) -> Pcm: ...

    def add_fixed(self, lines: Iterable[str] = (), openings: Iterable[str] = ()) -> None: ...

    def warm(self, texts: Iterable[str] | None = None, idle: Callable[[], bool] | None = None,
             stop: Callable[[], bool] | None = None) -> int: ...

    def close(self) -> None: ...


class AudioOut(Protocol):
    """Where Mr. Monopoly's voice goes."""

    rate: int
    latency: float  # s from handing a sample over to hearing it

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None: ...
    def stop(self) -> None: ...
    def busy(self) -> bool: ...
    def sounding_until(self) -> float: ...
    def close(self) -> None: ...


class AudioIn(Protocol):
    """Where the players' voices come from: 30 ms frames, only while listening."""

    def frames(self) -> queue.Queue[bytes]: ...
    def start_listening(self, since: float | None = None) -> None: ...
    def stop_listening(self) -> None: ...
    def close(self) -> None: ...


def drain(frames: queue.Queue[bytes]) -> None:
    """Drop the frames the listener did not take (an ``AudioIn`` does it as a turn ends)."""
    while True:
        try:
            frames.get_nowait()
        except queue.Empty:
            return


# -- the recogniser's process: messages both ways ------------------------------------------

@dataclass(frozen=True)
class Ready:
    """The child loaded its engine."""

    pid: int


@dataclass(frozen=True)
class EngineFailed:
    """The child can't load its engine (the parent recognises in-process instead)."""

    error: str


@dataclass(frozen=True)
class Transcribe:
    """Recognise ``audio`` (int16 bytes) for ``focus``, for ``speaker`` (start values);
    ``raw``: the audio before the listener's noise filter (``Recognizer.recognize``)."""

    audio: bytes
    focus: str = "any"
    speaker: str = ""
    raw: bytes | None = None
    early: bool = False  # send the first ear's reading (``FirstReading``) as soon as it exists


@dataclass(frozen=True)
class FirstReading:
    """The first ear's reading, sent before ``Transcript`` while the second ear still
    listens: what the end-of-turn rules judge (``endpoint``)."""

    heard: Heard


@dataclass(frozen=True)
class Stale:
    """The player spoke again after the pause being recognised: the second ear need not
    hear it (the listener recognises the longer utterance next)."""


@dataclass(frozen=True)
class Transcript:
    """The answer to ``Transcribe``: the engine's ``Heard``, unchanged."""

    heard: Heard


@dataclass(frozen=True)
class TranscribeFailed:
    """The engine raised while decoding (one line: type and message)."""

    error: str


@dataclass(frozen=True)
class Quit:
    """The parent is done: the child ends."""


ToChild = Transcribe | Stale | Quit
FromChild = Ready | EngineFailed | FirstReading | Transcript | TranscribeFailed
MESSAGES = (Ready, EngineFailed, Transcribe, FirstReading, Stale, Transcript, TranscribeFailed,
            Quit)
