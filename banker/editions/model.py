"""Frozen dataclasses for an edition's data. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Token:
    id: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Street:
    name: str
    group: str
    price: int
    rent: Mapping[str, int]
    house_cost: int = 0
    mortgage: int = 0
    unmortgage: int = 0
    locked: bool = False


@dataclass(frozen=True)
class ChanceCard:
    id: str
    title: str
    effect: Mapping[str, Any]


@dataclass(frozen=True)
class OptionSpec:
    name: str
    default: str
    choices: tuple[str, ...]
    doc: str = ""


@dataclass(frozen=True)
class AuctionSpec:
    open: int
    step: int
    quiet_seconds: float = 3.0
    final_seconds: float = 3.0
    bid_unit: int = 0  # a spoken bid is a multiple of this (0: of ``step``)

    @property
    def spoken_unit(self) -> int:
        return self.bid_unit or self.step


@dataclass(frozen=True)
class Edition:
    id: str
    name: str
    rules: str
    currency: str
    start_cash: int
    min_players: int
    max_players: int
    tokens: tuple[Token, ...]
    streets: tuple[Street, ...]
    chance: tuple[ChanceCard, ...]
    fees: Mapping[str, int]
    auction: AuctionSpec
    stock: Mapping[str, int] = field(default_factory=dict)
    money_total: int | None = None
    options: tuple[OptionSpec, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    foreign_streets: tuple[str, ...] = ()

    def street(self, name: str) -> Street:
        for s in self.streets:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def street_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.streets)

    @property
    def token_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tokens)

    def token(self, token_id: str) -> Token:
        for t in self.tokens:
            if t.id == token_id:
                return t
        raise KeyError(token_id)

    def group_of(self, name: str) -> tuple[str, ...]:
        """Names of every street in the colour set of ``name`` (itself included)."""
        group = self.street(name).group
        return tuple(s.name for s in self.streets if s.group == group)

    @property
    def groups(self) -> tuple[str, ...]:
        seen: list[str] = []
        for s in self.streets:
            if s.group not in seen:
                seen.append(s.group)
        return tuple(seen)

    def card(self, card_id: str) -> ChanceCard:
        for c in self.chance:
            if c.id == card_id:
                return c
        raise KeyError(card_id)

    def option_defaults(self) -> dict[str, str]:
        return {o.name: o.default for o in self.options}

    def fmt(self, amount: int) -> str:
        """Money for this edition: ``M1,500`` / ``$2,000`` / ``-M50``."""
        sign = "-" if amount < 0 else ""
        return f"{sign}{self.currency}{abs(amount):,}"
