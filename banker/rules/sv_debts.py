"""Secret Vault money: open debts, mortgages, bankruptcy and the final count.

Short of an unavoidable payment nothing moves: Mr. Monopoly says what is missing and the debt
stays open; the debtor can only raise money (mortgage, sell) or give up until it is paid,
which happens by itself as soon as their cash covers it. The game ends when the last street
gets an owner (or at the first bankruptcy): one last rent per street, then the most cash wins.
"""

from __future__ import annotations

from banker.rules.base import Rules, counted
from banker.rules.events import (
    BuildingsChanged,
    DebtOpened,
    DebtSettled,
    DeckChanged,
    Event,
    ItemsMoved,
    JailChanged,
    MortgageChanged,
    OwnerChanged,
    PlayerOut,
    fold,
)
from banker.rules.invariants import COMMON
from banker.rules.outcome import QUERIES, AllOf, Command, Draws, Money, Outcome, Refusal, Who
from banker.rules.state import GameState

JAIL_CARD = "jail-free"
#: what a player with an open debt may still do: raise money, give up, or things that cost
#: nothing (rent and tax are let through to say "still short", or to be paid if they can be;
#: the card, not bail, gets a debtor out of jail). Everything else that moves their money
#: waits until the debt is settled. A key waits too: a debtor can't end the game with one
#: (opening the vault usually pays the debt first, and then the key is theirs to use).
DEBTOR_OK = frozenset({
    "mortgage", "sell", "sell_hotel", "sell_card", "trade", "bankrupt", "collect", "pass_go",
    "build_hotel", "go_to_jail", "leave_jail", "guess", "free_parking", "open_vault",
    "pay_rent", "tax", "auction", "get_out_of_jail", "trade_and_pay", "trade_for_cash",
    "sell_with_card", "sell_with_hotel", "trade_with_hotel", "trade_with_card", "trade_card", "trade_streets",
    "chance", "third_roll",
})


def debts_valid(state: GameState, total: int | None) -> list[str]:
    """Every open debt is owed by a player still in the game, for more than nothing; at most
    2 hotels stand on a street."""
    problems = [f"{n} has {h.hotels} hotels" for n, h in state.streets.items() if h.hotels > 2]
    for d in state.debts:
        if d.debtor not in state.players or state.players[d.debtor].out:
            problems.append(f"a debt owed by {d.debtor}, who is not in the game")
        if d.amount <= 0:
            problems.append(f"a debt of {d.amount}")
    return problems


