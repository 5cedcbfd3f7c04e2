"""Payday: the test edition (``tests/editions/payday.yaml``), Voice Banking with two house rules.

It exists to show what a new edition costs: this module, its YAML and one registry line. The
M300 GO salary is data only (``fees.pass_go``); the Free Parking pot is three hooks: fines
(Chance payments and repairs) and bail go into the pot (the ``jackpot`` account) instead of to
the bank, and "free parking" takes the whole pot.
"""

from __future__ import annotations

from banker.rules.outcome import Command, Draws, Money, Outcome, Who
from banker.rules.state import GameState
from banker.rules.voice_banking import VoiceBankingRules


class PaydayRules(VoiceBankingRules):
    intents = VoiceBankingRules.intents | {"free_parking"}
    fine_account = "jackpot"
    bail_account = "jackpot"

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The whole pot, however small; an empty pot pays nothing (and nothing is journalled)."""
        p, n = cmd.player, state.jackpot
        return Outcome(events=self.pay("jackpot", p, n)).say(
            "collected", player=Who(p), amount=Money(n), cash=Money(state.cash(p) + n))
