"""How words sound: pronunciations of any English word, for comparing what an open-vocabulary
ear wrote with the grammar's words by sound rather than spelling ("bye" is "buy", "Pascoe" is
nearly "pass go").

Reads pocketsphinx's bundled cmudict (General American) and ``grammars/pronunciations.yaml``
on first use and looks words up in the text (a dict of all 135,000 entries would cost about
25 MB for the handful of words an utterance has).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

PHONES = ("AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
          "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "SIL",
          "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH")
_CODE = {p: chr(0x41 + i) for i, p in enumerate(PHONES)}  # one character a phone


class Lexicon:
    """Word -> its first pronunciation as a string of one character per phone (``sound``)."""

    def __init__(self) -> None:
        self._extra: dict[str, list[str]] | None = None
        self._text: str | None = None
        self._known: dict[str, str | None] = {}
        self.sound = lru_cache(maxsize=65536)(self._sound)

    def learn(self, words: Iterable[str]) -> None:
        """Look many words up in one pass over the dictionary, as the first ear's dictionary
        is cut down (a grammar's few hundred: one search each took a few tenths of a
        second)."""
        from banker.speech.pocketsphinx_asr import pronunciations

        wanted = {w for w in words if w not in self._known}
        if not wanted:
            return
        found, _missing = pronunciations(wanted, accents=False)
        for w in wanted:
            self._known[w] = encode(found[w][0]) if w in found else None

    def _load(self) -> str:
        if self._text is None:
            from banker.speech.pocketsphinx_asr import extra_pronunciations, model_dir

            self._text = "\n" + (model_dir() / "cmudict-en-us.dict").read_text(encoding="utf-8")
            self._extra = extra_pronunciations()
        return self._text

    def _sound(self, word: str) -> str | None:
        """The word's sound code, or None when neither dictionary has it."""
        if word in self._known:
            return self._known[word]
        text = self._load()
        prons = (self._extra or {}).get(word)
        if prons:
            return encode(prons[0])
        at = text.find(f"\n{word} ")
        if at < 0:
            return None
        start = at + len(word) + 2
        end = text.find("\n", start)
        return encode(text[start:end if end >= 0 else len(text)])


def encode(pron: str) -> str:
    """ARPAbet (stress digits allowed) as one character per phone."""
    return "".join(_CODE.get(p.rstrip("012"), "") for p in pron.split())
