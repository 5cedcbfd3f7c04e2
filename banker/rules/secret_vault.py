"""Monopoly Secret Vault: the human Banker's job (seed 000, ``editions.md``).

The vault (cash, keys and hotels, a 1-6 code), four locked streets opened by keys, hotels that
only come from the vault or from other players (up to 2 per street), mortgages at any time,
deals between players that the other player agrees to, open debts that are paid automatically
once the debtor's cash covers them, bankruptcy to a player or to the bank, a shuffled Chance
deck of 12, and the end when all 22 streets are owned (or at the first bankruptcy) with one
last rent per street. Decisions where the rulebook is silent are in the docstrings below and
in ``config/editions/secret-vault.yaml``.
"""

from __future__ import annotations

import random

from banker.rules.base import Rules
from banker.rules.events import (
    BuildingsChanged,
    DebtChanged,
    DeckChanged,
    Event,
    GuessMade,
    ItemsMoved,
    JailChanged,
    MortgageChanged,
    OwnerChanged,
    PlayerOut,
    StreetUnlocked,
    VaultCodeSet,
    fold,
)
from banker.rules.outcome import (
    QUERIES,
    AllOf,
    Command,
    Draws,
    Intent,
    Line,
    Money,
    Outcome,
    Question,
    Refusal,
    Who,
)
from banker.rules.state import GameState
from banker.rules.voice_banking import VoiceBankingRules

CODES = ("1", "2", "3", "4", "5", "6")
GUESS_TIMEOUT = 10.0
AGREE_TIMEOUT = 30.0
MAX_HOTELS = 2
JAIL_CARD = "jail-free"
#: what a player with an open debt may still do: raise money, give up, or things that cost
#: nothing (rent and tax are let through to say "still short", or to be paid if they can be;
#: the card, not bail, gets a debtor out of jail). Everything else that moves their money
#: waits until the debt is settled.
DEBTOR_OK = frozenset({
    "mortgage", "sell", "sell_hotel", "sell_card", "trade", "bankrupt", "collect", "pass_go",
    "build_hotel", "use_key", "go_to_jail", "leave_jail", "guess", "free_parking", "open_vault",
    "pay_rent", "tax", "auction", "get_out_of_jail",
})


def counted(n: int, noun: str) -> str:
    """ "1 key", "2 hotels", "no hotels": counts said the way people say them."""
    if n == 1:
        return f"1 {noun}"
    return f"{n if n else 'no'} {noun}s"


