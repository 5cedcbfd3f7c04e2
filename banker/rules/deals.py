"""Secret Vault deals between players: streets, unused hotels and the Get Out of Jail Free
card for cash or for each other, each agreed by the other player on their own button."""

from __future__ import annotations

from dataclasses import dataclass

from banker.rules.events import BuildingsChanged, Event, ItemsMoved, OwnerChanged
from banker.rules.outcome import Command, Draws, Intent, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState
from banker.rules.sv_debts import DebtRules

AGREE_TIMEOUT = 30.0


@dataclass(frozen=True)
class Side:
    """One side of a combined deal: what that player hands over."""

    streets: tuple[str, ...] = ()
    cash: int = 0
    hotels: int = 0
    card: bool = False


class DealRules(DebtRules):
    """Deals: the other player, what they can afford, their agreement, then one transaction."""

    def other_player(self, state: GameState, p: str, who: object) -> str:
        if who is None:
            raise Refusal("which_player")
        o = str(who)
        if o not in state.players:
            raise Refusal("not_playing", player=Who(o))
        if o == p:
            raise Refusal("deal_self")
        if state.players[o].out:
            raise Refusal("player_out", player=Who(o))
        return o

    def afford(self, state: GameState, buyer: str, amount: int) -> None:
        """The paying side of a deal: no open debt, and enough cash."""
        if state.debts_of(buyer):
            raise self.in_debt(state, buyer)
        cash = state.cash(buyer)
        if cash < amount:
            raise Refusal("deal_short", player=Who(buyer), amount=Money(amount), cash=Money(cash),
                          missing=Money(amount - cash))

    def agreed(self, cmd: Command, other: str, deal: str) -> Outcome | None:
        """None once ``other`` agreed; else the question to ask them (30 s, lapses) or, on
        their "no", the declined line."""
        yes = cmd.intent.get("yes")
        if yes is None:
            then = Command(cmd.player, Intent(cmd.name, dict(cmd.intent.slots)))
            return Outcome(question=Question(
                "ask_agree", other, "yes", then, lapses=True, timeout=AGREE_TIMEOUT,
                params={"player": Who(cmd.player), "other": Who(other), "deal": deal}))
        if not yes:
            return Outcome().say("declined_deal", player=Who(cmd.player), other=Who(other))
        return None

    def strip_hotels(self, state: GameState, street: str, owner: str) -> list[Event]:
        """A street changing hands in a deal leaves its hotels with its old owner's supply."""
        h = state.streets[street]
        if not h.hotels:
            return []
        return [BuildingsChanged(street, 0, 0, source=owner)]

    def deal_done(self, out: Outcome, other: str) -> Outcome:
        out.participants.add(other)
        return out

    def do_sell(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if cmd.intent.get("property2") is not None:  # "sell A and B to the hat for 300"
            return self.combined(state, cmd, Side(self.streets(cmd, "property")),
                                 Side(cash=self.amount(cmd)), self.named(cmd))
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        buyer = self.other_player(state, p, cmd.intent.get("player"))
        return self._street_for_cash(state, cmd, p, buyer, street, self.amount(cmd))

    def do_buy_from(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if cmd.intent.get("property2") is not None:  # "buy A and B from the dog for 500"
            return self.combined(state, cmd, Side(cash=self.amount(cmd)),
                                 Side(self.streets(cmd, "property")), self.named(cmd))
        p, street = cmd.player, self.street(cmd)
        seller = self._owner_of_street_asked(state, cmd, street)
        return self._street_for_cash(state, cmd, seller, p, street, self.amount(cmd))

    def _owner_of_street_asked(self, state: GameState, cmd: Command, street: str) -> str:
        """The other player who owns ``street`` (and is the one named, if one was), for a
        deal that takes it from them."""
        p = cmd.player
        owner = state.owner(street)
        if owner is None:
            raise Refusal("no_owner_to_sell", street=street)
        if owner == p:
            raise Refusal("own_street", street=street)
        named = cmd.intent.get("player")
        if named is not None and named != owner:
            raise Refusal("not_their_street", street=street, player=Who(str(named)),
                          owner=Who(owner))
        return self.other_player(state, p, owner)

    def _street_for_cash(self, state: GameState, cmd: Command, seller: str, buyer: str,
                         street: str, price: int) -> Outcome:
        """``seller`` gives ``street`` to ``buyer`` for ``price``: one rule for "sell" and
        "buy from", whichever of the two ``cmd.player`` is; the other one must agree."""
        p = cmd.player
        selling = p == seller
        other = buyer if selling else seller
        self.afford(state, buyer, price)
        deal = f"sell you {street}" if selling else f"buy your {street}"
        ask = self.agreed(cmd, other, f"{deal} for {self.edition.fmt(price)}")
        if ask is not None:
            return ask
        events = [*self.strip_hotels(state, street, seller), *self.pay(buyer, seller, price),
                  OwnerChanged(street, buyer)]
        after = {seller: state.cash(seller) + price, buyer: state.cash(buyer) - price}
        return self.deal_done(Outcome(events=events).say(
            "sold_street" if selling else "bought_street", player=Who(p), other=Who(other),
            street=street, amount=Money(price), cash=Money(after[p]),
            other_cash=Money(after[other])), other)

    def do_trade(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Street for street with the owner of the other one, who must agree. Mortgages go
        with the streets; hotels stay with their owners' supplies."""
        p = cmd.player
        give, get = self.street(cmd, "give"), self.street(cmd, "get")
        self.own(state, p, give)
        other = self._owner_of_street_asked(state, cmd, get)
        ask = self.agreed(cmd, other, f"trade {give} for your {get}")
        if ask is not None:
            return ask
        events = [*self.strip_hotels(state, give, p), *self.strip_hotels(state, get, other),
                  OwnerChanged(give, other), OwnerChanged(get, p)]
        return self.deal_done(Outcome(events=events).say(
            "traded_streets", player=Who(p), other=Who(other), give=give, get=get), other)

    def item_deal(self, state: GameState, cmd: Command, item: str, selling: bool) -> Outcome:
        """An unused hotel or the Get Out of Jail Free card for cash, with agreement."""
        p = cmd.player
        other = self.other_player(state, p, cmd.intent.get("player"))
        seller, buyer = (p, other) if selling else (other, p)
        n = self.amount(cmd)
        if not state.players[seller].count(item):
            raise Refusal("no_" + item, player=Who(seller))
        self.afford(state, buyer, n)
        what = "a hotel" if item == "hotel" else "the Get Out of Jail Free card"
        deal = (f"sell you {what} for {self.edition.fmt(n)}" if selling
                else f"buy {what} from you for {self.edition.fmt(n)}")
        ask = self.agreed(cmd, other, deal)
        if ask is not None:
            return ask
        events = [ItemsMoved(item, seller, buyer), *self.pay(buyer, seller, n)]
        return self.deal_done(Outcome(events=events).say(
            "item_sold", seller=Who(seller), buyer=Who(buyer), what=what, amount=Money(n),
            seller_cash=Money(state.cash(seller) + n), buyer_cash=Money(state.cash(buyer) - n)),
            other)

    def do_sell_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.item_deal(state, cmd, "hotel", selling=True)

    def do_buy_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.item_deal(state, cmd, "hotel", selling=False)

    def do_sell_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.item_deal(state, cmd, "jail_card", selling=True)

    def do_buy_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.item_deal(state, cmd, "jail_card", selling=False)

    # --- combined deals: several things on either side, one agreement, one transaction ------
    def combined(self, state: GameState, cmd: Command, mine: Side, theirs: Side,
                 who: object = None) -> Outcome:
        """``cmd.player`` gives ``mine`` and gets ``theirs``: streets (mortgages go with them,
        hotels stay with their old owner's supply), cash, unused hotels, the Get Out of Jail
        Free card. The other player is the one named, or the owner of the streets asked for;
        they agree once, and everything moves in one transaction (undone as one)."""
        p = cmd.player
        other = self.their_streets(state, p, mine, theirs, who)
        for street in mine.streets:
            self.own(state, p, street)
        for side, holder in ((mine, p), (theirs, other)):
            if side.card and not state.players[holder].count("jail_card"):
                raise Refusal("no_jail_card", player=Who(holder))
            if state.players[holder].count("hotel") < side.hotels:
                raise Refusal("no_hotel", player=Who(holder))
            if side.cash:
                self.afford(state, holder, side.cash)
        ask = self.agreed(cmd, other, self.deal_words(mine, theirs))
        if ask is not None:
            return ask
        events = [*self.hand_over(state, mine, p, other), *self.hand_over(state, theirs, other, p)]
        cash, other_cash = (state.cash(p) - mine.cash + theirs.cash,
                            state.cash(other) - theirs.cash + mine.cash)
        return self.deal_done(Outcome(events=events).say(
            "deal_done", player=Who(p), other=Who(other), give=self.said(mine),
            get=self.said(theirs), cash=Money(cash), other_cash=Money(other_cash)), other)

    def their_streets(self, state: GameState, p: str, mine: Side, theirs: Side,
                      who: object) -> str:
        """The other player of a deal, once every street in it is named once, on one side,
        and each street asked for is another player's (the one named, if one was)."""
        named = mine.streets + theirs.streets
        for i, street in enumerate(named):
            if street in named[:i]:
                both = street in mine.streets and street in theirs.streets
                raise Refusal("street_both_sides" if both else "street_twice", street=street)
        for street in theirs.streets:
            owner = state.owner(street)
            if owner is None:
                raise Refusal("no_owner_to_sell", street=street)
            if owner == p:
                raise Refusal("own_street", street=street)
        owners = {str(state.owner(s)): s for s in theirs.streets}
        if who is None and len(owners) > 1:
            (owner, street), (other_owner, other_street) = list(owners.items())[:2]
            raise Refusal("deal_two_owners", street=street, owner=Who(owner),
                          other_street=other_street, other=Who(other_owner))
        if who is None and owners:
            who = next(iter(owners))
        other = self.other_player(state, p, who)
        for street in theirs.streets:
            owner = state.owner(street)
            if owner != other:
                raise Refusal("not_their_street", street=street, player=Who(other),
                              owner=Who(str(owner)))
        return other

    def deal_words(self, mine: Side, theirs: Side) -> str:
        """What the other player is asked to agree to: a sale, a purchase, or a swap."""
        if theirs == Side(cash=theirs.cash):
            return f"sell you {self.said(mine)} for {self.said(theirs)}"
        if mine == Side(cash=mine.cash):
            return f"buy {self.said(theirs)} from you for {self.said(mine)}"
        return f"give you {self.said(mine)} for {self.said(theirs)}"

    def hand_over(self, state: GameState, side: Side, src: str, dst: str) -> list[Event]:
        events: list[Event] = []
        for street in side.streets:
            events += [*self.strip_hotels(state, street, src), OwnerChanged(street, dst)]
        events += self.pay(src, dst, side.cash)
        if side.hotels:
            events.append(ItemsMoved("hotel", src, dst, side.hotels))
        if side.card:
            events.append(ItemsMoved("jail_card", src, dst))
        return events

    def said(self, side: Side) -> str:
        """"Baltic Avenue, the Get Out of Jail Free card and M200"."""
        parts = list(side.streets)
        if side.hotels:
            parts.append("a hotel" if side.hotels == 1 else f"{side.hotels} hotels")
        if side.card:
            parts.append("the Get Out of Jail Free card")
        if side.cash:
            parts.append(self.edition.fmt(side.cash))
        return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)

    def streets(self, cmd: Command, slot: str) -> tuple[str, ...]:
        """One side's streets: ``slot`` and the further ones the matcher fills (``give2``,
        ``give3``: it has one slot per name), each checked to be on this board."""
        more = [slot + n for n in ("2", "3") if cmd.intent.get(slot + n) is not None]
        return tuple(self.street(cmd, name) for name in (slot, *more))

    def do_trade_streets(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue and Oriental Avenue for Park Place (with the hat)", and one
        street for two: several streets on a side are one deal, agreed once."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give")),
                             Side(self.streets(cmd, "get")), cmd.intent.get("player"))

    def do_trade_and_pay(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue (and Oriental Avenue) and 200 for Park Place (with the dog)"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give"), cash=self.amount(cmd)),
                             Side(self.streets(cmd, "get")), cmd.intent.get("player"))

    def do_trade_for_cash(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue for Park Place and 200 (with the dog)"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give")),
                             Side(self.streets(cmd, "get"), cash=self.amount(cmd)),
                             cmd.intent.get("player"))

    def do_sell_with_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"sell Baltic Avenue and my get out of jail free card to the hat for 300"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "property"), card=True),
                             Side(cash=self.amount(cmd)), self.named(cmd))

    def do_sell_with_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"sell Baltic Avenue and a hotel to the hat for 300"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "property"), hotels=1),
                             Side(cash=self.amount(cmd)), self.named(cmd))

    def do_trade_with_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue and a hotel for Park Place (with the dog)"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give"), hotels=1),
                             Side(self.streets(cmd, "get")), cmd.intent.get("player"))

    def do_trade_with_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue and my get out of jail free card for Park Place"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give"), card=True),
                             Side(self.streets(cmd, "get")), cmd.intent.get("player"))

    def do_trade_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade my get out of jail free card for Park Place"."""
        return self.combined(state, cmd, Side(card=True), Side(self.streets(cmd, "get")),
                             cmd.intent.get("player"))

    def do_trade_for_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue for Park Place and a hotel (with the dog)"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give")),
                             Side(self.streets(cmd, "get"), hotels=1), cmd.intent.get("player"))

    def do_trade_for_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"trade Baltic Avenue for Park Place and your get out of jail free card"."""
        return self.combined(state, cmd, Side(self.streets(cmd, "give")),
                             Side(self.streets(cmd, "get"), card=True), cmd.intent.get("player"))

    def do_buy_with_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"buy Park Place and a hotel from the dog for 500"."""
        return self.combined(state, cmd, Side(cash=self.amount(cmd)),
                             Side(self.streets(cmd, "property"), hotels=1), self.named(cmd))

    def do_buy_with_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"buy Park Place and the get out of jail free card from the dog for 500"."""
        return self.combined(state, cmd, Side(cash=self.amount(cmd)),
                             Side(self.streets(cmd, "property"), card=True), self.named(cmd))

    @staticmethod
    def named(cmd: Command) -> object:
        who = cmd.intent.get("player")
        if who is None:
            raise Refusal("which_player")
        return who
