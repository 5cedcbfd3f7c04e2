"""Invariants as pure validators (beancount's ``validation.py`` habit): each returns every
problem it finds (an empty list: all good). ``COMMON`` holds for every edition; an edition's
rules class extends it in ``Rules.validators``, and ``check`` runs that edition's list.

Tests run them after every event; they are cheap enough for property tests.
"""

from __future__ import annotations

from collections.abc import Callable

from banker.rules.state import GameState

#: ``validator(state, total)``: every problem of ``state``; ``total`` is the conserved money
Validator = Callable[[GameState, "int | None"], list[str]]


def players_valid(state: GameState, total: int | None) -> list[str]:
    problems: list[str] = []
    for t, p in state.players.items():
        if p.cash < 0:
            problems.append(f"{t} has negative cash {p.cash}")
        for item, n in p.items.items():
            if n < 0:
                problems.append(f"{t} holds {n} {item}")
    return problems


def streets_valid(state: GameState, total: int | None) -> list[str]:
    problems: list[str] = []
    for name, h in state.streets.items():
        if h.owner is not None and h.owner not in state.players:
            problems.append(f"{name} owned by unknown {h.owner}")
        if h.houses < 0 or h.hotels < 0:
            problems.append(f"{name} has negative buildings")
        if h.owner is None and (h.houses or h.hotels):
            problems.append(f"{name} is unowned but has buildings")
        if name not in state.edition.street_names:
            problems.append(f"{name} is not on the board")
    return problems


def stock_conserved(state: GameState, total: int | None) -> list[str]:
    """Every house, hotel and key of a limited stock is somewhere, exactly once."""
    problems: list[str] = []
    stock = state.edition.stock
    for item, limit_key in (("house", "houses"), ("hotel", "hotels"), ("key", "keys")):
        if limit_key not in stock:
            continue
        limit = stock[limit_key]
        on_board = sum(getattr(h, item + "s", 0) for h in state.streets.values()) if item != "key" else 0
        held = sum(p.count(item) for p in state.players.values())
        in_box, in_vault = state.box.get(item, 0), state.vault_items.get(item, 0)
        if min(in_box, in_vault) < 0:
            problems.append(f"negative {item} stock")
        used_keys = sum(1 for h in state.streets.values() if h.unlocked) if item == "key" else 0
        if on_board + held + in_box + in_vault + used_keys != limit:
            problems.append(f"{item}s: {on_board} placed + {held} held + {in_box} in the box + "
                            f"{in_vault} in the vault + {used_keys} used != {limit}")
    return problems


def accounts_valid(state: GameState, total: int | None) -> list[str]:
    problems: list[str] = []
    if state.jackpot < 0:
        problems.append(f"negative jackpot {state.jackpot}")
    if state.vault_cash < 0:
        problems.append(f"negative vault {state.vault_cash}")
    if state.bank is not None and state.bank < 0:
        problems.append(f"negative bank {state.bank}")
    if any(v < 0 for v in state.stakes.values()):
        problems.append("negative stake")
    return problems


def money_conserved(state: GameState, total: int | None) -> list[str]:
    if total is not None and state.total_money() != total:
        return [f"money not conserved: {state.total_money()} != {total}"]
    return []


COMMON: tuple[Validator, ...] = (players_valid, streets_valid, stock_conserved, accounts_valid,
                                 money_conserved)


def check(state: GameState, total: int | None = None) -> list[str]:
    """Every broken invariant of ``state``: its edition's validators, in order."""
    from banker.rules.lookup import rules_class  # the registry imports rule modules

    validators = rules_class(state.edition.rules).validators
    return [problem for validate in validators for problem in validate(state, total)]
