"""Payday: the test edition (``tests/editions/payday.yaml``), Voice Banking with two house rules.

It exists to show what a new edition costs: this module, its YAML and one registry line. The
M300 GO salary is data only (``fees.pass_go``); the Free Parking pot is the shared one
(``house_rules.FreeParkingPot``, which Voice Banking offers as an option), always on: fines
(Chance payments and repairs) and bail go into the pot (the ``jackpot`` account) instead of to
the bank, and "free parking" takes the whole pot.
"""

from __future__ import annotations

from banker.rules.house_rules import POT
from banker.rules.voice_banking import VoiceBankingRules


class PaydayRules(VoiceBankingRules):
    """Voice Banking's own Free Parking pot (``house_rules``), always on."""

    fine_account = POT
    bail_account = POT
