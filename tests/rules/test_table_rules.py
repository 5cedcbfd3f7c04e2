"""Issue 11, items 1-5 and 8: the rules audit's defects, each on the pure rules core through
the given/when/then helper. Every test here failed before its fix."""

from __future__ import annotations

from banker.rules.events import CashMoved, OwnerChanged
from tests.rules.scenario import Scenario, keys


def broke(sc: Scenario, who: str, leave: int = 0) -> None:
    """``who`` hands all but ``leave`` of their cash to the bank."""
    sc.given(CashMoved(who, "bank", sc.cash(who) - leave))


# --- 2. paying a player who is out of the game ---------------------------------------------
def test_paying_a_bankrupt_player_is_refused_with_the_reason() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog", "cat"), seed=7)
    broke(sc, "dog")
    sc.when("dog", "tax")  # M400 it can't pay: a debt to the vault, nothing to mortgage
    sc.when("dog", "bankrupt")
    assert sc.state.players["dog"].out
    refusal = sc.refusal("cat", "pay", amount=500, player="dog")
    assert (refusal.code, refusal.params["player"]) == ("player_out", "dog")
    assert sc.cash("cat") == 3000
