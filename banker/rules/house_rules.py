"""House rules as data: options an edition's YAML lists (with defaults) that these hooks read.

``free_parking: pot``: payments to the bank that are fines rather than purchases (taxes, bail,
card payments, a plain "pay N") go into the middle of the board (the ``jackpot`` account, as the
test edition ``payday`` keeps its pot) and "free parking" takes it all. ``go_landing: double``:
landing exactly on GO pays twice the salary ("I landed on go"). Shared by every edition whose
YAML offers these options; an edition without the option plays as before.
"""

from __future__ import annotations

from banker.rules.base import Rules
from banker.rules.outcome import Command, Draws, Money, Outcome, Refusal, Who
from banker.rules.state import GameState

POT = "jackpot"  # the account that holds the Free Parking pot


class FreeParkingPot(Rules):
    """"free parking" takes the whole pot, however small (an empty pot pays nothing)."""

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, n = cmd.player, state.jackpot
        if self.jailed(state, p):
            raise Refusal("jail_no_go", player=Who(p))
        return Outcome(events=self.pay(POT, p, n)).say(
            "collected", player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))


class HouseRules(FreeParkingPot):
    """Reads the game's options before every decision: who collects fines, and GO."""

    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        if "free_parking" in state.options:  # an edition that offers the pot
            pot = state.options["free_parking"] == "pot"
            # instance attributes over the class defaults: the base's handlers read these
            self.fine_account = self.bail_account = self.pay_account = POT if pot else "bank"
            if cmd.name == "free_parking" and not pot:
                raise Refusal("no_pot")
        return super().decide(state, cmd, draws)

    def paid_key(self, key: str, creditor: str) -> str:
        """A fine paid into the pot is said as such."""
        if creditor == POT and key in ("paid", "tax_paid"):
            return "paid_jackpot"
        return super().paid_key(key, creditor)

    def do_land_on_go(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Landing exactly on GO: the salary, twice with ``go_landing: double``."""
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("jail_no_go", player=Who(p))
        n = self.edition.fees["pass_go"] * (2 if state.options.get("go_landing") == "double" else 1)
        return self.salary(state, p, "land_on_go", n)
