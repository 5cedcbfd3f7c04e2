"""What players can say for a number, as templates (the recogniser grammars' number rules)
and as a list of phrases with their values.

Receives nothing; the words come from ``banker.money`` (``number_words``), the one place that
writes and parses numbers, and every phrase here is read back by ``money.parse_number``.
Covers what players say for money (tens, hundreds, "fifteen hundred", thousands) and the
vault guess (1-6).
"""

from __future__ import annotations

from functools import lru_cache

from banker.money import number_words


def _words(values: range) -> str:
    return "(" + " | ".join(number_words(n) for n in values) + ")"


# In the templates' own syntax, so the one walker exports, samples and matches them.
NUMBER_RULES: dict[str, str] = {
    "n_digit": _words(range(1, 10)),
    "n_teen": _words(range(10, 20)),
    "n_tens": _words(range(20, 100, 10)),
    "n_99": "(<n_digit> | <n_teen> | <n_tens> [<n_digit>])",
    "n_hundreds": "(a | <n_digit>) hundred [[and] <n_99>]",
    # from "eleven hundred": nobody says "ten hundred" for a thousand, and with it the
    # search heard "pay ten dollars" as "pay ten hundred" (M1,000)
    "n_year": "(" + _words(range(11, 20)) + " | <n_tens> <n_digit>) hundred [[and] <n_99>]",
    "n_thousands": "(a | <n_99>) thousand [[and] (<n_hundreds> | <n_99>)]",
    "amount": "(<n_99> | <n_hundreds> | <n_year> | <n_thousands>)",
    "number": _words(range(1, 7)),
}
NUMBER_SLOTS = frozenset({"amount", "number"})


def number_rule(slot: str, focus: str) -> str:
    """The rule a number slot uses: 1-6 for the vault guess (and any number asked as one)."""
    return "number" if slot == "number" or focus == "number" else "amount"


@lru_cache(maxsize=4)
def number_phrases(rule: str) -> tuple[tuple[str, int], ...]:
    """Spoken numbers the grammar covers, with their values: 1-6 for ``number``; for
    ``amount`` every value below 100, round hundreds and fifties, "fifteen hundred" forms and
    thousands, said with and without "and" (together they use every word pair of the rule)."""
    if rule == "number":
        return tuple((number_words(n), n) for n in range(1, 7))
    out: dict[str, int] = {}

    def add(text: str, value: int) -> None:
        out.setdefault(text, value)

    for n in range(1, 100):
        add(number_words(n), n)
    for n in range(100, 1000, 10):
        add(number_words(n), n)
        add(number_words(n).replace(" and ", " "), n)
    for n in (100, 150, 200, 250):
        add("a " + number_words(n).split(" ", 1)[1], n)
    for n in range(1100, 10000, 100):
        if n % 1000:
            add(number_words(n // 100) + " hundred", n)
        add(number_words(n), n)
    for n in (1000, 1050, 1250, 1500, 2000, 2500, 3000, 5000, 10000, 15000, 20000, 21000):
        add(number_words(n), n)
        add(number_words(n).replace(" and ", " "), n)
    for n in (1000, 1500):
        add("a " + number_words(n).split(" ", 1)[1], n)
    add("fifteen hundred and fifty", 1550)
    add("twelve hundred fifty", 1250)
    return tuple(out.items())
