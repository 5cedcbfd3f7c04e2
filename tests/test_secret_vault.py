"""Secret Vault rules, tested directly on the pure core (no session, no speech, no journal).

Through the one given/when/then helper (``tests/rules/scenario.py``), every event of every
scripted command is applied one at a time and ``invariants.check`` runs after each (and a
refusal must leave every field of the state unchanged): money is not finite in this edition,
but the 4 keys and 24 hotels must always be somewhere (box, vault, a player's supply, on a
street, or used on an unlocked street).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from banker.editions.loader import load_edition
from banker.rules import Outcome, Refusal, rules_for
from banker.rules.events import GameEnded, VaultCodeSet
from banker.rules.invariants import check
from banker.rules.secret_vault import SecretVaultRules, counted
from tests.rules.scenario import Scenario

ED = load_edition("secret-vault")
_RULES = rules_for(ED)
assert isinstance(_RULES, SecretVaultRules)
RULES: SecretVaultRules = _RULES
CLASSIC = yaml.safe_load((Path(__file__).parent.parent / "config" / "editions"
                          / "classic-streets.yaml").read_text(encoding="utf-8"))
LOCKED = {"Vermont Avenue", "St. James Place", "Ventnor Avenue", "Boardwalk"}


class Game(Scenario):
    """The one scenario helper (``tests/rules/scenario.py``) with this edition's shortcuts:
    ``do`` is ``when``, ``refuse`` is ``refused`` (which checks that nothing changed)."""

    def __init__(self, players: tuple[str, ...] = ("duck", "dog", "cat"),
                 options: dict[str, str] | None = None, seed: int = 7) -> None:
        super().__init__(RULES, RULES.initial_state(list(players), dict(options or {}), seed))

    do = Scenario.when
    refuse = Scenario.refused

    def code(self, n: int) -> None:
        """What a transcript's ``next: {vault_code: n}`` does (through Session.force)."""
        self.given(VaultCodeSet(n))

    def open_vault(self, player: str, street: str | None = None) -> Outcome:
        self.code(6)
        out = self.do(player, "guess", number=6)
        if street is not None and out.question is not None:  # the last one opens at once
            self.do(player, "use_key", property=street)
        if street is not None:
            assert self.state.owner(street) == player
        return out


def test_rules_module_is_secret_vault() -> None:
    assert isinstance(RULES, SecretVaultRules)


