"""Choose and load the speech recogniser from the settings (``asr.*`` in ``config/banker.yaml``).

Receives the merged config and an edition; returns a loaded ``Recognizer``.
``asr.engine: vosk`` with a usable ``asr.vosk_model`` folder gives vosk; a missing or broken
folder is said in one plain sentence, then pocketsphinx takes over (``asr.on_missing_model:
fallback``, the default) or the program stops cleanly (``stop``: ``EngineError``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from banker.editions.model import Edition
from banker.speech.base import Recognizer
from banker.speech.grammar import SpeechGrammar


class EngineError(Exception):
    """The configured engine can't be used and the settings say stop (one plain sentence)."""

    def sentence(self) -> str:
        return str(self)


def say_on_stderr(text: str) -> None:
    """A one-sentence notice of the speech layer on stderr (offline tools)."""
    print(f"banker: {text}", file=sys.stderr, flush=True)


def make_engine(config: Mapping[str, Any], edition: Edition,
                notify: Callable[[str], None] | None = None,
                grammar: SpeechGrammar | None = None, live: bool = False) -> Recognizer:
    """The recogniser the settings ask for, loaded for ``edition``. ``live``: at the table,
    where a turn never waits for the second ear to finish loading."""
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning

    notify = notify or say_on_stderr
    asr = config.get("asr") or {}
    grammar = grammar or SpeechGrammar(edition)
    if str(asr.get("engine", "pocketsphinx")) == "vosk":
        from banker.speech.vosk_asr import VoskModelError, VoskRecognizer

        try:
            return VoskRecognizer(grammar, str(asr.get("vosk_model") or ""))
        except VoskModelError as exc:
            if str(asr.get("on_missing_model", "fallback")) == "stop":
                raise EngineError(f"{exc} Stopping, as asr.on_missing_model is stop.") from None
            notify(f"{exc} Using pocketsphinx instead.")
    first = PocketsphinxRecognizer(grammar, Tuning(denoise=str(asr.get("denoise", "auto"))))
    if str(asr.get("second_ear") or "none") == "none":
        return first
    from banker.speech.two_ears import with_second_ear  # onnxruntime only when asked for

    return with_second_ear(first, grammar, asr, notify, live=live)
