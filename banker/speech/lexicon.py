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
from pathlib import Path

PHONES = ("AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
          "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "SIL",
          "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH")
_CODE = {p: chr(0x41 + i) for i, p in enumerate(PHONES)}  # one character a phone


class Lexicon:
    """Word -> its first pronunciation as a string of one character per phone (``sound``)."""

    def __init__(self, dictionary: Path | None = None, extra: dict[str, list[str]] | None = None
                 ) -> None:
        self._path = dictionary
        self._extra = extra
        self._text: str | None = None
        self._known: dict[str, str | None] = {}
        self.sound = lru_cache(maxsize=65536)(self._sound)

    def learn(self, words: Iterable[str]) -> None:
        """Look many words up in one pass over the dictionary (a grammar's few hundred: one
        search each would take a few tenths of a second)."""
        wanted = {w for w in words if w not in self._known}
        if not wanted:
            return
        extra = self._extra_prons()
        for line in self._load().splitlines():
            word, _, pron = line.partition(" ")
            if word in wanted and word not in self._known:
                self._known[word] = encode(pron)
        for w in wanted:
            if w in extra:
                self._known[w] = encode(extra[w][0])
            self._known.setdefault(w, None)

    def _load(self) -> str:
        if self._text is None:
            from banker.speech.pocketsphinx_asr import extra_pronunciations, model_dir

            path = self._path or model_dir() / "cmudict-en-us.dict"
            self._text = "\n" + path.read_text(encoding="utf-8")
            if self._extra is None:
                self._extra = extra_pronunciations()
        return self._text

    def _extra_prons(self) -> dict[str, list[str]]:
        self._load()
        return self._extra or {}

    def _sound(self, word: str) -> str | None:
        """The word's sound code, or None when neither dictionary has it."""
        if word in self._known:
            return self._known[word]
        text = self._load()
        prons = self._extra_prons().get(word)
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
