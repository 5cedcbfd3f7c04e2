"""Every phrasing the README lists is understood when spoken by the piper voice and by an
espeak-ng voice: heard as the command the same words typed give, and not
ignored, by the recogniser ``banker play`` builds with ``asr.second_ear: moonshine``
(pocketsphinx and the Moonshine second ear, its words snapped onto the grammar by spelling
or sound), or asked between it and another reading ("Cat or Hat?"). ``MISHEARD`` lists the
ones that still fail, measured (none of 69 in either voice; 1 before a first reading the
interpreter never asks about, a bid with no auction open, could give way to a near second
reading, espeak-ng's "spin" heard "bid eight"; 1 before clean speech standing 40 dB over the
room was no longer noise-filtered, piper's "steal the house on Baltic Avenue"; 2 before
Moonshine's words near a fairly sure first reading stopped vetoing it, "what's in the
vault"; 3 before a one-word second reading could stand in for a first too unsure to ask about, "spin"; 6 before
espeak-ng's digital silence was decoded over a noise floor, 7 before the snap
broke a tie by sound with spelling, "free hundred" three not four; 8 before both ears
hearing a command by a name apart were asked between, 9 before the second
ear's near reading was offered when the first would get "Sorry?", 10 before a loose
agreement of the two ears was asked about, 14 before the second ear's near readings were
asked about instead of unsure ones and choice questions counted, 16 with the snap by
spelling alone, 29 with pocketsphinx alone): they run and are reported as xfail/xpass, so
the gap stays visible instead of skipped (not strict: piper's clips vary a little when the
clip cache is rendered afresh)."""

from __future__ import annotations

from typing import Any

import pytest

from banker.editions import load_edition
from banker.tools import clips
from banker.tools.clips import ESPEAK, PIPER

from .readme_phrases import phrases

pytestmark = pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")
EDITIONS = ("voice-banking", "secret-vault", "jackpot")
VOICES = {"piper": PIPER, "espeak-ng": ESPEAK}
MISHEARD: frozenset[tuple[str, str, str]] = frozenset()  # (edition, voice, phrase), measured

CASES = [pytest.param(ed, voice, text, id=f"{ed}-{voice}-{text}",
                      marks=[pytest.mark.xfail(reason="still misheard when spoken")]
                      if (ed, voice, text) in MISHEARD else [])
         for ed in EDITIONS for voice in VOICES for text in phrases(ed)]


@pytest.fixture(scope="module")
def ears() -> dict[str, Any]:
    """The recogniser ``banker play`` builds with the second ear asked for
    (``asr.second_ear: moonshine``: pocketsphinx with Moonshine), and the hearing policy of a
    new game."""
    from banker.config import load_config
    from banker.speech.engine import make_engine
    from banker.speech.grammar import SpeechGrammar
    from banker.tools.transcribe import NewGameJudge

    out: dict[str, Any] = {}
    for ed_id in EDITIONS:
        grammar = SpeechGrammar(load_edition(ed_id))
        config = load_config()
        config = {**config, "asr": {**config["asr"], "second_ear": "moonshine"}}
        out[ed_id] = (make_engine(config, grammar.edition, grammar=grammar),
                      NewGameJudge(grammar.edition, matcher=grammar.matcher))
    return out


def test_the_readme_lists_phrasings_for_every_edition() -> None:
    assert len(phrases("voice-banking")) >= 20
    assert all(len(phrases(e)) >= 10 for e in EDITIONS)


@pytest.mark.parametrize("edition, voice, text", CASES)
def test_readme_phrasing_understood_when_spoken(ears: dict[str, Any], edition: str, voice: str,
                                                text: str) -> None:
    recognizer, judge = ears[edition]
    typed = judge.hear(text, None)
    assert typed.decision == "accept", f"the README's {text!r} is not a command when typed"
    heard = recognizer.recognize(clips.pad(clips.speech(text, VOICES[voice])))
    v = judge.verdict(heard)
    meant = (typed.intent, dict(typed.slots))
    # understood: heard as the command, or asked between it and another ("Cat or Hat?")
    assert (v.intent, v.slots) == meant or meant in v.choices, (heard.text, v)
    assert v.decision != "reject", (heard.text, v.confidence)
