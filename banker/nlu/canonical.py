"""The intent names of the public contract (intents.md) for the grammar's finer intents.

The matcher has one slot of each name, so a Secret Vault deal that mixes cash, streets,
hotels and the card is a shape of its own (``trade_and_pay``, ``sell_with_card`` …). Reports
read by people outside the project (``banker replay --report``) name the command they are:
a ``trade``, a ``sell`` or a ``buy_from``; the slots still say what was in it.
"""

from __future__ import annotations

SPEC_INTENT = {
    "trade_and_pay": "trade", "trade_for_cash": "trade", "trade_with_hotel": "trade",
    "trade_with_card": "trade", "trade_card": "trade",
    "sell_with_card": "sell", "sell_with_hotel": "sell", "sell_card": "sell", "sell_hotel": "sell",
    "buy_card": "buy_from", "buy_hotel": "buy_from",
}


def spec_intent(name: str) -> str:
    """``name`` as intents.md calls it (names it doesn't list are kept: new commands)."""
    return SPEC_INTENT.get(name, name)
