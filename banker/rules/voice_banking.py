"""Monopoly Voice Banking: the top-hat unit's rules (seed 001, ``editions.md``).

One building per street (a house, or a hotel), 8 houses / 12 hotels in stock, never sold back;
forced trades; train rides; electronic Chance with replacement; short of cash means all your
cash plus one street; the first bankruptcy ends the game, ranked by wealth.
"""

from __future__ import annotations

from banker.rules.base import Rules
from banker.rules.events import (
    BuildingsChanged,
    Drawn,
    Event,
    ItemsMoved,
    OwnerChanged,
    PlayerOut,
)
from banker.rules.outcome import Command, Draws, Line, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState


class VoiceBankingRules(Rules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "pass_go", "get_out_of_jail",
        "go_to_jail", "trade", "train_ride", "build_house", "build_hotel", "pay", "collect",
        "bankrupt",
    })

    def setup(self, state: GameState) -> None:
        state.box = {"house": self.edition.stock["houses"], "hotel": self.edition.stock["hotels"],
                     "jail_card": 1}

    # --- measures -------------------------------------------------------------------------
    def measure(self, state: GameState, player: str) -> int:
        """Wealth: cash + price of each owned street + what was paid for its buildings."""
        return state.cash(player) + sum(
            self.edition.street(n).price + state.streets[n].paid for n in state.owned_by(player))

    def rent(self, state: GameState, street: str) -> int:
        s, h = self.edition.street(street), state.streets[street]
        if h.hotels:
            return s.rent["hotel"]
        if h.houses:
            return s.rent["house"]
        if h.owner and state.owns_set(h.owner, street):
            return 2 * s.rent["base"]
        return s.rent["base"]

    # --- streets --------------------------------------------------------------------------
    def unowned(self, state: GameState, street: str) -> None:
        owner = state.owner(street)
        if owner is not None:
            raise Refusal("already_owned", street=street, player=Who(owner))

    def do_buy(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        self.unowned(state, street)
        price = self.edition.street(street).price
        self.require_cash(state, cmd.player, price, street=street)
        out = Outcome(events=[*self.pay(cmd.player, "bank", price), OwnerChanged(street, cmd.player)])
        return out.say("bought", player=Who(cmd.player), street=street, amount=Money(price),
                       cash=Money(state.cash(cmd.player) - price))

    def do_auction(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        self.unowned(state, street)
        return Outcome(auctions=[street])

    def do_auction_close(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The auction dialogue's end: the highest bidder (``cmd.player``) pays and owns."""
        street = self.street(cmd)
        amount = int(cmd.intent.get("amount", 0))
        self.unowned(state, street)
        self.require_cash(state, cmd.player, amount)
        out = Outcome(events=[*self.pay(cmd.player, self.auction_payee, amount),
                              OwnerChanged(street, cmd.player)])
        return out.say("sold", player=Who(cmd.player), street=street, amount=Money(amount),
                       cash=Money(state.cash(cmd.player) - amount))

    auction_payee = "bank"

    # --- rent and unavoidable payments ----------------------------------------------------
    def do_pay_rent(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street, owner = self.rent_owner(state, cmd)
        rent = self.rent(state, street)
        return self.settle(state, cmd, [(owner, rent)], "rent_paid", street=street)

    def settle(self, state: GameState, cmd: Command, debts: list[tuple[str, int]], key: str,
               **params: object) -> Outcome:
        """Pay unavoidable ``debts`` in order; short of cash, all cash plus one street go to
        the first creditor that can't be paid in full (asked for), or bankruptcy."""
        payer = cmd.player
        cash = state.cash(payer)
        events: list[Event] = []
        out = Outcome()
        for i, (creditor, amount) in enumerate(debts):
            if cash >= amount:
                events += self.pay(payer, creditor, amount)
                cash -= amount
                out.say(key if creditor != "bank" else key + "_bank", player=Who(payer),
                        to=Who(creditor), amount=Money(amount), cash=Money(cash), **params)
                continue
            # Short: everything left goes to this creditor, plus a street of the payer's choice.
            owned = state.owned_by(payer)
            give = cmd.intent.get("give")
            if owned and give is None:
                q_cmd = Command(payer, cmd.intent)
                return Outcome(question=Question(
                    "ask_give_up", payer, "give", q_cmd, tuple(owned), lapses=False,
                    params={"player": Who(payer), "amount": Money(amount), "cash": Money(cash),
                            "to": Who(creditor)}))
            events += self.pay(payer, creditor, cash)
            out.say("short_paid", player=Who(payer), to=Who(creditor), amount=Money(cash),
                    owed=Money(amount))
            cash = 0
            if owned:
                if give not in owned:
                    raise Refusal("not_your_street", street=give)
                events += self.give_street(state, str(give), creditor)
                out.say("street_given" if creditor != "bank" else "street_returned",
                        player=Who(payer), street=give, to=Who(creditor))
                _ = debts[i + 1:]  # later creditors get nothing: the rest of the debt is ignored
                return self._done(out, events)
            events.append(PlayerOut(payer))
            out.say("bankrupt", player=Who(payer))
            self.end_game(state, events, out)
            return self._done(out, events)
        return self._done(out, events)

    @staticmethod
    def _done(out: Outcome, events: list[Event]) -> Outcome:
        out.events = events
        return out

    def give_street(self, state: GameState, street: str, to: str) -> list[Event]:
        """Hand a street to a player (or back to the bank); buildings on its set go to stock."""
        events: list[Event] = self.clear_set(state, street)
        events.append(OwnerChanged(street, None if to == "bank" else to))
        return events

    def clear_set(self, state: GameState, street: str) -> list[Event]:
        events: list[Event] = []
        for n in self.edition.group_of(street):
            h = state.streets[n]
            if h.houses or h.hotels or h.paid:
                events.append(BuildingsChanged(n, 0, 0, 0, source="box"))
        return events

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if state.owned_by(cmd.player):
            raise Refusal("not_bankrupt_streets")
        raise Refusal("not_bankrupt")

    # --- chance ---------------------------------------------------------------------------
    def chance_choices(self, state: GameState) -> list[str]:
        card_out = state.box.get("jail_card", 0) == 0
        return [c.id for c in self.edition.chance if not (card_out and c.id == "jail-free")]

    def do_chance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        again = cmd.intent.get("card")  # re-decided after a question: the card is known
        drawn: Event
        if again:
            card_id, drawn = str(again), Drawn("chance", str(again))
        else:
            card_id, drawn = self.draw(state, draws, "chance", self.chance_choices(state),
                                       forced_ok=lambda v: False)
        out = self.card_effect(state, cmd, card_id)
        out.events.insert(0, drawn)
        if not again:
            out.lines.insert(0, Line("chance_card", {"title": self.edition.card(card_id).title}))
        return out

    def card_effect(self, state: GameState, cmd: Command, card_id: str) -> Outcome:
        eff = self.edition.card(card_id).effect
        p = cmd.player
        cash = state.cash(p)
        follow = Command(p, cmd.intent.with_slots(card=card_id))
        if "collect" in eff:
            n = int(eff["collect"])
            return Outcome(events=self.pay("bank", p, n)).say(
                "collected", player=Who(p), amount=Money(n), cash=Money(cash + n))
        if "advance_go" in eff:
            n = int(eff["advance_go"])
            return Outcome(events=self.pay("bank", p, n)).say(
                "advance_go", player=Who(p), amount=Money(n), cash=Money(cash + n))
        if "pay" in eff:
            return self.settle(state, follow, [("bank", int(eff["pay"]))], "paid")
        if "repairs" in eff:
            rates = eff["repairs"]
            houses = sum(state.streets[n].houses for n in state.owned_by(p))
            hotels = sum(state.streets[n].hotels for n in state.owned_by(p))
            n = houses * int(rates["house"]) + hotels * int(rates["hotel"])
            if n == 0:
                return Outcome().say("repairs_none", player=Who(p))
            return self.settle(state, follow, [("bank", n)], "paid")
        if "pay_each" in eff:
            n = int(eff["pay_each"])
            return self.settle(state, follow, [(o, n) for o in state.left_of(p)], "paid_player")
        if "collect_each" in eff:
            return self.collect_each(state, p, int(eff["collect_each"]))
        if "advance" in eff:
            return Outcome().say("advance", player=Who(p), street=eff["advance"])
        if "jail" in eff:
            return self.do_go_to_jail(state, cmd, Draws())
        if "jail_free" in eff:
            return Outcome(events=[ItemsMoved("jail_card", "box", p)]).say(
                "jail_card_received", player=Who(p))
        return Outcome()

    # --- go, jail, train ------------------------------------------------------------------
    def do_pass_go(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        n = self.edition.fees["pass_go"]
        return Outcome(events=self.pay("bank", cmd.player, n)).say(
            "pass_go", player=Who(cmd.player), amount=Money(n), cash=Money(state.cash(cmd.player) + n))

    def do_go_to_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        # Jail is not tracked by the Voice Banking unit: only acknowledged.
        return Outcome().say("go_to_jail", player=Who(cmd.player))

    def do_get_out_of_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p = cmd.player
        if state.players[p].count("jail_card"):
            return Outcome(events=[ItemsMoved("jail_card", p, "box")]).say(
                "jail_card_used", player=Who(p))
        fee = self.edition.fees["bail"]
        self.require_cash(state, p, fee)
        return Outcome(events=self.pay(p, "bank", fee)).say(
            "bail_paid", player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))

    def do_train_ride(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street, drawn = self.draw(state, draws, "train_ride", self.edition.street_names)
        return Outcome(events=[drawn]).say("train_ride", player=Who(cmd.player), street=street)

    # --- trade ----------------------------------------------------------------------------
    def do_trade(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p = cmd.player
        give, get = self.street(cmd, "give"), self.street(cmd, "get")
        if state.owner(give) != p:
            raise Refusal("not_your_street", street=give)
        other = state.owner(get)
        if other is None:
            raise Refusal("no_owner", street=get)
        if other == p:
            raise Refusal("own_street", street=get)
        for s in (give, get):
            if state.streets[s].houses or state.streets[s].hotels:
                raise Refusal("developed", street=s)
        fee = self.edition.fees["trade"]
        self.require_cash(state, p, fee)
        events: list[Event] = self.pay(p, "bank", fee)
        # A set broken by the swap loses its buildings (they go back to the stock).
        for s in (give, get):
            for n in self.edition.group_of(s):
                if n not in (give, get) and (state.streets[n].houses or state.streets[n].hotels):
                    events += self.clear_set(state, s)
                    break
        events += [OwnerChanged(give, other), OwnerChanged(get, p)]
        return Outcome(events=events).say(
            "traded", player=Who(p), give=give, get=get, other=Who(other), amount=Money(fee),
            cash=Money(state.cash(p) - fee))

    # --- buildings ------------------------------------------------------------------------
    def _buildable(self, state: GameState, p: str, street: str) -> None:
        if state.owner(street) != p:
            raise Refusal("not_your_street", street=street)
        if not state.owns_set(p, street):
            raise Refusal("need_full_set", street=street)

    def do_build_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        self._buildable(state, p, street)
        h = state.streets[street]
        if h.houses or h.hotels:
            raise Refusal("has_building", street=street)
        if state.box.get("house", 0) <= 0:
            raise Refusal("no_houses_left")
        cost = self.edition.street(street).house_cost
        self.require_cash(state, p, cost)
        return Outcome(events=[*self.pay(p, "bank", cost),
                               BuildingsChanged(street, 1, 0, h.paid + cost, source="box")]).say(
            "house_built", player=Who(p), street=street, amount=Money(cost),
            cash=Money(state.cash(p) - cost))

    def do_build_hotel(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        self._buildable(state, p, street)
        h = state.streets[street]
        if h.hotels:
            raise Refusal("has_hotel", street=street)
        if state.box.get("hotel", 0) <= 0:
            raise Refusal("no_hotels_left")
        house_cost = self.edition.street(street).house_cost
        cost = house_cost if h.houses else 2 * house_cost
        self.require_cash(state, p, cost)
        # the upgraded house (if any) goes back to the stock in the same event
        events: list[Event] = [*self.pay(p, "bank", cost),
                               BuildingsChanged(street, 0, 1, h.paid + cost, source="box")]
        return Outcome(events=events).say(
            "hotel_built", player=Who(p), street=street, amount=Money(cost),
            cash=Money(state.cash(p) - cost))

    # --- escape hatches -------------------------------------------------------------------
    def do_pay(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, n = cmd.player, self.amount(cmd)
        to = cmd.intent.get("player") or "bank"
        if to == p:
            raise Refusal("pay_self")
        if to != "bank" and to not in state.players:
            raise Refusal("not_playing", player=Who(to))
        self.require_cash(state, p, n)
        return Outcome(events=self.pay(p, to, n)).say(
            "paid_player" if to != "bank" else "paid_bank", player=Who(p), to=Who(to),
            amount=Money(n), cash=Money(state.cash(p) - n))

    def do_collect(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, n = cmd.player, self.amount(cmd)
        return Outcome(events=self.pay("bank", p, n)).say(
            "collected", player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))

    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("stock", houses=state.box.get("house", 0), hotels=state.box.get("hotel", 0))

