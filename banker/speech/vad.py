"""When has the player finished speaking? webrtcvad over 30 ms frames, with a hang-over.

In a quiet room the frames' level says it sooner: webrtcvad calls the 60-240 ms after a
word's last loud sample voiced (p50 ~120-130 ms on the latency bench's 24 piper commands, in
digital silence or a -60 dBFS room), while the level is back to the room's within 0-40 ms
of it. So once the player has spoken, a frame as quiet as the room counts as silence too
(``_Room``), when the room is quiet enough for that to mean something (a noisy room: the
VAD alone).

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
    # (with "grammar", a frame back at the room's level counts as silence too: ``_Room``;
    # the plain hang-over keeps the VAD alone, the baseline it is measured against)
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
        self.room = _Room() if self.s.end_of_turn == "grammar" else None

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
        if self.room is not None:
            voiced = self.room.heard(frame, self._start is not None) and voiced
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


# A frame this far under the turn's loudest is silence next to it (the bench's last loud
# sample is ~24 dB under the peak sample; frames are averages, so lower still).
BELOW_PEAK_DB = 40.0
# "As quiet as the room": within this of its level.
ROOM_MARGIN_DB = 6.0
# The level is trusted only when the room is this far under the turn's loudest frame: in a
# noisier room (babble at 10-20 dB) a soft syllable is as loud as the room, and only the
# VAD can tell them apart.
QUIET_ROOM_DB = 30.0
ROOM_PERCENTILE = 10  # the room's level: the quietest tenth of the turn's frames so far


class _Room:
    """The room's level (the quietest frames of the turn: before the player spoke, between
    his words, after them), the turn's loudest frame, and whether a frame is back at the
    room's level. webrtcvad calls the first frames of a steady noise speech, so the room is
    not learnt from the frames before the detected start alone."""

    def __init__(self) -> None:
        self.levels: list[float] = []
        self.peak = 0.0

    def heard(self, frame: bytes, started: bool) -> bool:
        """False when ``frame`` is as quiet as the room once speech has ``started``:
        silence whatever the VAD says."""
        a = np.frombuffer(frame, dtype=np.int16).astype(np.float64)
        level = float(np.sqrt(np.mean(a * a)))
        self.levels.append(level)
        if not started:
            return True
        self.peak = max(self.peak, level)
        room = float(np.percentile(self.levels, ROOM_PERCENTILE)) * 10 ** (ROOM_MARGIN_DB / 20)
        if room > self.peak * 10 ** (-QUIET_ROOM_DB / 20):
            return True  # a noisy room: the level says nothing the VAD doesn't
        return level > max(room, self.peak * 10 ** (-BELOW_PEAK_DB / 20))


LEAD_KEEP = 0.25  # s kept before the detected start (soft onsets: "f", "h")
TAIL_KEEP = 0.20  # s kept after the last voiced frame (trailing "s", "t")


def speech_only(utt: Utterance, fill: bool = False) -> npt.NDArray[np.int16]:
    """The utterance without the long silences around it: the recogniser's time grows
    with the audio, and the wait after the beep or the hang-over adds nothing to it.

    ``fill``: a pause read before its whole tail was heard (60 ms after the last sound)
    gets the rest of ``TAIL_KEEP`` as the room sounds now (its last frame, repeated): the
    recogniser reads a short last word only with the quiet after it ("buy" was read as
    nothing with 100 ms of it, as "buy park" with the word's own fading end repeated)."""
    if utt.speech_start is None or utt.speech_end is None:
        return utt.audio
    a = max(0, int((utt.speech_start - LEAD_KEEP) * RATE))
    end, tail = int(utt.speech_end * RATE), int(TAIL_KEEP * RATE)
    b = min(len(utt.audio), end + tail)
    short = end + tail - b  # the tail not heard yet
    if not fill or short <= 0 or b <= end:
        return utt.audio[a:b]
    return np.concatenate([utt.audio[a:b], np.resize(utt.audio[max(end, b - FRAME):b], short)])


def frames_of(pcm: npt.NDArray[np.int16]) -> list[bytes]:
    """Cut 16 kHz audio into whole 30 ms frames (the last one padded with silence)."""
    data = pcm.astype("<i2").tobytes()
    pad = (-len(data)) % FRAME_BYTES
    data += bytes(pad)
    return [data[i:i + FRAME_BYTES] for i in range(0, len(data), FRAME_BYTES)]
