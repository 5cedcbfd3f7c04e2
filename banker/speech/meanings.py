"""What a reading means, and how two meanings relate (pure).

A sentence's meaning to the grammar's matcher is (intent, sorted slots), or ("text", the
sentence) when it is no one command: two readings that differ by "please" mean the same.
The two ears (``two_ears``) compare the first and second ear's readings by these: the same
command, the same command by another name, another amount, or an amount a unit word apart.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

Meaning = Callable[[str], Hashable]


def matcher_meaning(grammar: Any) -> Meaning:
    """What a sentence means to the grammar's matcher: (intent, slots), or the text itself
    when it matches no one command (two sentences that differ by "please" mean the same)."""
    return meaning_of(grammar.matcher.match)


def meaning_of(match: Callable[[str], Any]) -> Meaning:
    """A sentence's meaning to ``match`` (a matcher's, or a context's ``understand``)."""
    from banker.nlu.matcher import Recognized

    def meaning(text: str) -> Hashable:
        m = match(text)
        if isinstance(m, Recognized):
            return (m.intent, tuple(sorted((k, str(v)) for k, v in m.slots.items())))
        return ("text", text)

    return meaning


def a_unit_more(a: Hashable, b: Hashable) -> bool:
    """Meaning ``a`` is ``b`` but for an amount a unit word longer: ``b``'s amount ends in a
    -ty (twenty to ninety) and ``a``'s is that plus one to nine ("sixty eight" for "sixty")."""
    apart = _slots_apart(a, b)
    if apart is None or len(apart) != 1:
        return False
    x, y = apart[0]
    if not (x.isdigit() and y.isdigit()):
        return False
    return int(y) % 10 == 0 and int(y) % 100 >= 20 and 1 <= int(x) - int(y) <= 9


def kin(a: Hashable, b: Hashable) -> bool:
    """Two meanings of the same command (intent), whatever their slots."""
    return isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] != "text"


def by_a_name(a: Hashable, b: Hashable) -> bool:
    """Two meanings of the same command whose slots differ only in names (a player, a
    street), never in an amount: a choice between them is asked by the names alone."""
    apart = _slots_apart(a, b)
    return bool(apart) and not any(_is_amount(x) for x, _y in apart or ())


def by_an_amount(a: Hashable, b: Hashable) -> bool:
    """Two meanings of the same command whose slots differ in an amount ("pay 102 to the
    racecar" and "pay 100 to the racecar")."""
    return any(_is_amount(x) for x, _y in _slots_apart(a, b) or ())


def has_amount(a: Hashable) -> bool:
    """A command meaning with an amount among its slots."""
    return isinstance(a, tuple) and a[0] != "text" and any(
        _is_amount(str(v)) for _k, v in a[1])  # type: ignore[index]


def intent_of(a: Hashable) -> Hashable:
    """The intent of a command meaning ``(intent, slots)`` ("text" for words that make no
    command); anything else as it is."""
    return a[0] if isinstance(a, tuple) and a else a


def _is_amount(value: str) -> bool:
    """A slot value that is an amount (a whole number, as a meaning writes it)."""
    return value.lstrip("-").isdigit()


def _slots_apart(a: Hashable, b: Hashable) -> list[tuple[str, str]] | None:
    """The values (``a``'s, ``b``'s) of the slots two meanings of the same command, with the
    same slot names, fill differently; None when they are other commands or slots."""
    if not kin(a, b):
        return None
    sa, sb = dict(a[1]), dict(b[1])  # type: ignore[index]
    if sa.keys() != sb.keys():
        return None
    return [(str(sa[k]), str(sb[k])) for k in sa if sa[k] != sb[k]]
