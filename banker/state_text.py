"""``banker state`` in plain English: what a family at the table would read off the board.

Every place money can be is listed, so the lines add up (in Jackpot: players, Bank, Jackpot and
stakes make $21,000), and things are counted in words a player uses ("2 hotels", "1 Get Out
of Jail Free card"), never in the program's names (``jail_card``).
"""

from __future__ import annotations

from banker.rules.state import Debt, GameState

# A player's items (``Player.items``), as said at the table: (one, several).
ITEM_WORDS = {
    "jail_card": ("Get Out of Jail Free card", "Get Out of Jail Free cards"),
    "key": ("key", "keys"),
    "hotel": ("unused hotel", "unused hotels"),
}


def counted(n: int, one: str, several: str) -> str:
    """``1 hotel``, ``2 hotels``."""
    return f"{n} {one if n == 1 else several}"


def item_text(item: str, n: int) -> str:
    """A player's item in words; an item this module doesn't know reads as its name."""
    name = item.replace("_", " ")
    one, several = ITEM_WORDS.get(item, (name, name + "s"))
    return counted(n, one, several)


def _houses_mark_ownership(state: GameState) -> bool:
    """Jackpot: each player's own houses mark the streets they own (one house each)."""
    return "houses_per_player" in state.edition.stock


def player_line(state: GameState, token: str) -> str:
    """``dog: M1,440 (in jail) - 1 Get Out of Jail Free card``."""
    p = state.players[token]
    notes = (" (in jail)" if p.in_jail else "") + (" (out of the game)" if p.out else "")
    extras = [item_text(k, n) for k, n in p.items.items() if n]
    if _houses_mark_ownership(state):
        left = int(state.edition.stock["houses_per_player"]) - len(state.owned_by(token))
        extras.append(counted(left, "house", "houses") + " left")
    return f"{token}: {state.edition.fmt(p.cash)}{notes}{' - ' + ', '.join(extras) if extras else ''}"


def street_line(state: GameState, street: str) -> str:
    """``Park Place (2 hotels, mortgaged)``: what stands on the street, as it is on the board.

    In Jackpot the one house on an owned street is the owner's marker, not a building, so it
    is not listed (the owner's line says how many houses they have left).
    """
    h = state.streets[street]
    houses = h.houses - (1 if _houses_mark_ownership(state) and h.owner else 0)
    bits = [counted(houses, "house", "houses") if houses > 0 else "",
            counted(h.hotels, "hotel", "hotels") if h.hotels else "",
            "mortgaged" if h.mortgaged else ""]
    shown = ", ".join(b for b in bits if b)
    return f"{street}{' (' + shown + ')' if shown else ''}"


def money_lines(state: GameState) -> list[str]:
    """The money that isn't in a player's hands: the Bank (when finite), Jackpot, stakes, vault."""
    ed = state.edition
    out = []
    if state.bank is not None:
        out.append(f"bank: {ed.fmt(state.bank)}")
    if ed.money_total is not None or state.jackpot:
        out.append(f"jackpot: {ed.fmt(state.jackpot)}")
    stakes = [f"{t} {ed.fmt(n)}" for t, n in state.stakes.items() if n]
    if stakes:
        out.append("stakes on the table: " + ", ".join(stakes))
    if "vault_start" in ed.fees:
        keys, hotels = state.vault_items.get("key", 0), state.vault_items.get("hotel", 0)
        things = [ed.fmt(state.vault_cash), counted(keys, "key", "keys") if keys else "",
                  counted(hotels, "hotel", "hotels") if hotels else ""]
        out.append("vault: " + ", ".join(t for t in things if t))
    return out


def debt_line(state: GameState, debt: Debt) -> str:
    """An open debt (Secret Vault), paid as soon as the debtor's cash covers it."""
    why = f" ({debt.reason})" if debt.reason else ""
    return f"open debt: {debt.debtor} owes {debt.creditor} {state.edition.fmt(debt.amount)}{why}"


def state_lines(state: GameState, players: list[str]) -> list[str]:
    """The whole state, one line per player, street and pile of money."""
    lines = [f"{state.edition.name}: {', '.join(players)}"]
    for t in state.order:
        lines.append("  " + player_line(state, t))
        lines.extend("    " + street_line(state, s) for s in state.owned_by(t))
    lines.extend("  " + line for line in money_lines(state))
    lines.extend("  " + debt_line(state, d) for d in state.debts)
    if state.game_over:
        won = "winners" if len(state.winners) > 1 else "winner"
        lines.append(f"  game over; {won}: {', '.join(state.winners)}")
    return lines
