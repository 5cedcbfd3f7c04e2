"""Classic Monopoly: the standard box, on the US or the UK board (``editions.md``, "Classic").

The banker is the Bank and the deeds; the board, dice, decks and buildings stay on the table.
Streets, railroads and utilities (``classic_cards``: rent by the number owned, a utility's from
the roll the player says, and the spoken Chance and Community Chest cards), houses and hotels
from the Bank (``classic_build``), mortgages at 10 % interest, jail, auctions open to all,
deals in any combination (``deals``), open debts raised by selling, mortgaging and trading
(``sv_debts``, the same mechanism as Secret Vault), bankruptcy, and the house rules
(``house_rules``). Both boards are this module: the YAML names them (``extra.boards``).
"""

from __future__ import annotations

from banker.rules.classic_build import HOTEL, BuildRules
from banker.rules.classic_cards import CardRules
from banker.rules.deals import AGREE_TIMEOUT, DealRules, Side
from banker.rules.events import (
    BuildingsChanged,
    DebtChanged,
    DeckChanged,
    Event,
    GameEnded,
    ItemsMoved,
    MortgageChanged,
    OwnerChanged,
    fold,
)
from banker.rules.house_rules import HouseRules
from banker.rules.outcome import Command, Draws, Intent, Line, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState
from banker.rules.sv_debts import DEBTOR_OK

JAIL_DECKS = ("chance", "chest")
DEAL_STREETS = tuple(f"{side}{n}" for side in ("property", "give", "get") for n in ("", "2", "3"))
DEALS = frozenset({
    "sell", "buy_from", "sell_card", "buy_card", "trade", "trade_streets", "trade_and_pay",
    "trade_for_cash", "sell_with_card", "trade_with_card", "trade_card", "buy_from_lift",
    "trade_lift", "trade_card_and_pay"})


