"""Spoken numbers and money formatting: one module, table tests."""

from __future__ import annotations

import pytest

from banker.money import fmt_money, number_words, parse_number, speakable, words_to_tokens

PARSE = [
    ("fifty", 50), ("three hundred and fifty", 350), ("three hundred fifty", 350),
    ("fifteen hundred", 1500), ("one thousand five hundred", 1500), ("twenty five hundred", 2500),
    ("a hundred", 100), ("two fifty", 250), ("1,500", 1500), ("M200", 200), ("$300", 300),
    ("2k", 2000), ("ten", 10), ("one million", 1_000_000), ("a billion", 1_000_000_000),
    ("twelve", 12), ("ninety nine", 99), ("four", 4),
]


@pytest.mark.parametrize(("text", "value"), PARSE)
def test_parse_number(text: str, value: int) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["hello", "", "one two", "hundred", "fifty fifty", "and"])
def test_not_a_number(text: str) -> None:
    assert parse_number(text) is None


def test_numbers_inside_a_command_keep_the_words_around_them() -> None:
    toks = words_to_tokens(["pay", "three", "hundred", "and", "fifty", "to", "the", "dog"])
    assert toks == [("pay", None), ("#", 350), ("to", None), ("the", None), ("dog", None)]
    assert words_to_tokens(["guess", "for", "free"])[1] == ("for", None)


@pytest.mark.parametrize(("n", "cur", "text"), [(1500, "M", "M1,500"), (2000, "$", "$2,000"),
                                               (-50, "M", "-M50"), (0, "M", "M0")])
def test_fmt_money(n: int, cur: str, text: str) -> None:
    assert fmt_money(n, cur) == text


def test_words_round_trip() -> None:
    for n in (0, 7, 15, 40, 99, 100, 350, 1440, 1500, 21000, 1_000_000):
        assert parse_number(number_words(n)) == n
    assert speakable("You have M1,440 left.") == "You have one thousand four hundred and forty left."
