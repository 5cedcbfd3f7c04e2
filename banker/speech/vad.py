"""When has the player finished speaking? webrtcvad over 30 ms frames, with a hang-over.

Receives 16 kHz int16 frames one by one (``feed``) and says when the utterance is over and
why: ``vad`` (silence after speech for the hang-over), ``max`` (too long), ``silence`` (no
speech at all within the no-speech window: a bare press), or an outside end (``press`` for
a second press of a terminal key, ``release`` for a hold-to-talk button).

Pure apart from webrtcvad itself, so it is tested frame by frame on real piper speech.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

RATE = 16000
FRAME_MS = 30
FRAME = RATE * FRAME_MS // 1000
FRAME_BYTES = FRAME * 2

EndReason = Literal["vad", "max", "silence", "press", "release"]


@dataclass(frozen=True)
class VadSettings:
    aggressiveness: int = 2
    hangover_ms: int = 300  # silence after speech that ends the utterance
    max_seconds: float = 8.0
    no_speech_seconds: float = 4.0  # nothing said by then: the press was a bare press
    onset_ms: int = 90  # voiced time needed to count as speech (a cough or click is shorter)
    # "grammar": the hang-over follows the first ear's reading at each pause (``endpoint``);
    # "silence": always ``hangover_ms``
    end_of_turn: str = "grammar"

    @staticmethod
    def from_config(audio: dict[str, object]) -> VadSettings:
        def num(key: str, default: float) -> float:
            v = audio.get(key, default)
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default
        return VadSettings(aggressiveness=int(num("vad_aggressiveness", 2)),
                           hangover_ms=int(num("vad_hangover_ms", 300)),
                           max_seconds=num("max_utterance_seconds", 8.0),
                           no_speech_seconds=num("no_speech_seconds", 4.0),
                           end_of_turn="silence" if audio.get("end_of_turn") == "silence"
                           else "grammar")


@dataclass(frozen=True)
class Utterance:
    """What one press heard: the audio and how it ended.

    ``speech_end`` is where the last voiced frame ends, in seconds from the start of
    ``audio``; None if no speech was detected.
    """

    audio: npt.NDArray[np.int16]
    reason: EndReason
    speech_start: float | None
    speech_end: float | None

    @property
    def has_speech(self) -> bool:
        return self.speech_start is not None


class EndOfSpeech:
    """Frame-by-frame end-of-utterance detector (one per utterance)."""

    def __init__(self, settings: VadSettings | None = None) -> None:
        import webrtcvad

        self.s = settings or VadSettings()
        self.vad = webrtcvad.Vad(max(0, min(3, self.s.aggressiveness)))
        self._frames: list[bytes] = []
        self._run = 0  # consecutive voiced frames
        self._quiet = 0  # consecutive unvoiced frames after speech started
        self._start: int | None = None  # frame index where speech started
        self._last_voiced: int | None = None
        self.reason: EndReason | None = None
        self.hangover_ms = self.s.hangover_ms  # the end-of-turn rules change it as they learn

    @property
    def seconds(self) -> float:
        return len(self._frames) * FRAME_MS / 1000

    @property
    def in_speech(self) -> bool:
        return self._start is not None

    @property
    def quiet_frames(self) -> int:
        """Unvoiced frames since the last voiced one (after speech started)."""
        return self._quiet

    @property
    def last_voiced(self) -> int | None:
        return self._last_voiced

    def feed(self, frame: bytes) -> EndReason | None:
        """Add one 30 ms frame; the end reason once the utterance is over, else None."""
        if self.reason is not None:
            return self.reason
        if len(frame) != FRAME_BYTES:
            frame = (frame + bytes(FRAME_BYTES))[:FRAME_BYTES]
        i = len(self._frames)
        self._frames.append(frame)
        voiced = self.vad.is_speech(frame, RATE)
        onset = max(1, self.s.onset_ms // FRAME_MS)
        if voiced:
            self._run += 1
            self._quiet = 0
            self._last_voiced = i
            if self._start is None and self._run >= onset:
                self._start = i - onset + 1
        else:
            self._run = 0
            if self._start is not None:
                self._quiet += 1
        if self._over():
            self.reason = "vad"
        elif self.seconds >= self.s.max_seconds:
            self.reason = "max"
        elif self._start is None and self.seconds >= self.s.no_speech_seconds:
            self.reason = "silence"
        return self.reason

    def _over(self) -> bool:
        return self._start is not None and self._quiet * FRAME_MS >= self.hangover_ms

    def wait(self, hangover_ms: int) -> EndReason | None:
        """From now on the turn ends after ``hangover_ms`` of silence (ended at once when
        that much has passed already); the end reason, as ``feed`` gives it."""
        self.hangover_ms = hangover_ms
        if self.reason is None and self._over():
            self.reason = "vad"
        return self.reason

    def end(self, reason: EndReason) -> None:
        """An outside end: a second press, or the button's release."""
        if self.reason is None:
            self.reason = reason

    def utterance(self) -> Utterance:
        audio = np.frombuffer(b"".join(self._frames), dtype=np.int16).copy()
        if self._start is None or self._last_voiced is None:
            return Utterance(audio, self.reason or "silence", None, None)
        return Utterance(audio, self.reason or "vad", self._start * FRAME_MS / 1000,
                         (self._last_voiced + 1) * FRAME_MS / 1000)


LEAD_KEEP = 0.25  # s kept before the detected start (soft onsets: "f", "h")
TAIL_KEEP = 0.20  # s kept after the last voiced frame (trailing "s", "t")


def speech_only(utt: Utterance) -> npt.NDArray[np.int16]:
    """The utterance without the long silences around it: the recogniser's time grows
    with the audio, and the wait after the beep or the hang-over adds nothing to it."""
    if utt.speech_start is None or utt.speech_end is None:
        return utt.audio
    a = max(0, int((utt.speech_start - LEAD_KEEP) * RATE))
    b = min(len(utt.audio), int((utt.speech_end + TAIL_KEEP) * RATE))
    return utt.audio[a:b]


def frames_of(pcm: npt.NDArray[np.int16]) -> list[bytes]:
    """Cut 16 kHz audio into whole 30 ms frames (the last one padded with silence)."""
    data = pcm.astype("<i2").tobytes()
    pad = (-len(data)) % FRAME_BYTES
    data += bytes(pad)
    return [data[i:i + FRAME_BYTES] for i in range(0, len(data), FRAME_BYTES)]
