"""Payments a player can't refuse, and the debts they open when they can't be made.

Every edition: a payment short of cash becomes an open debt in the state (``DebtOpened``),
settled by an event (``DebtSettled``). How it is settled is the edition's: Voice Banking and
Jackpot ask the debtor which street to give (``debt_question``, asked from the state, so a
stop or an undo asks it again), Secret Vault waits for the cash. A debt is paid by itself as
soon as the debtor's cash covers it where the edition says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from banker.rules.events import CashMoved, DebtOpened, DebtSettled, Event, fold
from banker.rules.outcome import Command, Draws, Line, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState


class Owing:
    """The base rules' payments and debts (``Rules`` inherits them)."""

    @staticmethod
    def pay(src: str, dst: str, amount: int) -> list[Event]:
        return [CashMoved(src, dst, amount)] if amount > 0 else []

    # --- unavoidable payments ---------------------------------------------------------------
    def paid_key(self, key: str, creditor: str) -> str:
        return key

    def owe(self, state: GameState, cmd: Command, debts: Sequence[tuple[str, int]], key: str,
            reason: str = "", partial: bool = False, **params: Any) -> Outcome:
        """Payments ``cmd.player`` can't refuse, in order. The first one cash can't cover is
        the edition's ``shortfall`` (``partial``: several creditors, so some may be paid)."""
        payer = cmd.player
        cash = self.free_cash(state, payer)
        out = Outcome()
        for i, (creditor, amount) in enumerate(debts):
            if cash >= amount:
                out.events += self.pay(payer, creditor, amount)
                cash -= amount
                out.say(self.paid_key(key, creditor), player=Who(payer), to=Who(creditor),
                        amount=Money(amount), cash=Money(cash), **params)
                continue
            return self.shortfall(state, cmd, out, list(debts[i:]), cash, reason, partial)
        return out

    def shortfall(self, state: GameState, cmd: Command, out: Outcome,
                  rest: list[tuple[str, int]], cash: int, reason: str,
                  partial: bool) -> Outcome:
        """What an edition does when ``rest[0]`` can't be paid in full (``out``: paid so far,
        ``cash``: what the payer has left)."""
        raise NotImplementedError

    def collect_each(self, state: GameState, p: str, n: int) -> Outcome:
        """Every other player gives ``n``, in turn order from ``p``'s left, each on their own
        ("Several payers"): one who can't follows the edition's "can't pay" rule for that
        payment alone (``short_payer``); the others still pay in full."""
        out = Outcome()
        total = 0
        for o in state.left_of(p):
            now = fold(state, out.events)
            if self.free_cash(now, o) >= n:
                out.events += self.pay(o, p, n)
                total += n
                continue
            out.events += self.short_payer(now, o, p, n, out)
        out.lines.insert(0, Line("collected_each", {
            "player": Who(p), "amount": Money(n), "total": Money(total),
            "cash": Money(state.cash(p) + total)}))
        return out

    def short_payer(self, state: GameState, payer: str, creditor: str, amount: int,
                    out: Outcome) -> list[Event]:
        """One of several payers can't pay ``amount``: by default the debt stays open."""
        out.say("owes_now", player=Who(payer), to=Who(creditor), amount=Money(amount))
        return [DebtOpened(payer, creditor, amount, "card birthday")]

    # --- open debts: facts of the state, settled by events ------------------------------------
    #: an open debt is paid by itself as soon as the debtor's cash covers it (oldest first)
    debts_paid_when_covered = True

    @staticmethod
    def free_cash(state: GameState, player: str) -> int:
        """Cash left once the player's older debts are paid: what a new payment can use."""
        return state.cash(player) - state.owed_by(player)

    def settle_covered(self, state: GameState, out: Outcome) -> None:
        """Open debts paid, oldest first for each debtor, as soon as cash covers each."""
        after = fold(state, out.events)
        blocked: set[str] = set()
        for d in list(after.debts):
            if d.debtor in blocked or after.players[d.debtor].out or after.game_over:
                continue
            if after.cash(d.debtor) < d.amount:
                blocked.add(d.debtor)
                continue
            paid = self.pay_debt(after, d.debtor, d.creditor, d.amount, out)
            out.events += paid
            after = fold(after, paid)

    def pay_debt(self, state: GameState, debtor: str, creditor: str, amount: int,
                 out: Outcome) -> list[Event]:
        out.participants.update(t for t in (debtor, creditor) if t in state.players)
        out.say("debt_paid", player=Who(debtor), to=Who(creditor), amount=Money(amount),
                cash=Money(state.cash(debtor) - amount))
        return [*self.pay(debtor, creditor, amount), DebtSettled(debtor, creditor, amount)]

    def debt_question(self, state: GameState, again: bool = False) -> Question | None:
        """The question an open debt asks (a street to give up), or None: the first debt, in
        the order they were opened, whose debtor must choose. Asked from the state, so a
        resume or an undo asks it again by name."""
        return None

    def do_settle_debt(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The answer to ``debt_question``: an edition with such questions overrides it."""
        raise Refusal("no_debt", player=Who(cmd.player))

