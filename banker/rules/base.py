"""The rules every edition shares, and the helpers edition modules build on.

``Rules.decide(state, command, draws)`` validates a command against the state and returns an
``Outcome`` (events + lines), or raises ``Refusal`` with a stable code. It never mutates the
state. Edition modules subclass ``Rules`` and add or override ``do_<intent>`` methods.

The base plays buying, auctions, "pay"/"collect", GO, jail, Chance cards and unavoidable
payments; an edition changes them through small hooks rather than by copying handlers:
who is paid (``purchase_account``, ``pay_account``, ``bail_account``, ``fine_account``), how
money comes from the bank (``from_bank``, ``salary``), what makes a street unavailable
(``unowned``), a purchase (``acquire``) and what happens when an unavoidable payment can't be
made (``shortfall``). Chance effects are ``effect_<name>`` methods, one per effect key.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from banker.editions.model import Edition
from banker.rules.events import (
    CashMoved,
    Drawn,
    Event,
    GameEnded,
    ItemsMoved,
    JailChanged,
    OwnerChanged,
    fold,
)
from banker.rules.invariants import COMMON, Validator
from banker.rules.outcome import (
    QUERIES,
    AllOf,
    Command,
    Draws,
    Intent,
    Line,
    Money,
    Outcome,
    Refusal,
    Who,
)
from banker.rules.owing import Owing
from banker.rules.state import GameState, Holding, Player

TABLE_INTENTS = frozenset({"add_player", "remove_player"})  # every edition: see ``table.py``
# What a space gives or takes when you land on it: refused in jail, where you haven't moved
# (passing GO has its own refusal, ``jail_no_go``).
LANDING = frozenset({"chance", "tax", "free_parking", "guess", "pay_to_guess", "train_ride"})

Handler = Callable[[GameState, Command, Draws], Outcome]


def counted(n: int, noun: str) -> str:
    """ "1 key", "2 hotels", "no hotels": counts said the way people say them."""
    if n == 1:
        return f"1 {noun}"
    return f"{n if n else 'no'} {noun}s"


def places(ranking: list[tuple[str, int]]) -> list[tuple[int, str, int]]:
    """(place, token, value) from best to worst; equal values share a place ("Number 1: T-Rex
    … Number 1: Racecar …" for a tie), the next one counts those above it."""
    return [(1 + sum(1 for _, w in ranking if w > v), t, v) for t, v in ranking]


class Rules(Owing):
    """Rules common to all editions. Subclasses set ``edition`` data and override handlers."""

    #: intents this edition accepts (beyond the queries every edition has)
    intents: frozenset[str] = frozenset()
    #: invariants every state of this edition keeps (``invariants.check`` runs them)
    validators: tuple[Validator, ...] = COMMON
    #: who is paid for a street bought or won at auction; "pay N" with nobody named; bail;
    #: Chance fines and repairs
    purchase_account = "bank"
    pay_account = "bank"
    bail_account = "bank"
    fine_account = "bank"
    #: jail tracked (Secret Vault, Jackpot) or only acknowledged (Voice Banking)
    jail_tracked = True
    #: where a used Get Out of Jail Free card goes (``box``, or ``deck`` for a card deck)
    card_home = "box"
    #: reply keys that differ between editions
    bail_key = "bail_paid"
    doubles_key = "jail_doubles"
    salary_key = "pass_go"
    buy_short_code = "cannot_afford"
    #: where buildings go when a street returns to the bank (None: they are only markers)
    building_stock: str | None = "box"

    def __init__(self, edition: Edition) -> None:
        self.edition = edition

    # --- set-up ---------------------------------------------------------------------------
    def initial_state(self, players: Sequence[str], options: dict[str, str], seed: int) -> GameState:
        ed = self.edition
        state = GameState(
            edition=ed,
            options={**ed.option_defaults(), **options},
            order=list(players),
            players={t: Player(t, ed.start_cash) for t in players},
            streets={s.name: Holding() for s in ed.streets},
            seed=seed,
        )
        if ed.money_total is not None:
            state.bank = ed.money_total - ed.start_cash * len(players)
        self.setup(state)
        return state

    def setup(self, state: GameState) -> None:
        """Edition-specific initial contents (stock, vault, deck). Mutates the new state."""

    # --- the one entry point --------------------------------------------------------------
    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        draws = draws if draws is not None else Draws()
        name = cmd.name
        if cmd.player not in state.players:
            raise Refusal("not_playing", player=Who(cmd.player))
        if name not in QUERIES:
            if state.game_over:
                raise Refusal("game_over")
            if state.players[cmd.player].out:
                raise Refusal("player_out", player=Who(cmd.player))
            if name in LANDING and self.jailed(state, cmd.player):
                raise Refusal("jail_landing", player=Who(cmd.player))
        handler: Handler | None = getattr(self, "do_" + name, None)
        if handler is None or (name not in QUERIES and name not in self.intents
                               and name not in TABLE_INTENTS):
            raise Refusal("not_in_edition")
        out = handler(state, cmd, draws)
        if out.events and self.debts_paid_when_covered and name not in QUERIES:
            self.settle_covered(state, out)
        if out.events:
            out.participants.add(cmd.player)
            for e in out.events:
                if isinstance(e, CashMoved):
                    out.participants.update(a for a in (e.src, e.dst) if a in state.players)
        return out

    # --- helpers for handlers -------------------------------------------------------------
    def street(self, cmd: Command, slot: str = "property") -> str:
        """The street named in ``slot``, checked to be on this board."""
        name = cmd.intent.get(slot)
        if not name:
            raise Refusal("which_street")
        if name not in self.edition.street_names:
            raise Refusal("not_on_board", street=name)
        return str(name)

    def rent_owner(self, state: GameState, cmd: Command) -> tuple[str, str]:
        """(street, owner) for "pay rent on X": refused when nobody or the payer owns it."""
        street = self.street(cmd)
        owner = state.owner(street)
        if owner is None:
            raise Refusal("no_owner", street=street)
        if owner == cmd.player:
            raise Refusal("own_street", street=street)
        return street, owner

    def amount(self, cmd: Command, slot: str = "amount") -> int:
        value = cmd.intent.get(slot)
        if value is None:
            raise Refusal("which_amount")
        value = int(value)
        if value <= 0:
            raise Refusal("bad_amount", amount=Money(value))
        if value > 1_000_000:
            raise Refusal("too_much")  # the amount itself is not repeated: it may be 400 digits
        return value

    def draw(self, state: GameState, draws: Draws, what: str, choices: Sequence[str],
             forced_ok: Callable[[str], bool] | None = None) -> tuple[str, Event]:
        """One random draw of ``what`` among ``choices``: forced by ``next:`` or seeded."""
        if what in draws.forced and what not in draws.used:
            value = str(draws.forced[what])
            draws.used.add(what)
            if value in choices or (forced_ok and forced_ok(value)):
                draws.made += 1
                return value, Drawn(what, value)
        rng = random.Random(f"{state.seed}/{state.draws + draws.made}/{what}")
        draws.made += 1
        value = rng.choice(list(choices))
        return value, Drawn(what, value)

    def require_cash(self, state: GameState, player: str, amount: int, code: str = "cannot_afford",
                     **params: Any) -> None:
        """Refuse a payment the player chose to make but can't afford."""
        cash = state.cash(player)
        if cash < amount:
            raise Refusal(code, amount=Money(amount), cash=Money(cash),
                          missing=Money(amount - cash), **params)

    def can_bid(self, state: GameState, player: str) -> str | None:
        """Why ``player`` may not bid in an auction now (a refusal code), or None."""
        return None

    def check_amount(self, n: int) -> None:
        """An edition's rule on amounts said by hand (Jackpot: whole $100 bills)."""

    # --- streets: buy and auction -----------------------------------------------------------
    def unowned(self, state: GameState, street: str) -> None:
        """Refused unless ``street`` can be bought or auctioned now."""
        owner = state.owner(street)
        if owner is not None:
            raise Refusal("already_owned", street=street, player=Who(owner))

    def own(self, state: GameState, player: str, street: str) -> None:
        """Refused unless ``player`` owns ``street`` (to build, sell, mortgage or give it)."""
        if state.owner(street) != player:
            raise Refusal("not_your_street", street=street)

    def do_buy(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        self.unowned(state, street)
        price = self.edition.street(street).price
        self.require_cash(state, cmd.player, price, code=self.buy_short_code, street=street)
        return self.acquire(state, cmd, street, price, "bought")

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
        return self.acquire(state, cmd, street, amount, "sold")

    def acquire(self, state: GameState, cmd: Command, street: str, price: int,
                key: str) -> Outcome:
        """``cmd.player`` pays ``price`` to ``purchase_account`` and owns ``street``."""
        p = cmd.player
        out = Outcome(events=[*self.pay(p, self.purchase_account, price),
                              OwnerChanged(street, p)])
        return out.say(key, player=Who(p), street=street, amount=Money(price),
                       cash=Money(state.cash(p) - price))

    # --- money by hand, money from the bank -------------------------------------------------
    def do_pay(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"pay N" to ``pay_account``, or to a named player still in the game (a player out
        of the game is refused, with the reason, as a deal with them is)."""
        p, n = cmd.player, self.amount(cmd)
        self.check_amount(n)
        to = cmd.intent.get("player") or self.pay_account
        if to == p:
            raise Refusal("pay_self")
        if to != self.pay_account and to not in state.players:
            raise Refusal("not_playing", player=Who(to))
        if to in state.players and state.players[to].out:  # as deals: the money would vanish
            raise Refusal("player_out", player=Who(to))
        self.require_cash(state, p, n)
        into = n if to == "jackpot" else 0
        return Outcome(events=self.pay(p, to, n)).say(
            "paid_player" if to != self.pay_account else f"paid_{self.pay_account}",
            player=Who(p), to=Who(to), amount=Money(n), cash=Money(state.cash(p) - n),
            jackpot=Money(state.jackpot + into))

    def do_collect(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        n = self.amount(cmd)
        self.check_amount(n)
        return self.from_bank(state, cmd.player, n, "collected")

    def from_bank(self, state: GameState, p: str, n: int, key: str) -> Outcome:
        """The bank pays ``p``; an edition with a finite bank pays what it has."""
        return Outcome(events=self.pay("bank", p, n)).say(
            key, player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))

    def salary(self, state: GameState, p: str, key: str, n: int | None = None) -> Outcome:
        """Passing (or advancing to) GO."""
        return self.from_bank(state, p, self.edition.fees["pass_go"] if n is None else n, key)

    def do_pass_go(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if self.jailed(state, cmd.player):
            raise Refusal("jail_no_go", player=Who(cmd.player))
        return self.salary(state, cmd.player, self.salary_key)

    # --- jail: one for every edition --------------------------------------------------------
    def jailed(self, state: GameState, player: str) -> bool:
        return self.jail_tracked and state.players[player].in_jail

    def released(self, p: str) -> list[Event]:
        return [JailChanged(p, False, 0)] if self.jail_tracked else []

    def do_go_to_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Tracked jail: a second "go to jail" changes nothing (refused, with the reason)."""
        p = cmd.player
        if not self.jail_tracked:
            return Outcome().say("go_to_jail", player=Who(p))
        if self.jailed(state, p):
            raise Refusal("already_in_jail", player=Who(p))
        return Outcome(events=[JailChanged(p, True, 0)]).say("go_to_jail", player=Who(p))

    def return_card(self, state: GameState, p: str) -> list[Event]:
        """The used Get Out of Jail Free card goes home (the box; a deck's bottom)."""
        return [ItemsMoved("jail_card", p, self.card_home)]

    def before_bail(self, state: GameState, p: str) -> None:
        """An edition's reason to refuse bail before the fee is looked at."""

    def do_get_out_of_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The Get Out of Jail Free card first if held (it's free); else bail, a fee the player
        chooses, so it is refused when short."""
        p = cmd.player
        if self.jail_tracked and not self.jailed(state, p):
            raise Refusal("not_in_jail", player=Who(p))
        if state.players[p].count("jail_card"):
            return Outcome(events=[*self.return_card(state, p), *self.released(p)]).say(
                "jail_card_used", player=Who(p))
        self.before_bail(state, p)
        fee = self.edition.fees["bail"]
        self.require_cash(state, p, fee)
        return Outcome(events=[*self.pay(p, self.bail_account, fee), *self.released(p)]).say(
            self.bail_key, player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))

    def do_leave_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"I rolled doubles": in jail, a free release."""
        p = cmd.player
        if self.jailed(state, p):
            return Outcome(events=[JailChanged(p, False, 0)]).say(self.doubles_key, player=Who(p))
        return self.doubles_outside(state, p)

    def doubles_outside(self, state: GameState, p: str) -> Outcome:
        raise Refusal("not_in_jail", player=Who(p))

    def do_third_roll(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"That was my third roll": bail is owed, not chosen. The Get Out of Jail Free card
        if held; else the bail is a payment the player can't refuse, so short of cash it is
        the edition's shortfall (Voice Banking: all cash and a street; Secret Vault: an open
        debt). Either way the player leaves jail and moves by that roll."""
        p = cmd.player
        if self.jail_tracked and not self.jailed(state, p):
            raise Refusal("not_in_jail", player=Who(p))
        if state.players[p].count("jail_card"):
            return Outcome(events=[*self.return_card(state, p), *self.released(p)]).say(
                "jail_card_used", player=Who(p))
        fee = self.edition.fees["bail"]
        out = self.owe(state, cmd, [(self.bail_account, fee)], self.bail_key, "bail")
        out.events += self.released(p)
        out.lines.insert(0, Line("third_roll", {"player": Who(p), "amount": Money(fee)}))
        return out

    def rent(self, state: GameState, street: str) -> int:
        raise NotImplementedError

    def rent_due(self, state: GameState, street: str, owner: str) -> None:
        """An edition's reason that no rent is due on ``street`` (refused)."""

    def do_pay_rent(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street, owner = self.rent_owner(state, cmd)
        self.rent_due(state, street, owner)
        return self.owe(state, cmd, [(owner, self.rent(state, street))], "rent_paid",
                        reason=f"rent on {street}", street=street)

    # --- Chance cards: one dispatcher, one method per effect --------------------------------
    def card_effect(self, state: GameState, cmd: Command, card_id: str) -> Outcome:
        """The effect of ``card_id`` for ``cmd.player`` (``cmd`` carries the card, so a
        question it asks is decided again with the same card)."""
        for name, value in self.edition.card(card_id).effect.items():
            handler: Callable[[GameState, Command, str, Any], Outcome] | None = getattr(
                self, "effect_" + name, None)
            if handler is not None:
                return handler(state, cmd, card_id, value)
        return Outcome()

    def chance_line(self, card_id: str) -> Line:
        return Line("chance_card", {"title": self.edition.card(card_id).title})

    def effect_collect(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        return self.from_bank(state, cmd.player, int(n), "collected")

    def effect_advance_go(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        return self.salary(state, cmd.player, "advance_go", int(n))

    def effect_pay(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        return self.owe(state, cmd, [(self.fine_account, int(n))], "paid", f"card {card}")

    def effect_repairs(self, state: GameState, cmd: Command, card: str, rates: Any) -> Outcome:
        p, rates = cmd.player, dict(rates)
        houses = sum(state.streets[n].houses for n in state.owned_by(p))
        hotels = sum(state.streets[n].hotels for n in state.owned_by(p))
        n = houses * int(rates.get("house", 0)) + hotels * int(rates.get("hotel", 0))
        if n == 0:
            return Outcome().say("repairs_none", player=Who(p))
        to = str(rates.get("into", self.fine_account))
        return self.owe(state, cmd, [(to, n)], self.repairs_key, f"card {card}",
                        hotels=counted(hotels, "hotel"))

    repairs_key = "paid"

    def effect_pay_each(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        debts = [(o, int(n)) for o in state.left_of(cmd.player)]
        return self.owe(state, cmd, debts, "paid_player", f"card {card}", partial=True)

    def effect_collect_each(self, state: GameState, cmd: Command, card: str, n: Any) -> Outcome:
        return self.collect_each(state, cmd.player, int(n))

    def effect_advance(self, state: GameState, cmd: Command, card: str, street: Any) -> Outcome:
        return Outcome().say("advance", player=Who(cmd.player), street=str(street))

    def effect_jail(self, state: GameState, cmd: Command, card: str, _: Any) -> Outcome:
        if self.jailed(state, cmd.player):  # a card can't be refused: it just changes nothing
            return Outcome().say("already_in_jail", player=Who(cmd.player))
        return self.do_go_to_jail(state, Command(cmd.player, Intent("go_to_jail")), Draws())

    def effect_jail_free(self, state: GameState, cmd: Command, card: str, _: Any) -> Outcome:
        return Outcome(events=[ItemsMoved("jail_card", self.card_home, cmd.player)]).say(
            "jail_card_received", player=Who(cmd.player))

    # --- players joining or leaving between turns (``table.py``) -----------------------------
    def do_add_player(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        from banker.rules.table import add_player

        return add_player(self, state, cmd)

    def do_remove_player(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        from banker.rules.table import remove_player

        return remove_player(self, state, cmd)

    # --- end of game ----------------------------------------------------------------------
    def measure(self, state: GameState, player: str) -> int:
        """The edition's final measure for ranking ("who's winning"). Default: cash."""
        return state.cash(player)

    def ranking(self, state: GameState) -> list[tuple[str, int]]:
        players = [t for t in state.order if not state.players[t].out]
        return sorted(((t, self.measure(state, t)) for t in players), key=lambda x: -x[1])

    def end_game(self, state: GameState, events: list[Event], out: Outcome) -> None:
        """Append the game's end to ``out``: winners by the measure after ``events``."""
        self.close_game(self.ranking(fold(state, events)), events, out)

    @staticmethod
    def close_game(ranking: list[tuple[str, int]], events: list[Event], out: Outcome) -> None:
        """Append ``GameEnded`` for the top of ``ranking`` and announce it place by place."""
        top = ranking[0][1] if ranking else 0
        winners = tuple(t for t, v in ranking if v == top)
        events.append(GameEnded(winners))
        out.say("game_over")
        for place, t, v in places(ranking):
            out.say("ranking_line", place=place, player=Who(t), amount=Money(v))
        if len(winners) > 1:
            out.say("winners_tie", players=AllOf(Who(w) for w in winners))
        else:
            out.say("winner", player=Who(winners[0]) if winners else Who(""))

    # --- queries every edition answers ----------------------------------------------------
    def do_balance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        who = cmd.intent.get("player") or cmd.player
        if who not in state.players:
            raise Refusal("not_playing", player=Who(who))
        return Outcome().say("balance", player=Who(who), cash=Money(state.cash(who)))

    def do_owner(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        owner = state.owner(street)
        if owner is None:
            return Outcome().say("owner_none", street=street)
        return Outcome().say("owner", street=street, player=Who(owner))

    def do_status(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        out = Outcome()
        for place, t, v in places(self.ranking(state)):
            out.say("ranking_line", place=place, player=Who(t), amount=Money(v))
        self.status_extra(state, out)
        return out

    def status_extra(self, state: GameState, out: Outcome) -> None:
        """Edition-specific status lines (vault, Jackpot, Bank)."""
