"""Engine choice from the settings: vosk when its model folder is usable, else one plain
sentence and pocketsphinx (or a clean stop when ``asr.on_missing_model: stop``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from banker.editions.model import Edition
from banker.speech.engine import EngineError, make_engine
from banker.speech.grammar import SpeechGrammar


@pytest.mark.parametrize("folder", [None, "/no/such/folder", "EMPTY"])
def test_missing_vosk_model_falls_back_with_one_sentence(vb: Edition, vb_grammar: SpeechGrammar,
                                                         tmp_path: Path, folder: str | None
                                                         ) -> None:
    path = str(tmp_path) if folder == "EMPTY" else folder
    said: list[str] = []
    eng = make_engine({"asr": {"engine": "vosk", "vosk_model": path}}, vb, said.append,
                      grammar=vb_grammar)
    assert eng.engine == "pocketsphinx"
    assert len(said) == 1 and said[0].endswith("Using pocketsphinx instead.")
    assert "\n" not in said[0] and "Traceback" not in said[0]


def test_missing_vosk_model_can_stop_cleanly(vb: Edition, vb_grammar: SpeechGrammar) -> None:
    said: list[str] = []
    with pytest.raises(EngineError) as exc:
        make_engine({"asr": {"engine": "vosk", "vosk_model": "/no/such/folder",
                             "on_missing_model": "stop"}}, vb, said.append, grammar=vb_grammar)
    assert "does not exist" in exc.value.sentence() and not said


def test_pocketsphinx_is_the_default(vb: Edition, vb_grammar: SpeechGrammar) -> None:
    said: list[str] = []
    assert make_engine({}, vb, said.append, grammar=vb_grammar).engine == "pocketsphinx"
    assert not said
