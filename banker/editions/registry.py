"""Which rules module plays an edition, and the data it needs: one line per rules module.

The loader checks every file against the ``Needs`` of its ``rules:`` key; ``rules_for``
(in ``banker.rules``) imports the class named here. Pure data: naming a class by its dotted
path keeps this package from importing rule code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from banker.editions.needs import Extra, Needs, table, whole, words

CARD_EFFECTS = frozenset({"collect", "collect_each", "pay_each", "repairs", "advance_go",
                          "advance", "jail", "jail_free"})


def _spinner(extra: Mapping[str, Any], err: Callable[[str, str], None]) -> None:
    """Segments and pay-outs name spinner outcomes: a typo would silently pay 0."""
    outcomes = extra.get("spinner_outcomes") or []
    for i, seg in enumerate(extra.get("spinner_segments") or []):
        if seg not in outcomes:
            err(f"extra.spinner_segments[{i}]", f"{seg!r} is not one of spinner_outcomes")
    for key in extra.get("payout") or {}:
        if key not in outcomes:
            err(f"extra.payout.{key}", "is not one of spinner_outcomes")


VOICE_BANKING = Needs(rent=("base", "house", "hotel"), fees=("pass_go", "bail", "trade"),
                      stock=("houses", "hotels"), effects=CARD_EFFECTS | {"pay"})
SECRET_VAULT = Needs(
    rent=("base", "set", "hotel1", "hotel2"),
    fees=("pass_go", "pass_go_vault", "tax", "bail", "pay_to_guess", "vault_start",
          "vault_refill"),
    stock=("keys", "hotels"), effects=CARD_EFFECTS | {"pay_vault", "vault_guess"},
    extra={"vault_items": Extra(table(("key", "hotel"), whole()), {"key": 1, "hotel": 1})})
JACKPOT = Needs(
    rent=("base", "pair"), fees=("pass_go", "bail"), stock=("houses_per_player",),
    extra={"spinner_outcomes": Extra(words, required=True),
           "spinner_segments": Extra(words),
           "payout": Extra(table(None, whole(1)), {}),
           "hot_house": Extra(table(("one", "pair"), whole()), {"one": 2, "pair": 4}),
           "jail_tries": Extra(whole(1), 3)},
    cross=(_spinner,))


@dataclass(frozen=True)
class Entry:
    rules: str  # "module:Class", imported by ``banker.rules.rules_for``
    needs: Needs


REGISTRY: dict[str, Entry] = {
    "voice_banking": Entry("banker.rules.voice_banking:VoiceBankingRules", VOICE_BANKING),
    "secret_vault": Entry("banker.rules.secret_vault:SecretVaultRules", SECRET_VAULT),
    "jackpot": Entry("banker.rules.jackpot:JackpotRules", JACKPOT),
    "payday": Entry("banker.rules.payday:PaydayRules", VOICE_BANKING),  # the test edition
}
