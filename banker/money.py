"""Spoken numbers in, formatted money out: the one place that knows how to say amounts.

``parse_number("three hundred and fifty") == 350``; ``parse_number("fifteen hundred") == 1500``;
``say_amount(1500, "M") == "M1,500"``. Pure, no I/O.
"""

from __future__ import annotations

import re

UNITS = {
    "zero": 0, "oh": 0, "one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
# Homophones a recogniser (or a hurried typist) produces for number words.
# Common words ("to", "for") are left alone: "pay fifty to the dog" must stay 50.
ALIASES = {"fiddy": "fifty", "grand": "thousand"}
NUMBER_WORDS = set(UNITS) | set(TENS) | set(SCALES) | {"and"}

_DIGITS = re.compile(r"^[$m£]?(\d{1,3}(,\d{3})+|\d+)(k)?$")


def parse_number(text: str) -> int | None:
    """A whole number from words or digits, or ``None`` if ``text`` isn't one number."""
    words = text.lower().replace("-", " ").split()
    if not words:
        return None
    if len(words) == 1:
        m = _DIGITS.match(words[0])
        if m:
            value = int(m.group(1).replace(",", ""))
            return value * 1000 if m.group(3) else value
    return _parse_words(words)


def _parse_words(words: list[str]) -> int | None:
    words = [w for w in words if w != "and"]
    if not words or words[0] in SCALES:
        return None
    if any(w not in UNITS and w not in TENS and w not in SCALES for w in words):
        return None
    # "fifteen hundred", "twenty five hundred": a 2-digit group times hundred (year style).
    total = 0
    current = 0
    last_kind = ""
    for w in words:
        if w in UNITS:
            if last_kind in ("unit",) or (last_kind == "tens" and current % 10):
                return None
            if last_kind == "tens" and UNITS[w] >= 10:
                return None
            current += UNITS[w]
            last_kind = "unit"
        elif w in TENS:
            if last_kind in ("unit", "tens") and current % 100:
                # "three fifty" = 350 (a hundreds digit then tens): allow once.
                if current < 10 and last_kind == "unit":
                    current = current * 100 + TENS[w]
                    last_kind = "tens"
                    continue
                return None
            current += TENS[w]
            last_kind = "tens"
        else:
            scale = SCALES[w]
            if scale == 100:
                if current == 0:
                    current = 1
                if current % 100 == 0 and current >= 100:
                    return None
                current *= 100
            else:
                if current == 0:
                    return None
                total += current * scale
                current = 0
            last_kind = "scale"
    return total + current


def words_to_tokens(words: list[str]) -> list[tuple[str, int | None]]:
    """Split a word list into runs: each number-word run becomes one ``("#", value)`` item.

    Used by the matcher to replace spoken amounts with a placeholder before fuzzy matching.
    """
    out: list[tuple[str, int | None]] = []
    i = 0
    while i < len(words):
        w = words[i]
        single = parse_number(w) if any(ch.isdigit() for ch in w) else None
        if single is not None:
            out.append(("#", single))
            i = _after_unit(words, i + 1)
            continue
        if (ALIASES.get(w, w) in NUMBER_WORDS and w not in ("and", "a")) or (
            w == "a" and i + 1 < len(words) and words[i + 1] in SCALES
        ):
            j = i
            best: tuple[int, int] | None = None
            run: list[str] = []
            while j < len(words):
                cand = ALIASES.get(words[j], words[j]) if j > i else words[j]
                if cand not in NUMBER_WORDS:
                    break
                run.append(cand)
                value = _parse_words(run)
                if value is not None and run[-1] != "and":
                    best = (j + 1, value)
                j += 1
            if best is not None:
                out.append(("#", best[1]))
                i = _after_unit(words, best[0])
                continue
        out.append((w, None))
        i += 1
    return out


# the unit said after an amount ("ten dollars") belongs to it, as "$10" does
UNIT_WORDS = frozenset({"dollar", "dollars", "bucks"})


def _after_unit(words: list[str], i: int) -> int:
    """The position after an amount ending before ``i``: past a unit word said with it."""
    return i + 1 if i < len(words) and words[i] in UNIT_WORDS else i


def fmt_money(amount: int, currency: str = "M") -> str:
    sign = "-" if amount < 0 else ""
    return f"{sign}{currency}{abs(amount):,}"


_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
_TENS_W = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """``1440 -> "one thousand four hundred and forty"`` (what the voice says)."""
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS_W[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))
    for scale, word in ((1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand")):
        if n >= scale:
            rest = n % scale
            head = number_words(n // scale) + " " + word
            if rest == 0:
                return head
            return head + (" and " if rest < 100 else " ") + number_words(rest)
    return str(n)


_MONEY_RE = re.compile(r"([-]?)([M$£])(\d{1,3}(?:,\d{3})*|\d+)")


def speakable(text: str) -> str:
    """Printed reply -> what the voice should say: ``M1,440`` becomes "1,440" read as words."""
    def repl(m: re.Match[str]) -> str:
        n = int(m.group(3).replace(",", ""))
        return ("minus " if m.group(1) else "") + number_words(n)
    return _MONEY_RE.sub(repl, text)