class DebtRules(Rules):
    """Secret Vault's shortfall policy (an open debt) and everything that settles one."""

    validators = (*COMMON, debts_valid)
    #: what a debtor may still do (an edition with more ways to raise money adds its own)
    debtor_ok: frozenset[str] = DEBTOR_OK

    @staticmethod
    def end_mode(state: GameState) -> str:
        return state.options.get("end", "all-owned")

    # --- the one entry point: debts first, then the end of the game -----------------------
    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        """As ``Rules.decide`` (which pays open debts as soon as cash covers them), plus: a
        debtor can only raise money, or do what costs them nothing, until their debts are
        paid; the game ends when the last street gets an owner."""
        if (state.debts_of(cmd.player) and cmd.name not in QUERIES
                and cmd.name not in self.debtor_ok and not state.game_over
                and cmd.name in self.intents):
            raise self.in_debt(state, cmd.player)
        out = super().decide(state, cmd, draws)
        if out.events:
            self.after(state, out)
        return out

    def after(self, state: GameState, out: Outcome) -> None:
        """The end of the game, if the last street now has an owner."""
        after = fold(state, out.events)
        if (not after.game_over and self.end_mode(after) == "all-owned"
                and all(h.owner is not None for h in after.streets.values())):
            out.say("all_owned")
            out.events += self.final_count(after, out)

    def final_debts(self, state: GameState, out: Outcome) -> list[Event]:
        """After the final rents, every open debt is paid from them; a debtor who still can't
        pay is bankrupt (the rulebook: "If you're still in debt, you are bankrupt"): what cash
        they have goes to the creditor (the bank for the vault), and they are out of the
        ranking."""
        events: list[Event] = []
        for d in list(state.debts):
            now = fold(state, events)
            if now.players[d.debtor].out:
                continue
            if now.cash(d.debtor) >= d.amount:
                events += self.pay_debt(now, d.debtor, d.creditor, d.amount, out)
                continue
            to = d.creditor if d.creditor in state.players else "bank"
            cash = now.cash(d.debtor)
            events += [*self.pay(d.debtor, to, cash),
                       *(DebtSettled(o.debtor, o.creditor) for o in now.debts_of(d.debtor)),
                       PlayerOut(d.debtor)]
            out.say("final_bankrupt", player=Who(d.debtor), to=Who(d.creditor),
                    amount=Money(d.amount), cash=Money(cash))
            out.participants.update(t for t in (d.debtor, to) if t in state.players)
        return events

    def final_count(self, state: GameState, out: Outcome) -> list[Event]:
        """The end: every player still in collects one rent per street (set and hotel rent,
        none if mortgaged), then every open debt is paid from that cash (``final_debts``),
        then the most cash among those still in wins (ties share the win)."""
        events: list[Event] = []
        for t in state.seated:
            n = self.rent_total(state, t)
            events += self.pay("bank", t, n)
            out.say("final_rent", player=Who(t), amount=Money(n),
                    streets=counted(len(state.owned_by(t)), "street"),
                    cash=Money(state.cash(t) + n))
            if n:
                out.participants.add(t)
        events += self.final_debts(fold(state, events), out)
        final = fold(state, events)
        self.close_game(sorted(((t, final.cash(t)) for t in final.seated), key=lambda x: -x[1]),
                        events, out)
        return events

    # --- rent and the measure ---------------------------------------------------------------
    def rent(self, state: GameState, street: str) -> int:
        """Rent from the state: nothing if mortgaged or unowned; hotel rent (on a whole set);
        set rent for the whole set (a mortgaged member doesn't spoil it); else base rent.
        Hotels left on a set broken by a deal earn base rent until it is whole again."""
        s, h = self.edition.street(street), state.streets[street]
        if h.owner is None or h.mortgaged:
            return 0
        whole = state.owns_set(h.owner, street)
        if whole and h.hotels:
            return s.rent["hotel2" if h.hotels >= 2 else "hotel1"]
        if whole:
            return s.rent["set"]
        return s.rent["base"]

    def rent_total(self, state: GameState, player: str) -> int:
        return sum(self.rent(state, n) for n in state.owned_by(player))

    def measure(self, state: GameState, player: str) -> int:
        """During the game: cash plus one rent per street (the final count to come). Once
        the game is over the rents have been collected, so it is cash alone."""
        if state.game_over:
            return state.cash(player)
        return state.cash(player) + self.rent_total(state, player)

    def can_bid(self, state: GameState, player: str) -> str | None:
        if state.players[player].out:
            return "player_out"
        if state.debts_of(player):
            return "in_debt_bid"
        return None

    # --- mortgages -------------------------------------------------------------------------
    def do_mortgage(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """At any time, hotels or not (the rulebook allows mortgaging a street with hotels)."""
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        if state.streets[street].mortgaged:
            raise Refusal("already_mortgaged", street=street)
        value = self.edition.street(street).mortgage
        return Outcome(events=[*self.pay("bank", p, value), MortgageChanged(street, True)]).say(
            "mortgaged", player=Who(p), street=street, amount=Money(value),
            cash=Money(state.cash(p) + value))

    def do_unmortgage(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        if not state.streets[street].mortgaged:
            raise Refusal("not_mortgaged", street=street)
        cost = self.edition.street(street).unmortgage
        self.require_cash(state, p, cost, street=street)
        return Outcome(events=[*self.pay(p, "bank", cost), MortgageChanged(street, False)]).say(
            "unmortgaged", player=Who(p), street=street, amount=Money(cost),
            cash=Money(state.cash(p) - cost))

    # --- unavoidable payments and debts -----------------------------------------------------
    def rent_due(self, state: GameState, street: str, owner: str) -> None:
        if state.streets[street].mortgaged:
            raise Refusal("mortgaged_no_rent", street=street, player=Who(owner))

    def shortfall(self, state: GameState, cmd: Command, out: Outcome,
                  rest: list[tuple[str, int]], cash: int, reason: str,
                  partial: bool) -> Outcome:
        """A payment the player can't refuse nor make: nothing moves and a debt opens, after
        any debts the player already has ("Secret Vault open debts"). With several creditors
        (``partial``, the chairman card) every one is paid what is left in turn order and what
        is missing stays owed to each of them, one debt per creditor, paid in turn order as
        soon as cash covers it ("Several creditors")."""
        payer = cmd.player
        creditor, amount = rest[0]
        cash = max(cash, 0)
        if partial:
            for creditor, amount in rest:
                give = min(cash, amount)
                out.events += self.pay(payer, creditor, give)
                cash -= give
                out.events.append(DebtOpened(payer, creditor, amount - give, reason))
                out.say("short_each_part" if give else "short_each", player=Who(payer),
                        to=Who(creditor), amount=Money(amount - give), paid=Money(give),
                        cash=Money(cash))
            self.say_how_to_raise(fold(state, out.events), out, payer)
            return out
        out.events.append(DebtOpened(payer, creditor, amount, reason))
        self.say_short(fold(state, out.events), out, payer, creditor, amount)
        return out

    def short_payer(self, state: GameState, payer: str, creditor: str, amount: int,
                    out: Outcome) -> list[Event]:
        """One of several payers ("birthday"): an open debt to the drawer."""
        events: list[Event] = [DebtOpened(payer, creditor, amount, "card birthday")]
        self.say_short(fold(state, events), out, payer, creditor, amount)
        return events

    def do_tax(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.owe(state, cmd, [("vault", self.edition.fees["tax"])], "tax_paid", "tax")

    def in_debt(self, state: GameState, player: str) -> Refusal:
        """The refusal of spending a debtor chose: their oldest debt, and how to raise it."""
        d = state.debts_of(player)[0]
        cash = state.cash(player)
        return Refusal("in_debt", player=Who(player), amount=Money(d.amount), to=Who(d.creditor),
                       cash=Money(cash), missing=Money(max(d.amount - cash, 0)),
                       streets=self.mortgageable(state, player))

    def can_raise(self, state: GameState, p: str) -> None:
        """"I'm bankrupt" is refused while mortgaging the streets still unmortgaged would pay
        every open debt (the rulebook: raise the money first); it says how."""
        owed = sum(d.amount for d in state.debts if d.debtor == p)
        could = sum(self.edition.street(n).mortgage for n in state.owned_by(p)
                    if not state.streets[n].mortgaged)
        cash = state.cash(p)
        if could and cash + could >= owed:
            raise Refusal("bankrupt_can_raise", player=Who(p), amount=Money(owed),
                          cash=Money(cash), missing=Money(owed - cash),
                          streets=self.mortgageable(state, p))

    def mortgageable(self, state: GameState, player: str) -> str:
        """"Baltic Avenue for M60, Park Place for M350": what mortgaging would raise."""
        parts = [f"{n} for {self.edition.fmt(self.edition.street(n).mortgage)}"
                 for n in state.owned_by(player) if not state.streets[n].mortgaged]
        return ", ".join(parts) if parts else "nothing"

    def say_short(self, state: GameState, out: Outcome, payer: str, creditor: str,
                  amount: int) -> None:
        """What is missing (``state``: with the new debt open, so older debts count too)."""
        cash = state.cash(payer)
        out.say("short", player=Who(payer), to=Who(creditor), amount=Money(amount),
                cash=Money(cash), missing=Money(state.owed_by(payer) - cash))
        self.say_how_to_raise(state, out, payer)

    def say_how_to_raise(self, state: GameState, out: Outcome, payer: str) -> None:
        can = [n for n in state.owned_by(payer) if not state.streets[n].mortgaged]
        if can:
            out.say("can_mortgage", player=Who(payer), streets=self.mortgageable(state, payer))
        else:
            out.say("nothing_to_mortgage", player=Who(payer))

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Only with an open debt that mortgaging can't cover (``can_raise``). The cash pays
        the debts oldest first (a debt to the vault is paid to the bank); everything else goes
        to the player of the oldest open debt to a player, or with only debts to the bank, to
        the bank; every debt of the player closes. To a player: streets
        (mortgages kept, hotels stay on them), unused hotels, keys and the card. To the bank
        (or the vault): streets come back unmortgaged and bare and are auctioned at once, one
        by one; unused hotels and keys go back to the box; the card to the bottom of the deck;
        the cash to the bank."""
        p = cmd.player
        debts = state.debts_of(p)
        if not debts:
            raise Refusal("not_bankrupt")
        self.can_raise(state, p)
        player = state.players[p]
        streets = state.owned_by(p)
        to = next((d.creditor for d in debts if d.creditor in state.players), "bank")
        events: list[Event] = []
        cash = player.cash
        for d in debts:
            give = min(cash, d.amount)
            cash -= give
            events += [*self.pay(p, d.creditor if d.creditor in state.players else "bank", give),
                       DebtSettled(p, d.creditor, give)]
        events += self.pay(p, to, cash)
        out = Outcome()
        if to != "bank":
            events += [OwnerChanged(n, to) for n in streets]
            events += [ItemsMoved(item, p, to, n) for item, n in sorted(player.items.items()) if n]
            out.say("bankrupt_to_player", player=Who(p), to=Who(to), cash=Money(player.cash),
                    streets=AllOf(streets) if streets else "no streets")
            out.participants.add(to)
        else:
            for n in streets:
                h = state.streets[n]
                if h.hotels:
                    events.append(BuildingsChanged(n, 0, 0, source="box"))
                if h.mortgaged:
                    events.append(MortgageChanged(n, False))
                events.append(OwnerChanged(n, None))
            for item, count in sorted(player.items.items()):
                if item == "jail_card" and count:
                    events += [ItemsMoved(item, p, "deck", count),
                               DeckChanged((*state.deck, JAIL_CARD))]
                elif count:
                    events.append(ItemsMoved(item, p, "box", count))
            out.say("bankrupt_to_bank", player=Who(p),
                    streets=AllOf(streets) if streets else "no streets")
        if player.in_jail:
            events.append(JailChanged(p, False))
        events.append(PlayerOut(p))
        after = fold(state, events)
        if self.end_mode(state) == "first-bankruptcy" or len(after.seated) < 2:
            events += self.final_count(after, out)
        elif to == "bank":
            out.auctions = list(streets)
        out.events = events
        return out
