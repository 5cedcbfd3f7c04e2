"""Monopoly Voice Banking: the top-hat unit's rules (seed 001, ``editions.md``).

One building per street (a house, or a hotel), 8 houses / 12 hotels in stock, never sold back;
forced trades; train rides; electronic Chance with replacement; jail not tracked; short of
cash means all your cash plus one street; the first bankruptcy ends the game, ranked by wealth.
Buying, auctions, "pay", GO, bail and the Chance effects are the base's (``Rules``).
"""

from __future__ import annotations

from banker.rules.events import (
    BuildingsChanged,
    DebtOpened,
    DebtSettled,
    Drawn,
    Event,
    OwnerChanged,
    PlayerOut,
    fold,
)
from banker.rules.house_rules import HouseRules
from banker.rules.invariants import COMMON
from banker.rules.outcome import Command, Draws, Intent, Line, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState


def one_building(state: GameState, total: int | None) -> list[str]:
    """One building per street: a house or a hotel, never both, never two."""
    return [f"{n} has {h.houses} houses and {h.hotels} hotels" for n, h in state.streets.items()
            if h.houses + h.hotels > 1]


class VoiceBankingRules(HouseRules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "pass_go", "get_out_of_jail",
        "go_to_jail", "trade", "train_ride", "build_house", "build_hotel", "pay", "collect",
        "bankrupt", "third_roll", "settle_debt", "free_parking", "land_on_go",
    })
    jail_tracked = False  # the unit can't be told you're in jail
    validators = (*COMMON, one_building)

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

    # --- short of cash: all of it plus one street -----------------------------------------
    def paid_key(self, key: str, creditor: str) -> str:
        return key + "_bank" if creditor == "bank" and key in ("rent_paid", "paid") else key

    def shortfall(self, state: GameState, cmd: Command, out: Outcome,
                  rest: list[tuple[str, int]], cash: int, reason: str,
                  partial: bool) -> Outcome:
        """The first creditor that can't be paid in full is owed the payment: a debt opens
        (nothing moves yet) and the payer is asked, from the state, which street to give up
        (``debt_question``); later creditors of the same card get nothing. No street: all
        cash goes to that creditor and the payer is bankrupt at once."""
        creditor, amount = rest[0]
        if state.owned_by(cmd.player):
            out.events.append(DebtOpened(cmd.player, creditor, amount, reason))
            return out
        return self.bankrupt_now(fold(state, out.events), cmd.player, creditor, amount, out)

    def short_payer(self, state: GameState, payer: str, creditor: str, amount: int,
                    out: Outcome) -> list[Event]:
        """One of several payers ("birthday"): a debt to the drawer, asked of them by name;
        with no street, all their cash and they are bankrupt (``collect_each`` ends the game
        once every payer has paid)."""
        if state.owned_by(payer):
            return [DebtOpened(payer, creditor, amount, "card birthday")]
        out.lines += self._bankrupt_lines(state, payer, creditor, amount)
        return [*self.pay(payer, creditor, state.cash(payer)), PlayerOut(payer)]

    def collect_each(self, state: GameState, p: str, n: int) -> Outcome:
        out = super().collect_each(state, p, n)
        if any(isinstance(e, PlayerOut) for e in out.events):
            self.end_game(state, out.events, out)
        return out

    def _bankrupt_lines(self, state: GameState, payer: str, creditor: str,
                        amount: int) -> list[Line]:
        return [Line("short_paid", {"player": Who(payer), "to": Who(creditor),
                                    "amount": Money(state.cash(payer)), "owed": Money(amount)}),
                Line("bankrupt", {"player": Who(payer)})]

    def bankrupt_now(self, state: GameState, payer: str, creditor: str, amount: int,
                     out: Outcome) -> Outcome:
        """No street left: all cash to the creditor, the payer is out, the game ends."""
        out.lines += self._bankrupt_lines(state, payer, creditor, amount)
        out.events += [*self.pay(payer, creditor, state.cash(payer)), PlayerOut(payer)]
        self.end_game(state, out.events, out)
        return out

    def debt_question(self, state: GameState, again: bool = False) -> Question | None:
        """ "Which street will you give up?" for the oldest open debt (every open debt's
        debtor owns a street: one without is bankrupt at once)."""
        for d in state.debts:
            owned = state.owned_by(d.debtor)
            if owned and not state.players[d.debtor].out and not state.game_over:
                return Question(
                    "ask_give_up_again" if again else "ask_give_up", d.debtor, "give",
                    Command(d.debtor, Intent("settle_debt", {"creditor": d.creditor})),
                    tuple(owned), lapses=False,
                    params={"player": Who(d.debtor), "amount": Money(d.amount),
                            "cash": Money(state.cash(d.debtor)), "to": Who(d.creditor)})
        return None

    def do_settle_debt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The oldest debt of the player: all their cash plus the street they give go to the
        creditor (buildings on its set go back to the stock); no street, bankrupt."""
        p = cmd.player
        debts = state.debts_of(p)
        if not debts:
            raise Refusal("no_debt", player=Who(p))
        d, cash = debts[0], state.cash(p)
        out = Outcome()
        owned = state.owned_by(p)
        if not owned:
            out.events.append(DebtSettled(p, d.creditor, cash))
            return self.bankrupt_now(state, p, d.creditor, d.amount, out)
        give = cmd.intent.get("give")
        if give is None:
            raise Refusal("which_street")
        if give not in owned:
            raise Refusal("not_your_street", street=give)
        out.events += [*self.pay(p, d.creditor, cash), DebtSettled(p, d.creditor, cash),
                       *self.give_street(state, str(give), d.creditor)]
        out.say("short_paid", player=Who(p), to=Who(d.creditor), amount=Money(cash),
                owed=Money(d.amount))
        out.say("street_given" if d.creditor in state.players else "street_returned",
                player=Who(p), street=give, to=Who(d.creditor))
        return out

    def give_street(self, state: GameState, street: str, to: str) -> list[Event]:
        """Hand a street to a player (or back to the bank, whatever account was owed: a pot
        owns no streets); buildings on its set go to stock."""
        events: list[Event] = self.clear_set(state, street)
        events.append(OwnerChanged(street, to if to in state.players else None))
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

    # --- chance: electronic, with replacement ---------------------------------------------
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
        out = self.card_effect(state, Command(cmd.player, cmd.intent.with_slots(card=card_id)),
                               card_id)
        out.events.insert(0, drawn)
        if not again:
            out.lines.insert(0, self.chance_line(card_id))
        return out

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
            raise Refusal("no_owner_to_trade", street=get)
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
        self.own(state, p, street)
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

    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("stock", houses=state.box.get("house", 0), hotels=state.box.get("hotel", 0))
