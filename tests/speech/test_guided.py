"""Moonshine's decoder held to the grammar: the walk through tokens, the beam, and the real
model's reading of a command in babble that its free text lost."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from banker.editions import load_edition
from banker.speech import guided
from banker.speech.automata import Fsa
from banker.speech.guided import TokenWalk, search
from banker.tools import clips
from banker.tools.transcribe import NewGameJudge
from tests.speech.test_moonshine import _both_ears_on

W = "\u2581".encode()  # the tokenizer's word start
TOKENS = [b"<s>", b"</s>", W + b"Buy", W + b"Bal", b"tic", W + b"Avenue", b".", W + b"T", b"-",
          b"Rex", W + b"C", b"o", W + b"$5", W + b"buy", b"\xe2\x96"]
BOS, EOS = 0, 1
BUY, BAL, TIC, AVENUE, DOT, T, HYPHEN, REX, C, LETTER_O, FIVE, BUY_LOWER, BROKEN = range(2, 15)
# "buy baltic avenue" | "buy t rex"
FSA = Fsa(6, ((0, "buy", 1, 1.0), (1, "baltic", 2, 1.0), (2, "avenue", 3, 1.0),
              (1, "t", 4, 1.0), (4, "rex", 5, 1.0)), frozenset({3, 5}))


def _walk(tokens: list[int]) -> Any:
    walk = TokenWalk(FSA, TOKENS)
    at: Any = walk.start
    for t in tokens:
        at = walk.step(at, t)
        if at is None:
            return None
    return walk, at


def test_the_walk_follows_the_grammar_through_the_models_tokens() -> None:
    walk, at = _walk([BUY, BAL, TIC, AVENUE, DOT])
    assert walk.can_end(at)  # "Buy Baltic Avenue." whatever the case and the full stop
    walk, at = _walk([BUY_LOWER, BAL, TIC])
    assert not walk.can_end(at)  # "buy baltic" is no command yet
    walk, at = _walk([BUY, T, HYPHEN, REX])
    assert walk.can_end(at)  # "T-Rex" is the grammar's "t rex"


def test_what_the_walk_wrote_is_read_back_as_the_grammars_words() -> None:
    assert guided.words_of("I'd like a T-Rex, please.") == ["i'd", "like", "a", "t", "rex",
                                                            "please"]


def test_the_walk_refuses_what_leaves_the_grammar() -> None:
    assert _walk([BAL]) is None  # no command starts with "bal..."
    assert _walk([BUY, FIVE]) is None  # digits: amounts are the grammar's words
    assert _walk([BUY, C, HYPHEN, LETTER_O]) is None  # a spelling is letters, not words
    assert _walk([BUY, BAL, DOT]) is None  # a full stop ends "bal", no word
    assert _walk([BROKEN]) is None  # part of a character


def test_the_beam_finds_the_likeliest_command_not_the_likeliest_text() -> None:
    """A scorer that prefers "$5" at every step (off the grammar) and "Bal" over "T": the
    search writes "Buy Baltic Avenue", its score the mean log-probability per token."""
    prefer = {BOS: [FIVE, BUY], BUY: [FIVE, BAL, T], BAL: [TIC], TIC: [AVENUE],
              AVENUE: [EOS], T: [HYPHEN], HYPHEN: [REX], REX: [EOS]}

    def step(tokens: Any, pasts: Any, n: int) -> tuple[Any, Any]:
        logp = np.full((len(tokens), len(TOKENS)), -20.0)
        for row, token in enumerate(tokens):
            for rank, t in enumerate(prefer.get(token, [EOS])):
                logp[row, t] = -0.1 - rank
        return logp, pasts

    found = search(TokenWalk(FSA, TOKENS), step, None, 10, EOS, BOS)
    assert found is not None and found.tokens == (BUY, BAL, TIC, AVENUE)
    assert found.score == pytest.approx((-1.1 - 1.1 - 0.1 - 0.1 - 0.1) / 4)
    assert search(TokenWalk(FSA, TOKENS), step, None, 2, EOS, BOS) is None  # too short to end


def test_the_beam_weighs_a_command_by_its_mean_not_its_length() -> None:
    """"buy" alone is a command too, and ending there costs less in all (-1.1) than the four
    tokens of "Buy Baltic Avenue" (-1.7); but those fit the sound better token by token (a
    mean of -0.43 against -1.1), and a long command must not lose to a short one for its
    length ("yeah" for "i would like to use get out of jail free card")."""
    short = Fsa(4, ((0, "buy", 1, 1.0), (1, "baltic", 2, 1.0), (2, "avenue", 3, 1.0)),
                frozenset({1, 3}))
    costs = {BOS: {BUY: -0.1}, BUY: {EOS: -1.0, BAL: -0.4}, BAL: {TIC: -0.4},
             TIC: {AVENUE: -0.4}, AVENUE: {EOS: -0.4}}

    def step(tokens: Any, pasts: Any, n: int) -> tuple[Any, Any]:
        logp = np.full((len(tokens), len(TOKENS)), -20.0)
        for row, token in enumerate(tokens):
            for t, cost in costs.get(token, {}).items():
                logp[row, t] = cost
        return logp, pasts

    found = search(TokenWalk(short, TOKENS), step, None, 10, EOS, BOS)
    assert found is not None and found.tokens == (BUY, BAL, TIC, AVENUE)
    assert found.score == pytest.approx(-1.7 / 4)


def test_the_likeliest_tokens_come_likeliest_first() -> None:
    logp = np.log(np.array([0.05, 0.4, 0.1, 0.3, 0.15]))
    assert guided.likeliest(logp, 3) == [1, 3, 4]
    assert guided.likeliest(logp, 9) == [1, 3, 4, 2, 0]


def test_a_reading_of_one_command_word_inside_talk_is_not_what_was_said() -> None:
    """Held to the grammar, "Chance would be a fine thing." ends after "chance": a reading
    of one word of the six Moonshine wrote is talk, one of the three of "It's called." (said
    "score") may be the command."""
    assert not guided.covers("chance", 6)
    assert guided.covers("score", 3)
    assert guided.covers("buy baltic avenue", 0)  # nothing written freely: nothing to weigh


@pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")
def test_a_command_lost_in_babble_is_read_back_held_to_the_grammar(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's (en-us+m3) "can i pay the rent" at 10 dB babble, the dev set's line 105
    (seed 2026): Moonshine's free text ("Can high faith around it?") makes no command within
    its snap, and pocketsphinx heard nothing. Held to the grammar, its decoder writes the
    command, scored well over the trusted line; the chatter "that was a great roll" (line
    224, clean) held the same way scores far under it, and is not taken."""
    from banker.tools import bench
    from banker.tools.clips import Voice

    ears, pcm = _both_ears_on(105, "can i pay the rent", "pay_rent",
                              ("en-us+m3", 175, 35, 0.667), "babble:10")
    ear = ears.second
    heard = ear.recognize(pcm)
    assert heard.text == "can i pay the rent", (heard, ear.last_transcript)
    assert ear.last_guided is not None and ear.last_guided[1] >= guided.TRUSTED_ABOVE
    assert heard.details["snap_distance"] == guided.REPORTED_NEAR
    assert heard.details["guided_score"] == ear.last_guided[1]
    talk = bench.Item("that was a great roll", "none", (),
                      Voice("espeak", "en-us-nyc+m3", 155, 35, 0.667))
    heard = ear.recognize(bench.line_audio(224, talk, "clean"))
    assert ear.last_guided is not None and ear.last_guided[1] < guided.TRUSTED_ABOVE - 1.0
    assert "guided_score" not in heard.details, heard
    # both ears as ``play`` hears: pocketsphinx heard nothing, and the command is taken from
    # the guided reading; with the guided search's line out of reach it gets "Sorry?"
    judge = NewGameJudge(load_edition("voice-banking"))
    both = ears.recognize(pcm, "any")
    h = judge.hear(both.text, both.confidence, both.alternatives)
    assert h.intent == "pay_rent" and h.decision in ("accept", "confirm"), (both, h)
    monkeypatch.setattr(guided, "TRUSTED_ABOVE", 0.0)
    alone = ears.recognize(pcm, "any")
    assert judge.hear(alone.text, alone.confidence, alone.alternatives).decision == "reject"
