"""The rules audit's defects, each on the pure rules core through
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


# --- 1. Secret Vault: debts still open at the final count -----------------------------------
SV_STREETS = ("Mediterranean Avenue", "Baltic Avenue", "Oriental Avenue", "Vermont Avenue",
              "Connecticut Avenue", "St. Charles Place", "States Avenue", "Virginia Avenue",
              "St. James Place", "Tennessee Avenue", "New York Avenue", "Kentucky Avenue",
              "Indiana Avenue", "Illinois Avenue", "Atlantic Avenue", "Ventnor Avenue",
              "Marvin Gardens", "Pacific Avenue", "North Carolina Avenue", "Pennsylvania Avenue",
              "Park Place")  # all but Boardwalk


def nearly_all_owned(sc: Scenario, owner: str = "duck") -> None:
    """Every street but Boardwalk (locked) owned by ``owner``, mortgaged (no rent for them)."""
    from banker.rules.events import ItemsMoved, MortgageChanged, StreetUnlocked
    for s in SV_STREETS:
        if sc.rules.edition.street(s).locked:  # a key from the box (or the vault) opens it
            place = "box" if sc.state.box.get("key") else "vault"
            sc.given(ItemsMoved("key", place, owner), StreetUnlocked(s, source=owner))
        sc.given(OwnerChanged(s, owner), MortgageChanged(s, True))


def sv_with_key(players: tuple[str, ...] = ("duck", "dog", "cat")) -> Scenario:
    sc = Scenario.new("secret-vault", players, seed=7)
    # keys come out of the vault's stock: move one from the box to the player
    from banker.rules.events import ItemsMoved
    return sc.given(ItemsMoved("key", "box", "dog"))


def test_final_count_pays_open_debts_from_the_final_rents() -> None:
    sc = sv_with_key()
    nearly_all_owned(sc)
    broke(sc, "dog", leave=100)
    sc.when("dog", "tax")  # M400 into the vault, M100 in hand: M300 short
    assert sc.state.debt is not None and sc.state.debt.amount == 400
    sc.given(OwnerChanged("Park Place", "dog"))  # from a deal: Park Place earns dog M70
    from banker.rules.events import MortgageChanged
    sc.given(MortgageChanged("Park Place", False))
    vault = sc.state.vault_cash
    out = sc.when("dog", "mortgage", property="Park Place")  # +M350: the debt is paid at once
    assert sc.state.debt is None and "debt_paid" in keys(out)
    assert sc.state.vault_cash == vault + 400


def test_a_debtor_still_short_at_the_final_count_is_bankrupt_and_out_of_the_ranking() -> None:
    sc = sv_with_key()
    nearly_all_owned(sc)
    broke(sc, "dog", leave=0)
    sc.when("dog", "tax")  # owes M400 to the vault; cash 0, no streets
    vault = sc.state.vault_cash
    # the duck unlocks the last street: the game ends; dog's rent (none) can't pay the debt
    from banker.rules.events import ItemsMoved
    sc.given(ItemsMoved("key", "dog", "duck"))
    out = sc.when("duck", "use_key", property="Boardwalk")
    assert sc.state.game_over
    assert sc.state.players["dog"].out and "dog" not in sc.state.winners
    assert "final_bankrupt" in keys(out)
    ranked = [ln.params["player"] for ln in out.lines if ln.key == "ranking_line"]
    assert "dog" not in ranked and set(ranked) == {"duck", "cat"}
    assert sc.state.vault_cash == vault  # nothing to give: the vault gets what the dog had (0)
    assert sc.state.debt is None


def test_final_rents_pay_the_debt_before_the_ranking() -> None:
    sc = sv_with_key()
    nearly_all_owned(sc)
    from banker.rules.events import MortgageChanged
    sc.given(OwnerChanged("Park Place", "dog"), MortgageChanged("Park Place", False))
    broke(sc, "dog", leave=350)
    sc.when("dog", "tax")  # owes M400, has M350 and Park Place (rent M70, or M350 mortgaged)
    from banker.rules.events import ItemsMoved
    sc.given(ItemsMoved("key", "dog", "cat"))
    vault = sc.state.vault_cash
    out = sc.when("cat", "use_key", property="Boardwalk")  # ends the game
    assert sc.state.game_over and not sc.state.players["dog"].out
    assert sc.cash("dog") == 350 + 70 - 400 and sc.state.vault_cash == vault + 400
    assert keys(out).index("debt_paid") < keys(out).index("game_over")


def test_a_debtor_cannot_end_the_game_with_a_key() -> None:
    sc = sv_with_key()
    nearly_all_owned(sc)
    broke(sc, "dog", leave=0)
    sc.when("dog", "tax")
    assert sc.refused("dog", "use_key", property="Boardwalk") == "in_debt"


# --- 5. the chairman card when short; "I'm bankrupt" with money to raise; steal house -------
def test_chairman_short_pays_each_player_what_it_can_and_owes_each_the_rest() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog", "cat", "hat"), seed=7)
    broke(sc, "duck", leave=150)
    out = sc.when("duck", "chance", {"chance": "chairman"})  # M100 to each of three players
    assert (sc.cash("dog"), sc.cash("cat"), sc.cash("hat"), sc.cash("duck")) == (3100, 3050, 3000, 0)
    assert [(d.creditor, d.amount) for d in sc.state.debts] == [("cat", 50), ("hat", 100)]
    assert keys(out).count("short_each_part") == 1 and keys(out).count("short_each") == 1
    out = sc.when("duck", "collect", amount=60)  # covers the cat, not yet the hat
    assert (sc.cash("cat"), sc.cash("duck")) == (3100, 10)
    assert [(d.creditor, d.amount) for d in sc.state.debts] == [("hat", 100)]
    sc.when("duck", "collect", amount=90)
    assert (sc.cash("hat"), sc.cash("duck"), sc.state.debts) == (3100, 0, [])


def test_bankrupt_refused_while_a_mortgage_would_pay_the_debt() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog"), seed=7)
    sc.given(OwnerChanged("Park Place", "duck"))
    broke(sc, "duck", leave=100)
    sc.when("duck", "tax")  # M400: M300 short; Park Place mortgages for M350
    refusal = sc.refusal("duck", "bankrupt")
    assert refusal.code == "bankrupt_can_raise"
    assert refusal.params["streets"] == "Park Place for M350"
    sc.when("duck", "mortgage", property="Park Place")
    assert sc.state.debt is None and sc.cash("duck") == 50


def test_bankrupt_accepted_when_mortgaging_everything_is_not_enough() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog", "cat"), seed=7)
    sc.given(OwnerChanged("Baltic Avenue", "duck"))
    broke(sc, "duck", leave=0)
    sc.when("duck", "tax")  # M400; Baltic Avenue mortgages for M60 only
    sc.when("duck", "bankrupt")
    assert sc.state.players["duck"].out


JP_TEN = ("Mediterranean Avenue", "Baltic Avenue", "Oriental Avenue", "Connecticut Avenue",
          "St. Charles Place", "Virginia Avenue", "St. James Place", "New York Avenue",
          "Kentucky Avenue", "Illinois Avenue")


def test_jackpot_steal_house_with_ten_streets_still_steals() -> None:
    from banker.rules.events import BuildingsChanged
    sc = Scenario.new("jackpot", ("car", "dog"))
    for s in JP_TEN:
        sc.given(OwnerChanged(s, "car"), BuildingsChanged(s, 1, 0))
    sc.given(OwnerChanged("Boardwalk", "dog"), BuildingsChanged("Boardwalk", 1, 0))
    sc.when("car", "chance")
    out = sc.when("car", "spinner", outcome="steal house", held_by="car")
    assert out.question is not None and out.question.key == "ask_steal"
    out = sc.answer(out, property="Boardwalk")
    assert out.question is not None and out.question.key == "ask_vacate"
    sc.answer(out, give="Baltic Avenue")
    assert sc.state.owner("Boardwalk") == "car" and sc.state.owner("Baltic Avenue") is None
    assert len(sc.state.owned_by("car")) == 10


# --- 3. bail after the third failed roll is owed ---------------------------------------------
def test_voice_banking_third_roll_forces_bail_short_of_cash_all_cash_and_a_street() -> None:
    sc = Scenario.new("voice-banking", ("cat", "dog"))
    sc.when("cat", "buy", property="Baltic Avenue")
    broke(sc, "cat", leave=20)
    assert sc.refused("cat", "get_out_of_jail") == "cannot_afford"  # a chosen fee: refused
    out = sc.when("cat", "third_roll")  # owed: M50, has M20 and Baltic Avenue
    q = sc.rules.debt_question(sc.state)  # asked from the open debt
    assert q is not None and q.choices == ("Baltic Avenue",) and q.asked == "cat"
    assert keys(out)[0] == "third_roll"
    out = sc.answer(out, give="Baltic Avenue")
    assert "street_returned" in keys(out)
    assert sc.cash("cat") == 0 and sc.state.owner("Baltic Avenue") is None


def test_voice_banking_third_roll_with_cash_pays_bail() -> None:
    sc = Scenario.new("voice-banking", ("cat", "dog"))
    out = sc.when("cat", "third_roll")
    assert keys(out) == ["third_roll", "bail_paid"] and sc.cash("cat") == 1450


def test_secret_vault_third_roll_short_opens_a_debt_and_leaves_jail() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog"), seed=7)
    sc.when("duck", "go_to_jail")
    broke(sc, "duck", leave=30)
    assert sc.refused("duck", "get_out_of_jail") == "cannot_afford"
    out = sc.when("duck", "third_roll")
    assert "short" in keys(out) and not sc.state.players["duck"].in_jail
    d = sc.state.debt
    assert d is not None and (d.debtor, d.creditor, d.amount) == ("duck", "vault", 100)
    assert sc.refused("dog", "third_roll") == "not_in_jail"


def test_secret_vault_third_roll_uses_the_card_first() -> None:
    sc = Scenario.new("secret-vault", ("duck", "dog"), seed=7)
    sc.when("duck", "chance", {"chance": "jail-free"})
    sc.when("duck", "go_to_jail")
    out = sc.when("duck", "third_roll")
    assert keys(out) == ["jail_card_used"] and sc.cash("duck") == 3000


# --- 4. Secret Vault combined deals ----------------------------------------------------------
def test_combined_deal_is_one_agreement_and_one_transaction() -> None:
    from banker.rules.events import ItemsMoved
    sc = Scenario.new("secret-vault", ("duck", "dog", "hat"), seed=7)
    sc.given(OwnerChanged("Baltic Avenue", "duck"), ItemsMoved("hotel", "box", "duck"))
    ask = sc.when("duck", "sell_with_hotel", property="Baltic Avenue", player="hat", amount=300)
    assert ask.question is not None and ask.question.asked == "hat" and not ask.events
    out = sc.answer(ask, yes=True)
    assert sc.state.owner("Baltic Avenue") == "hat" and sc.state.players["hat"].count("hotel") == 1
    assert (sc.cash("duck"), sc.cash("hat")) == (3300, 2700) and keys(out) == ["deal_done"]
    assert sc.refused("duck", "sell_with_card", property="Park Place", player="hat",
                      amount=10) == "not_your_street"


# --- 8. players added or removed between turns ------------------------------------------------
def test_add_a_player_with_the_starting_money_in_every_edition() -> None:
    for edition, players, new, cash in (("voice-banking", ("dog", "trex"), "cat", 1500),
                                        ("secret-vault", ("dog", "duck"), "cat", 3000),
                                        ("jackpot", ("dog", "car"), "hat", 2000)):
        sc = Scenario.new(edition, players)
        bank = sc.state.bank
        out = sc.when("dog", "add_player", player=new)
        assert keys(out) == ["player_added"] and sc.state.seated == [*players, new]
        assert sc.cash(new) == cash
        if bank is not None:  # Jackpot: the money comes out of the finite Bank
            assert sc.state.bank == bank - cash
        assert sc.refused("dog", "add_player", player=new) == "already_playing"


def test_remove_a_player_gives_everything_back_and_they_may_come_back() -> None:
    sc = Scenario.new("voice-banking", ("dog", "trex", "cat"))
    sc.when("cat", "buy", property="Baltic Avenue")
    sc.when("cat", "buy", property="Mediterranean Avenue")
    sc.when("cat", "build_house", property="Baltic Avenue")
    houses = sc.state.box["house"]
    out = sc.when("dog", "remove_player", player="cat")
    assert keys(out) == ["player_removed"] and sc.state.seated == ["dog", "trex"]
    assert sc.state.owner("Baltic Avenue") is None and sc.state.box["house"] == houses + 1
    assert sc.cash("cat") == 0
    assert sc.refused("dog", "remove_player", player="trex") == "too_few_players"
    assert sc.refused("dog", "pay", amount=10, player="cat") == "player_out"
    sc.when("trex", "add_player", player="cat")
    assert sc.state.seated == ["dog", "trex", "cat"] and sc.cash("cat") == 1500


def test_a_table_is_full_at_the_editions_most_players() -> None:
    sc = Scenario.new("voice-banking", ("dog", "trex", "cat", "racecar"))
    assert sc.refused("dog", "add_player", player="cat") == "already_playing"
    sc.when("dog", "remove_player", player="cat")
    assert sc.refused("dog", "remove_player", player="cat") == "not_playing"
    sc.when("dog", "add_player", player="cat")
    sc2 = Scenario.new("jackpot", ("dog", "car", "shoe", "hat"))
    sc2.when("dog", "remove_player", player="hat")
    sc2.when("dog", "add_player", player="hat")
    assert sc2.refused("dog", "add_player", player="car") == "already_playing"


def test_secret_vault_leaver_returns_hotels_keys_and_card() -> None:
    from banker.rules.events import ItemsMoved
    sc = Scenario.new("secret-vault", ("dog", "duck", "cat"), seed=7)
    sc.when("cat", "chance", {"chance": "jail-free"})
    sc.given(ItemsMoved("hotel", "box", "cat"), ItemsMoved("key", "box", "cat"))
    sc.when("cat", "buy", property="Park Place")
    sc.when("cat", "mortgage", property="Park Place")
    sc.when("dog", "remove_player", player="cat")
    assert sc.state.players["cat"].items == {} and sc.state.deck[-1] == "jail-free"
    assert sc.state.owner("Park Place") is None and "Park Place" not in sc.state.view()["mortgaged"]