# --- the edition data -------------------------------------------------------------------------
@pytest.mark.parametrize("street", ED.streets, ids=lambda s: s.name)
def test_street_numbers_follow_editions_md(street: Any) -> None:
    group, price, base, h1, h2, *_ = CLASSIC[street.name]
    assert street.group == group
    assert street.price == 2 * price
    assert dict(street.rent) == {"base": 2 * base, "set": 4 * base, "hotel1": 2 * h1,
                                 "hotel2": 2 * h2}
    assert street.mortgage == street.price // 2
    # mortgage x 1.1 rounded up to a multiple of M10, in whole numbers
    assert street.unmortgage == -(-street.mortgage * 11 // 100) * 10
    assert street.locked == (street.name in LOCKED)


def test_edition_tokens_fees_stock_options_and_cards() -> None:
    assert ED.token_ids == ("duck", "dog", "trex", "racecar", "hat", "cat")
    assert (ED.start_cash, ED.min_players, ED.max_players) == (3000, 2, 6)
    assert len(ED.streets) == 22
    assert dict(ED.stock) == {"keys": 4, "hotels": 24}
    assert (ED.auction.open, ED.auction.step) == (10, 10)
    assert ED.fees["pass_go"] == 400 and ED.fees["pass_go_vault"] == 100
    assert ED.fees["tax"] == 400 and ED.fees["bail"] == 100 and ED.fees["pay_to_guess"] == 100
    assert ED.option_defaults() == {"vault": "virtual", "end": "all-owned", "start": "3000"}
    assert {o.name: o.choices for o in ED.options} == {  # start: any whole number
        "vault": ("virtual", "physical"), "end": ("all-owned", "first-bankruptcy"), "start": ()}
    assert all(o.doc for o in ED.options)
    assert sorted(c.id for c in ED.chance) == sorted([
        "advance-go", "vault-guess", "vault-pay", "jail", "jail-free", "dividend", "repairs",
        "chairman", "birthday", "boardwalk", "tax-refund", "fine"])


def test_counted_says_numbers_like_people() -> None:
    assert [counted(0, "key"), counted(1, "key"), counted(2, "hotel")] == [
        "no keys", "1 key", "2 hotels"]


# --- set-up -------------------------------------------------------------------------------------
def test_start_vault_stock_deck_and_code() -> None:
    g = Game()
    s = g.state
    assert [s.cash(t) for t in s.order] == [3000, 3000, 3000]
    assert (s.vault_cash, s.vault_items) == (400, {"key": 1, "hotel": 1})
    assert s.box == {"key": 3, "hotel": 23}
    assert sorted(s.deck) == sorted(c.id for c in ED.chance)
    assert 1 <= s.vault_code <= 6
    # the shuffle comes from the seed: the same game resumes with the same deck
    assert Game(seed=7).state.deck == s.deck
    assert any(Game(seed=n).state.deck != s.deck for n in range(8, 12))
    assert Game(options={"vault": "physical"}).state.vault_code == 0


# --- buying, locked streets, auctions -------------------------------------------------------------
def test_locked_streets_are_never_bought_or_auctioned() -> None:
    g = Game()
    for street in LOCKED:
        assert g.refuse("duck", "buy", property=street) == "locked"
        assert g.refuse("duck", "auction", property=street) == "locked"
    g.do("duck", "buy", property="Baltic Avenue")
    assert g.cash("duck") == 2880
    assert g.refuse("dog", "buy", property="Baltic Avenue") == "already_owned"
    assert g.refuse("dog", "auction", property="Baltic Avenue") == "already_owned"
    out = g.do("dog", "auction", property="Park Place")
    assert out.auctions == ["Park Place"] and not out.events
    g.do("cat", "auction_close", property="Park Place", amount=40)
    assert g.state.owner("Park Place") == "cat" and g.cash("cat") == 2960


def test_bidding_is_refused_to_a_debtor_and_to_a_bankrupt_player() -> None:
    g = Game()
    g.do("dog", "pay", amount=2990, player="duck")
    g.do("dog", "tax")
    assert RULES.can_bid(g.state, "dog") == "in_debt_bid"
    assert RULES.can_bid(g.state, "cat") is None
    g.do("dog", "bankrupt")
    assert RULES.can_bid(g.state, "dog") == "player_out"


# --- rent ---------------------------------------------------------------------------------------
def test_rent_base_set_mortgaged_member_and_hotels() -> None:
    g = Game()
    g.do("duck", "buy", property="Baltic Avenue")
    assert RULES.rent(g.state, "Baltic Avenue") == 8
    g.do("duck", "buy", property="Mediterranean Avenue")
    assert RULES.rent(g.state, "Baltic Avenue") == 16
    g.do("duck", "mortgage", property="Mediterranean Avenue")
    assert RULES.rent(g.state, "Mediterranean Avenue") == 0
    assert RULES.rent(g.state, "Baltic Avenue") == 16  # the set still counts
    assert g.refuse("dog", "pay_rent", property="Mediterranean Avenue") == "mortgaged_no_rent"
    g.open_vault("duck", "Boardwalk")
    g.do("duck", "build_hotel", property="Baltic Avenue")
    assert RULES.rent(g.state, "Baltic Avenue") == 40
    g.open_vault("duck", "Vermont Avenue")
    g.do("duck", "build_hotel", property="Baltic Avenue")
    assert RULES.rent(g.state, "Baltic Avenue") == 120
    before = g.cash("dog")
    g.do("dog", "pay_rent", property="Baltic Avenue")
    assert (g.cash("dog"), g.state.streets["Baltic Avenue"].hotels) == (before - 120, 2)


def test_hotels_on_a_set_broken_by_a_deal_earn_base_rent() -> None:
    g = Game()
    g.do("duck", "buy", property="Baltic Avenue")
    g.do("duck", "buy", property="Mediterranean Avenue")
    g.open_vault("duck", "Boardwalk")
    g.do("duck", "build_hotel", property="Mediterranean Avenue")
    g.open_vault("duck", "Vermont Avenue")
    g.do("duck", "build_hotel", property="Baltic Avenue")
    ask = g.do("duck", "sell", property="Baltic Avenue", player="dog", amount=300)
    assert ask.question is not None and not ask.events
    g.do("duck", "sell", property="Baltic Avenue", player="dog", amount=300, yes=True,
         answered_by="dog")
    assert g.state.streets["Baltic Avenue"].hotels == 0
    assert g.state.players["duck"].count("hotel") == 1  # back in the seller's supply
    assert g.state.streets["Mediterranean Avenue"].hotels == 1
    assert RULES.rent(g.state, "Mediterranean Avenue") == 4
    g.do("dog", "sell", property="Baltic Avenue", player="duck", amount=300, yes=True,
         answered_by="duck")
    assert RULES.rent(g.state, "Mediterranean Avenue") == 20  # whole again


# --- hotels -------------------------------------------------------------------------------------
def test_hotel_placing_refusals() -> None:
    g = Game()
    g.do("duck", "buy", property="Baltic Avenue")
    assert g.refuse("duck", "build_hotel", property="Baltic Avenue") == "need_full_set"
    assert g.refuse("duck", "build_hotel", property="Park Place") == "not_your_street"
    g.do("duck", "buy", property="Mediterranean Avenue")
    assert g.refuse("duck", "build_hotel", property="Baltic Avenue") == "no_hotel_supply"
    for street in ("Boardwalk", "Vermont Avenue", "Ventnor Avenue"):
        g.open_vault("duck", street)
    g.do("duck", "build_hotel", property="Baltic Avenue")
    g.do("duck", "build_hotel", property="Baltic Avenue")
    assert g.refuse("duck", "build_hotel", property="Baltic Avenue") == "two_hotels"
    g.do("duck", "mortgage", property="Mediterranean Avenue")
    assert g.refuse("duck", "build_hotel", property="Mediterranean Avenue") == "hotel_on_mortgaged"
    g.do("duck", "mortgage", property="Baltic Avenue")  # a street with hotels may be mortgaged
    assert g.state.streets["Baltic Avenue"].mortgaged


# --- the vault ----------------------------------------------------------------------------------
def test_wrong_guesses_are_remembered_until_the_vault_is_reset() -> None:
    g = Game()
    g.code(3)
    g.do("duck", "guess", number=1)
    out = g.do("dog", "guess", number=5)
    assert g.state.guessed == [1, 5]
    assert "guess_wrong" in [ln.key for ln in out.lines]
    out = g.do("cat", "guess", number=1)
    assert [ln.key for ln in out.lines] == ["guess_wrong_again"]
    assert [ln.key for ln in g.do("cat", "guesses").lines] == ["guesses"]
    g.do("cat", "guess", number=3)
    assert g.state.guessed == []
    assert g.refuse("cat", "guess", number=7) == "bad_guess"
    assert g.refuse("cat", "guess", number=0) == "bad_guess"


def test_opening_takes_everything_and_the_bank_refills_it() -> None:
    g = Game()
    g.do("duck", "pass_go")
    g.do("dog", "tax")
    assert g.state.vault_cash == 900
    g.code(2)
    out = g.do("cat", "guess", number=2)
    assert g.cash("cat") == 3900
    assert g.state.players["cat"].items == {"key": 1, "hotel": 1}
    assert (g.state.vault_cash, g.state.vault_items) == (400, {"key": 1, "hotel": 1})
    assert g.state.box == {"key": 2, "hotel": 22}
    q = out.question
    assert q is not None and q.slot == "property" and q.lapses and q.asked == "cat"
    assert set(q.choices) == LOCKED
    assert any(isinstance(e, VaultCodeSet) for e in out.events)


def test_refill_takes_only_what_the_box_still_has() -> None:
    g = Game()
    for street in sorted(LOCKED):
        g.open_vault("duck", street)
    assert g.state.box.get("key", 0) == 0 and g.state.vault_items.get("key", 0) == 0
    out = g.open_vault("dog")
    assert out.question is None  # no key found: nothing to ask
    assert g.state.players["dog"].count("key") == 0
    assert g.state.vault_items == {"hotel": 1}


def test_guess_questions_and_pay_to_guess() -> None:
    g = Game()
    for intent in ("guess", "free_parking", "leave_jail", "pay_to_guess"):
        out = g.do("duck", intent)
        q = out.question
        assert q is not None and (q.slot, q.timeout, q.lapses) == ("number", 10.0, True)
        assert not out.events  # Pay to Guess charges only with the guess itself
    g.code(4)
    g.do("duck", "pay_to_guess", number=2)
    assert g.cash("duck") == 2900 and g.state.guessed == [2]
    g.do("dog", "pay", amount=2950)
    assert g.refuse("dog", "pay_to_guess") == "cannot_afford"
    assert g.refuse("dog", "open_vault") == "virtual_vault"


def test_chance_vault_guess_asks_for_the_number() -> None:
    g = Game()
    out = g.do("duck", "chance", forced={"chance": "vault-guess"})
    assert out.question is not None and out.question.then.name == "guess"


def test_physical_vault() -> None:
    g = Game(options={"vault": "physical"})
    assert g.refuse("duck", "guess", number=3) == "use_the_dial"
    out = g.do("duck", "guess")
    assert out.question is None and [ln.key for ln in out.lines] == ["use_dial"]
    g.do("duck", "pay_to_guess", number=3)
    assert g.cash("duck") == 2900
    out = g.do("duck", "open_vault")
    assert g.cash("duck") == 3300 and g.state.vault_code == 0
    assert out.question is not None and out.question.key == "ask_key"
    assert [ln.key for ln in g.do("dog", "guesses").lines] == ["guesses_physical"]


# --- keys ---------------------------------------------------------------------------------------
def test_keys_unlock_a_locked_street_for_free() -> None:
    g = Game()
    assert g.refuse("duck", "use_key", property="Boardwalk") == "no_key"
    g.open_vault("duck")
    assert g.refuse("duck", "use_key", property="Park Place") == "not_locked"
    g.do("duck", "use_key", property="Boardwalk")
    assert g.state.owner("Boardwalk") == "duck" and g.cash("duck") == 3400
    assert g.state.streets["Boardwalk"].unlocked
    g.open_vault("dog")
    assert g.refuse("dog", "use_key", property="Boardwalk") == "already_unlocked"
    assert g.state.players["dog"].count("key") == 1


# --- GO, tax, jail --------------------------------------------------------------------------------
def test_go_tax_and_jail() -> None:
    g = Game()
    g.do("duck", "pass_go")
    assert (g.cash("duck"), g.state.vault_cash) == (3400, 500)
    g.do("duck", "tax")
    assert (g.cash("duck"), g.state.vault_cash) == (3000, 900)
    assert g.refuse("duck", "get_out_of_jail") == "not_in_jail"
    g.do("duck", "go_to_jail")
    assert g.state.players["duck"].in_jail
    # one jail for every edition: a second "go to jail" changes nothing, with one refusal code
    assert g.refuse("duck", "go_to_jail") == "already_in_jail"
    assert g.refuse("duck", "pass_go") == "jail_no_go"
    g.do("duck", "get_out_of_jail")
    assert (g.cash("duck"), g.state.vault_cash, g.state.players["duck"].in_jail) == (2900, 1000,
                                                                                    False)
    g.do("duck", "go_to_jail")
    out = g.do("duck", "leave_jail")
    assert not g.state.players["duck"].in_jail and out.question is None  # no guess on it
    assert g.cash("duck") == 2900


# --- chance ---------------------------------------------------------------------------------------
def test_deck_top_card_goes_to_the_bottom_and_forced_cards_come_from_anywhere() -> None:
    g = Game()
    deck = list(g.state.deck)
    top = deck[0]
    if top == "jail-free":  # make the test about an ordinary card
        g.do("duck", "chance")
        deck = list(g.state.deck)
        top = deck[0]
    g.do("dog", "chance")
    assert g.state.deck == [*deck[1:], top]
    middle = g.state.deck[5]
    if middle == "jail-free":
        middle = g.state.deck[6]
    before = list(g.state.deck)
    out = g.do("cat", "chance", forced={"chance": middle})
    assert out.lines[0].params["title"] == ED.card(middle).title
    assert g.state.deck == [c for c in before if c != middle] + [middle]


def test_jail_free_card_is_kept_then_goes_to_the_bottom() -> None:
    g = Game()
    g.do("duck", "chance", forced={"chance": "jail-free"})
    assert "jail-free" not in g.state.deck and len(g.state.deck) == 11
    assert g.state.players["duck"].count("jail_card") == 1
    top = g.state.deck[0]
    out = g.do("dog", "chance", forced={"chance": "jail-free"})  # out: the top card instead
    assert out.lines[0].params["title"] == ED.card(top).title
    g.do("duck", "go_to_jail")
    cash = g.cash("duck")
    g.do("duck", "get_out_of_jail")
    assert g.cash("duck") == cash and g.state.deck[-1] == "jail-free"
    assert g.state.players["duck"].count("jail_card") == 0


@pytest.mark.parametrize(("card", "duck", "dog", "vault"), [
    ("dividend", 3100, 3000, 400), ("tax-refund", 3200, 3000, 400),
    ("fine", 2900, 3000, 500), ("vault-pay", 2800, 3000, 600),
    ("advance-go", 3400, 3000, 500), ("chairman", 2800, 3100, 400),
    ("birthday", 3100, 2950, 400), ("boardwalk", 3000, 3000, 400),
    ("repairs", 3000, 3000, 400),
])
def test_card_effects(card: str, duck: int, dog: int, vault: int) -> None:
    g = Game()
    g.do("duck", "chance", forced={"chance": card})
    assert (g.cash("duck"), g.cash("dog"), g.state.vault_cash) == (duck, dog, vault)


def test_repairs_count_only_hotels_on_streets() -> None:
    g = Game()
    g.do("duck", "buy", property="Baltic Avenue")
    g.do("duck", "buy", property="Mediterranean Avenue")
    g.open_vault("duck", "Boardwalk")
    g.open_vault("duck", "Vermont Avenue")
    g.do("duck", "build_hotel", property="Baltic Avenue")  # one placed, one in the supply
    cash = g.cash("duck")
    g.do("duck", "chance", forced={"chance": "repairs"})
    assert g.cash("duck") == cash - 100


def test_chairman_short_pays_what_is_left_to_the_first_and_owes_the_rest() -> None:
    g = Game(("duck", "dog", "cat"))
    g.do("duck", "pay", amount=2850, player="cat")  # duck keeps 150
    g.do("duck", "chance", forced={"chance": "chairman"})
    assert (g.cash("duck"), g.cash("dog"), g.cash("cat")) == (0, 3100, 5900)
    d = g.state.debt
    assert d is not None and (d.debtor, d.creditor, d.amount) == ("duck", "cat", 50)


def test_birthday_from_a_poor_player_opens_a_debt_to_the_drawer() -> None:
    """ "Several payers": one who can't pay owes the drawer (nothing moves), paid as soon as
    their cash covers it."""
    g = Game(("duck", "dog"))
    g.do("dog", "pay", amount=2980)
    g.do("duck", "chance", forced={"chance": "birthday"})
    d = g.state.debt
    assert (g.cash("duck"), g.cash("dog")) == (3000, 20)
    assert d is not None and (d.debtor, d.creditor, d.amount) == ("dog", "duck", 50)
    g.do("dog", "collect", amount=30)
    assert (g.cash("duck"), g.cash("dog"), g.state.debts) == (3050, 0, [])


# --- deals ----------------------------------------------------------------------------------------
def test_deals_need_the_other_players_agreement() -> None:
    g = Game()
    g.do("duck", "buy", property="Oriental Avenue")
    out = g.do("duck", "sell", property="Oriental Avenue", player="dog", amount=300)
    q = out.question
    assert q is not None and not out.events
    assert (q.key, q.asked, q.slot, q.timeout, q.lapses) == ("ask_agree", "dog", "yes", 30.0, True)
    out = g.do("duck", "sell", property="Oriental Avenue", player="dog", amount=300, yes=False,
               answered_by="dog")
    assert not out.events and [ln.key for ln in out.lines] == ["declined_deal"]
    out = g.do("duck", "sell", property="Oriental Avenue", player="dog", amount=300, yes=True,
               answered_by="dog")
    assert g.state.owner("Oriental Avenue") == "dog" and "dog" in out.participants
    assert (g.cash("duck"), g.cash("dog")) == (3100, 2700)
    assert g.refuse("duck", "sell", property="Oriental Avenue", player="cat",
                    amount=10) == "not_your_street"
    assert g.refuse("dog", "sell", property="Oriental Avenue", player="dog",
                    amount=10) == "deal_self"
    assert g.refuse("dog", "sell", property="Oriental Avenue", player="cat",
                    amount=9000) == "deal_short"
    assert g.refuse("cat", "buy_from", property="Oriental Avenue", player="duck",
                    amount=10) == "not_their_street"
    assert g.refuse("cat", "sell_hotel", player="dog", amount=10) == "no_hotel"
    assert g.refuse("cat", "buy_card", player="dog", amount=10) == "no_jail_card"


def test_trade_street_for_street_keeps_mortgages() -> None:
    g = Game()
    g.do("duck", "buy", property="Oriental Avenue")
    g.do("dog", "buy", property="Park Place")
    g.do("dog", "mortgage", property="Park Place")
    assert g.do("duck", "trade", give="Oriental Avenue", get="Park Place").question is not None
    g.do("duck", "trade", give="Oriental Avenue", get="Park Place", player="dog", yes=True,
         answered_by="dog")
    assert (g.state.owner("Oriental Avenue"), g.state.owner("Park Place")) == ("dog", "duck")
    assert g.state.streets["Park Place"].mortgaged


def test_hotels_and_the_card_change_hands() -> None:
    g = Game()
    g.open_vault("duck", "Boardwalk")
    g.do("duck", "chance", forced={"chance": "jail-free"})
    g.do("dog", "buy_hotel", player="duck", amount=250, yes=True, answered_by="duck")
    g.do("duck", "sell_card", player="cat", amount=50, yes=True, answered_by="cat")
    assert g.state.players["dog"].items == {"hotel": 1}
    assert g.state.players["cat"].items == {"jail_card": 1}
    assert (g.cash("duck"), g.cash("dog"), g.cash("cat")) == (3700, 2750, 2950)


# --- debts and bankruptcy -----------------------------------------------------------------------
def test_a_debt_opens_nothing_moves_and_it_is_paid_once_cash_covers_it() -> None:
    g = Game()
    g.do("duck", "buy", property="Park Place")
    g.do("dog", "buy", property="Baltic Avenue")
    g.do("dog", "pay", amount=2850)  # dog keeps 30
    out = g.do("dog", "pay_rent", property="Park Place")
    assert g.cash("dog") == 30 and g.cash("duck") == 2300
    assert [ln.key for ln in out.lines] == ["short", "can_mortgage"]
    assert out.lines[0].params["missing"] == 40
    assert g.refuse("dog", "buy", property="Oriental Avenue") == "in_debt"
    assert g.refuse("dog", "unmortgage", property="Baltic Avenue") == "in_debt"
    # another player falls into a debt of their own meanwhile ("Secret Vault open debts")
    g.do("cat", "pay", amount=2990)
    g.do("cat", "tax")
    assert [(d.debtor, d.creditor, d.amount) for d in g.state.debts] == [
        ("dog", "duck", 70), ("cat", "vault", 400)]
    g.do("cat", "collect", amount=500)  # paid as soon as the cash covers it
    assert g.state.debts_of("cat") == [] and g.cash("cat") == 110
    assert g.refuse("cat", "bankrupt") == "not_bankrupt"
    out = g.do("dog", "mortgage", property="Baltic Avenue")
    assert g.state.debt is None and "debt_paid" in [ln.key for ln in out.lines]
    assert (g.cash("dog"), g.cash("duck")) == (20, 2370)


def test_bankrupt_to_a_player_hands_over_everything() -> None:
    g = Game()
    g.do("duck", "buy", property="Park Place")
    g.do("dog", "buy", property="Mediterranean Avenue")
    g.do("dog", "buy", property="Baltic Avenue")
    g.open_vault("dog", "Boardwalk")
    g.open_vault("dog")
    g.do("dog", "build_hotel", property="Baltic Avenue")
    g.do("dog", "chance", forced={"chance": "jail-free"})
    g.do("dog", "mortgage", property="Mediterranean Avenue")
    g.do("dog", "go_to_jail")
    g.do("dog", "pay", amount=g.cash("dog") - 10)
    g.do("dog", "pay_rent", property="Park Place")
    # "I'm bankrupt" is refused while a mortgage would pay the debt
    assert g.refuse("dog", "bankrupt") == "bankrupt_can_raise"
    g.do("dog", "mortgage", property="Baltic Avenue")  # M70: the rent is paid at once
    assert g.state.debt is None and g.cash("duck") == 2370
    g.do("dog", "mortgage", property="Boardwalk")
    g.do("dog", "pay", amount=g.cash("dog") - 10)
    g.do("dog", "pay_rent", property="Park Place")  # short again, nothing left to mortgage
    out = g.do("dog", "bankrupt")
    s = g.state
    assert s.players["dog"].out and not s.players["dog"].in_jail and s.debt is None
    assert [s.owner(n) for n in ("Mediterranean Avenue", "Baltic Avenue", "Boardwalk")] == [
        "duck"] * 3
    assert s.streets["Mediterranean Avenue"].mortgaged and s.streets["Baltic Avenue"].hotels == 1
    assert s.players["duck"].items == {"hotel": 1, "key": 1, "jail_card": 1}
    assert g.cash("duck") == 2380 and not out.auctions and not s.game_over
    assert g.refuse("dog", "buy", property="Oriental Avenue") == "player_out"


def test_bankrupt_to_the_bank_returns_bare_streets_for_auction() -> None:
    g = Game()
    g.do("dog", "buy", property="Mediterranean Avenue")
    g.do("dog", "buy", property="Baltic Avenue")
    g.open_vault("dog", "Vermont Avenue")
    g.do("dog", "build_hotel", property="Baltic Avenue")
    g.do("dog", "mortgage", property="Mediterranean Avenue")
    g.do("dog", "chance", forced={"chance": "jail-free"})
    g.do("dog", "pay", amount=g.cash("dog") - 10)
    g.do("dog", "chance", forced={"chance": "vault-pay"})
    out = g.do("dog", "bankrupt")
    s = g.state
    assert out.auctions == ["Mediterranean Avenue", "Baltic Avenue", "Vermont Avenue"]
    assert all(s.owner(n) is None for n in out.auctions)
    assert not any(h.mortgaged for h in s.streets.values())
    assert s.streets["Baltic Avenue"].hotels == 0 and s.box["hotel"] == 23
    assert s.streets["Vermont Avenue"].unlocked and s.deck[-1] == "jail-free"
    g.do("duck", "auction_close", property="Vermont Avenue", amount=10)  # auctioned like any
    assert s.owner("Vermont Avenue") == "duck"


# --- the end --------------------------------------------------------------------------------------
def _own_everything(g: Game, last: str = "Illinois Avenue") -> None:
    """duck and dog share the board; ``last`` is left for the caller."""
    unlocked = ("Boardwalk", "Vermont Avenue", "St. James Place", "Ventnor Avenue")
    for i, street in enumerate(unlocked):
        g.open_vault("duck" if i % 2 == 0 else "dog", street)
    for i, st in enumerate(s for s in ED.streets if s.name not in LOCKED and s.name != last):
        who = "duck" if i % 2 == 0 else "dog"
        g.do(who, "collect", amount=st.price)
        g.do(who, "buy", property=st.name)


def test_all_owned_ends_with_one_rent_per_street() -> None:
    g = Game(("duck", "dog"))
    _own_everything(g)
    g.do("duck", "mortgage", property="Park Place")
    ranking = dict(RULES.ranking(g.state))
    before = {t: g.cash(t) for t in ("duck", "dog")}
    g.do("dog", "collect", amount=480)
    out = g.do("dog", "buy", property="Illinois Avenue")
    s = g.state
    assert s.game_over and isinstance(out.events[-1], GameEnded)
    rents = {t: RULES.rent_total(s, t) for t in ("duck", "dog")}
    assert rents["duck"] == sum(RULES.rent(s, n) for n in s.owned_by("duck"))
    assert RULES.rent(s, "Park Place") == 0
    assert g.cash("duck") == before["duck"] + rents["duck"] == ranking["duck"]
    assert g.cash("dog") == before["dog"] + rents["dog"]
    best = max(("duck", "dog"), key=g.cash)
    assert s.winners == [best]
    assert RULES.measure(s, "duck") == g.cash("duck")  # rents collected: cash alone now
    assert g.refuse("duck", "pass_go") == "game_over"
    assert [ln.key for ln in g.do("duck", "balance").lines] == ["balance"]


def test_first_bankruptcy_option_ends_there_and_not_when_all_owned() -> None:
    g = Game(("duck", "dog", "cat"), options={"end": "first-bankruptcy"})
    _own_everything(g, last="Illinois Avenue")
    g.do("dog", "collect", amount=480)
    g.do("dog", "buy", property="Illinois Avenue")
    assert not g.state.game_over
    g.do("cat", "pay", amount=2950)
    g.do("cat", "tax")
    out = g.do("cat", "bankrupt")
    assert g.state.game_over and not out.auctions  # the game is over: no auctions
    assert set(g.state.winners) <= {"duck", "dog"}


def test_last_player_standing_ends_the_game_and_ties_share_the_win() -> None:
    g = Game(("duck", "dog"))
    g.do("dog", "pay", amount=2990)
    g.do("dog", "tax")
    g.do("dog", "bankrupt")
    assert g.state.game_over and g.state.winners == ["duck"]
    t = Game(("duck", "dog", "cat"), options={"end": "first-bankruptcy"})
    t.do("cat", "pay", amount=2990)
    t.do("cat", "tax")
    t.do("cat", "bankrupt")
    assert t.state.winners == ["duck", "dog"]


def test_who_is_winning_counts_cash_plus_one_rent_per_street() -> None:
    g = Game(("duck", "dog"))
    g.do("duck", "buy", property="Park Place")
    assert RULES.measure(g.state, "duck") == 2300 + 70
    out = g.do("dog", "status")
    keys = [ln.key for ln in out.lines]
    assert keys == ["ranking_line", "ranking_line", "vault_contents"]
    assert out.lines[0].params["player"] == "dog"


def test_a_scripted_game_keeps_the_stock_after_every_event() -> None:
    g = Game(("duck", "dog", "cat", "hat"), seed=3)
    script: list[tuple[str, str, dict[str, Any]]] = [
        ("duck", "buy", {"property": "Mediterranean Avenue"}),
        ("duck", "buy", {"property": "Baltic Avenue"}),
        ("dog", "pay_rent", {"property": "Baltic Avenue"}),
        ("cat", "pass_go", {}), ("hat", "tax", {}), ("dog", "chance", {}), ("cat", "chance", {}),
        ("hat", "chance", {}), ("duck", "chance", {}),
    ]
    for who, intent, slots in script:
        with contextlib.suppress(Refusal):  # a card may not apply now: then nothing changes
            g.do(who, intent, **slots)
    for n, who in enumerate(("dog", "cat", "hat", "duck", "dog", "cat")):
        g.open_vault(who)
        streets = RULES.locked_left(g.state)
        if streets and n % 2 == 0 and g.state.players[who].count("key"):
            g.do(who, "use_key", property=streets[0])
    if g.state.players["duck"].count("hotel"):
        g.do("duck", "build_hotel", property="Baltic Avenue")
    assert g.events > 40
    assert check(g.state) == []


# --- what a transcript can force (transcripts.md) ------------------------------------------------
@pytest.mark.parametrize(("steps", "needle"), [
    ("  - next: {chance: jail-free}\n  - duck: chance card\n  - next: {chance: jail-free}\n",
     "Get Out of Jail Free card is out"),
    ("  - next: {vault_code: 3}\n", "physical vault"),
])
def test_forcing_what_cant_be_drawn_is_malformed(tmp_path: Path, steps: str, needle: str) -> None:
    from banker.frontends.replay import replay_files

    path = tmp_path / "t.yaml"
    path.write_text("edition: secret-vault\nplayers: [duck, dog]\noptions: {vault: physical}\n"
                    f"steps:\n{steps}", encoding="utf-8")
    out = io.StringIO()
    assert replay_files([path], out=out) == 2
    assert needle in out.getvalue()


def test_banker_state_lists_the_open_debts() -> None:
    from banker.state_text import state_lines

    g = Game(("duck", "dog", "cat"))
    g.do("duck", "pay", amount=2850, player="cat")
    assert not [ln for ln in state_lines(g.state, ["duck", "dog", "cat"]) if "debt" in ln]
    g.do("duck", "chance", forced={"chance": "chairman"})
    debts = [ln.strip() for ln in state_lines(g.state, ["duck", "dog", "cat"]) if "debt" in ln]
    assert len(debts) == len(g.state.debts) >= 1
    assert debts[0].startswith("open debt: duck owes cat M50"), debts
