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


def _cards(value: Any, path: str, err: Callable[[str, str], None]) -> None:
    """A second deck (Community Chest): cards of id, title and effect, effects known."""
    if not isinstance(value, list):
        err(path, "must be a list of cards")
        return
    for i, card in enumerate(value):
        if not isinstance(card, dict) or not {"id", "title", "effect"} <= set(card):
            err(f"{path}[{i}]", "must be a mapping with id, title and effect")
        elif not isinstance(card["effect"], dict) or set(card["effect"]) - CLASSIC_EFFECTS:
            err(f"{path}[{i}].effect", "unknown effect")


def _numbers(value: Any, path: str, err: Callable[[str, str], None]) -> None:
    """A list of whole numbers: by how many of a kind the owner holds (1, 2, ...)."""
    if not isinstance(value, list) or not value:
        err(path, "must be a list of whole numbers")
        return
    for i, v in enumerate(value):
        whole()(v, f"{path}[{i}]", err)


def _mapping(value: Any, path: str, err: Callable[[str, str], None]) -> None:
    if not isinstance(value, dict):
        err(path, "must be a mapping")


CLASSIC_EFFECTS = CARD_EFFECTS | {"pay", "nearest_railroad", "nearest_utility", "move"}
CLASSIC = Needs(
    rent=(), fees=("pass_go", "income_tax", "luxury_tax", "bail"), stock=("houses", "hotels"),
    effects=CLASSIC_EFFECTS,
    extra={"railroad_rent": Extra(_numbers, required=True),
           "utility_times": Extra(_numbers, required=True),
           "community_chest": Extra(_cards, required=True),
           "card_words": Extra(_mapping, required=True),
           "boards": Extra(_mapping, {})})


@dataclass(frozen=True)
class Entry:
    rules: str  # "module:Class", imported by ``banker.rules.rules_for``
    needs: Needs


REGISTRY: dict[str, Entry] = {
    "voice_banking": Entry("banker.rules.voice_banking:VoiceBankingRules", VOICE_BANKING),
    "secret_vault": Entry("banker.rules.secret_vault:SecretVaultRules", SECRET_VAULT),
    "jackpot": Entry("banker.rules.jackpot:JackpotRules", JACKPOT),
    "classic": Entry("banker.rules.classic:ClassicRules", CLASSIC),
    "payday": Entry("banker.rules.payday:PaydayRules", VOICE_BANKING),  # the test edition
}
