"""Audio steps of transcripts (``{audio: clip.wav}``): a WAV in, the engine's ``Heard`` out.

``AudioSteps`` loads the configured engine once per edition and decodes a clip with the grammar
narrowed to a focus (a street after "buy", yes/no, a bid, a number...). The transcript player
(``banker.frontends.audio_steps``) asks the session for that focus.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from banker.editions.model import Edition
from banker.speech.base import read_wav
from banker.speech.protocols import Heard, Recognizer


class AudioSteps:
    """Decodes transcript clips; the engine is loaded lazily, once per edition.

    A clip that can't be read raises ``base.AudioFileError`` (one plain sentence).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = config
        self._engines: dict[str, Recognizer] = {}

    def decode(self, path: Path, edition: Edition, focus: str) -> Heard:
        pcm = read_wav(path)
        if edition.id not in self._engines:
            from banker.config import load_config
            from banker.speech.engine import make_engine

            config = self.config if self.config is not None else load_config()
            self._engines[edition.id] = make_engine(config, edition)
        return self._engines[edition.id].recognize(pcm, focus)
