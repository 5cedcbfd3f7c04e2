"""What people really say, through the real pocketsphinx recogniser (clips rendered at test
time by piper and espeak-ng) and judged as ``play`` would in a new game.

- A street or token said alone is heard as itself, never with a command word nobody said
  ("Boardwalk" was heard "buy Boardwalk" at 0.97 and bought); with no question open it is
  talk (nothing is done).
- "pay ten dollars to the bank" is M10, never "pay ten hundred" (M1,000).
- "unmortgage Park Place" and "mortgage Park Place" are never acted on at once from speech:
  a syllable tells them apart, and each undoes the other.
"""

from __future__ import annotations

from typing import Any

import pytest

from banker.editions import load_edition
from banker.interpreter.hearing import Hearing, twin_checked
from banker.nlu.matcher import Recognized
from banker.speech.grammar import SpeechGrammar, accepts
from banker.tools import clips
from banker.tools.clips import ESPEAK, PIPER, Voice

pytestmark = pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")

VOICES = [PIPER, ESPEAK, Voice("espeak", "en-gb+f2", 140)]
ALONE = ["Boardwalk", "Illinois Avenue", "the dog"]
COMMAND_WORDS = {"buy", "purchase", "auction", "pay", "rent", "trade", "add", "remove", "who",
                 "owns", "has", "build", "mortgage", "unmortgage", "steal", "sell"}


def _heard(recognizer: Any, judge: Any, text: str, voice: Voice) -> tuple[Any, Any]:
    heard = recognizer.recognize(clips.pad(clips.speech(text, voice)), "any")
    return judge.verdict(heard), heard


@pytest.mark.parametrize("voice", VOICES, ids=lambda v: v.key)
@pytest.mark.parametrize("text", ALONE)
def test_a_name_said_alone_gets_no_command_word(recognizer: Any, new_game: Any, text: str,
                                                voice: Voice) -> None:
    v, heard = _heard(recognizer, new_game, text, voice)
    assert not set(heard.text.split()) & COMMAND_WORDS, heard
    assert v.decision == "reject" and v.intent == "none", (v, heard)


def test_a_name_alone_is_a_path_of_the_grammar(vb_grammar: SpeechGrammar) -> None:
    for text in ("boardwalk", "the dog", "forty", "illinois avenue"):
        assert accepts(vb_grammar, "any", text), text


@pytest.mark.parametrize("voice", VOICES, ids=lambda v: v.key)
def test_ten_dollars_is_ten_not_a_thousand(recognizer: Any, new_game: Any, voice: Voice) -> None:
    v, heard = _heard(recognizer, new_game, "pay ten dollars to the bank", voice)
    m = new_game.matcher.match(heard.text)
    # the amount (espeak-ng's British voice: "to the dog" for "to the bank", asked about)
    assert isinstance(m, Recognized) and (m.intent, m.slots["amount"]) == ("pay", 10), heard
    assert v.slots.get("amount") != 1000


def test_ten_hundred_is_no_amount_the_recogniser_can_write(vb_grammar: SpeechGrammar) -> None:
    assert not accepts(vb_grammar, "any", "pay ten hundred to the bank")
    assert accepts(vb_grammar, "any", "pay ten dollars to the bank")
    assert accepts(vb_grammar, "any", "pay eleven hundred")  # the year style from eleven on


@pytest.fixture(scope="module")
def vault() -> tuple[Any, Any]:
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer
    from banker.tools.transcribe import NewGameJudge

    edition = load_edition("secret-vault")
    return PocketsphinxRecognizer(SpeechGrammar(edition)), NewGameJudge(edition)


@pytest.mark.parametrize("voice", VOICES, ids=lambda v: v.key)
@pytest.mark.parametrize(("said", "intent"), [("unmortgage Park Place", "unmortgage"),
                                              ("mortgage Park Place", "mortgage")])
def test_mortgage_and_unmortgage_are_asked_about(vault: tuple[Any, Any], voice: Voice, said: str,
                                                 intent: str) -> None:
    recognizer, judge = vault
    v, heard = _heard(recognizer, judge, said, voice)
    assert v.decision != "accept", (v, heard)
    if v.decision == "confirm":
        assert v.intent in ("mortgage", "unmortgage") and v.slots == {"property": "Park Place"}


def test_unmortgage_is_heard_and_asked_about(vault: tuple[Any, Any]) -> None:
    """The word is a path of the grammar and piper's is heard (espeak-ng's voices lose the
    "un": "mortgage park please" at 0.84, asked about by the test above)."""
    recognizer, judge = vault
    v, heard = _heard(recognizer, judge, "unmortgage Park Place", PIPER)
    assert (v.intent, v.decision) == ("unmortgage", "confirm"), heard


def test_a_twin_the_rules_would_refuse_is_asked_as_the_one_they_take() -> None:
    slots = {"property": "Park Place"}
    mortgaged = {"unmortgage"}  # Park Place is mortgaged: only unmortgage is legal
    h = twin_checked(Hearing("accept", "mortgage", slots, 0.97),
                     lambda intent, _s: intent in mortgaged)
    assert (h.decision, h.intent) == ("confirm", "unmortgage")
    h = twin_checked(Hearing("accept", "mortgage", slots, 0.97), lambda _i, _s: True)
    assert (h.decision, h.intent) == ("confirm", "mortgage") and h.confidence < 0.85
    other = Hearing("accept", "buy", slots, 0.97)
    assert twin_checked(other, lambda _i, _s: True) is other
