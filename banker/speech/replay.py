"""Audio steps of transcripts (``{audio: clip.wav}``): a WAV in, the words and confidence out.

``make_recognizer()`` is what ``banker replay`` calls for ``{audio: ...}`` steps. The engine
is loaded once per edition and decodes with the grammar narrowed to what the session waits
for (``Session.expecting()``: a street after "buy", yes/no, a bid, a number...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from banker.speech.base import AudioFileError, Recognizer, read_wav

if TYPE_CHECKING:
    from banker.interpreter.session import Session

Recognize = Callable[["Session", Path], tuple[str, float | None]]


def make_recognizer(config: Mapping[str, Any] | None = None) -> Recognize:
    """A recogniser for transcript audio steps (the configured engine, loaded lazily)."""
    engines: dict[str, Recognizer] = {}

    def recognize(session: Session, path: Path) -> tuple[str, float | None]:
        from banker.frontends.transcript import Malformed

        try:
            pcm = read_wav(path)
        except AudioFileError as exc:
            raise Malformed(str(exc)) from None
        ed = session.edition
        if ed.id not in engines:
            from banker.config import load_config
            from banker.speech.engine import make_engine

            engines[ed.id] = make_engine(config if config is not None else load_config(), ed)
        focus, _who = session.expecting()
        heard = engines[ed.id].recognize(pcm, focus)
        return heard.text, heard.confidence

    return recognize
