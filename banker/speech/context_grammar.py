"""A Rhino-format context (``banker.nlu.context``) as a recogniser grammar.

Receives a ``Context``; gives pocketsphinx what ``SpeechGrammar`` gives it for an edition: the
word automaton (built by the same walker and automaton code, every expression as one branch of
focus ``any``), the words to look up in the pronunciation dictionary, and the identity
``to_written`` (a context's words are already what it understands).
"""

from __future__ import annotations

from functools import cached_property

from banker.nlu import walk
from banker.nlu.context import Context
from banker.speech.automata import Fsa, minimal_dfa, weighted_fsa


class ContextSpeechGrammar:
    """Decoding grammar for one context (it has one focus: any of its expressions)."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self._fsa: Fsa | None = None

    def fragment(self, marker: str) -> walk.Fragment:
        return walk.phrases_fragment([spoken for spoken, _ in self.context.phrases(marker)])

    def fsa(self, focus: str = "any") -> Fsa:
        """Every expression of every intent (``focus`` is ignored: a context asks nothing)."""
        if self._fsa is None:
            nodes = [n for ns in self.context.intents.values() for n in ns]
            self._fsa = weighted_fsa([(1.0, minimal_dfa(
                [walk.builder(n, self.context.rules, self.fragment) for n in nodes]))])
        return self._fsa

    @cached_property
    def words(self) -> frozenset[str]:
        return self.fsa().words

    def to_written(self, text: str) -> str:
        return text
