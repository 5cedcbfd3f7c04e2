"""Monopoly Jackpot's own machinery: the finite Bank, the house markers, the questions.

``_Ledger`` applies a decision's events as they are added, so each line can say the balance it
leads to; ``from_bank`` pays in order and only what the Bank has left; ``_finish`` ends the
game the moment the Bank reaches $0. A street's house marker follows its owner (``houses`` is 1
when owned), and each player has 10, so an 11th street means moving a house (``room``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from banker.rules.base import Rules
from banker.rules.events import BuildingsChanged, CashMoved, Event, OwnerChanged, apply_in_place
from banker.rules.invariants import COMMON
from banker.rules.outcome import Command, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState

GIVE_UP = frozenset({"none", "cancel"})
STEP = 100  # every amount in this game is a number of $100 bills


class _Ledger:
    """The events of one decision, applied as they are added to a working copy of the state,
    so each of Mr. Monopoly's lines can say the balance it leads to."""

    def __init__(self, state: GameState, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = []
        self.after = state.clone()
        for e in events:
            self.add(e)

    def add(self, *events: Event) -> None:
        for e in events:
            self.events.append(e)
            apply_in_place(self.after, e)

    def move(self, src: str, dst: str, amount: int) -> None:
        if amount > 0:
            self.add(CashMoved(src, dst, amount))

    def from_bank(self, to: str, amount: int) -> int:
        """The Bank pays ``amount``, or all it has left. Returns what was paid."""
        left = self.after.bank
        paid = amount if left is None else max(0, min(amount, left))
        self.move("bank", to, paid)
        return paid

    @property
    def dry(self) -> bool:
        return self.after.bank is not None and self.after.bank <= 0

    def cash(self, token: str) -> Money:
        return Money(self.after.cash(token))


def house_markers(state: GameState, total: int | None) -> list[str]:
    """A street carries at most one house marker (between the two events of a purchase it has
    none yet); nobody owns more streets than their houses."""
    cap = int(state.edition.stock.get("houses_per_player", 10))
    problems = [f"{n} owned by {h.owner} with {h.houses} houses" for n, h in state.streets.items()
                if h.houses > 1]
    problems += [f"{t} owns {len(state.owned_by(t))} streets" for t in state.players
                 if len(state.owned_by(t)) > cap]
    return problems


class JackpotCore(Rules):
    """Jackpot's edition data, its Bank and its house markers (the rules are in ``jackpot.py``
    and the spinner in ``jackpot_spin.py``)."""

    validators = (*COMMON, house_markers)
    building_stock = None  # a house marks ownership: it is no stock

    # --- edition data ---------------------------------------------------------------------
    @property
    def cap(self) -> int:
        """Houses per player = most streets one player can own."""
        return int(self.edition.stock["houses_per_player"])

    @property
    def outcomes(self) -> list[str]:
        return [str(o) for o in self.edition.extra.get("spinner_outcomes", [])]

    @property
    def segments(self) -> list[str]:
        return [str(o) for o in self.edition.extra.get("spinner_segments", self.outcomes)]

    def payout(self, outcome: str) -> int:
        table: Mapping[str, Any] = self.edition.extra["payout"]
        return int(table.get(outcome, 0))

    def hot_house_bonus(self, state: GameState, street: str, owner: str) -> int:
        mult: Mapping[str, Any] = self.edition.extra.get("hot_house", {"one": 2, "pair": 4})
        key = "pair" if state.owns_set(owner, street) else "one"
        return int(mult.get(key, 2)) * self.edition.street(street).price

    def rent(self, state: GameState, street: str) -> int:
        s, owner = self.edition.street(street), state.owner(street)
        return s.rent["pair"] if owner and state.owns_set(owner, street) else s.rent["base"]

    # --- small helpers --------------------------------------------------------------------
    def check_amount(self, n: int) -> None:
        """Every amount in this game is a number of $100 bills."""
        if n % STEP:
            raise Refusal("hundreds", amount=Money(n), step=Money(STEP))

    def from_bank(self, state: GameState, p: str, n: int, key: str) -> Outcome:
        """The Bank pays what it has left (all of ``n``, or less); the game ends at $0."""
        ledger, out = _Ledger(state), Outcome()
        paid = ledger.from_bank(p, n)
        out.say(key if paid == n else "bank_short", player=Who(p), amount=Money(paid),
                owed=Money(n), cash=ledger.cash(p))
        return self._finish(state, ledger, out)

    def full(self, state: GameState, player: str) -> bool:
        """True when all of ``player``'s houses are on the board (a new street needs a move)."""
        return len(state.owned_by(player)) >= self.cap

    @staticmethod
    def owner_to(state: GameState, street: str, to: str | None) -> list[Event]:
        """A street changes hands; its house marker follows (``houses`` is 1 when owned)."""
        h = state.streets[street]
        if to is None:
            return [BuildingsChanged(street, 0, 0), OwnerChanged(street, None)] if h.owner else []
        if h.owner is None:
            return [OwnerChanged(street, to), BuildingsChanged(street, 1, 0)]
        return [OwnerChanged(street, to)] if h.owner != to else []

    def ask(self, key: str, asked: str, slot: str, then: Command, choices: Iterable[str],
            cancellable: bool = True, **params: Any) -> Question:
        """A rules question that never lapses; "cancel" gives up the choice (if cancellable)."""
        return Question(key, asked, slot, then, tuple(choices), lapses=False,
                        params={"cancellable": cancellable, **params})

    def room(self, state: GameState, cmd: Command, who: str, slot: str, key: str,
             **params: Any) -> tuple[str | None, Question | None]:
        """Make room for one more street of ``who``: (street to vacate or "none", question).

        ("", None): there is room. (None, question): ask which house to move. ("none", None):
        they chose not to move a house.
        """
        if not self.full(state, who):
            return "", None
        choice = cmd.intent.get(slot)
        owned = state.owned_by(who)
        if choice is None:
            return None, self.ask(key, who, slot, cmd, [*owned, "none"], player=Who(who),
                                  count=self.cap, **params)
        if choice in GIVE_UP:
            return "none", None
        if choice not in owned:
            raise Refusal("not_your_street", street=choice)
        return str(choice), None

    def _finish(self, state: GameState, ledger: _Ledger, out: Outcome) -> Outcome:
        """Close a decision: its events, and the game's end if the Bank has run dry."""
        out.events = ledger.events
        if ledger.dry and not ledger.after.game_over and ledger.events:
            out.say("bank_dry")
            self.end_game(state, out.events, out)
        return out

    def _receive(self, ledger: _Ledger, out: Outcome, street: str, to: str,
                 vacate: str | None) -> None:
        """``to`` takes ``street``, first moving a house off ``vacate`` (or leaving ``street``
        unowned when they said "none")."""
        if vacate == "none":
            ledger.add(*self.owner_to(ledger.after, street, None))
            out.say("left_unowned", player=Who(to), street=street)
            return
        if vacate:
            ledger.add(*self.owner_to(ledger.after, vacate, None))
            out.say("house_moved", player=Who(to), street=vacate)
        ledger.add(*self.owner_to(ledger.after, street, to))
