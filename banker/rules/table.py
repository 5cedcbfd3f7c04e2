"""Players sitting down or leaving between turns ("add the cat", "remove the cat").

Every edition has them (``TABLE_INTENTS``), through the base's hooks: who joins gets the
edition's starting money from the bank; who leaves gives everything back (streets to the bank,
bare and unmortgaged; cash to the bank; hotels and keys to the box; the Get Out of Jail Free card
home) and is out of the turn order. Both are transactions like any other: journalled and
undoable.
"""

from __future__ import annotations

from banker.rules.base import TABLE_INTENTS, Rules
from banker.rules.events import (
    BuildingsChanged,
    Event,
    ItemsMoved,
    JailChanged,
    MortgageChanged,
    OwnerChanged,
    PlayerJoined,
    PlayerOut,
)
from banker.rules.outcome import Command, Money, Outcome, Refusal, Who
from banker.rules.state import GameState

__all__ = ["TABLE_INTENTS", "add_player", "release", "remove_player"]



def token_of(rules: Rules, cmd: Command) -> str:
    who = cmd.intent.get("player")
    if not who:
        raise Refusal("which_player")
    if who not in rules.edition.token_ids:
        raise Refusal("not_a_token", player=str(who))
    return str(who)


def add_player(rules: Rules, state: GameState, cmd: Command) -> Outcome:
    """Refused for a player already in, or a full table. One who left (or went bankrupt)
    may come back: a fresh start with the starting money, as a family would allow."""
    p, ed = token_of(rules, cmd), rules.edition
    if p in state.players and not state.players[p].out:
        raise Refusal("already_playing", player=Who(p))
    if len(state.seated) >= ed.max_players:
        raise Refusal("table_full", count=ed.max_players)
    n = ed.start_cash
    if state.bank is not None and state.bank < n:
        raise Refusal("bank_cannot_seat", player=Who(p), amount=Money(n), bank=Money(state.bank))
    return Outcome(events=[PlayerJoined(p), *rules.pay("bank", p, n)]).say(
        "player_added", player=Who(p), amount=Money(n))


def remove_player(rules: Rules, state: GameState, cmd: Command) -> Outcome:
    """Refused below the edition's fewest players, and while the player owes a debt (settle
    it first, or say "I'm bankrupt")."""
    p = token_of(rules, cmd)
    if p not in state.players or state.players[p].out:
        raise Refusal("not_playing", player=Who(p))
    if len(state.seated) <= rules.edition.min_players:
        raise Refusal("too_few_players", count=rules.edition.min_players)
    if any(d.debtor == p for d in state.debts):
        raise Refusal("debt_open", player=Who(p), amount=Money(state.debts[0].amount))
    streets = state.owned_by(p)
    events: list[Event] = []
    for street in streets:
        events += release(rules, state, street)
    events += rules.pay(p, "bank", state.cash(p))
    for item, count in sorted(state.players[p].items.items()):
        if item == "jail_card":
            events += rules.return_card(state, p)
        elif count:
            events.append(ItemsMoved(item, p, "box", count))
    if state.players[p].in_jail:
        events.append(JailChanged(p, False, 0))
    events.append(PlayerOut(p))
    return Outcome(events=events).say("player_removed", player=Who(p),
                                      cash=Money(state.cash(p)), streets=len(streets))


def release(rules: Rules, state: GameState, street: str) -> list[Event]:
    """``street`` back to the bank: bare (buildings to the stock) and unmortgaged."""
    h = state.streets[street]
    events: list[Event] = []
    if h.houses or h.hotels or h.paid:
        events.append(BuildingsChanged(street, 0, 0, 0, source=rules.building_stock))
    if h.mortgaged:
        events.append(MortgageChanged(street, False))
    events.append(OwnerChanged(street, None))
    return events