class SecretVaultRules(Rules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "pass_go", "get_out_of_jail",
        "go_to_jail", "leave_jail", "free_parking", "trade", "build_hotel", "pay", "collect",
        "tax", "guess", "pay_to_guess", "open_vault", "use_key", "mortgage", "unmortgage",
        "sell", "buy_from", "sell_hotel", "buy_hotel", "sell_card", "buy_card", "bankrupt",
    })

    # Buying, auctions and the escape hatches work exactly as in Voice Banking (the locked
    # streets are refused by ``unowned`` below), so those handlers are reused, not copied.
    do_buy = VoiceBankingRules.do_buy
    do_auction = VoiceBankingRules.do_auction
    do_auction_close = VoiceBankingRules.do_auction_close
    do_pay = VoiceBankingRules.do_pay
    do_collect = VoiceBankingRules.do_collect
    auction_payee = "bank"

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

    def vault_items(self) -> dict[str, int]:
        raw = self.edition.extra.get("vault_items", {"key": 1, "hotel": 1})
        return {str(k): int(v) for k, v in dict(raw).items()}

    @staticmethod
    def virtual(state: GameState) -> bool:
        return state.options.get("vault", "virtual") != "physical"

    @staticmethod
    def end_mode(state: GameState) -> str:
        return state.options.get("end", "all-owned")

    # --- the one entry point: debts first, then the end of the game -----------------------
    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        """As ``Rules.decide``, plus: a debtor can only raise money until the debt is paid;
        an open debt is paid as soon as the debtor's cash covers it; the game ends when
        the last street gets an owner."""
        d = state.debt
        if (d is not None and cmd.player == d.debtor and cmd.name not in QUERIES
                and cmd.name not in DEBTOR_OK and not state.game_over
                and cmd.name in self.intents):
            raise self.in_debt(state, cmd.player)
        out = super().decide(state, cmd, draws)
        if out.events:
            self.after(state, out)
        return out

    def after(self, state: GameState, out: Outcome) -> None:
        after = fold(state, out.events)
        d = after.debt
        if d is not None and not after.players[d.debtor].out and after.cash(d.debtor) >= d.amount:
            paid: list[Event] = [*self.pay(d.debtor, d.creditor, d.amount), DebtChanged(None)]
            out.events += paid
            out.participants.update(t for t in (d.debtor, d.creditor) if t in state.players)
            out.say("debt_paid", player=Who(d.debtor), to=Who(d.creditor), amount=Money(d.amount),
                    cash=Money(after.cash(d.debtor) - d.amount))
            after = fold(after, paid)
        if (not after.game_over and self.end_mode(after) == "all-owned"
                and all(h.owner is not None for h in after.streets.values())):
            out.say("all_owned")
            out.events += self.final_count(after, out)

    def final_count(self, state: GameState, out: Outcome) -> list[Event]:
        """The end: every player still in collects one rent per street (set and hotel rent,
        none if mortgaged), then the most cash wins (ties share the win)."""
        events: list[Event] = []
        for t in state.seated:
            n = self.rent_total(state, t)
            events += self.pay("bank", t, n)
            out.say("final_rent", player=Who(t), amount=Money(n),
                    streets=counted(len(state.owned_by(t)), "street"),
                    cash=Money(state.cash(t) + n))
            if n:
                out.participants.add(t)
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
        if state.debt is not None and state.debt.debtor == player:
            return "in_debt_bid"
        return None

    # --- streets ----------------------------------------------------------------------------
    def unowned(self, state: GameState, street: str) -> None:
        """Can be bought or auctioned: nobody owns it and it isn't a locked street."""
        owner = state.owner(street)
        if owner is not None:
            raise Refusal("already_owned", street=street, player=Who(owner))
        if self.locked(state, street):
            raise Refusal("locked", street=street)

    def locked(self, state: GameState, street: str) -> bool:
        return self.edition.street(street).locked and not state.streets[street].unlocked

    def own(self, state: GameState, player: str, street: str) -> None:
        if state.owner(street) != player:
            raise Refusal("not_your_street", street=street)

    def do_pay_rent(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street, owner = self.rent_owner(state, cmd)
        if state.streets[street].mortgaged:
            raise Refusal("mortgaged_no_rent", street=street, player=Who(owner))
        return self.owe(state, cmd.player, owner, self.rent(state, street), f"rent on {street}",
                        "rent_paid", street=street)

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

    def do_use_key(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        if not state.players[p].count("key"):
            raise Refusal("no_key", player=Who(p))
        if not self.edition.street(street).locked:
            raise Refusal("not_locked", street=street, streets=self.locked_left(state))
        owner = state.owner(street)
        if state.streets[street].unlocked or owner is not None:
            raise Refusal("already_unlocked", street=street, player=Who(owner or "bank"))
        return Outcome(events=[StreetUnlocked(street, source=p), OwnerChanged(street, p)]).say(
            "unlocked", player=Who(p), street=street)

    def locked_left(self, state: GameState) -> list[str]:
        return [s.name for s in self.edition.streets if self.locked(state, s.name)
                and state.owner(s.name) is None]

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

    # --- unavoidable payments and debts -----------------------------------------------------
    def owe(self, state: GameState, payer: str, creditor: str, amount: int, reason: str,
            key: str, **params: object) -> Outcome:
        """A payment the player can't refuse: paid now, or nothing moves and a debt opens."""
        cash = state.cash(payer)
        if cash >= amount:
            return Outcome(events=self.pay(payer, creditor, amount)).say(
                key, player=Who(payer), to=Who(creditor), amount=Money(amount),
                cash=Money(cash - amount), **params)
        self.no_second_debt(state, payer, reason)
        out = Outcome(events=[DebtChanged(payer, creditor, amount, reason)])
        self.say_short(state, out, payer, creditor, amount)
        return out

    def no_second_debt(self, state: GameState, payer: str, reason: str) -> None:
        """One open debt at a time: the table settles it before anything else can fall due."""
        d = state.debt
        if d is None:
            return
        if d.debtor == payer:  # the same payment said again, or another one: still short
            raise self.in_debt(state, payer)
        raise Refusal("debt_open", player=Who(d.debtor), amount=Money(d.amount))

    def in_debt(self, state: GameState, player: str) -> Refusal:
        d = state.debt
        assert d is not None
        cash = state.cash(player)
        return Refusal("in_debt", player=Who(player), amount=Money(d.amount), to=Who(d.creditor),
                       cash=Money(cash), missing=Money(max(d.amount - cash, 0)),
                       streets=self.mortgageable(state, player))

    def mortgageable(self, state: GameState, player: str) -> str:
        """"Baltic Avenue for M60, Park Place for M350": what mortgaging would raise."""
        parts = [f"{n} for {self.edition.fmt(self.edition.street(n).mortgage)}"
                 for n in state.owned_by(player) if not state.streets[n].mortgaged]
        return ", ".join(parts) if parts else "nothing"

    def say_short(self, state: GameState, out: Outcome, payer: str, creditor: str,
                  amount: int) -> None:
        cash = state.cash(payer)
        out.say("short", player=Who(payer), to=Who(creditor), amount=Money(amount),
                cash=Money(cash), missing=Money(amount - cash))
        can = [n for n in state.owned_by(payer) if not state.streets[n].mortgaged]
        if can:
            out.say("can_mortgage", player=Who(payer), streets=self.mortgageable(state, payer))
        else:
            out.say("nothing_to_mortgage", player=Who(payer))

    def do_tax(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.owe(state, cmd.player, "vault", self.edition.fees["tax"], "tax", "tax_paid")

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Only with an open debt. To a player: cash, streets (mortgages kept, hotels stay on
        them), unused hotels, keys and the card. To the bank (or the vault): streets come back
        unmortgaged and bare and are auctioned at once, one by one; unused hotels and keys go
        back to the box; the card to the bottom of the deck; the cash to the bank."""
        p = cmd.player
        d = state.debt
        if d is None or d.debtor != p:
            raise Refusal("not_bankrupt")
        player = state.players[p]
        streets = state.owned_by(p)
        to = d.creditor if d.creditor in state.players else "bank"
        events: list[Event] = [DebtChanged(None), *self.pay(p, to, player.cash)]
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

    # --- GO and jail ------------------------------------------------------------------------
    def go(self, state: GameState, p: str, key: str) -> Outcome:
        n, v = self.edition.fees["pass_go"], self.edition.fees["pass_go_vault"]
        return Outcome(events=[*self.pay("bank", p, n), *self.pay("bank", "vault", v)]).say(
            key, player=Who(p), amount=Money(n), vault=Money(v), cash=Money(state.cash(p) + n))

    def do_pass_go(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if state.players[cmd.player].in_jail:
            raise Refusal("in_jail_no_go", player=Who(cmd.player))
        return self.go(state, cmd.player, "pass_go_vault")

    def do_go_to_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A second "go to jail" changes nothing (and is not a refusal)."""
        p = cmd.player
        if state.players[p].in_jail:
            return Outcome().say("already_in_jail", player=Who(p))
        return Outcome(events=[JailChanged(p, True)]).say("go_to_jail", player=Who(p))

    def do_get_out_of_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The Get Out of Jail Free card is used first if held (it's free); else M100 bail
        into the vault, a fee the player chooses, so it is refused when short."""
        p = cmd.player
        if not state.players[p].in_jail:
            raise Refusal("not_in_jail", player=Who(p))
        if state.players[p].count("jail_card"):
            return Outcome(events=[ItemsMoved("jail_card", p, "deck"),
                                   DeckChanged((*state.deck, JAIL_CARD)),
                                   JailChanged(p, False)]).say("jail_card_used", player=Who(p))
        if state.debt is not None and state.debt.debtor == p:
            raise self.in_debt(state, p)
        fee = self.edition.fees["bail"]
        self.require_cash(state, p, fee)
        return Outcome(events=[*self.pay(p, "vault", fee), JailChanged(p, False)]).say(
            "bail_paid_vault", player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))

    def do_leave_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Doubles: in jail, a free release, and no vault guess on that roll (the rulebook:
        "If you roll doubles, you may not try to open the vault"). Out of jail, doubles are
        a chance to guess the code."""
        p = cmd.player
        if state.players[p].in_jail:
            return Outcome(events=[JailChanged(p, False)]).say("doubles_free", player=Who(p))
        return self.offer_guess(state, p, "doubles")

    # --- the vault --------------------------------------------------------------------------
    def offer_guess(self, state: GameState, p: str, via: str) -> Outcome:
        """One guess: the virtual vault asks "What's your guess?" (10 s, lapses); with the
        physical vault the player turns the dial."""
        if not self.virtual(state):
            return Outcome().say("use_dial", player=Who(p))
        then = Command(p, Intent("guess", {"via": via}))
        return Outcome(question=Question(
            "ask_guess", p, "number", then, lapses=True, timeout=GUESS_TIMEOUT,
            params={"player": Who(p), "on_timeout": "no_guess"}))

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.offer_guess(state, cmd.player, "free_parking")

    def do_guess(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, number = cmd.player, cmd.intent.get("number")
        if not self.virtual(state):
            if number is not None:
                raise Refusal("use_the_dial", player=Who(p))
            return Outcome().say("use_dial", player=Who(p))
        if number is None:
            return self.offer_guess(state, p, str(cmd.intent.get("via", "guess")))
        return self.make_guess(state, p, self.guess_number(number), draws, Outcome())

    @staticmethod
    def guess_number(value: object) -> int:
        try:
            n = int(str(value))
        except ValueError:
            raise Refusal("bad_guess", number=str(value)) from None
        if not 1 <= n <= 6:
            raise Refusal("bad_guess", number=n)
        return n

    def do_pay_to_guess(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """M100 to the bank, then one guess. Without a number the fee is checked now and
        taken with the guess, so a question that lapses costs nothing."""
        p, number = cmd.player, cmd.intent.get("number")
        fee = self.edition.fees["pay_to_guess"]
        self.require_cash(state, p, fee)
        paid = Outcome(events=self.pay(p, "bank", fee)).say(
            "paid_to_guess", player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))
        if not self.virtual(state):
            return paid.say("use_dial", player=Who(p))
        if number is None:
            then = Command(p, Intent("pay_to_guess", {}))
            return Outcome(question=Question(
                "ask_guess", p, "number", then, lapses=True, timeout=GUESS_TIMEOUT,
                params={"player": Who(p), "on_timeout": "no_guess"}))
        n = self.guess_number(number)
        return self.make_guess(fold(state, paid.events), p, n, draws, paid)

    def make_guess(self, state: GameState, p: str, n: int, draws: Draws, out: Outcome) -> Outcome:
        if n != state.vault_code:
            out.events.append(GuessMade(p, n, False))
            tried = sorted({*state.guessed, n})
            return out.say("guess_wrong_again" if n in state.guessed else "guess_wrong",
                           player=Who(p), number=n, tried=", ".join(str(x) for x in tried))
        out.events.append(GuessMade(p, n, True))
        return self.open_vault(state, p, draws, out)

    def do_open_vault(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if self.virtual(state):
            raise Refusal("virtual_vault")
        return self.open_vault(state, cmd.player, draws, Outcome())

    def open_vault(self, state: GameState, p: str, draws: Draws, out: Outcome) -> Outcome:
        """The finder takes everything; the bank refills it (1 key and 1 hotel if the box
        still has them, M400); the virtual vault draws a new code. A key: which street?"""
        cash, keys = state.vault_cash, state.vault_items.get("key", 0)
        hotels = state.vault_items.get("hotel", 0)
        events = out.events
        events += self.pay("vault", p, cash)
        if keys:
            events.append(ItemsMoved("key", "vault", p, keys))
        if hotels:
            events.append(ItemsMoved("hotel", "vault", p, hotels))
        for item, n in self.vault_items().items():
            take = min(n, state.box.get(item, 0))
            if take:
                events.append(ItemsMoved(item, "box", "vault", take))
        events += self.pay("bank", "vault", self.edition.fees["vault_refill"])
        out.say("vault_opened", player=Who(p), amount=Money(cash), keys=counted(keys, "key"),
                hotels=counted(hotels, "hotel"), cash=Money(state.cash(p) + cash))
        if self.virtual(state):
            code, drawn = self.draw(state, draws, "vault_code", CODES)
            events += [drawn, VaultCodeSet(int(code))]
        else:
            out.say("vault_reset_physical")
        if keys:
            left = self.locked_left(state)
            then = Command(p, Intent("use_key", {}))
            out.question = Question("ask_key", p, "property", then, tuple(left), lapses=True,
                                    params={"player": Who(p), "streets": left})
        return out

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
        out = self.card_effect(fold(state, head), cmd.player, card_id)
        out.events[:0] = head
        out.lines.insert(0, Line("chance_card", {"title": self.edition.card(card_id).title}))
        return out

    def card_effect(self, state: GameState, p: str, card_id: str) -> Outcome:
        eff = self.edition.card(card_id).effect
        cash = state.cash(p)
        reason = f"card {card_id}"
        if "collect" in eff:
            n = int(eff["collect"])
            return Outcome(events=self.pay("bank", p, n)).say(
                "collected", player=Who(p), amount=Money(n), cash=Money(cash + n))
        if "advance_go" in eff:
            return self.go(state, p, "advance_go_vault")
        if "pay_vault" in eff:
            return self.owe(state, p, "vault", int(eff["pay_vault"]), reason, "paid_vault")
        if "repairs" in eff:
            rate = int(dict(eff["repairs"]).get("hotel", 0))
            hotels = sum(state.streets[n].hotels for n in state.owned_by(p))
            if not hotels * rate:
                return Outcome().say("repairs_none", player=Who(p))
            to = str(dict(eff["repairs"]).get("into", "vault"))
            return self.owe(state, p, to, hotels * rate, reason, "repairs_paid",
                            hotels=counted(hotels, "hotel"))
        if "pay_each" in eff:
            return self.pay_each(state, p, int(eff["pay_each"]), reason)
        if "collect_each" in eff:
            return self.collect_each(state, p, int(eff["collect_each"]))
        if "advance" in eff:
            street = str(eff["advance"])
            return Outcome().say("advance", player=Who(p), street=street)
        if "jail" in eff:
            return self.do_go_to_jail(state, Command(p, Intent("go_to_jail")), Draws())
        if "jail_free" in eff:
            return Outcome(events=[ItemsMoved("jail_card", "deck", p)]).say(
                "jail_card_received", player=Who(p))
        if "vault_guess" in eff:
            return self.offer_guess(state, p, "card")
        return Outcome()

    def pay_each(self, state: GameState, p: str, n: int, reason: str) -> Outcome:
        """Every other player from the payer's left is paid in turn; the first one who can't
        be paid in full gets what is left and the rest stays open as a debt to them; later
        players get nothing ("Further decisions: several creditors")."""
        cash = state.cash(p)
        out = Outcome()
        for o in state.left_of(p):
            if cash >= n:
                out.events += self.pay(p, o, n)
                cash -= n
                out.say("paid_player", player=Who(p), to=Who(o), amount=Money(n), cash=Money(cash))
                continue
            self.no_second_debt(state, p, reason)
            out.events += self.pay(p, o, cash)
            out.events.append(DebtChanged(p, o, n - cash, reason))
            self.say_short(fold(state, out.events), out, p, o, n - cash)
            break
        return out

    # --- deals between players --------------------------------------------------------------
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
        d = state.debt
        if d is not None and d.debtor == buyer:
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
        p, street = cmd.player, self.street(cmd)
        self.own(state, p, street)
        buyer = self.other_player(state, p, cmd.intent.get("player"))
        n = self.amount(cmd)
        self.afford(state, buyer, n)
        ask = self.agreed(cmd, buyer, f"sell you {street} for {self.edition.fmt(n)}")
        if ask is not None:
            return ask
        events = [*self.strip_hotels(state, street, p), *self.pay(buyer, p, n),
                  OwnerChanged(street, buyer)]
        return self.deal_done(Outcome(events=events).say(
            "sold_street", player=Who(p), other=Who(buyer), street=street, amount=Money(n),
            cash=Money(state.cash(p) + n), other_cash=Money(state.cash(buyer) - n)), buyer)

    def do_buy_from(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        owner = state.owner(street)
        if owner is None:
            raise Refusal("no_owner_to_sell", street=street)
        if owner == p:
            raise Refusal("own_street", street=street)
        named = cmd.intent.get("player")
        if named is not None and named != owner:
            raise Refusal("not_their_street", street=street, player=Who(str(named)),
                          owner=Who(owner))
        seller = self.other_player(state, p, owner)
        n = self.amount(cmd)
        self.afford(state, p, n)
        ask = self.agreed(cmd, seller, f"buy your {street} for {self.edition.fmt(n)}")
        if ask is not None:
            return ask
        events = [*self.strip_hotels(state, street, seller), *self.pay(p, seller, n),
                  OwnerChanged(street, p)]
        return self.deal_done(Outcome(events=events).say(
            "bought_street", player=Who(p), other=Who(seller), street=street, amount=Money(n),
            cash=Money(state.cash(p) - n), other_cash=Money(state.cash(seller) + n)), seller)

    def do_trade(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Street for street with the owner of the other one, who must agree. Mortgages go
        with the streets; hotels stay with their owners' supplies."""
        p = cmd.player
        give, get = self.street(cmd, "give"), self.street(cmd, "get")
        self.own(state, p, give)
        other = state.owner(get)
        if other is None:
            raise Refusal("no_owner_to_sell", street=get)
        if other == p:
            raise Refusal("own_street", street=get)
        named = cmd.intent.get("player")
        if named is not None and named != other:
            raise Refusal("not_their_street", street=get, player=Who(str(named)),
                          owner=Who(other))
        self.other_player(state, p, other)
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
        d = state.debt
        if d is not None:
            out.say("debt_status", player=Who(d.debtor), to=Who(d.creditor),
                    amount=Money(d.amount), missing=Money(max(d.amount - state.cash(d.debtor), 0)))

    def do_guesses(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if not self.virtual(state):
            return Outcome().say("guesses_physical")
        if not state.guessed:
            return Outcome().say("guesses_none")
        return Outcome().say("guesses", numbers=", ".join(str(n) for n in sorted(state.guessed)),
                             left=", ".join(str(n) for n in range(1, 7)
                                            if n not in state.guessed))

    def do_supply(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        who = str(cmd.intent.get("player") or cmd.player)
        if who not in state.players:
            raise Refusal("not_playing", player=Who(who))
        pl = state.players[who]
        placed = sum(state.streets[n].hotels for n in state.owned_by(who))
        card = "the Get Out of Jail Free card" if pl.count("jail_card") else "no jail card"
        return Outcome().say("supply", player=Who(who), hotels=counted(pl.count("hotel"), "hotel"),
                             placed=placed, keys=counted(pl.count("key"), "key"), card=card)
