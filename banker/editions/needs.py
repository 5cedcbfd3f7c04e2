"""What a rules module needs from an edition file: which keys, and the shape of ``extra``.

Pure data (no I/O, no rule code): the loader checks a file against the ``Needs`` of the rules
module it names, so a misspelt key fails at load with its key path instead of silently
reading as 0 in the middle of a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: ``check(value, path, err)``: reports each problem of ``value`` through ``err(path, msg)``
Check = Callable[[Any, str, Callable[[str, str], None]], None]


@dataclass(frozen=True)
class Extra:
    """One key of the edition's ``extra:`` mapping: how to check it, and its default."""

    check: Check
    default: Any = None
    required: bool = False


@dataclass(frozen=True)
class Needs:
    """The keys a rules module reads: rent keys of every street, fees and stock (required, then
    optional), the Chance effects it knows, and the ``extra`` keys (any other is an error).
    ``cross``: checks across keys (``extra`` as loaded, with defaults filled in)."""

    rent: tuple[str, ...]
    fees: tuple[str, ...]
    stock: tuple[str, ...]
    effects: frozenset[str] = frozenset()
    optional_fees: tuple[str, ...] = ()
    extra: Mapping[str, Extra] = field(default_factory=dict)
    cross: tuple[Callable[[Mapping[str, Any], Callable[[str, str], None]], None], ...] = ()

    def plus(self, *, fees: tuple[str, ...] = (), effects: frozenset[str] = frozenset(),
             extra: Mapping[str, Extra] | None = None) -> Needs:
        """These needs and a few more: how a variant edition says "like that one, and ..."."""
        return Needs(self.rent, (*self.fees, *fees), self.stock, self.effects | effects,
                     self.optional_fees, {**self.extra, **(extra or {})}, self.cross)


# --- checks for ``extra`` values --------------------------------------------------------------
def whole(minimum: int = 0) -> Check:
    def check(value: Any, path: str, err: Callable[[str, str], None]) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            err(path, f"must be a whole number of at least {minimum}, not {value!r}")
    return check


def words(value: Any, path: str, err: Callable[[str, str], None]) -> None:
    """A non-empty list of strings."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        err(path, "must be a list of words")


def table(keys: tuple[str, ...] | None, value_check: Check) -> Check:
    """A mapping whose keys are ``keys`` (any subset; None: any string) and values pass
    ``value_check``."""
    def check(value: Any, path: str, err: Callable[[str, str], None]) -> None:
        if not isinstance(value, dict):
            err(path, "must be a mapping")
            return
        for k, v in value.items():
            if keys is not None and k not in keys:
                err(f"{path}.{k}", f"unknown key (known: {', '.join(keys)})")
                continue
            value_check(v, f"{path}.{k}", err)
    return check