def interest(mortgage: int) -> int:
    """10 % of a mortgage, rounded up to the whole dollar."""
    return -(-mortgage // 10)


class ClassicRules(HouseRules, CardRules, BuildRules, DealRules):
    intents = DEALS | {
        "buy", "auction", "auction_close", "pay_rent", "pass_go", "land_on_go", "free_parking",
        "get_out_of_jail", "go_to_jail", "leave_jail", "third_roll", "pay", "collect",
        "income_tax", "luxury_tax", "mortgage", "unmortgage", "build_house", "build_hotel",
        "sell_house", "sell_hotel_back", "sell_buildings", "card", "card_advance",
        "nearest_railroad", "nearest_utility", "bankrupt", "end_game", "pay_rent_roll",
        "auction_building"}
    debtor_ok = DEBTOR_OK | {
        "sell_house", "sell_hotel_back", "sell_buildings", "card", "card_advance",
        "nearest_railroad", "nearest_utility", "income_tax", "luxury_tax", "land_on_go",
        "third_roll", "end_game"}
    card_home = "box"
    lift = False  # "... and unmortgage it": the mortgage of a street received is lifted at once
    deal = False  # the command is a deal (a street received short of the interest: refused)

    def setup(self, state: GameState) -> None:
        ed = self.edition
        state.box = {"house": ed.stock["houses"], "hotel": ed.stock["hotels"], "jail_card": 2}
        state.deck = list(JAIL_DECKS)  # the decks whose Get Out of Jail Free card is in them

    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        self.lift = cmd.name.endswith("_lift")
        self.deal = cmd.name in DEALS
        if self.deal:  # refused when proposed, before the other player is asked
            for slot in DEAL_STREETS:
                street = cmd.intent.get(slot)
                if street in self.edition.street_names:
                    self.no_buildings(state, str(street))
        return super().decide(state, cmd, draws)

    # --- rent -------------------------------------------------------------------------------
    def rent(self, state: GameState, street: str) -> int:
        """Streets: the table (double on an unimproved street of a whole group); railroads by
        the number owned. A mortgaged one earns nothing (refused in ``rent_due``)."""
        s, h = self.edition.street(street), state.streets[street]
        if s.group == "railroad":
            return self.by_count(state, street, "railroad_rent")
        if h.hotels:
            return s.rent["hotel"]
        if h.houses:
            return s.rent[f"h{h.houses}"]
        if h.owner and state.owns_set(h.owner, street):
            return 2 * s.rent["base"]
        return s.rent["base"]

    def rent_due(self, state: GameState, street: str, owner: str) -> None:
        super().rent_due(state, street, owner)
        if state.options.get("jail_rent") == "off" and state.players[owner].in_jail:
            raise Refusal("owner_in_jail", street=street, player=Who(owner))

    def do_pay_rent(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street, owner = self.rent_owner(state, cmd)
        if self.kind(street) != "utility":
            return super().do_pay_rent(state, cmd, draws)
        self.rent_due(state, street, owner)
        return self.utility_rent(state, cmd, street, None, f"rent on {street}")

    # --- the Bank's own spaces ----------------------------------------------------------------
    def tax(self, state: GameState, cmd: Command, fee: str, name: str) -> Outcome:
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("in_jail_no_move", player=Who(p))
        return self.owe(state, cmd, [(self.fine_account, self.edition.fees[fee])], "tax_paid",
                        "tax", tax=name)

    def do_income_tax(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.tax(state, cmd, "income_tax", "Income Tax")

    def do_luxury_tax(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        uk = state.options.get("board") == "uk"
        return self.tax(state, cmd, "luxury_tax", "Super Tax" if uk else "Luxury Tax")

    def do_auction(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if state.options.get("auctions") == "off":
            street = self.street(cmd)
            self.unowned(state, street)
            raise Refusal("auctions_off", street=street)
        return super().do_auction(state, cmd, draws)

    # --- mortgages and deals ------------------------------------------------------------------
    def no_buildings(self, state: GameState, street: str) -> None:
        if any(self.level(state, n) for n in self.edition.group_of(street)):
            raise Refusal("sell_buildings_first", street=street)

    def do_mortgage(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        self.no_buildings(state, self.street(cmd))
        return super().do_mortgage(state, cmd, draws)

    def strip_hotels(self, state: GameState, street: str, owner: str) -> list[Event]:
        """A street changes hands only with no building on its group."""
        self.no_buildings(state, street)
        return []

    def after(self, state: GameState, out: Outcome) -> None:
        """A mortgaged street received in a deal costs its new owner 10 % at once, or the
        unmortgage price with "and unmortgage it"; then debts are paid as cash allows."""
        if self.deal:
            out.events += self.interest(state, out.events, out, refuse=True)
        super().after(state, out)

    def interest(self, state: GameState, events: list[Event], out: Outcome,
                 refuse: bool) -> list[Event]:
        """What the new owners of mortgaged streets in ``events`` pay (``refuse``: a deal is
        refused when they can't; a bankrupt's creditor short of it keeps the street as it is)."""
        fees: list[Event] = []
        for e in events:
            if not (isinstance(e, OwnerChanged) and e.owner in state.players
                    and state.owner(e.street) in state.players
                    and state.streets[e.street].mortgaged):
                continue
            s = self.edition.street(e.street)
            cost = s.unmortgage if self.lift else interest(s.mortgage)
            cash = fold(state, [*events, *fees]).cash(e.owner)
            if cash < cost:
                if refuse:
                    raise Refusal("deal_short", player=Who(e.owner), amount=Money(cost),
                                  cash=Money(cash), missing=Money(cost - cash))
                continue
            fees += self.pay(e.owner, "bank", cost)
            if self.lift:
                fees.append(MortgageChanged(e.street, False))
            out.say("mortgage_lifted" if self.lift else "mortgage_interest", player=Who(e.owner),
                    street=e.street, amount=Money(cost), cash=Money(cash - cost))
        return fees

    # --- bankruptcy and the end ---------------------------------------------------------------
    def can_raise(self, state: GameState, p: str) -> None:
        """"I'm bankrupt" only when selling every building and mortgaging every street would
        still not cover what is owed."""
        owed = sum(d.amount for d in state.debts if d.debtor == p)
        could = sum(self.building_value(state, n) + (0 if state.streets[n].mortgaged
                                                     else self.edition.street(n).mortgage)
                    for n in state.owned_by(p))
        cash = state.cash(p)
        if could and cash + could >= owed:
            raise Refusal("bankrupt_can_raise", player=Who(p), amount=Money(owed),
                          cash=Money(cash), missing=Money(owed - cash),
                          streets=self.mortgageable(state, p))

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Buildings are sold to the Bank at half first; then Secret Vault's bankruptcy (to the
        creditor, or to the Bank: streets unmortgaged and auctioned). Cards go back to the box
        that stands for their decks."""
        p = cmd.player
        pre: list[Event] = []  # (refused below, with nothing moved, unless owed and unpayable)
        for n in state.owned_by(p):
            value = self.building_value(state, n)
            if value:
                pre += [*self.pay("bank", p, value), BuildingsChanged(n, 0, 0, 0, source="box")]
        out = super().do_bankrupt(fold(state, pre), cmd, draws)
        ended = [e for e in out.events if isinstance(e, GameEnded)]
        cards = [e for e in out.events if isinstance(e, ItemsMoved) and e.dst == "deck"]
        events = [e for e in out.events if not isinstance(e, (DeckChanged, GameEnded))
                  and e not in cards]
        for e in cards:  # to the Bank: the cards go back to their decks
            events += self.return_card(fold(state, pre), p, e.count)
        if ended:  # the ranking comes after the interest the creditor pays
            out.lines = [ln for ln in out.lines if ln.key == "bankrupt_to_player"
                         or ln.key == "bankrupt_to_bank"]
        events = [*pre, *events]
        events += self.interest(state, events, out, refuse=False)
        if ended:
            events += self.final_count(fold(state, events), out)
        out.events = events
        return out

    def final_count(self, state: GameState, out: Outcome) -> list[Event]:
        """The last player left wins (or, on request, the ranking by worth)."""
        events: list[Event] = []
        self.close_game(self.ranking(state), events, out)
        return events

    def measure(self, state: GameState, player: str) -> int:
        """Worth: cash + printed price of each property (half if mortgaged) + buildings at
        cost (a hotel: 5 x the house cost)."""
        total = state.cash(player)
        for n in state.owned_by(player):
            s, h = self.edition.street(n), state.streets[n]
            total += (s.price // 2 if h.mortgaged else s.price) + self.level(state, n) * s.house_cost
        return total

    def do_end_game(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """``end: on-request``: every other player still in agrees, one after another; a "no"
        cancels. Then the ranking by worth."""
        if state.options.get("end") != "on-request":
            raise Refusal("end_last_standing")
        agreed = [t for t in str(cmd.intent.get("agreed", "")).split(",") if t]
        asked = cmd.intent.get("asked")
        if asked is not None:
            if not cmd.intent.get("yes"):
                return Outcome().say("end_declined", player=Who(str(asked)))
            agreed.append(str(asked))
        rest = [t for t in state.seated if t != cmd.player and t not in agreed]
        if rest:
            then = Command(cmd.player, Intent("end_game", {"agreed": ",".join(agreed),
                                                            "asked": rest[0]}))
            return Outcome(question=Question(
                "ask_end", rest[0], "yes", then, lapses=True, timeout=AGREE_TIMEOUT,
                params={"player": Who(cmd.player), "other": Who(rest[0])}))
        out = Outcome()
        out.events = self.final_count(state, out)
        return out

    def do_buy_from_lift(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.do_buy_from(state, cmd, draws)

    def do_trade_lift(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.do_trade(state, cmd, draws)

    def do_pay_rent_roll(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.do_pay_rent(state, cmd, draws)

    def do_trade_card_and_pay(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Reading Railroad, Oriental Avenue, my get out of jail free card and 100 for
        Park Place and Electric Company": streets, the card and cash for streets, one deal."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give"), cash=self.amount(cmd),
                                              card=True),
                             Side(self.streets(cmd, "get")), cmd.intent.get("player"))

    def collect_each(self, state: GameState, p: str, n: int) -> Outcome:
        """Every other player gives ``n``, in turn order from the drawer's left; one who can't
        pays nothing now and owes it (an open debt, paid as soon as their cash covers it)."""
        out = Outcome()
        total = 0
        for o in state.left_of(p):
            cash = state.cash(o)
            if cash >= n:
                out.events += self.pay(o, p, n)
                total += n
            else:
                out.events.append(DebtChanged(o, p, n, "card"))
                out.say("short", player=Who(o), to=Who(p), amount=Money(n), cash=Money(cash),
                        missing=Money(n - cash))
        out.lines.insert(0, Line("collected_each", {
            "player": Who(p), "amount": Money(n), "total": Money(total),
            "cash": Money(state.cash(p) + total)}))
        return out

    # --- Get Out of Jail Free: one per deck ----------------------------------------------------
    def effect_jail_free(self, state: GameState, cmd: Command, card: str, deck: object) -> Outcome:
        """Kept until used; one per deck (``state.deck`` lists the decks that still hold theirs)."""
        if str(deck) not in state.deck:
            raise Refusal("jail_card_out", player=Who(cmd.player))
        return Outcome(events=[ItemsMoved("jail_card", "box", cmd.player),
                               DeckChanged(tuple(d for d in state.deck if d != str(deck)))]).say(
            "jail_card_received", player=Who(cmd.player))

    def return_card(self, state: GameState, p: str, count: int = 1) -> list[Event]:
        """A used (or surrendered) card goes back under its deck: the first deck missing its
        card (which of two held cards it is makes no difference to the money)."""
        missing = [d for d in JAIL_DECKS if d not in state.deck][:count]
        return [ItemsMoved("jail_card", p, "box", count), DeckChanged((*state.deck, *missing))]

    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("stock", houses=state.box.get("house", 0), hotels=state.box.get("hotel", 0))
        if state.options.get("free_parking") == "pot":
            out.say("pot", amount=Money(state.jackpot))
        for d in state.debts:
            out.say("debt_status", player=Who(d.debtor), to=Who(d.creditor),
                    amount=Money(d.amount), missing=Money(max(d.amount - state.cash(d.debtor), 0)))

    def mortgageable(self, state: GameState, player: str) -> str:
        """What selling buildings and mortgaging would raise, street by street."""
        parts = []
        for n in state.owned_by(player):
            v = self.building_value(state, n)
            if v:
                parts.append(f"the buildings on {n} for {self.edition.fmt(v)}")
        streets = super().mortgageable(state, player)
        return ", ".join([*parts, streets]) if parts else streets


__all__ = ["HOTEL", "ClassicRules", "interest"]
