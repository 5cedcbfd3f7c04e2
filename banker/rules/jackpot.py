"""Monopoly Jackpot: the spinner edition (seed 002, ``editions.md`` "Jackpot").

What sets it apart, and where it lives here:

- a **finite Bank** (``state.bank``) that only ever pays: GO, "collect", pay-outs and the Hot
  House bonus. It pays in order and what it has left; the game ends the moment it reaches $0
  (``_Ledger.from_bank`` and ``_finish``, in ``jackpot_core.py``);
- the **Jackpot**, fed by purchases, auctions, bail, "pay", the "pay jackpot" and "bankrupt"
  outcomes, and emptied by Free Parking and the "jackpot" outcome;
- **houses mark ownership**: an owned street has ``houses == 1``; each player has 10, so an
  11th street means moving a house (a question; nothing is refunded);
- **Chance is a betting round** (``jackpot_spin.py``): "chance" opens it (``Outcome.hold``), bets move cash to
  ``stake:<token>``, and only the taker's "spin" / "the spinner says ..." settles it. The Session
  gathers the round into one transaction and tells us the taker in the ``held_by`` slot;
- **nobody is ever out**: short of rent you keep your cash and give a street (or, with no
  street, all your cash).

Decisions where the rulebook is silent are in the docstrings below and in
``config/editions/jackpot.yaml``.
"""

from __future__ import annotations

from typing import Any

from banker.rules.events import DebtOpened, DebtSettled, JailChanged
from banker.rules.jackpot_core import GIVE_UP, STEP, _Ledger
from banker.rules.jackpot_spin import BETTING, CHOICE_INTENTS, SpinnerRules
from banker.rules.outcome import Command, Draws, Intent, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState

__all__ = ["BETTING", "CHOICE_INTENTS", "GIVE_UP", "STEP", "JackpotRules"]


