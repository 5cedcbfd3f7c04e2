"""Events: past-tense facts, and ``apply``, which folds them into the state and never fails.

The vocabulary is small and edition-neutral on purpose: every edition's transaction is a
list of these. Accounts for money are a token, ``bank``, ``jackpot``, ``vault`` or
``stake:<token>``; places for items are a token, ``box``, ``vault`` or ``board``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from banker.rules.state import Debt, GameState, Holding, Player


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kind"] = self.kind
        return data


@dataclass(frozen=True)
class CashMoved(Event):
    kind: ClassVar[str] = "cash_moved"
    src: str
    dst: str
    amount: int


@dataclass(frozen=True)
class OwnerChanged(Event):
    kind: ClassVar[str] = "owner_changed"
    street: str
    owner: str | None


@dataclass(frozen=True)
class BuildingsChanged(Event):
    """A street's buildings are now ``houses``/``hotels``.

    With ``source`` (``box`` or a token's supply), the difference moves between that place and
    the board in the same event, so stock is conserved after every single event.
    """

    kind: ClassVar[str] = "buildings_changed"
    street: str
    houses: int
    hotels: int
    paid: int = 0
    source: str | None = None


@dataclass(frozen=True)
class ItemsMoved(Event):
    kind: ClassVar[str] = "items_moved"
    item: str  # house, hotel, key, jail_card
    src: str
    dst: str
    count: int = 1


@dataclass(frozen=True)
class MortgageChanged(Event):
    kind: ClassVar[str] = "mortgage_changed"
    street: str
    mortgaged: bool


@dataclass(frozen=True)
class StreetUnlocked(Event):
    """A locked street is opened for good. With ``source`` (a token), the key that opened it
    leaves that player in the same event, so the key stock holds after every event."""

    kind: ClassVar[str] = "street_unlocked"
    street: str
    source: str | None = None


@dataclass(frozen=True)
class JailChanged(Event):
    kind: ClassVar[str] = "jail_changed"
    player: str
    in_jail: bool
    tries: int = 0


@dataclass(frozen=True)
class Drawn(Event):
    """A random draw was made (its value is recorded so replay never re-draws)."""

    kind: ClassVar[str] = "drawn"
    what: str
    value: str


@dataclass(frozen=True)
class DeckChanged(Event):
    kind: ClassVar[str] = "deck_changed"
    order: tuple[str, ...]


@dataclass(frozen=True)
class VaultCodeSet(Event):
    kind: ClassVar[str] = "vault_code_set"
    code: int


@dataclass(frozen=True)
class GuessMade(Event):
    kind: ClassVar[str] = "guess_made"
    player: str
    number: int
    opened: bool


@dataclass(frozen=True)
class DebtChanged(Event):
    """``debtor`` None: no debt is open any more. Otherwise the debt of ``debtor`` to
    ``creditor`` is now ``amount`` (0: paid; a new creditor goes last, in turn order)."""

    kind: ClassVar[str] = "debt_changed"
    debtor: str | None  # None: no open debt
    creditor: str = ""
    amount: int = 0
    reason: str = ""


@dataclass(frozen=True)
class DebtOpened(Event):
    """``debtor`` could not make a payment they can't refuse: it is owed from now on, after
    every debt opened before it (debts are settled oldest first)."""

    kind: ClassVar[str] = "debt_opened"
    debtor: str
    creditor: str  # a token, "bank", "vault" or "jackpot"
    amount: int
    reason: str = ""


@dataclass(frozen=True)
class DebtSettled(Event):
    """The oldest open debt of ``debtor`` to ``creditor`` is closed (``paid``: what the
    creditor got for it; a street given, or a bankruptcy, settles it for less)."""

    kind: ClassVar[str] = "debt_settled"
    debtor: str
    creditor: str
    paid: int = 0


@dataclass(frozen=True)
class PlayerOut(Event):
    kind: ClassVar[str] = "player_out"
    player: str


@dataclass(frozen=True)
class PlayerJoined(Event):
    """``player`` sits down between turns with nothing (their starting money follows as a
    ``CashMoved``); one who had left comes back fresh, in their old place in the order."""

    kind: ClassVar[str] = "player_joined"
    player: str


@dataclass(frozen=True)
class GameEnded(Event):
    kind: ClassVar[str] = "game_ended"
    winners: tuple[str, ...]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (CashMoved, OwnerChanged, BuildingsChanged, ItemsMoved, MortgageChanged,
                StreetUnlocked, JailChanged, Drawn, DeckChanged, VaultCodeSet, GuessMade,
                DebtChanged, DebtOpened, DebtSettled, PlayerOut, PlayerJoined, GameEnded)
}


def event_from_json(data: dict[str, Any]) -> Event:
    """Inverse of ``Event.to_json``. Raises ``ValueError`` on an unknown or malformed event."""
    payload = dict(data)
    kind = payload.pop("kind", None)
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    if cls is DeckChanged:
        payload["order"] = tuple(payload.get("order", ()))
    if cls is GameEnded:
        payload["winners"] = tuple(payload.get("winners", ()))
    try:
        return cls(**payload)
    except TypeError as exc:
        raise ValueError(f"malformed {kind} event") from exc


# --- apply ---------------------------------------------------------------------------------

def _add_cash(state: GameState, account: str, delta: int) -> None:
    if account in state.players:
        state.players[account].cash += delta
    elif account == "bank":
        if state.bank is not None:
            state.bank += delta
    elif account == "jackpot":
        state.jackpot += delta
    elif account == "vault":
        state.vault_cash += delta
    elif account.startswith("stake:"):
        token = account[6:]
        state.stakes[token] = state.stakes.get(token, 0) + delta
        if state.stakes[token] == 0:
            del state.stakes[token]


def _add_items(state: GameState, place: str, item: str, delta: int) -> None:
    if place in state.players:
        bag = state.players[place].items
    elif place == "vault":
        bag = state.vault_items
    elif place == "box":
        bag = state.box
    else:  # "board": buildings on streets are counted on the streets themselves
        return
    bag[item] = bag.get(item, 0) + delta
    if bag[item] == 0:
        del bag[item]


def _set_debt(state: GameState, event: DebtChanged) -> None:
    if not event.debtor:
        state.debts = []
        return
    new = Debt(event.debtor, event.creditor, event.amount, event.reason)
    same = [i for i, d in enumerate(state.debts)
            if (d.debtor, d.creditor) == (event.debtor, event.creditor)]
    if not same:
        if event.amount > 0:
            state.debts.append(new)
    elif event.amount > 0:
        state.debts[same[0]] = new
    else:
        del state.debts[same[0]]


def apply_in_place(state: GameState, event: Event) -> None:
    """Mutate ``state`` by one event. Never raises for any well-formed event."""
    if isinstance(event, CashMoved):
        _add_cash(state, event.src, -event.amount)
        _add_cash(state, event.dst, event.amount)
    elif isinstance(event, OwnerChanged):
        state.streets.setdefault(event.street, Holding()).owner = event.owner
    elif isinstance(event, BuildingsChanged):
        h = state.streets.setdefault(event.street, Holding())
        if event.source is not None:
            _add_items(state, event.source, "house", h.houses - event.houses)
            _add_items(state, event.source, "hotel", h.hotels - event.hotels)
        h.houses, h.hotels, h.paid = event.houses, event.hotels, event.paid
    elif isinstance(event, ItemsMoved):
        _add_items(state, event.src, event.item, -event.count)
        _add_items(state, event.dst, event.item, event.count)
    elif isinstance(event, MortgageChanged):
        state.streets.setdefault(event.street, Holding()).mortgaged = event.mortgaged
    elif isinstance(event, StreetUnlocked):
        h = state.streets.setdefault(event.street, Holding())
        if event.source is not None and not h.unlocked:
            _add_items(state, event.source, "key", -1)
        h.unlocked = True
    elif isinstance(event, JailChanged):
        if event.player in state.players:
            state.players[event.player].in_jail = event.in_jail
            state.players[event.player].jail_tries = event.tries
    elif isinstance(event, Drawn):
        state.draws += 1
    elif isinstance(event, DeckChanged):
        state.deck = list(event.order)
    elif isinstance(event, VaultCodeSet):
        state.vault_code = event.code
        state.guessed = []
    elif isinstance(event, GuessMade):
        if not event.opened and event.number not in state.guessed:
            state.guessed.append(event.number)
    elif isinstance(event, DebtChanged):
        _set_debt(state, event)
    elif isinstance(event, DebtOpened):
        state.debts.append(Debt(event.debtor, event.creditor, event.amount, event.reason))
    elif isinstance(event, DebtSettled):
        same = [i for i, d in enumerate(state.debts)
                if (d.debtor, d.creditor) == (event.debtor, event.creditor)]
        if same:
            del state.debts[same[0]]
    elif isinstance(event, PlayerOut):
        if event.player in state.players:
            state.players[event.player].out = True
    elif isinstance(event, PlayerJoined):
        state.players[event.player] = Player(event.player, 0)
        if event.player not in state.order:
            state.order.append(event.player)
    elif isinstance(event, GameEnded):
        state.game_over = True
        state.winners = list(event.winners)


def apply(state: GameState, event: Event) -> GameState:
    """A new state with ``event`` applied; ``state`` is untouched."""
    new = state.clone()
    apply_in_place(new, event)
    return new


def fold(state: GameState, events: list[Event]) -> GameState:
    """State after every event in order (one copy, then in-place folding)."""
    new = state.clone()
    for e in events:
        apply_in_place(new, e)
    return new
