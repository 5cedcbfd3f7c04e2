"""Classic buildings: houses and hotels from a Bank of 32 and 12, built and sold evenly.

Build on a whole, unmortgaged colour group, no street more than one house ahead of another
(``even_build: off`` drops that); a hotel needs 4 houses on every street of the group, costs one
more house cost and sends its 4 houses back to the Bank. Sold back at half the cost, evenly; a
hotel sold goes back down to 4 houses, which needs 4 houses in the Bank; short of them, "sell
the buildings on X" sells the whole group down at once, each building at half cost.
"""

from __future__ import annotations

from banker.rules.base import Rules
from banker.rules.events import BuildingsChanged, Event, ItemsMoved
from banker.rules.outcome import Command, Draws, Money, Outcome, Refusal, Who
from banker.rules.state import GameState, Holding

HOTEL = 5  # a hotel stands for 4 houses and one more when counting evenness
#: what "auction a house" / "auction a hotel" puts up (the auction's name for it) and the item
LOTS = {"a house": "house", "a hotel": "hotel"}


class BuildRules(Rules):
    """Build and sell back; what the Bank has left is ``state.box``."""

    def level(self, state: GameState, street: str) -> int:
        h = state.streets[street]
        return HOTEL if h.hotels else h.houses

    def even(self, state: GameState) -> bool:
        return state.options.get("even_build", "on") != "off"

    def group_levels(self, state: GameState, street: str) -> list[int]:
        return [self.level(state, n) for n in self.edition.group_of(street)]

    def buildable(self, state: GameState, p: str, street: str) -> None:
        """A street of a colour group (not a railroad or utility) whose whole, unmortgaged group
        ``p`` owns."""
        self.own(state, p, street)
        if not self.edition.street(street).house_cost:
            raise Refusal("no_buildings_here", street=street)
        if not state.owns_set(p, street):
            raise Refusal("need_full_set", street=street)
        if any(state.streets[n].mortgaged for n in self.edition.group_of(street)):
            raise Refusal("group_mortgaged", street=street)

    def building_value(self, state: GameState, street: str) -> int:
        """What selling every building on ``street`` back to the Bank brings (half cost)."""
        return self.level(state, street) * self.edition.street(street).house_cost // 2

    def site(self, state: GameState, cmd: Command) -> tuple[str, str, Holding, list[int]]:
        """(player, street, holding, the group's levels) for a building there: refused unless
        the street can take one now."""
        p, street = cmd.player, self.street(cmd)
        self.buildable(state, p, street)
        h = state.streets[street]
        if h.hotels:
            raise Refusal("has_hotel", street=street)
        return p, street, h, self.group_levels(state, street)

    def do_build_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street, h, levels = self.site(state, cmd)
        if h.houses >= 4:
            raise Refusal("four_houses", street=street)
        if self.even(state) and h.houses > min(levels):
            raise Refusal("build_evenly", street=street)
        won, cost = self.won_building(state, p, "house", street)
        n = h.houses + 1
        return Outcome(events=[*won, *self.pay(p, "bank", cost),
                               BuildingsChanged(street, n, 0, h.paid + cost, source="box")]).say(
            "house_built", player=Who(p), street=street, amount=Money(cost),
            cash=Money(state.cash(p) - cost), houses=n)

    def do_build_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street, h, levels = self.site(state, cmd)
        if h.houses < 4 or (self.even(state) and min(levels) < 4):
            raise Refusal("hotel_needs_houses", street=street)
        won, cost = self.won_building(state, p, "hotel", street)
        return Outcome(events=[*won, *self.pay(p, "bank", cost),
                               BuildingsChanged(street, 0, 1, h.paid + cost, source="box")]).say(
            "hotel_built", player=Who(p), street=street, amount=Money(cost),
            cash=Money(state.cash(p) - cost))

    def won_building(self, state: GameState, p: str, item: str,
                     street: str) -> tuple[list[Event], int]:
        """A building won at auction is placed for the bid already paid; else the Bank must
        have one, at the house cost."""
        if state.players[p].count(item):
            return [ItemsMoved(item, p, "box")], 0
        if state.box.get(item, 0) <= 0:
            raise Refusal(f"no_{item}s_left")
        cost = self.edition.street(street).house_cost
        self.require_cash(state, p, cost)
        return [], cost

    def do_auction_building(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"auction a house": one of the Bank's last buildings goes to the highest bidder, who
        places it on their own group later for the bid ("build a house on ...")."""
        lot = f"a {cmd.intent.get('building') or 'house'}"
        if state.box.get(LOTS[lot], 0) <= 0:
            raise Refusal(f"no_{LOTS[lot]}s_left")
        return Outcome(auctions=[lot])

    def do_auction_close(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        lot = str(cmd.intent.get("property"))
        if lot not in LOTS:
            return super().do_auction_close(state, cmd, draws)
        p, amount = cmd.player, int(cmd.intent.get("amount", 0))
        if state.box.get(LOTS[lot], 0) <= 0:
            raise Refusal(f"no_{LOTS[lot]}s_left")
        self.require_cash(state, p, amount)
        return Outcome(events=[*self.pay(p, "bank", amount), ItemsMoved(LOTS[lot], "box", p)]).say(
            "building_won", player=Who(p), what=lot, amount=Money(amount),
            cash=Money(state.cash(p) - amount))

    def sold_back(self, state: GameState, p: str, street: str, houses: int, value: int,
                  key: str) -> Outcome:
        h = state.streets[street]
        events: list[Event] = [*self.pay("bank", p, value),
                               BuildingsChanged(street, houses, 0, max(h.paid - 2 * value, 0),
                                                source="box")]
        return Outcome(events=events).say(key, player=Who(p), street=street, amount=Money(value),
                                          cash=Money(state.cash(p) + value), houses=houses)

    def do_sell_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """One house back to the Bank at half its cost, from the fullest street of the group."""
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        h = state.streets[street]
        if h.hotels:
            return self.do_sell_hotel_back(state, cmd, draws)
        if not h.houses:
            raise Refusal("no_house_to_sell", street=street)
        if self.even(state) and h.houses < max(self.group_levels(state, street)):
            raise Refusal("sell_evenly", street=street)
        half = self.edition.street(street).house_cost // 2
        return self.sold_back(state, p, street, h.houses - 1, half, "house_sold")

    def do_sell_hotel_back(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The hotel back to the Bank at half its cost; the street goes down to 4 houses, which
        the Bank must have (else: sell the group's buildings all at once)."""
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        if not state.streets[street].hotels:
            raise Refusal("no_hotel_to_sell", street=street)
        if state.box.get("house", 0) < 4:
            raise Refusal("hotel_needs_bank_houses", street=street,
                          houses=state.box.get("house", 0))
        half = self.edition.street(street).house_cost // 2
        return self.sold_back(state, p, street, 4, half, "hotel_sold")

    def do_sell_buildings(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Every building on the street's colour group back to the Bank, each at half cost (a
        hotel counts as 5 buildings): what a shortage of houses leaves, and a quick way to
        raise money."""
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        out = Outcome()
        total = 0
        for n in self.edition.group_of(street):
            value = self.building_value(state, n)
            if value and state.owner(n) == p:
                total += value
                out.events += [*self.pay("bank", p, value),
                               BuildingsChanged(n, 0, 0, 0, source="box")]
        if not total:
            raise Refusal("no_house_to_sell", street=street)
        return out.say("buildings_sold", player=Who(p), street=street, amount=Money(total),
                       cash=Money(state.cash(p) + total))
