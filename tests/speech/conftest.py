"""Shared speech fixtures: one recogniser per test session, clips cached on disk.

Clips are generated at test time (piper joe voice, espeak-ng) into ``~/.cache/banker/clips``
(``BANKER_CACHE`` moves it), keyed by text and voice, so only the first run renders them.
"""

from __future__ import annotations

import pytest

from banker.editions import load_edition
from banker.editions.model import Edition
from banker.speech.grammar import SpeechGrammar


@pytest.fixture(scope="session")
def vb() -> Edition:
    return load_edition("voice-banking")


@pytest.fixture(scope="session")
def vb_grammar(vb: Edition) -> SpeechGrammar:
    return SpeechGrammar(vb)


@pytest.fixture(scope="session")
def recognizer(vb_grammar: SpeechGrammar):  # type: ignore[no-untyped-def]
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

    return PocketsphinxRecognizer(vb_grammar)


@pytest.fixture(scope="session")
def new_game(vb: Edition):  # type: ignore[no-untyped-def]
    from banker.tools.transcribe import NewGameJudge

    return NewGameJudge(vb)
