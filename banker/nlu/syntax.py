"""The command templates' syntax: words, ``(a | b)``, ``[optional]``, ``<rule>``, ``{slot}``.

Receives one template string; returns its tree (``Node``). ``banker.nlu.walk`` is the one
walker over these trees; everything that reads a template (matcher carriers, JSGF, automata,
sampling) goes through it.
"""

from __future__ import annotations

from dataclasses import dataclass


class GrammarError(Exception):
    """A template file that can't be used."""


@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Slot:
    name: str


@dataclass(frozen=True)
class RuleRef:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]
    optional: bool = False


Node = Word | Slot | RuleRef | Seq | Alt


def parse_template(text: str) -> Node:
    tokens = _tokenize(text)
    pos, node = _parse_alt(tokens, 0, closer=None)
    if pos != len(tokens):
        raise GrammarError(f"unbalanced brackets in {text!r}")
    return node


def _tokenize(text: str) -> list[str]:
    out: list[str] = []
    buf = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "()[]|":
            if buf.strip():
                out.extend(buf.split())
            buf = ""
            out.append(ch)
        elif ch in "{<":
            end = text.index("}" if ch == "{" else ">", i)
            if buf.strip():
                out.extend(buf.split())
            buf = ""
            out.append(text[i:end + 1])
            i = end
        else:
            buf += ch
        i += 1
    if buf.strip():
        out.extend(buf.split())
    return out


def _parse_alt(tokens: list[str], pos: int, closer: str | None) -> tuple[int, Node]:
    options: list[Node] = []
    seq: list[Node] = []
    while pos < len(tokens):
        t = tokens[pos]
        if t == closer:
            break
        if t in (")", "]"):
            raise GrammarError(f"unexpected {t!r}")
        if t == "|":
            options.append(Seq(tuple(seq)))
            seq = []
            pos += 1
            continue
        if t in ("(", "["):
            pos, inner = _parse_alt(tokens, pos + 1, ")" if t == "(" else "]")
            if pos >= len(tokens):
                raise GrammarError("unclosed bracket")
            pos += 1
            if t == "[":
                opts = inner.options if isinstance(inner, Alt) else (inner,)
                seq.append(Alt(opts, optional=True))
            else:
                seq.append(inner)
            continue
        if t.startswith("{"):
            seq.append(Slot(t[1:-1].strip()))
        elif t.startswith("<"):
            seq.append(RuleRef(t[1:-1].strip()))
        else:
            seq.append(Word(t))
        pos += 1
    options.append(Seq(tuple(seq)))
    node: Node = options[0] if len(options) == 1 else Alt(tuple(options))
    return pos, node
