"""Audio steps of transcripts (``{audio: clip.wav}``) for ``banker replay``: the words and the
confidence the engine heard, for what the session waits for (``Session.expecting()``).

``make_recognizer()`` is what the transcript player calls; the decoding itself is the speech
stage's (``banker.speech.replay.AudioSteps``). A clip that can't be read is a malformed
transcript (one sentence), not a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from banker.frontends.transcript import Malformed
from banker.interpreter.session import Session
from banker.speech.base import AudioFileError
from banker.speech.replay import AudioSteps

Recognize = Callable[[Session, Path], tuple[str, float | None]]


def make_recognizer(config: Mapping[str, Any] | None = None) -> Recognize:
    """A recogniser for transcript audio steps (the configured engine, loaded lazily)."""
    steps = AudioSteps(config)

    def recognize(session: Session, path: Path) -> tuple[str, float | None]:
        focus, _who = session.expecting()
        try:
            heard = steps.decode(path, session.edition, focus)
        except AudioFileError as exc:
            raise Malformed(str(exc)) from None
        return heard.text, heard.confidence

    return recognize