class JackpotRules(SpinnerRules):
    intents = frozenset({
        "buy", "auction", "auction_close", "pay_rent", "chance", "bet", "spin", "spinner",
        "build_house", "steal_house", "swap_house", "swap_cash", "pass_go", "get_out_of_jail",
        "go_to_jail", "leave_jail", "no_doubles", "third_roll", "free_parking", "pay", "collect",
        "bankrupt", "settle_debt",
    })
    #: purchases, auctions, bail and "pay N" all go into the Jackpot: the Bank never takes money
    purchase_account = "jackpot"
    pay_account = "jackpot"
    bail_account = "jackpot"
    buy_short_code = "cannot_afford_buy"  # its reply says "auction it"

    # --- streets: the base's buy and auction, with the house markers ---------------------
    def acquire(self, state: GameState, cmd: Command, street: str, price: int,
                key: str) -> Outcome:
        """Buy at the board price (or the auction price) into the Jackpot. An 11th street asks
        which house to move; "none"/"cancel" gives up the purchase and nothing is paid (an
        auction is not restarted)."""
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
    def rent_due(self, state: GameState, street: str, owner: str) -> None:
        """Rent = price, 2 x price for the pair; none while the owner is in jail."""
        if self.jailed(state, owner):
            raise Refusal("owner_in_jail", street=street, player=Who(owner))

    def shortfall(self, state: GameState, cmd: Command, out: Outcome,
                  rest: list[tuple[str, int]], cash: int, reason: str,
                  partial: bool) -> Outcome:
        """Short of rent: keep your cash and give the owner a street of your choice; the rent
        is owed (a debt) until the street is given, asked from the state
        (``debt_question``). With no street, all your cash goes at once. Never out."""
        p = cmd.player
        owner, rent = rest[0]
        if state.owned_by(p):
            out.events.append(DebtOpened(p, owner, rent, reason))
            return out
        ledger = _Ledger(state, out.events)
        ledger.move(p, owner, cash)
        out.say("short_no_street", player=Who(p), to=Who(owner), amount=Money(cash),
                owed=Money(rent))
        return self._finish(state, ledger, out)

    #: a Jackpot debt is a street owed, not cash: it is settled only by the street given
    debts_paid_when_covered = False

    def debt_question(self, state: GameState, again: bool = False) -> Question | None:
        """ "Which of your streets goes to the dog?" for the oldest open debt."""
        for d in state.debts:
            owned = state.owned_by(d.debtor)
            if owned:
                return self.ask("ask_give_street_again" if again else "ask_give_street",
                                d.debtor, "give",
                                Command(d.debtor, Intent("settle_debt", {"creditor": d.creditor})),
                                owned, **self._debt_params(state, d.debtor, d.creditor, d.amount))
        return None

    @staticmethod
    def _debt_params(state: GameState, p: str, owner: str, rent: int) -> dict[str, Any]:
        return {"player": Who(p), "amount": Money(rent), "cash": Money(state.cash(p)),
                "to": Who(owner), "streets": state.owned_by(p)}

    def do_settle_debt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The street given for the oldest debt (an owner with 10 streets is asked which to
        vacate, or "none"); "cancel" gets the question again: a debt can't be talked away."""
        p = cmd.player
        debts = state.debts_of(p)
        if not debts:
            raise Refusal("no_debt", player=Who(p))
        owner, rent, cash = debts[0].creditor, debts[0].amount, state.cash(p)
        ledger = _Ledger(state)
        out = Outcome()
        if not state.owned_by(p):
            ledger.move(p, owner, cash)
            ledger.add(DebtSettled(p, owner, cash))
            out.say("short_no_street", player=Who(p), to=Who(owner), amount=Money(cash),
                    owed=Money(rent))
            return self._finish(state, ledger, out)
        params = self._debt_params(state, p, owner, rent)
        give = cmd.intent.get("give")
        if give is None:
            raise Refusal("which_street")
        if give in GIVE_UP:
            return out.say("refused.must_give", **params)
        if give not in params["streets"]:
            raise Refusal("must_give", **params)
        give = str(give)
        vacate, question = self.room(state, cmd, owner, "get", "ask_vacate", street=give)
        if question is not None:
            return Outcome(question=question)
        out.say("short_street", player=Who(p), to=Who(owner), street=give, amount=Money(rent),
                cash=Money(cash))
        ledger.add(DebtSettled(p, owner, 0))
        self._receive(ledger, out, give, owner, vacate)
        return self._finish(state, ledger, out)

    # --- jail: the base's, and the third failed try ---------------------------------------
    def do_no_doubles(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A failed try ("no doubles"), counted in ``jail_tries``; the third one frees the
        player for nothing (they move by that roll). Going to jail resets the count."""
        p = cmd.player
        if not self.jailed(state, p):
            raise Refusal("not_in_jail", player=Who(p))
        tries = state.players[p].jail_tries + 1
        limit = int(self.edition.extra.get("jail_tries", 3))
        if tries >= limit:
            return Outcome(events=[JailChanged(p, False, 0)]).say("jail_last_try", player=Who(p),
                                                                 tries=tries)
        return Outcome(events=[JailChanged(p, True, tries)]).say(
            "jail_try", player=Who(p), tries=tries, left=limit - tries)

    def do_third_roll(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """ "That was my third roll": out for nothing, as after the third "no doubles" (the
        banker trusts the tries it didn't hear about; Jackpot's bail is never owed)."""
        p = cmd.player
        if not self.jailed(state, p):
            raise Refusal("not_in_jail", player=Who(p))
        limit = int(self.edition.extra.get("jail_tries", 3))
        return Outcome(events=[JailChanged(p, False, 0)]).say("jail_last_try", player=Who(p),
                                                             tries=limit)

    def can_bid(self, state: GameState, player: str) -> str | None:
        return "jail_no_bid" if self.jailed(state, player) else None

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, n = cmd.player, state.jackpot
        if n <= 0:
            return Outcome().say("jackpot_empty", player=Who(p))
        return Outcome(events=self.pay("jackpot", p, n)).say(
            "jackpot_taken", player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))

    def do_bankrupt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        raise Refusal("never_out")

    # --- queries --------------------------------------------------------------------------
    def status_extra(self, state: GameState, out: Outcome) -> None:
        out.say("jackpot_status", amount=Money(state.jackpot), bank=Money(state.bank or 0))
        if state.stakes:
            out.say("stakes_status", amount=Money(sum(state.stakes.values())))
