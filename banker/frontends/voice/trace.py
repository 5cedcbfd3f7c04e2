"""What the voice front end leaves behind for whoever debugs a table: a trace and the audio."""

from __future__ import annotations

import os
import sys
import time
import wave
from pathlib import Path

from banker.speech.vad import Utterance

T0 = time.monotonic()


def trace(msg: str) -> None:
    """``BANKER_TRACE=1``: timestamps of presses, listening and replies on stderr."""
    if os.environ.get("BANKER_TRACE"):
        print(f"[{time.monotonic() - T0:7.3f}] {msg}", file=sys.stderr, flush=True)


def save_utterance(utt: Utterance) -> None:
    """``BANKER_SAVE_UTTERANCES=FOLDER`` keeps every utterance as a WAV: to see what the
    microphone really heard when recognition goes wrong, or to grow a dev set."""
    folder = os.environ.get("BANKER_SAVE_UTTERANCES")
    if not folder or not len(utt.audio):
        return
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        name = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}-{utt.reason}.wav"
        with wave.open(str(Path(folder) / name), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(utt.audio.astype("<i2").tobytes())
    except OSError:
        pass
