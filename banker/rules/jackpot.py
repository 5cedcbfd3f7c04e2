"""Monopoly Jackpot: the spinner edition (seed 002, ``editions.md`` "Jackpot").

What sets it apart, and where it lives here:

- a **finite Bank** (``state.bank``) that only ever pays: GO, "collect", pay-outs and the Hot
  House bonus. It pays in order and what it has left; the game ends the moment it reaches $0
  (``_Ledger.from_bank`` and ``_finish``);
- the **Jackpot**, fed by purchases, auctions, bail, "pay", the "pay jackpot" and "bankrupt"
  outcomes, and emptied by Free Parking and the "jackpot" outcome;
- **houses mark ownership**: an owned street has ``houses == 1``; each player has 10, so an
  11th street means moving a house (a question; nothing is refunded);
- **Chance is a betting round**: "chance" opens it (``Outcome.hold``), bets move cash to
  ``stake:<token>``, and only the taker's "spin" / "the spinner says ..." settles it. The Session
  gathers the round into one transaction and tells us the taker in the ``held_by`` slot;
- **nobody is ever out**: short of rent you keep your cash and give a street (or, with no
  street, all your cash).

Decisions where the rulebook is silent are in the docstrings below and in
``config/editions/jackpot.yaml``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from banker.rules.base import Rules
from banker.rules.events import (
    BuildingsChanged,
    CashMoved,
    Event,
    JailChanged,
    OwnerChanged,
    apply_in_place,
)
from banker.rules.outcome import Command, Draws, Hold, Intent, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState

BETTING = frozenset({"bet", "spin", "spinner"})
CHOICE_INTENTS = {"build house": "build_house", "steal house": "steal_house",
                  "swap house": "swap_house", "swap cash": "swap_cash"}
GIVE_UP = frozenset({"none", "cancel"})
STEP = 100  # every amount in this game is a number of $100 bills


class _Ledger:
    """The events of one decision, applied as they are added to a working copy of the state,
    so each of Mr. Monopoly's lines can say the balance it leads to."""

    def __init__(self, state: GameState, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = []
        self.after = state.clone()
        for e in events:
            self.add(e)

    def add(self, *events: Event) -> None:
        for e in events:
            self.events.append(e)
            apply_in_place(self.after, e)

    def move(self, src: str, dst: str, amount: int) -> None:
        if amount > 0:
            self.add(CashMoved(src, dst, amount))

    def from_bank(self, to: str, amount: int) -> int:
        """The Bank pays ``amount``, or all it has left. Returns what was paid."""
        left = self.after.bank
        paid = amount if left is None else max(0, min(amount, left))
        self.move("bank", to, paid)
        return paid

    @property
    def dry(self) -> bool:
        return self.after.bank is not None and self.after.bank <= 0

    def cash(self, token: str) -> Money:
        return Money(self.after.cash(token))


class JackpotRules(Rules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "bet", "spin", "spinner",
        "build_house", "steal_house", "swap_house", "swap_cash", "pass_go", "get_out_of_jail",
        "go_to_jail", "leave_jail", "no_doubles", "free_parking", "pay", "collect", "bankrupt",
    })
    auction_payee = "jackpot"

    # --- edition data ---------------------------------------------------------------------
    @property
    def cap(self) -> int:
        """Houses per player = most streets one player can own."""
        return int(self.edition.stock["houses_per_player"])

    @property
    def outcomes(self) -> list[str]:
        return [str(o) for o in self.edition.extra.get("spinner_outcomes", [])]

    @property
    def segments(self) -> list[str]:
        return [str(o) for o in self.edition.extra.get("spinner_segments", self.outcomes)]

    def payout(self, outcome: str) -> int:
        table: Mapping[str, Any] = self.edition.extra.get("payout", {})
        return int(table.get(outcome, 0))

    def hot_house_bonus(self, state: GameState, street: str, owner: str) -> int:
        mult: Mapping[str, Any] = self.edition.extra.get("hot_house", {"one": 2, "pair": 4})
        key = "pair" if state.owns_set(owner, street) else "one"
        return int(mult.get(key, 2)) * self.edition.street(street).price

    def rent(self, state: GameState, street: str) -> int:
        s, owner = self.edition.street(street), state.owner(street)
        return s.rent["pair"] if owner and state.owns_set(owner, street) else s.rent["base"]

    # --- small helpers --------------------------------------------------------------------
    def hundreds(self, n: int) -> None:
        if n % STEP:
            raise Refusal("hundreds", amount=Money(n), step=Money(STEP))

    def jailed(self, state: GameState, player: str) -> bool:
        return state.players[player].in_jail

    def full(self, state: GameState, player: str) -> bool:
        """True when all of ``player``'s houses are on the board (a new street needs a move)."""
        return len(state.owned_by(player)) >= self.cap

    @staticmethod
    def owner_to(state: GameState, street: str, to: str | None) -> list[Event]:
        """A street changes hands; its house marker follows (``houses`` is 1 when owned)."""
        h = state.streets[street]
        if to is None:
            return [BuildingsChanged(street, 0, 0), OwnerChanged(street, None)] if h.owner else []
        if h.owner is None:
            return [OwnerChanged(street, to), BuildingsChanged(street, 1, 0)]
        return [OwnerChanged(street, to)] if h.owner != to else []

    def ask(self, key: str, asked: str, slot: str, then: Command, choices: Iterable[str],
            cancellable: bool = True, **params: Any) -> Question:
        """A rules question that never lapses; "cancel" gives up the choice (if cancellable)."""
        return Question(key, asked, slot, then, tuple(choices), lapses=False,
                        params={"cancellable": cancellable, **params})

    def room(self, state: GameState, cmd: Command, who: str, slot: str, key: str,
             **params: Any) -> tuple[str | None, Question | None]:
        """Make room for one more street of ``who``: (street to vacate or "none", question).

        ("", None): there is room. (None, question): ask which house to move. ("none", None):
        they chose not to move a house.
        """
        if not self.full(state, who):
            return "", None
        choice = cmd.intent.get(slot)
        owned = state.owned_by(who)
        if choice is None:
            return None, self.ask(key, who, slot, cmd, [*owned, "none"], player=Who(who),
                                  count=self.cap, **params)
        if choice in GIVE_UP:
            return "none", None
        if choice not in owned:
            raise Refusal("not_your_street", street=choice)
        return str(choice), None

    def _finish(self, state: GameState, ledger: _Ledger, out: Outcome) -> Outcome:
        """Close a decision: its events, and the game's end if the Bank has run dry."""
        out.events = ledger.events
        if ledger.dry and not ledger.after.game_over and ledger.events:
            out.say("bank_dry")
            self.end_game(state, out.events, out)
        return out

    # --- streets --------------------------------------------------------------------------
    def unowned(self, state: GameState, street: str) -> None:
        owner = state.owner(street)
        if owner is not None:
            raise Refusal("already_owned", street=street, player=Who(owner))

    def do_buy(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Buy at the board price into the Jackpot. Too little cash: refused ("auction it").
        An 11th street asks which house to move; "none"/"cancel" gives up the purchase."""
        p, street = cmd.player, self.street(cmd)
        self.unowned(state, street)
        price = self.edition.street(street).price
        self.require_cash(state, p, price, code="cannot_afford_buy", street=street)
        return self._acquire(state, cmd, street, price, "bought")

    def do_auction(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        self.unowned(state, street)
        return Outcome(auctions=[street])

    def do_auction_close(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The highest bidder pays into the Jackpot. With 10 streets they are asked which house
        to move; giving that up leaves the street unowned and costs nothing."""
        street = self.street(cmd)
        amount = int(cmd.intent.get("amount", 0))
        self.unowned(state, street)
        self.require_cash(state, cmd.player, amount)
        return self._acquire(state, cmd, street, amount, "sold")

    def _acquire(self, state: GameState, cmd: Command, street: str, price: int,
                 key: str) -> Outcome:
        p = cmd.player
        vacate, question = self.room(state, cmd, p, "give", "ask_move_house", street=street)
        if question is not None:
            return Outcome(question=question)
        if vacate == "none":
            return Outcome().say("purchase_given_up", player=Who(p), street=street)
        ledger = _Ledger(state)
        out = Outcome()
        if vacate:
            ledger.add(*self.owner_to(ledger.after, vacate, None))
            out.say("house_moved", player=Who(p), street=vacate)
        ledger.move(p, "jackpot", price)
        ledger.add(*self.owner_to(ledger.after, street, p))
        out.say(key, player=Who(p), street=street, amount=Money(price), cash=ledger.cash(p),
                jackpot=Money(ledger.after.jackpot))
        return self._finish(state, ledger, out)

    # --- rent -----------------------------------------------------------------------------
    def do_pay_rent(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Rent = price, 2 x price for the pair; none while the owner is in jail. Short of cash:
        keep it and give the owner a street of your choice (asked); with no street, pay all
        your cash. An owner with 10 streets is asked which to vacate, or "none"."""
        p = cmd.player
        street, owner = self.rent_owner(state, cmd)
        if self.jailed(state, owner):
            raise Refusal("owner_in_jail", street=street, player=Who(owner))
        rent = self.rent(state, street)
        cash = state.cash(p)
        ledger = _Ledger(state)
        out = Outcome()
        if cash >= rent:
            ledger.move(p, owner, rent)
            out.say("rent_paid", player=Who(p), to=Who(owner), street=street, amount=Money(rent),
                    cash=ledger.cash(p))
            return self._finish(state, ledger, out)
        owned = state.owned_by(p)
        if not owned:
            ledger.move(p, owner, cash)
            out.say("short_no_street", player=Who(p), to=Who(owner), amount=Money(cash),
                    owed=Money(rent))
            return self._finish(state, ledger, out)
        give = cmd.intent.get("give")
        params: dict[str, Any] = {"player": Who(p), "amount": Money(rent), "cash": Money(cash),
                                  "to": Who(owner), "streets": owned}
        if give is None or give in GIVE_UP:
            # "cancel" gets the question again: a debt can't be talked away
            out = Outcome(question=self.ask("ask_give_street", p, "give",
                                            Command(p, cmd.intent.with_slots(give=None)), owned,
                                            **params))
            return out.say("refused.must_give", **params) if give else out
        if give not in owned:
            raise Refusal("must_give", **params)
        give = str(give)
        vacate, question = self.room(state, cmd, owner, "get", "ask_vacate", street=give)
        if question is not None:
            return Outcome(question=question)
        out.say("short_street", player=Who(p), to=Who(owner), street=give, amount=Money(rent),
                cash=Money(cash))
        self._receive(ledger, out, give, owner, vacate)
        return self._finish(state, ledger, out)

    def _receive(self, ledger: _Ledger, out: Outcome, street: str, to: str,
                 vacate: str | None) -> None:
        """``to`` takes ``street``, first moving a house off ``vacate`` (or leaving ``street``
        unowned when they said "none")."""
        if vacate == "none":
            ledger.add(*self.owner_to(ledger.after, street, None))
            out.say("left_unowned", player=Who(to), street=street)
            return
        if vacate:
            ledger.add(*self.owner_to(ledger.after, vacate, None))
            out.say("house_moved", player=Who(to), street=vacate)
        ledger.add(*self.owner_to(ledger.after, street, to))

    # --- Chance: the betting round --------------------------------------------------------
    def betting(self, taker: str) -> Hold:
        return Hold("betting", taker, BETTING)

    def taker(self, cmd: Command, only_taker: bool) -> str:
        """The player who took the chance now being bet on (the Session's ``held_by``)."""
        taker = cmd.intent.get("held_by")
        if not taker:
            raise Refusal("no_betting")
        if only_taker and cmd.player != taker:
            raise Refusal("only_taker", player=Who(taker))
        return str(taker)

    def do_chance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Opens the betting round. Players in jail can't take a chance (nor bet)."""
        if self.jailed(state, cmd.player):
            raise Refusal("jail_no_chance", player=Who(cmd.player))
        return Outcome(hold=self.betting(cmd.player)).say("place_bets", player=Who(cmd.player))

    def do_bet(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A bet of whole $100 bills up to the bettor's cash (plus a stake being replaced). A
        second bet replaces the first; "bet 0", "no bet" (no amount) withdraw."""
        taker = self.taker(cmd, only_taker=False)
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("jail_no_bet", player=Who(p))
        raw = cmd.intent.get("amount")
        n = int(raw) if raw is not None else 0
        if n < 0:
            raise Refusal("bad_amount", amount=Money(n))
        self.hundreds(n)
        old = state.stakes.get(p, 0)
        available = state.cash(p) + old
        if n > available:
            raise Refusal("bet_too_high", amount=Money(n), cash=Money(available))
        ledger = _Ledger(state)
        if n > old:
            ledger.move(p, f"stake:{p}", n - old)
        else:
            ledger.move(f"stake:{p}", p, old - n)
        out = Outcome(events=ledger.events, hold=self.betting(taker))
        if n:
            return out.say("bet_placed" if not old else "bet_changed", player=Who(p),
                           amount=Money(n), cash=ledger.cash(p))
        return out.say("bet_withdrawn" if old else "no_bet", player=Who(p), cash=ledger.cash(p))

    def do_spin(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The virtual spinner: one of the 16 segments and one of the 16 streets (Hot House),
        each uniformly at random; recorded as draws so replay never re-draws."""
        taker = self.taker(cmd, only_taker=True)
        outcome, e1 = self.draw(state, draws, "spin", self.segments,
                                forced_ok=lambda v: v in self.outcomes)
        hot, e2 = self.draw(state, draws, "hot_house", self.edition.street_names,
                            forced_ok=lambda v: v == "none")
        return self.settle(state, taker, outcome, None if hot == "none" else hot, [e1, e2])

    def do_spinner(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The physical spinner's result said aloud (outcome, and the Hot House if any)."""
        taker = self.taker(cmd, only_taker=True)
        outcome = cmd.intent.get("outcome")
        if not outcome or str(outcome) not in self.outcomes:
            raise Refusal("which_outcome")
        hot = cmd.intent.get("property")
        if hot is not None and hot not in self.edition.street_names:
            raise Refusal("not_on_board", street=hot)
        return self.settle(state, taker, str(outcome), hot, [])

    def settle(self, state: GameState, taker: str, outcome: str, hot: str | None,
               drawn: list[Event]) -> Outcome:
        """Everything the spin decides, in the seed's order: the Hot House bonus first, then
        the outcome (pay-outs from the taker round to the left). Outcomes needing a choice
        return every stake first and ask; the round's transaction stays open until answered."""
        ledger = _Ledger(state, drawn)
        out = Outcome().say("spin_result", outcome=outcome, player=Who(taker))
        if hot is not None:
            self._hot_house(ledger, out, hot)
        order = [taker, *state.left_of(taker)]
        stakes = {t: state.stakes[t] for t in order if state.stakes.get(t, 0) > 0}
        if outcome in CHOICE_INTENTS:
            self._stakes_back(ledger, out, stakes)
            question = None if ledger.dry else self._choice(ledger.after, taker, outcome, out)
            if question is not None:
                out.events, out.question = ledger.events, question
                out.hold = Hold("betting", taker, frozenset())  # only the answer goes on
                return out
            if ledger.dry:
                out.say("choice_skipped", player=Who(taker))
            return self._finish(state, ledger, out)
        mult = self.payout(outcome)
        if not stakes and (mult or outcome in ("pass left", "pass right", "pay jackpot")):
            out.say("no_bets")
        elif mult:
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", t, s)
                paid = ledger.from_bank(t, mult * s)
                key = "payout" if paid == mult * s else "payout_short" if paid else "payout_none"
                out.say(key, player=Who(t),
                        amount=Money(paid), owed=Money(mult * s), stake=Money(s),
                        cash=ledger.cash(t))
        elif outcome in ("pass left", "pass right"):
            self._pass(ledger, out, stakes, left=outcome == "pass left")
        elif outcome == "pay jackpot":
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", "jackpot", s)
            out.say("stakes_to_jackpot", amount=Money(sum(stakes.values())),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "go to jail":
            ledger.move(f"stake:{taker}", "jackpot", stakes.get(taker, 0))
            self._stakes_back(ledger, out, {t: s for t, s in stakes.items() if t != taker})
            ledger.add(JailChanged(taker, True, 0))
            out.say("spin_jail", player=Who(taker), amount=Money(stakes.get(taker, 0)),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "bankrupt":
            lost = stakes.get(taker, 0) + ledger.after.cash(taker)
            ledger.move(f"stake:{taker}", "jackpot", stakes.get(taker, 0))
            ledger.move(taker, "jackpot", ledger.after.cash(taker))
            self._stakes_back(ledger, out, {t: s for t, s in stakes.items() if t != taker})
            out.say("spin_bankrupt", player=Who(taker), amount=Money(lost),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "jackpot":
            won = ledger.after.jackpot
            ledger.move("jackpot", taker, won)
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", taker, s)
            out.say("spin_jackpot", player=Who(taker), amount=Money(won),
                    stakes=Money(sum(stakes.values())), cash=ledger.cash(taker))
        return self._finish(state, ledger, out)

    def _hot_house(self, ledger: _Ledger, out: Outcome, street: str) -> None:
        owner = ledger.after.owner(street)
        if owner is None:
            out.say("hot_house_unowned", street=street)
        elif self.jailed(ledger.after, owner):
            out.say("hot_house_jail", street=street, player=Who(owner))
        else:
            bonus = self.hot_house_bonus(ledger.after, street, owner)
            paid = ledger.from_bank(owner, bonus)
            out.say("hot_house" if paid == bonus else "hot_house_short", street=street,
                    player=Who(owner), amount=Money(paid), owed=Money(bonus),
                    cash=ledger.cash(owner))

    def _stakes_back(self, ledger: _Ledger, out: Outcome, stakes: Mapping[str, int]) -> None:
        for t, s in stakes.items():
            ledger.move(f"stake:{t}", t, s)
            out.say("stake_back", player=Who(t), amount=Money(s), cash=ledger.cash(t))

    def _pass(self, ledger: _Ledger, out: Outcome, stakes: Mapping[str, int], left: bool) -> None:
        """Each bettor's stake goes to the next *bettor* that way (non-bettors are skipped);
        a lone bettor keeps their stake. ``stakes`` is in turn order from the taker."""
        bettors = list(stakes)
        if len(bettors) == 1:
            self._stakes_back(ledger, out, stakes)
            return
        if not left:  # said in the direction of the passing: the taker's side first
            bettors = bettors[:1] + bettors[:0:-1]
        for i, t in enumerate(bettors):
            to = bettors[(i + 1) % len(bettors)]
            ledger.move(f"stake:{t}", to, stakes[t])
            out.say("stake_passed", player=Who(t), to=Who(to), amount=Money(stakes[t]))
        for t in bettors:
            out.say("balance", player=Who(t), cash=ledger.cash(t))

    # --- Chance: outcomes that need the taker's choice ------------------------------------
    def _choice(self, state: GameState, taker: str, outcome: str, out: Outcome) -> Question | None:
        """The question an outcome asks (or None, with the reason said, when there's no choice)."""
        then = Command(taker, Intent(CHOICE_INTENTS[outcome], {"held_by": taker, "spun": outcome}))
        mine = state.owned_by(taker)
        theirs = [n for n in self.edition.street_names if state.owner(n) not in (None, taker)]
        if outcome == "build house":
            free = [n for n in self.edition.street_names if state.owner(n) is None]
            if free:
                return self.ask("ask_build", taker, "property", then, free, player=Who(taker))
            out.say("no_build", player=Who(taker))
        elif outcome == "steal house":
            if theirs:
                return self.ask("ask_steal", taker, "property", then, theirs, player=Who(taker))
            out.say("no_steal", player=Who(taker))
        elif outcome == "swap house":
            if mine and theirs:
                return self.ask("ask_swap_give", taker, "give", then, mine, player=Who(taker))
            out.say("no_swap", player=Who(taker))
        else:  # swap cash
            others = [t for t in state.left_of(taker)]
            if others:
                return self.ask("ask_swap_cash", taker, "player", then, others, player=Who(taker))
        return None

    def spun(self, cmd: Command, outcome: str) -> str:
        """The taker, if this command answers the spinner's ``outcome``; refused otherwise (the
        choice commands exist only as answers to the spin)."""
        if cmd.intent.get("spun") != outcome or not cmd.intent.get("held_by"):
            raise Refusal("only_on_spin", outcome=outcome)
        return str(cmd.intent.get("held_by"))

    def _choice_done(self, state: GameState, ledger: _Ledger, out: Outcome) -> Outcome:
        return self._finish(state, ledger, out)  # hold None: the round's transaction commits

    def _keep_asking(self, question: Question, taker: str) -> Outcome:
        return Outcome(question=question, hold=Hold("betting", taker, frozenset()))

    def do_build_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"build house": one of your houses on an unowned street, free. With all 10 houses
        out, one is moved (asked); "none" leaves the street unowned."""
        taker = self.spun(cmd, "build house")
        ledger, out = _Ledger(state), Outcome()
        if cmd.intent.get("property") in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        street = self.street(cmd)
        if state.owner(street) is not None:
            raise Refusal("already_owned", street=street, player=Who(state.owner(street) or ""))
        vacate, question = self.room(state, cmd, taker, "give", "ask_move_house", street=street)
        if question is not None:
            return self._keep_asking(question, taker)
        if vacate == "none":
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        self._receive(ledger, out, street, taker, vacate)
        out.say("built", player=Who(taker), street=street)
        return self._choice_done(state, ledger, out)

    def do_steal_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"steal house": another player's street becomes yours; their house goes back to their
        supply. A thief with 10 streets moves a house (asked) or says "none" (the street is
        then left unowned)."""
        taker = self.spun(cmd, "steal house")
        ledger, out = _Ledger(state), Outcome()
        if cmd.intent.get("property") in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        street = self.street(cmd)
        victim = state.owner(street)
        if victim is None or victim == taker:
            raise Refusal("steal_whose", street=street)
        vacate, question = self.room(state, cmd, taker, "give", "ask_vacate", street=street)
        if question is not None:
            return self._keep_asking(question, taker)
        out.say("stolen", player=Who(taker), street=street, other=Who(victim))
        self._receive(ledger, out, street, taker, vacate)
        return self._choice_done(state, ledger, out)

    def do_swap_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"swap house": one of your streets for another player's (asked one at a time, or
        both at once: "swap Baltic Avenue for Park Place")."""
        taker = self.spun(cmd, "swap house")
        ledger, out = _Ledger(state), Outcome()
        give, get = cmd.intent.get("give"), cmd.intent.get("get")
        if give in GIVE_UP or get in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        give = self.street(cmd, "give")
        if state.owner(give) != taker:
            raise Refusal("not_your_street", street=give)
        if get is None:
            theirs = [n for n in self.edition.street_names if state.owner(n) not in (None, taker)]
            return self._keep_asking(self.ask("ask_swap_get", taker, "get", cmd, theirs,
                                              player=Who(taker), street=give), taker)
        get = self.street(cmd, "get")
        other = state.owner(get)
        if other is None or other == taker:
            raise Refusal("swap_whose", street=get)
        ledger.add(OwnerChanged(give, other), OwnerChanged(get, taker))
        out.say("swapped_houses", player=Who(taker), give=give, get=get, other=Who(other))
        return self._choice_done(state, ledger, out)

    def do_swap_cash(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"swap cash": all of your cash for all of another player's (stakes already back)."""
        taker = self.spun(cmd, "swap cash")
        ledger, out = _Ledger(state), Outcome()
        other = cmd.intent.get("player")
        if other in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        if other not in state.players or other == taker or state.players[other].out:
            raise Refusal("swap_whom", player=Who(str(other or "")))
        mine, theirs = state.cash(taker), state.cash(other)
        ledger.move(taker, other, mine)
        ledger.move(other, taker, theirs)
        out.say("swapped_cash", player=Who(taker), other=Who(other), cash=ledger.cash(taker),
                other_cash=ledger.cash(other))
        return self._choice_done(state, ledger, out)

    # --- GO, jail, Free Parking -----------------------------------------------------------
    def do_pass_go(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("jail_no_go", player=Who(p))
        return self._from_bank(state, p, self.edition.fees["pass_go"], "pass_go")

    def _from_bank(self, state: GameState, p: str, n: int, key: str) -> Outcome:
        ledger, out = _Ledger(state), Outcome()
        paid = ledger.from_bank(p, n)
        out.say(key if paid == n else "bank_short", player=Who(p), amount=Money(paid),
                owed=Money(n), cash=ledger.cash(p))
        return self._finish(state, ledger, out)

    def do_go_to_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("already_in_jail", player=Who(p))
        return Outcome(events=[JailChanged(p, True, 0)]).say("go_to_jail", player=Who(p))

    def _in_jail(self, state: GameState, p: str) -> None:
        if not self.jailed(state, p):
            raise Refusal("not_in_jail", player=Who(p))

    def do_get_out_of_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Bail: $100 into the Jackpot, then roll (doubles give another turn)."""
        p = cmd.player
        self._in_jail(state, p)
        fee = self.edition.fees["bail"]
        self.require_cash(state, p, fee)
        return Outcome(events=[*self.pay(p, "jackpot", fee), JailChanged(p, False, 0)]).say(
            "bail_paid", player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))

    def do_leave_jail(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"I rolled doubles": free, move by this roll, no extra turn."""
        p = cmd.player
        self._in_jail(state, p)
        return Outcome(events=[JailChanged(p, False, 0)]).say("jail_doubles", player=Who(p))

    def do_no_doubles(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A failed try ("no doubles"), counted in ``jail_tries``; the third one frees the
        player for nothing (they move by that roll). Going to jail resets the count."""
        p = cmd.player
        self._in_jail(state, p)
        tries = state.players[p].jail_tries + 1
        limit = int(self.edition.extra.get("jail_tries", 3))
        if tries >= limit:
            return Outcome(events=[JailChanged(p, False, 0)]).say("jail_last_try", player=Who(p),
                                                                 tries=tries)
        return Outcome(events=[JailChanged(p, True, tries)]).say(
            "jail_try", player=Who(p), tries=tries, left=limit - tries)

    def can_bid(self, state: GameState, player: str) -> str | None:
        return "jail_no_bid" if self.jailed(state, player) else None

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, n = cmd.player, state.jackpot
        if n <= 0:
            return Outcome().say("jackpot_empty", player=Who(p))
        return Outcome(events=self.pay("jackpot", p, n)).say(
            "jackpot_taken", player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))

    # --- money by hand --------------------------------------------------------------------
    def do_pay(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"pay N" goes into the Jackpot (the Bank never takes money) or to a named player."""
        p, n = cmd.player, self.amount(cmd)
        self.hundreds(n)
        to = cmd.intent.get("player") or "jackpot"
        if to == p:
            raise Refusal("pay_self")
        if to != "jackpot" and to not in state.players:
            raise Refusal("not_playing", player=Who(to))
        self.require_cash(state, p, n)
        return Outcome(events=self.pay(p, to, n)).say(
            "paid_player" if to != "jackpot" else "paid_jackpot", player=Who(p), to=Who(to),
            amount=Money(n), cash=Money(state.cash(p) - n),
            jackpot=Money(state.jackpot + (n if to == "jackpot" else 0)))

    def do_collect(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"collect N" from the Bank: all it has left if that's less, and then the game ends."""
        n = self.amount(cmd)
        self.hundreds(n)
        return self._from_bank(state, cmd.player, n, "collected")

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        raise Refusal("never_out")

    # --- queries --------------------------------------------------------------------------
    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("jackpot_status", amount=Money(state.jackpot), bank=Money(state.bank or 0))
        if state.stakes:
            out.say("stakes_status", amount=Money(sum(state.stakes.values())))
