"""Snapping free text onto a grammar: words run together or cut apart, and alike by sound
(pure logic on small automata, and the real lexicon of pocketsphinx's dictionary)."""

from __future__ import annotations

from banker.speech.automata import Fsa
from banker.speech.grammar import SpeechGrammar
from banker.speech.lexicon import Lexicon, encode
from banker.speech.snap import snap


def _sentences(*sentences: str) -> Fsa:
    """An automaton of whole sentences (one path each, shared start and end)."""
    arcs: list[tuple[int, str, int, float]] = []
    n, end = 2, 1
    for s in sentences:
        words = s.split()
        state = 0
        for i, w in enumerate(words):
            nxt = end if i == len(words) - 1 else n
            if nxt == n:
                n += 1
            arcs.append((state, w, nxt, 1.0))
            state = nxt
    return Fsa(n, tuple(arcs), frozenset({end}))


def test_one_written_word_may_be_two_grammar_words_and_two_one() -> None:
    fsa = _sentences("pass go", "score", "pay two hundred", "pay one")
    merged = snap(["passgo"], fsa)
    assert merged.text == "pass go" and merged.distance == 0.0
    split = snap(["pay", "two", "hunt", "red"], fsa)
    assert split.text == "pay two hundred" and split.distance < 0.15
    # without a join, "hundred" against "hunt" then "red" left over costs more than a word
    assert snap(["pay", "two", "hunt"], fsa).text == "pay two hundred"


def test_a_grammar_word_nobody_wrote_stays_in_the_sentence() -> None:
    fsa = _sentences("pay rent on park place")
    near = snap(["pay", "rent", "park", "place"], fsa)
    # "rent" for "rent on" (a join) is nearer than dropping "on" (a whole word's cost)
    assert near.text == "pay rent on park place" and 0 < near.distance < 1 / 5


def test_words_alike_by_sound_snap_with_a_lexicon() -> None:
    lexicon = Lexicon()
    assert lexicon.sound("bye") == lexicon.sound("buy") == encode("B AY")
    assert lexicon.sound("qzxv") is None  # no pronunciation: spelling alone
    fsa = _sentences("buy", "cancel", "pass go", "score")
    assert snap(["bye"], fsa, lexicon.sound) == snap(["buy"], fsa)
    assert snap(["counsel"], fsa).distance > 0.35  # by spelling: no command at all
    by_sound = snap(["counsel"], fsa, lexicon.sound)
    assert by_sound.text == "cancel" and by_sound.distance < 0.2
    assert snap(["pascoe"], fsa).text == "score"
    assert snap(["pascoe"], fsa, lexicon.sound).text == "pass go"
    assert snap(["qzxv"], fsa, lexicon.sound) == snap(["qzxv"], fsa)


def test_table_talk_stays_far_from_every_command(vb_grammar: SpeechGrammar) -> None:
    lexicon = Lexicon()
    fsa = vb_grammar.fsa("any")
    for chatter in ("my sister is moving to leeds next month",
                    "did anyone see the match last night"):
        assert snap(chatter.split(), fsa, lexicon.sound).distance > 0.35, chatter
    heard = snap(["and", "knew", "that"], fsa, lexicon.sound)
    assert heard.text == "undo that" and heard.distance < 0.1


def test_a_tie_goes_to_the_word_fewer_edits_away() -> None:
    """Moonshine's "free" is as near "four" and "fourteen" as "three" by one measure or the
    other (a ratio of matching characters favours the longer word that holds it); one edit
    from "three" by sound breaks the tie, and the distance reported is the plain one."""
    lexicon = Lexicon()
    fsa = _sentences("pay four hundred", "pay fourteen hundred", "pay three hundred")
    for sound in (None, lexicon.sound):
        near = snap(["pay", "free", "hundred"], fsa, sound)
        assert near.text == "pay three hundred", sound
        assert abs(near.distance - (1 - 2 * 3 / 9) / 3) < 1e-9  # "free" for "three", a third
    assert snap(["bye"], _sentences("buy", "by four"), lexicon.sound).distance == 0.0
