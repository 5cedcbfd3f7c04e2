"""Vosk adapter: a user-supplied Kaldi model folder, constrained by the edition's phrase list.

Receives 16 kHz mono int16 audio and a focus; returns ``Heard`` (text, per-word confidence).
Vosk turns a phrase list into a bigram model (``SpeechGrammar.phrases``), so it can still
produce word sequences outside the command set; the text matcher then decides, and words
the model's vocabulary lacks are dropped by vosk itself (it logs them; we keep it quiet).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from banker.speech.base import RATE, Heard, Pcm, WordScore
from banker.speech.grammar import SpeechGrammar

UNKNOWN = "[unk]"


class VoskModelError(Exception):
    """The configured model folder can't be used; the message is one plain sentence."""


def check_model(path: str | Path | None) -> Path:
    """The model folder, or ``VoskModelError`` saying why it can't be one."""
    if path is None or str(path).strip() == "":
        raise VoskModelError("No vosk model folder is configured (asr.vosk_model).")
    folder = Path(str(path)).expanduser()
    if not folder.is_dir():
        raise VoskModelError(f"The vosk model folder {folder} does not exist.")
    markers = ("am/final.mdl", "final.mdl", "conf/model.conf", "conf/mfcc.conf")
    if not any((folder / m).exists() for m in markers):
        raise VoskModelError(f"The folder {folder} is not a vosk model (no am/final.mdl).")
    return folder


class VoskRecognizer:
    """One loaded vosk model for one edition; a recogniser per focus, made on first use."""

    engine = "vosk"

    def __init__(self, grammar: SpeechGrammar, model_path: str | Path) -> None:
        folder = check_model(model_path)
        try:
            import vosk
        except ImportError:
            raise VoskModelError("The vosk package is not installed (pip install vosk).") from None
        vosk.SetLogLevel(-1)
        try:
            self.model = vosk.Model(str(folder))
        except Exception:  # vosk raises a bare Exception on a bad model
            raise VoskModelError(f"The vosk model in {folder} could not be loaded.") from None
        self._vosk = vosk
        self.grammar = grammar
        self._recognizers: dict[str, Any] = {}

    def phrases(self, focus: str) -> list[str]:
        return [*self.grammar.phrases(focus), UNKNOWN]

    def _recognizer(self, focus: str) -> Any:
        rec = self._recognizers.get(focus)
        if rec is None:
            rec = self._vosk.KaldiRecognizer(self.model, RATE, json.dumps(self.phrases(focus)))
            rec.SetWords(True)
            self._recognizers[focus] = rec
        return rec

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        t0 = time.perf_counter()
        rec = self._recognizer(focus)
        data = np.asarray(pcm, dtype=np.int16).tobytes()
        for i in range(0, len(data), 8000):  # streamed as the microphone would deliver it
            rec.AcceptWaveform(data[i:i + 8000])
        result = json.loads(rec.FinalResult() or "{}")
        rec.Reset()
        items = [w for w in result.get("result", []) if isinstance(w, dict)]
        words = tuple(WordScore(str(w.get("word", "")), float(w.get("conf", 0.0)),
                                float(w.get("start", 0.0)), float(w.get("end", 0.0)))
                      for w in items)
        spoken = [w for w in words if w.word and w.word != UNKNOWN]
        unknown = len(words) - len(spoken)
        text = self.grammar.to_written(" ".join(w.word for w in spoken))
        conf = 0.0 if not spoken else min(w.confidence for w in spoken) * 0.5 ** unknown
        return Heard(text, conf, words, self.engine, focus, time.perf_counter() - t0,
                     {"unknown_words": float(unknown)})
