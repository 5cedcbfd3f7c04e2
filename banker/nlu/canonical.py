"""The intent names and slots of the public contract (intents.md) for the grammar's finer
intents and slots.

The matcher has one slot of each name, so a Secret Vault deal that mixes cash, streets,
hotels and the card is a shape of its own (``trade_and_pay``, ``sell_with_card`` …), and the
second street of a side is a slot of its own (``give2``). Reports read by people outside the
project (``banker replay --report``, ``banker transcribe``) name the command they are: a
``trade``, a ``sell`` or a ``buy_from``, and a side with two streets is a list of names
(intents.md: "give, get (properties)"); one street stays one name, as it always was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SPEC_INTENT = {
    "trade_and_pay": "trade", "trade_for_cash": "trade", "trade_with_hotel": "trade",
    "trade_with_card": "trade", "trade_card": "trade", "trade_streets": "trade",
    "sell_with_card": "sell", "sell_with_hotel": "sell", "sell_card": "sell", "sell_hotel": "sell",
    "buy_card": "buy_from", "buy_hotel": "buy_from", "trade_for_hotel": "trade",
    "trade_for_card": "trade", "buy_with_hotel": "buy_from", "buy_with_card": "buy_from",
    # the classic box: the roll said with the rent, a mortgage lifted in a deal, cash and the
    # card with streets (its spoken cards are new commands: ``card``, ``nearest_railroad`` ...)
    "pay_rent_roll": "pay_rent", "buy_from_lift": "buy_from", "trade_lift": "trade",
    "trade_card_and_pay": "trade",
}
#: a street slot -> the slots of the further streets on the same side of a deal
MORE_STREETS = {"property": ("property2", "property3"), "give": ("give2", "give3"),
                "get": ("get2", "get3")}
#: every slot that holds a street name
STREET_SLOTS = frozenset({*MORE_STREETS, *(s for more in MORE_STREETS.values() for s in more)})


def spec_intent(name: str) -> str:
    """``name`` as intents.md calls it (names it doesn't list are kept: new commands)."""
    return SPEC_INTENT.get(name, name)


def spec_slots(slots: Mapping[str, Any]) -> dict[str, Any]:
    """``slots`` as intents.md names them: ``give`` and ``give2`` become ``give: [a, b]``."""
    out = dict(slots)
    for first, more in MORE_STREETS.items():
        extra = [out.pop(k) for k in more if k in out]
        if extra:
            out[first] = [out[first], *extra] if first in out else extra
    return out
