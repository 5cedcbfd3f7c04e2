"""The game state: everything the banker knows, derived only by folding events.

Mutable dataclasses, but only ``apply`` (in ``events.py``) mutates them, and only on a copy:
``decide`` reads a state and never changes it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from banker.editions.model import Edition


@dataclass
class Player:
    token: str
    cash: int
    in_jail: bool = False
    jail_tries: int = 0
    items: dict[str, int] = field(default_factory=dict)  # jail_card, key, hotel (supply)
    out: bool = False  # bankrupt: left the turn order

    def count(self, item: str) -> int:
        return self.items.get(item, 0)


@dataclass
class Holding:
    """One street's ownership and what stands on it."""

    owner: str | None = None
    houses: int = 0
    hotels: int = 0
    mortgaged: bool = False
    unlocked: bool = False
    paid: int = 0  # money paid for the buildings standing here (Voice Banking wealth)


@dataclass
class Debt:
    """A payment the debtor could not make yet, owed until it is settled (every edition: a
    Voice Banking or Jackpot debtor is asked which street to give; a Secret Vault debtor
    raises the cash). Any number of players may owe at once, and one player several debts
    (a Chance card paying every player: one per creditor); each is settled oldest first."""

    debtor: str
    creditor: str  # a token, "bank" or "vault"
    amount: int
    reason: str = ""


@dataclass
class GameState:
    edition: Edition
    options: dict[str, str]
    order: list[str]
    players: dict[str, Player]
    streets: dict[str, Holding]
    seed: int
    bank: int | None = None  # None: the bank never runs out
    jackpot: int = 0
    vault_cash: int = 0
    stakes: dict[str, int] = field(default_factory=dict)
    box: dict[str, int] = field(default_factory=dict)  # stock not in play: houses, hotels, keys, jail_card
    vault_items: dict[str, int] = field(default_factory=dict)  # keys and hotels in the vault
    vault_code: int = 0
    guessed: list[int] = field(default_factory=list)
    deck: list[str] = field(default_factory=list)  # Secret Vault chance deck, top first
    debts: list[Debt] = field(default_factory=list)  # open debts, oldest first
    draws: int = 0  # random draws made so far: undo puts them back
    game_over: bool = False
    winners: list[str] = field(default_factory=list)

    def clone(self) -> GameState:
        edition = self.edition
        self.edition = None  # type: ignore[assignment]  # shared, immutable: don't deep-copy it
        try:
            dup = copy.deepcopy(self)
        finally:
            self.edition = edition
        dup.edition = edition
        return dup

    # --- read helpers used by rules and replies -------------------------------------------
    @property
    def debt(self) -> Debt | None:
        """The first open debt (the next one to be paid), or None."""
        return self.debts[0] if self.debts else None

    def debts_of(self, token: str) -> list[Debt]:
        """``token``'s open debts, oldest first."""
        return [d for d in self.debts if d.debtor == token]

    def owed_by(self, token: str) -> int:
        return sum(d.amount for d in self.debts if d.debtor == token)

    @property
    def seated(self) -> list[str]:
        """Players still in the game, in turn order."""
        return [t for t in self.order if not self.players[t].out]

    def cash(self, token: str) -> int:
        return self.players[token].cash

    def owned_by(self, token: str) -> list[str]:
        return [n for n in self.edition.street_names if self.streets[n].owner == token]

    def owner(self, street: str) -> str | None:
        return self.streets[street].owner

    def owns_set(self, token: str, street: str) -> bool:
        return all(self.streets[n].owner == token for n in self.edition.group_of(street))

    def left_of(self, token: str) -> list[str]:
        """The other seated players starting from ``token``'s left, in turn order."""
        seated = self.seated
        if token not in seated:
            return [t for t in seated if t != token]
        i = seated.index(token)
        return seated[i + 1:] + seated[:i]

    def total_money(self) -> int:
        return (sum(p.cash for p in self.players.values()) + (self.bank or 0) + self.jackpot
                + self.vault_cash + sum(self.stakes.values()))

    def view(self) -> dict[str, object]:
        """What transcript expectations (and ``banker state --json``) can see."""
        return {
            "cash": {t: p.cash for t, p in self.players.items()},
            "owner": {n: h.owner for n, h in self.streets.items()},
            "houses": {n: h.houses for n, h in self.streets.items()},
            "hotels": {n: h.hotels for n, h in self.streets.items()},
            "mortgaged": sorted(n for n, h in self.streets.items() if h.mortgaged),
            "in_jail": [t for t in self.order if self.players[t].in_jail],
            "vault": {"cash": self.vault_cash, "keys": self.vault_items.get("key", 0),
                      "hotels": self.vault_items.get("hotel", 0)},
            "jackpot": self.jackpot,
            "bank": self.bank,
            "stakes": dict(self.stakes),
            "items": {t: dict(p.items) for t, p in self.players.items()},
            "out": [t for t in self.order if self.players[t].out],
            "game_over": self.game_over,
            "winner": list(self.winners),
            "debts": [{"debtor": d.debtor, "creditor": d.creditor, "amount": d.amount,
                       "reason": d.reason} for d in self.debts],
        }
