"""``banker phrases``: every command of an edition with its phrasings, from the grammar. Every
sentence it stands for is understood by the matcher as that command, so the list a player reads
(and the README's tables, held to it in ``tests/speech/test_what_to_say.py``) can't drift from
``grammars/commands.yaml``."""

from __future__ import annotations

import pytest

from banker.cli import main
from banker.editions import available_editions, load_edition
from banker.nlu.matcher import Matcher, Recognized
from banker.nlu.phrases import commands, examples

EDITIONS = available_editions()


PER_PHRASING = 60  # sentences matched per phrasing, spread evenly over all it prints


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_phrase_printed_is_understood_as_its_command(edition: str) -> None:
    """Every phrasing's sentences, or an even spread of ``PER_PHRASING`` where it has more
    (the classic box's "trade the card and pay" alone prints 3,888: ~8 ms a match)."""
    ed = load_edition(edition)
    matcher = Matcher.for_edition(ed)
    wrong, count = [], 0
    for cmd in commands(ed, matcher.grammar):
        assert cmd.phrasings, cmd.intent
        for phrasing in cmd.phrasings:
            assert phrasing.sentences, phrasing.pattern
            step = max(1, -(-len(phrasing.sentences) // PER_PHRASING))
            for sentence in phrasing.sentences[::step]:
                count += 1
                heard = matcher.match(sentence)
                if not (isinstance(heard, Recognized) and heard.intent == cmd.intent):
                    wrong.append((cmd.intent, sentence, heard))
    assert wrong == [] and count > 200


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_command_of_the_edition_is_listed(edition: str, capsys: pytest.CaptureFixture[str]) -> None:
    ed = load_edition(edition)
    assert main(["phrases", "--edition", edition]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = {ln.split(" (")[0] for ln in out if ln and not ln.startswith(" ")}
    grammar = Matcher.for_edition(ed).grammar
    assert {spec.name for spec in grammar.for_edition(edition)} <= listed
    patterns = [ln.strip() for ln in out if ln.startswith("  ")]
    assert patterns == [p.pattern for c in commands(ed, grammar) for p in c.phrasings]


def test_the_examples_are_the_editions_own_names() -> None:
    for edition in EDITIONS:
        ed = load_edition(edition)
        values = examples(ed, Matcher.for_edition(ed).grammar)
        streets = [values[s][0] for s in ("give", "give2", "give3", "get", "get2", "get3")]
        assert set(streets) <= set(ed.street_names) and len(set(streets)) == 6
        assert values["player"][0] in {t.id for t in ed.tokens}


def test_an_unknown_edition_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["phrases", "--edition", "monopoly-deluxe"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no edition called" in err
