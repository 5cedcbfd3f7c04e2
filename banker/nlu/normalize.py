"""Text normalisation shared by templates and inputs, so both sides compare alike."""

from __future__ import annotations

import re
import unicodedata

from banker.money import number_words, words_to_tokens

CONTRACTIONS = {
    "what's": "what is", "who's": "who is", "i'll": "i will", "i'm": "i am", "i'd": "i would",
    "let's": "let us", "don't": "do not", "didn't": "did not", "can't": "cannot",
    "that's": "that is", "it's": "it is", "we'll": "we will", "whats": "what is",
    "whos": "who is", "im": "i am", "ill": "i will", "dont": "do not", "thats": "that is",
    "cant": "cannot", "how's": "how is", "there's": "there is", "where's": "where is",
    "i've": "i have", "we're": "we are", "you're": "you are", "isn't": "is not",
}
WORD_FIXES = {"st": "saint", "t-rex": "t rex", "trex": "t rex", "racecar": "race car",
              "&": "and", "n.": "north", "ave": "avenue", "pl": "place"}
_STRIP = re.compile(r"[^a-z0-9'$£,\- ]+")
PLACEHOLDER = "#"


def normalize_words(text: str) -> list[str]:
    """Lower-case words with punctuation dropped and contractions spelt out."""
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    text = text.replace("st.", "saint ").replace(".", " ").replace("&", " and ")
    text = _STRIP.sub(" ", text)
    words: list[str] = []
    for raw in text.split():
        w = raw.strip("'-,")
        if not w:
            continue
        if raw.startswith("-") and w[:1].isdigit():
            w = "minus" + w  # "pay -5" is no amount at all, not 5: never misbank a sign
        # a trailing possessive: "dog's balance" -> "dog balance"
        if w.endswith("'s") and w not in CONTRACTIONS:
            w = w[:-2]
        w = CONTRACTIONS.get(w, w)
        w = WORD_FIXES.get(w, w)
        words.extend(w.replace(",", " ").split() if not any(c.isdigit() for c in w) else [w])
    return words


def normalize(text: str) -> str:
    return " ".join(normalize_words(text))


def with_placeholders(text: str) -> tuple[str, list[int]]:
    """Normalised text with every spoken or written number replaced by ``#``, and the values."""
    values: list[int] = []
    out: list[str] = []
    for word, value in words_to_tokens(normalize_words(text)):
        if value is not None:
            values.append(value)
            out.append(PLACEHOLDER)
        else:
            out.append(word)
    return " ".join(out), values


_X_TIMES = re.compile(r"^x(\d)$")


def times_variants(words: list[str], typed: bool) -> list[str]:
    """A spinner outcome's multiplier as people say it: ``x2 pay out`` -> "times two pay out"
    and "x two pay out"; ``typed`` adds the written forms "x2", "2x" and "two times" too."""
    forms: list[list[str]] = [[]]
    for w in words:
        m = _X_TIMES.match(w)
        if m is None:
            alts = [[w]]
        else:
            n, word = m.group(1), number_words(int(m.group(1)))
            spoken = [["times", word], ["x", word]]
            alts = [[w], *spoken, [f"{n}x"], [word, "times"]] if typed else spoken
        forms = [f + a for f in forms for a in alts]
    return [" ".join(f) for f in forms]
