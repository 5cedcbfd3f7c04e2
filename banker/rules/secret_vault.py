"""Monopoly Secret Vault: the human Banker's job (seed 000, ``editions.md``).

The vault (cash, keys and hotels, a 1-6 code: ``vault.py``), four locked streets opened by
keys, hotels that only come from the vault or from other players (up to 2 per street),
mortgages at any time, open debts and the final count (``sv_debts.py``), deals between players
that the other player agrees to (``deals.py``), and a shuffled Chance deck of 12. Buying,
auctions, "pay", jail and the Chance effects are the base's, with this edition's hooks below.
Decisions where the rulebook is silent are in the docstrings and in
``config/editions/secret-vault.yaml``.
"""

from __future__ import annotations

import random
from typing import Any

from banker.rules.base import counted
from banker.rules.deals import AGREE_TIMEOUT, DealRules
from banker.rules.events import BuildingsChanged, DeckChanged, Event, ItemsMoved, fold
from banker.rules.outcome import Command, Draws, Money, Outcome, Refusal, Who
from banker.rules.state import GameState
from banker.rules.sv_debts import DEBTOR_OK, JAIL_CARD
from banker.rules.vault import CODES, GUESS_TIMEOUT, VaultRules

__all__ = ["AGREE_TIMEOUT", "CODES", "DEBTOR_OK", "GUESS_TIMEOUT", "JAIL_CARD",
           "SecretVaultRules", "counted"]
MAX_HOTELS = 2


