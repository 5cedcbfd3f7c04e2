"""What to say: every command of an edition with the ways to say it, for people.

``banker phrases`` prints this list, and tests hold the README's "what to say" tables and the
"help" line to it, so none of them drifts from ``grammars/commands.yaml``. Each template is
walked with the one template walker (``walk``): the filler rules that are optional as a whole
(``<i_will>``, ``<please>``: "I would like to … please") are left out, and each slot gets one
example value of the edition (a street, a token, "two hundred"). A ``Phrasing`` is the template
as people read it (``(buy | purchase) [the] Baltic Avenue``) and every sentence it stands for,
which a test hands to the matcher. Pure: no I/O beyond reading the grammar file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from banker.editions.model import Edition
from banker.nlu import walk
from banker.nlu.canonical import MORE_STREETS
from banker.nlu.syntax import Alt, Node, Seq
from banker.nlu.templates import Grammar, load_grammar

# streets the examples use when the edition has them (the README's), in this order
PREFERRED_STREETS = ("Baltic Avenue", "Park Place", "Oriental Avenue", "Boardwalk",
                     "Vermont Avenue", "Ventnor Avenue")
EXAMPLE_VALUES = {"amount": "two hundred", "number": "four"}
RISK_NOTE = {"money": "moves money", "low": "changes the game", "harmless": "a question"}


@dataclass(frozen=True)
class Command:
    """One command and every way to say it (examples filled in)."""

    intent: str
    risk: str
    phrasings: tuple[Phrasing, ...]


def examples(edition: Edition, grammar: Grammar) -> dict[str, list[str]]:
    """The example value(s) of each slot: distinct streets for every street slot of a deal,
    another player's token, the spinner's outcomes one by one."""
    names = edition.street_names
    streets = [s for s in PREFERRED_STREETS if s in names] + [s for s in names if s not in PREFERRED_STREETS]
    out: dict[str, list[str]] = {k: [v] for k, v in EXAMPLE_VALUES.items()}
    # a deal's sides take alternate streets, so no street is named twice in one sentence
    for i, (first, more) in enumerate(MORE_STREETS.items()):
        side = (streets if first == "property" else streets[i - 1::2]) or streets or ["{street}"]
        out.update({slot: [side[k % len(side)]] for k, slot in enumerate((first, *more))})
    ids = [t.id for t in edition.tokens]  # the templates say "[the] {player}" themselves
    out["player"] = ["dog" if "dog" in ids else ids[1 % len(ids)]]
    out["outcome"] = list(grammar.lists.get("outcome", []))
    for name, values in grammar.lists.items():  # any other list: its first entry (a card, a building)
        if values:
            out.setdefault(name, [values[0]])
    return out


def _fillers(grammar: Grammar) -> set[str]:
    """Rules that are optional as a whole: politeness around a command, never its meaning."""
    def optional(node: Node) -> bool:
        if isinstance(node, Seq) and len(node.items) == 1:
            return optional(node.items[0])
        return isinstance(node, Alt) and node.optional
    return {name for name, node in grammar.rules.items() if optional(node)}


class _Pattern:
    """A template as people read it: ``(buy | purchase) [the] Baltic Avenue``."""

    def __init__(self, values: Mapping[str, list[str]]) -> None:
        self._values = values

    def word(self, text: str) -> str:
        return text

    def slot(self, name: str) -> str:
        vals = self._values.get(name, ["{" + name + "}"])
        return vals[0] if len(vals) == 1 else "(" + " | ".join(vals) + ")"

    def ref(self, name: str) -> str | None:
        return None

    def alt(self, options: Sequence[str], optional: bool) -> str:
        shown = [o for o in options if o]
        if not shown:
            return ""
        inner = " | ".join(shown)
        return f"[{inner}]" if optional else (inner if len(shown) == 1 else f"({inner})")

    def seq(self, items: Sequence[str]) -> str:
        return " ".join(i for i in items if i)


@dataclass(frozen=True)
class Phrasing:
    """One template: as people read it, and every sentence it stands for."""

    pattern: str
    sentences: tuple[str, ...]


def phrasing(node: Node, grammar: Grammar, values: Mapping[str, list[str]]) -> Phrasing:
    """One template with its fillers left out and its slots filled with ``values``."""
    rules = {**grammar.rules, **{name: Alt((), optional=True) for name in _fillers(grammar)}}

    def slot(name: str) -> list[walk.Path]:
        return [((v,), ((name, v),)) for v in values.get(name, ["{" + name + "}"])]

    said = dict.fromkeys(" ".join(words) for words, _ in walk.paths(node, rules, slot))
    return Phrasing(walk.fold(node, _Pattern(values), rules), tuple(s for s in said if s))


def commands(edition: Edition, grammar: Grammar | None = None) -> list[Command]:
    """Every command of ``edition``, in the grammar's order, with its phrasings."""
    grammar = grammar or load_grammar()
    values = examples(edition, grammar)
    return [Command(spec.name, spec.risk, tuple(phrasing(n, grammar, values) for n in spec.sentences))
            for spec in grammar.for_edition(edition.id)]


def phrase_lines(edition: Edition, grammar: Grammar | None = None) -> list[str]:
    """``banker phrases``: a heading per command, its phrasings indented under it
    (``(a | b)``: either; ``[a]``: may be left out)."""
    grammar = grammar or load_grammar()
    around = " ".join(walk.fold(grammar.rules[name], _Pattern({}), grammar.rules)
                      for name in grammar.rules if name in _fillers(grammar))
    lines = [f"{edition.name}: what to say (every command in grammars/commands.yaml;",
             "(a | b): either one, [a]: may be left out. Left out below, and allowed where",
             f"commands.yaml names them: {around})", ""]
    for cmd in commands(edition, grammar):
        lines.append(f"{cmd.intent} ({RISK_NOTE.get(cmd.risk, cmd.risk)})")
        lines.extend(f"  {p.pattern}" for p in cmd.phrasings)
    return lines