class SecretVaultRules(DealRules, VaultRules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "pass_go", "get_out_of_jail",
        "go_to_jail", "leave_jail", "free_parking", "trade", "build_hotel", "pay", "collect",
        "tax", "guess", "pay_to_guess", "open_vault", "use_key", "mortgage", "unmortgage",
        "sell", "buy_from", "sell_hotel", "buy_hotel", "sell_card", "buy_card", "bankrupt",
        "third_roll", "trade_and_pay", "trade_for_cash", "sell_with_card", "sell_with_hotel",
        "trade_with_hotel", "trade_with_card", "trade_card", "trade_streets",
        "trade_for_hotel", "trade_for_card", "buy_with_hotel", "buy_with_card",
    })
    bail_account = "vault"
    fine_account = "vault"
    card_home = "deck"
    bail_key = "bail_paid_vault"
    doubles_key = "doubles_free"
    salary_key = "pass_go_vault"
    repairs_key = "repairs_paid"

    # --- set-up ---------------------------------------------------------------------------
    def setup(self, state: GameState) -> None:
        """The vault holds M400, 1 key and 1 hotel; the deck is shuffled from the seed."""
        ed = self.edition
        items = self.vault_items()
        state.box = {"key": ed.stock["keys"] - items.get("key", 0),
                     "hotel": ed.stock["hotels"] - items.get("hotel", 0)}
        state.vault_items = {k: n for k, n in items.items() if n}
        state.vault_cash = ed.fees["vault_start"]
        deck = [c.id for c in ed.chance]
        random.Random(f"{state.seed}/deck").shuffle(deck)
        state.deck = deck
        if self.virtual(state):
            state.vault_code = random.Random(f"{state.seed}/vault_code").randint(1, 6)

    # --- streets --------------------------------------------------------------------------
    def unowned(self, state: GameState, street: str) -> None:
        """Can be bought or auctioned: nobody owns it and it isn't a locked street."""
        owner = state.owner(street)
        if owner is not None:
            raise Refusal("already_owned", street=street, player=Who(owner))
        if self.locked(state, street):
            raise Refusal("locked", street=street)

    def do_build_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Place a hotel from the player's supply: whole set, not mortgaged, at most 2."""
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        if not state.owns_set(p, street):
            raise Refusal("need_full_set", street=street)
        h = state.streets[street]
        if h.mortgaged:
            raise Refusal("hotel_on_mortgaged", street=street)
        if h.hotels >= MAX_HOTELS:
            raise Refusal("two_hotels", street=street)
        if not state.players[p].count("hotel"):
            raise Refusal("no_hotel_supply", player=Who(p))
        after = h.hotels + 1
        return Outcome(events=[BuildingsChanged(street, 0, after, source=p)]).say(
            "hotel_placed", player=Who(p), street=street, hotels=counted(after, "hotel"),
            left=counted(state.players[p].count("hotel") - 1, "hotel"))

    # --- GO and jail: the base's, with the vault ---------------------------------------------
    def salary(self, state: GameState, p: str, key: str, n: int | None = None) -> Outcome:
        """GO: M400 from the bank to the player and M100 from the bank into the vault."""
        n, v = self.edition.fees["pass_go"], self.edition.fees["pass_go_vault"]
        return Outcome(events=[*self.pay("bank", p, n), *self.pay("bank", "vault", v)]).say(
            key, player=Who(p), amount=Money(n), vault=Money(v), cash=Money(state.cash(p) + n))

    def return_card(self, state: GameState, p: str) -> list[Event]:
        return [ItemsMoved("jail_card", p, "deck"), DeckChanged((*state.deck, JAIL_CARD))]

    def before_bail(self, state: GameState, p: str) -> None:
        """The card gets a debtor out of jail; bail waits until the debt is paid."""
        if state.debts_of(p):
            raise self.in_debt(state, p)

    def doubles_outside(self, state: GameState, p: str) -> Outcome:
        """Doubles in jail are a free release, and no vault guess on that roll (the rulebook:
        "If you roll doubles, you may not try to open the vault"). Out of jail, doubles are a
        chance to guess the code."""
        return self.offer_guess(state, p, "doubles")

    # --- chance -----------------------------------------------------------------------------
    def do_chance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The top card (or the forced one, from where it lies) goes to the bottom; the
        Get Out of Jail Free card stays with the player until used."""
        if not state.deck:
            raise Refusal("deck_empty")
        card_id, drawn = self.draw(state, draws, "chance", [state.deck[0]],
                                   forced_ok=lambda v: v in state.deck)
        deck = [c for c in state.deck if c != card_id]
        if card_id != JAIL_CARD:
            deck.append(card_id)
        head: list[Event] = [drawn, DeckChanged(tuple(deck))]
        out = self.card_effect(fold(state, head), cmd, card_id)
        out.events[:0] = head
        out.lines.insert(0, self.chance_line(card_id))
        return out

    def effect_advance_go(self, state: GameState, cmd: Command, card: str, _: Any) -> Outcome:
        return self.salary(state, cmd.player, "advance_go_vault")

    def effect_pay_vault(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        return self.owe(state, cmd, [("vault", int(n))], "paid_vault", f"card {card}")

    def effect_vault_guess(self, state: GameState, cmd: Command, card: str, _: Any) -> Outcome:
        return self.offer_guess(state, cmd.player, "card")

    # --- queries ----------------------------------------------------------------------------
    def do_owner(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        if state.owner(street) is None and self.locked(state, street):
            return Outcome().say("owner_locked", street=street)
        return super().do_owner(state, cmd, draws)

    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("vault_contents", amount=Money(state.vault_cash),
                keys=counted(state.vault_items.get("key", 0), "key"),
                hotels=counted(state.vault_items.get("hotel", 0), "hotel"))
        for d in state.debts:
            out.say("debt_status", player=Who(d.debtor), to=Who(d.creditor),
                    amount=Money(d.amount), missing=Money(max(d.amount - state.cash(d.debtor), 0)))

    def do_supply(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        who = str(cmd.intent.get("player") or cmd.player)
        if who not in state.players:
            raise Refusal("not_playing", player=Who(who))
        pl = state.players[who]
        placed = sum(state.streets[n].hotels for n in state.owned_by(who))
        card = "the Get Out of Jail Free card" if pl.count("jail_card") else "no jail card"
        return Outcome().say("supply", player=Who(who), hotels=counted(pl.count("hotel"), "hotel"),
                             placed=placed, keys=counted(pl.count("key"), "key"), card=card)
