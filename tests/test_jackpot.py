"""Monopoly Jackpot, tested directly on the pure rules core (and a few Session dialogues).

Through the one given/when/then helper (``tests/rules/scenario.py``): every event of every
decision is applied one at a time and the invariants are checked after each one (money
conserved at $21,000, no negative balance, no unowned street with a house), and a refusal
must leave the state unchanged.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from banker.editions import load_edition
from banker.interpreter.session import Session, VirtualClock
from banker.nlu.matcher import Matcher, Recognized
from banker.rules import Draws, GameState, Outcome, Refusal
from banker.rules.events import CashMoved, GameEnded
from banker.rules.invariants import check
from banker.rules.jackpot import JackpotRules
from tests.rules.scenario import Scenario, keys

ED = load_edition("jackpot")
RULES = JackpotRules(ED)
TOTAL = 21000
FOUR = ("car", "dog", "shoe", "hat")


def new(players: tuple[str, ...] = FOUR) -> GameState:
    return Scenario(RULES, RULES.initial_state(list(players), {}, seed=1)).state


# The states here are values passed along, so each step is a scenario forked from a state.
def applied(state: GameState, out: Outcome) -> GameState:
    """The state after ``out``, checking every invariant after every single event."""
    sc = Scenario(RULES, state.clone())
    sc.apply(out.events, "outcome")
    return sc.state


def decide(state: GameState, who: str, intent: str, forced: dict[str, Any] | None = None, /,
           **slots: Any) -> Outcome:
    return Scenario(RULES, state).decide(who, intent, forced, **slots)


def play(state: GameState, who: str, intent: str, forced: dict[str, Any] | None = None, /,
         **slots: Any) -> tuple[GameState, Outcome]:
    sc = Scenario(RULES, state.clone())
    out = sc.when(who, intent, forced, **slots)
    return sc.state, out


def refusal(state: GameState, who: str, intent: str, /, **slots: Any) -> str:
    """The refusal code; the scenario also checks that the state is unchanged."""
    return Scenario(RULES, state).refused(who, intent, **slots)


def chance(state: GameState, taker: str, bets: dict[str, int], outcome: str,
           hot: str | None = None) -> tuple[GameState, Outcome]:
    """A whole betting round on the pure core: chance, the bets, the physical spinner."""
    state, out = play(state, taker, "chance")
    assert out.hold is not None and out.hold.owner == taker
    for who, n in bets.items():
        state, out = play(state, who, "bet", amount=n, held_by=taker)
        assert out.hold is not None
    slots: dict[str, Any] = {"outcome": outcome, "held_by": taker}
    if hot:
        slots["property"] = hot
    return play(state, taker, "spinner", **slots)


def answer(state: GameState, out: Outcome, **slots: Any) -> tuple[GameState, Outcome]:
    """Answer the outcome's question: its ``then`` command decided again with the answer."""
    sc = Scenario(RULES, state.clone())
    again = sc.answer(out, **slots)
    return sc.state, again


def owned(state: GameState, who: str, *streets: str) -> GameState:
    for s in streets:
        state, _ = play(state, who, "buy", property=s)
    return state


# --- edition data ---------------------------------------------------------------------------

def test_edition_values() -> None:
    assert ED.token_ids == FOUR and ED.start_cash == 2000 and ED.currency == "$"
    assert ED.money_total == 21000 and ED.stock == {"houses_per_player": 10}
    assert ED.auction.open == 100 and ED.auction.step == 100
    assert ED.fees == {"pass_go": 200, "bail": 100}
    prices = {g: {s.price for s in ED.streets if s.group == g} for g in ED.groups}
    assert prices == {"brown": {100}, "light blue": {200}, "pink": {300}, "orange": {400},
                      "red": {500}, "yellow": {600}, "green": {700}, "dark blue": {800}}
    assert all(s.rent == {"base": s.price, "pair": 2 * s.price} for s in ED.streets)
    assert len(ED.streets) == 16


def test_spinner_outcomes_and_segments_as_editions_md_spells_them() -> None:
    assert RULES.outcomes == ["x1 pay out", "x2 pay out", "x4 pay out", "pass left", "pass right",
                              "pay jackpot", "go to jail", "build house", "steal house",
                              "swap house", "swap cash", "bankrupt", "jackpot"]
    counts = Counter(RULES.segments)
    assert sum(counts.values()) == 16
    assert {o for o, n in counts.items() if n == 2} == {"x1 pay out", "x2 pay out", "pay jackpot"}
    assert set(counts) == set(RULES.outcomes)


def test_bank_starts_with_the_rest_of_21000() -> None:
    assert new().bank == 13000
    assert new(("car", "dog")).bank == 17000


def test_the_virtual_spin_is_uniform_over_the_16_segments() -> None:
    state = new()
    spins = Counter(RULES.draw(state.__class__(**{**state.__dict__, "seed": i}), Draws(), "spin",
                               RULES.segments)[0] for i in range(3200))
    assert set(spins) == set(RULES.outcomes)
    assert 300 <= spins["x1 pay out"] <= 500  # 2/16 of 3200 = 400
    assert 120 <= spins["jackpot"] <= 280  # 1/16 of 3200 = 200


def test_spin_records_both_draws_and_honours_forced_values() -> None:
    state, _ = play(new(), "car", "chance")
    out = decide(state, "car", "spin", {"spin": "pay jackpot", "hot_house": "none"}, held_by="car")
    drawn = [(e.what, e.value) for e in out.events if e.kind == "drawn"]  # type: ignore[attr-defined]
    assert drawn == [("spin", "pay jackpot"), ("hot_house", "none")]
    out = decide(state, "car", "spin", held_by="car")
    values = {e.what: e.value for e in out.events if e.kind == "drawn"}  # type: ignore[attr-defined]
    assert values["spin"] in RULES.outcomes and values["hot_house"] in ED.street_names


# --- streets and rent -----------------------------------------------------------------------

def test_buying_pays_the_jackpot_and_places_a_house() -> None:
    state, _ = play(new(), "car", "buy", property="Park Place")
    assert state.cash("car") == 1200 and state.jackpot == 800 and state.bank == 13000
    assert state.streets["Park Place"].houses == 1 and state.streets["Boardwalk"].houses == 0
    assert refusal(state, "dog", "buy", property="Park Place") == "already_owned"
    state = owned(state, "car", "Boardwalk")
    assert refusal(state, "car", "buy", property="Pacific Avenue") == "cannot_afford_buy"


def test_rent_is_the_price_or_double_for_the_pair_and_nothing_from_jail() -> None:
    state = owned(new(), "car", "Kentucky Avenue")
    assert RULES.rent(state, "Kentucky Avenue") == 500
    state = owned(state, "car", "Illinois Avenue")
    assert RULES.rent(state, "Kentucky Avenue") == 1000
    state, _ = play(state, "dog", "pay_rent", property="Illinois Avenue")
    assert state.cash("dog") == 1000 and state.cash("car") == 2000
    state, _ = play(state, "car", "go_to_jail")
    assert refusal(state, "dog", "pay_rent", property="Illinois Avenue") == "owner_in_jail"


def test_short_of_rent_without_a_street_pays_all_cash() -> None:
    state = owned(new(), "car", "Park Place", "Boardwalk")
    state, _ = play(state, "dog", "pay", amount=1500, player="shoe")
    state, out = play(state, "dog", "pay_rent", property="Boardwalk")
    assert state.cash("dog") == 0 and state.cash("car") == 900 and "short_no_street" in keys(out)
    state, out = play(state, "dog", "pay_rent", property="Boardwalk")
    assert out.events == [] and not state.players["dog"].out


def test_short_of_rent_gives_a_street_of_the_payers_choice_and_keeps_the_cash() -> None:
    state = owned(new(), "car", "Park Place", "Boardwalk")
    state = owned(state, "dog", "Baltic Avenue", "Oriental Avenue")
    state, _ = play(state, "dog", "pay", amount=1600, player="shoe")
    state, out = play(state, "dog", "pay_rent", property="Park Place")
    q = RULES.debt_question(state)  # the rent is owed; the question is asked from the debt
    assert q is not None and q.asked == "dog" and q.slot == "give"
    assert [(d.debtor, d.creditor, d.amount) for d in state.debts] == [("dog", "car", 1600)]
    assert state.cash("dog") == 100
    assert not q.lapses and q.choices == ("Baltic Avenue", "Oriental Avenue")
    with pytest.raises(Refusal) as exc:
        answer(state, out, give="Boardwalk")
    assert exc.value.code == "must_give"
    state, _ = answer(state, out, give="Oriental Avenue")
    assert state.owner("Oriental Avenue") == "car" and state.cash("dog") == 100
    assert state.cash("car") == 400


def test_a_creditor_with_ten_streets_chooses_a_street_to_vacate_or_none() -> None:
    state, _ = play(new(), "car", "collect", amount=4000)
    ten = list(ED.street_names[:10])
    state = owned(state, "car", *ten)
    state = owned(state, "dog", "Pacific Avenue")
    state, _ = play(state, "dog", "pay", amount=1200, player="hat")
    state, out = play(state, "dog", "pay_rent", property="Illinois Avenue")
    state2, out2 = answer(state, out, give="Pacific Avenue")
    q = out2.question
    assert q is not None and q.asked == "car" and q.slot == "get" and "none" in q.choices
    after, _ = answer(state2, out2, get="Baltic Avenue")
    assert after.owner("Pacific Avenue") == "car" and after.owner("Baltic Avenue") is None
    assert len(after.owned_by("car")) == 10
    after, _ = answer(state2, out2, get="none")
    assert after.owner("Pacific Avenue") is None and after.streets["Pacific Avenue"].houses == 0


def test_an_eleventh_street_moves_a_house_and_refunds_nothing() -> None:
    state, _ = play(new(), "car", "collect", amount=4000)
    state = owned(state, "car", *ED.street_names[:10])
    out = decide(state, "car", "buy", property="Park Place")
    q = out.question
    assert q is not None and q.params["cancellable"] and not q.lapses
    after, _ = answer(state, out, give="Baltic Avenue")
    assert after.owner("Baltic Avenue") is None and after.owner("Park Place") == "car"
    assert after.cash("car") == state.cash("car") - 800
    for give_up in ("none", "cancel"):
        after, out2 = answer(state, out, give=give_up)
        assert out2.events == [] and after.owner("Park Place") is None
    with pytest.raises(Refusal):
        answer(state, out, give="Boardwalk")  # not one of the car's


def test_auction_payments_go_to_the_jackpot_and_jail_bars_bidding() -> None:
    state, _ = play(new(), "dog", "auction_close", property="Boardwalk", amount=300)
    assert state.jackpot == 300 and state.owner("Boardwalk") == "dog"
    assert RULES.can_bid(state, "hat") is None
    state, _ = play(state, "hat", "go_to_jail")
    assert RULES.can_bid(state, "hat") == "jail_no_bid"


# --- the betting round ----------------------------------------------------------------------

def test_bets_move_cash_to_the_table_replace_and_withdraw() -> None:
    state, _ = play(new(), "car", "chance")
    state, _ = play(state, "dog", "bet", amount=500, held_by="car")
    assert state.cash("dog") == 1500 and state.stakes == {"dog": 500}
    state, _ = play(state, "dog", "bet", amount=2000, held_by="car")  # replaces the 500
    assert state.cash("dog") == 0 and state.stakes == {"dog": 2000}
    assert refusal(state, "dog", "bet", amount=2100, held_by="car") == "bet_too_high"
    state, _ = play(state, "dog", "bet", amount=0, held_by="car")
    assert state.stakes == {} and state.cash("dog") == 2000
    state, _ = play(state, "dog", "bet", amount=300, held_by="car")
    state, out = play(state, "dog", "bet", held_by="car")  # "no bet"
    assert state.stakes == {} and "bet_withdrawn" in keys(out)
    assert refusal(state, "dog", "bet", amount=250, held_by="car") == "hundreds"


def test_betting_needs_an_open_round_a_free_player_and_the_taker_to_spin() -> None:
    state = new()
    assert refusal(state, "dog", "bet", amount=100) == "no_betting"
    assert refusal(state, "car", "spin") == "no_betting"
    state, _ = play(state, "hat", "go_to_jail")
    assert refusal(state, "hat", "chance") == "jail_landing"
    state, _ = play(state, "car", "chance")
    assert refusal(state, "hat", "bet", amount=100, held_by="car") == "jail_no_bet"
    assert refusal(state, "dog", "spin", held_by="car") == "only_taker"
    assert refusal(state, "dog", "spinner", outcome="jackpot", held_by="car") == "only_taker"
    assert refusal(state, "car", "spinner", outcome="lose a turn", held_by="car") == "which_outcome"


def test_x1_pay_out_the_rulebook_example() -> None:
    state, _ = chance(new(), "shoe", {"shoe": 300, "hat": 200, "car": 500}, "x1 pay out")
    assert [state.cash(t) for t in FOUR] == [2500, 2000, 2300, 2200]
    assert state.bank == 12000 and state.stakes == {}


def test_pay_outs_go_from_the_taker_to_the_left_and_stop_when_the_bank_is_dry() -> None:
    state, _ = play(new(), "car", "collect", amount=10000)
    state, out = chance(state, "shoe", {"shoe": 500, "hat": 300, "car": 200, "dog": 100},
                        "x4 pay out")
    paid = [(e.dst, e.amount) for e in out.events if isinstance(e, CashMoved) and e.src == "bank"]
    assert paid == [("shoe", 2000), ("hat", 1000)]
    assert state.bank == 0 and state.game_over and state.winners == ["car"]
    assert isinstance(out.events[-1], GameEnded)
    assert refusal(state, "dog", "pass_go") == "game_over"
    assert decide(state, "dog", "balance").lines  # queries still work


def test_pass_right_skips_the_player_who_did_not_bet() -> None:
    state, out = chance(new(), "car", {"car": 300, "dog": 200, "shoe": 100}, "pass right")
    moves = [(e.src, e.dst, e.amount) for e in out.events if isinstance(e, CashMoved)]
    assert moves == [("stake:car", "shoe", 300), ("stake:shoe", "dog", 100),
                     ("stake:dog", "car", 200)]
    assert state.cash("hat") == 2000


def test_pass_with_two_bettors_is_the_same_either_way_and_one_bettor_keeps_it() -> None:
    left, _ = chance(new(), "car", {"car": 300, "shoe": 100}, "pass left")
    right, _ = chance(new(), "car", {"car": 300, "shoe": 100}, "pass right")
    assert left.players == right.players and left.cash("car") == 1800
    alone, _ = chance(new(), "car", {"dog": 400}, "pass left")
    assert alone.cash("dog") == 2000


def test_pay_jackpot_go_to_jail_bankrupt_and_jackpot() -> None:
    state, _ = chance(new(), "car", {"car": 300, "dog": 200}, "pay jackpot")
    assert state.jackpot == 500 and state.cash("car") == 1700 and state.cash("dog") == 1800
    state, _ = chance(state, "dog", {"dog": 400, "car": 100}, "go to jail")
    assert state.jackpot == 900 and state.cash("car") == 1700 and state.players["dog"].in_jail
    state, _ = chance(state, "shoe", {"shoe": 300, "car": 100}, "bankrupt")
    assert state.cash("shoe") == 0 and state.jackpot == 2900 and state.cash("car") == 1700
    state, _ = chance(state, "hat", {"hat": 200, "car": 700}, "jackpot")
    assert state.cash("hat") == 2000 + 2900 + 700 and state.jackpot == 0
    assert state.cash("car") == 1000


def test_hot_house_pays_first_double_or_quadruple_but_not_in_jail() -> None:
    state = owned(new(), "car", "Park Place")
    state, out = chance(state, "dog", {}, "pay jackpot", hot="Park Place")
    assert state.cash("car") == 1200 + 1600 and "hot_house" in keys(out)
    state = owned(state, "car", "Boardwalk")
    state, _ = chance(state, "dog", {}, "pay jackpot", hot="Park Place")
    assert state.cash("car") == 2000 + 3200
    state, _ = play(state, "car", "go_to_jail")
    state, out = chance(state, "dog", {}, "pay jackpot", hot="Park Place")
    assert state.cash("car") == 5200 and "hot_house_jail" in keys(out)


def test_a_bank_emptied_by_the_hot_house_skips_the_choice_and_ends_the_game() -> None:
    state, _ = play(new(("car", "dog")), "car", "collect", amount=16500)
    state = owned(state, "dog", "Park Place")
    state, out = chance(state, "car", {"car": 200}, "steal house", hot="Park Place")
    assert out.question is None and state.game_over and state.bank == 0
    assert state.cash("dog") == 1200 + 500 and state.cash("car") == 18500


# --- outcomes with a choice -----------------------------------------------------------------

def test_build_house_asks_for_an_unowned_street_and_can_be_given_up() -> None:
    state = owned(new(), "dog", "Boardwalk")
    spun, out = chance(state, "car", {"car": 200, "dog": 100}, "build house")
    q = out.question
    assert q is not None and q.slot == "property" and "Boardwalk" not in q.choices
    assert out.hold is not None and spun.stakes == {}  # stakes back first, round still open
    with pytest.raises(Refusal):
        answer(spun, out, property="Boardwalk")
    after, done = answer(spun, out, property="Park Place")
    assert after.owner("Park Place") == "car" and done.hold is None
    after, done = answer(spun, out, property="cancel")
    assert after.owned_by("car") == [] and "choice_given_up" in keys(done)


def test_build_house_with_every_street_owned_does_nothing() -> None:
    state, _ = play(new(), "car", "collect", amount=6000)
    state = owned(state, "car", *ED.street_names[:10])
    state, _ = play(state, "dog", "collect", amount=4000)
    state = owned(state, "dog", *ED.street_names[10:])
    state, out = chance(state, "shoe", {"shoe": 100}, "build house")
    assert out.question is None and "no_build" in keys(out) and state.cash("shoe") == 2000


def test_steal_house_by_a_thief_with_ten_streets() -> None:
    """editions.md, "Jackpot steal house": a thief with all 10 houses out still steals (the
    rulebook's NOTE: "you CAN still steal"), asked which own street to vacate; "none" leaves
    the stolen street unowned."""
    state, _ = play(new(), "car", "collect", amount=4000)
    state = owned(state, "car", *ED.street_names[:10])
    state = owned(state, "dog", "Boardwalk")
    spun, out = chance(state, "car", {}, "steal house")
    assert out.question is not None and out.question.key == "ask_steal"
    asked, out2 = answer(spun, out, property="Boardwalk")
    assert out2.question is not None and out2.question.key == "ask_vacate"
    assert "none" in out2.question.choices and asked.owner("Boardwalk") == "dog"
    after, done = answer(asked, out2, give="Mediterranean Avenue")
    assert after.owner("Boardwalk") == "car" and after.owner("Mediterranean Avenue") is None
    assert len(after.owned_by("car")) == 10 and done.hold is None
    after, done = answer(asked, out2, give="none")
    assert after.owner("Boardwalk") is None and len(after.owned_by("car")) == 10
    assert after.owned_by("dog") == [] and done.hold is None


def test_steal_and_swap_need_someone_elses_street() -> None:
    state, out = chance(new(), "car", {"car": 100}, "steal house")
    assert out.question is None and "no_steal" in keys(out) and state.cash("car") == 2000
    state = owned(state, "dog", "Boardwalk")
    state, out = chance(state, "car", {}, "swap house")
    assert out.question is None and "no_swap" in keys(out)


def test_swap_house_one_question_at_a_time_or_both_at_once() -> None:
    state = owned(owned(new(), "car", "Baltic Avenue"), "dog", "Boardwalk", "Park Place")
    spun, out = chance(state, "car", {}, "swap house")
    both, _ = answer(spun, out, give="Baltic Avenue", get="Park Place")
    assert both.owner("Park Place") == "car" and both.owner("Baltic Avenue") == "dog"
    mid, out2 = answer(spun, out, give="Baltic Avenue")
    assert out2.question is not None and out2.question.slot == "get"
    with pytest.raises(Refusal):
        answer(mid, out2, get="Baltic Avenue")
    with pytest.raises(Refusal):
        answer(spun, out, give="Boardwalk")


def test_swap_cash_returns_stakes_first_then_swaps_everything() -> None:
    state = owned(new(), "car", "Park Place")
    spun, out = chance(state, "car", {"car": 500, "dog": 300}, "swap cash")
    assert spun.cash("car") == 1200 and spun.cash("dog") == 2000
    after, _ = answer(spun, out, player="dog")
    assert after.cash("car") == 2000 and after.cash("dog") == 1200
    with pytest.raises(Refusal):
        answer(spun, out, player="car")


@pytest.mark.parametrize("intent,slots", [
    ("build_house", {"property": "Boardwalk"}), ("steal_house", {"property": "Boardwalk"}),
    ("swap_house", {"give": "Baltic Avenue", "get": "Boardwalk"}), ("swap_cash", {"player": "dog"}),
])
def test_choice_commands_exist_only_as_answers_to_the_spinner(intent: str, slots: dict[str, Any]) -> None:
    state = owned(owned(new(), "car", "Baltic Avenue"), "dog", "Boardwalk")
    assert refusal(state, "car", intent, **slots) == "only_on_spin"


# --- jail, GO, money by hand ----------------------------------------------------------------

def test_jail_bail_doubles_and_three_tries() -> None:
    state, _ = play(new(), "dog", "go_to_jail")
    assert refusal(state, "dog", "go_to_jail") == "already_in_jail"
    assert refusal(state, "dog", "pass_go") == "jail_no_go"
    assert refusal(state, "car", "get_out_of_jail") == "not_in_jail"
    bailed, _ = play(state, "dog", "get_out_of_jail")
    assert not bailed.players["dog"].in_jail and bailed.jackpot == 100 and bailed.bank == 13000
    freed, _ = play(state, "dog", "leave_jail")
    assert not freed.players["dog"].in_jail and freed.cash("dog") == 2000
    tried = state
    for n in (1, 2):
        tried, _ = play(tried, "dog", "no_doubles")
        assert tried.players["dog"].in_jail and tried.players["dog"].jail_tries == n
    tried, out = play(tried, "dog", "no_doubles")
    assert not tried.players["dog"].in_jail and "jail_last_try" in keys(out)
    again, _ = play(tried, "dog", "go_to_jail")
    assert again.players["dog"].jail_tries == 0


def test_pay_goes_to_the_jackpot_or_a_player_in_hundreds() -> None:
    state, _ = play(new(), "car", "pay", amount=300)
    assert state.jackpot == 300 and state.bank == 13000
    state, _ = play(state, "car", "pay", amount=200, player="dog")
    assert state.cash("dog") == 2200
    assert refusal(state, "car", "pay", amount=150) == "hundreds"
    assert refusal(state, "car", "pay", amount=1600) == "cannot_afford"
    assert refusal(state, "car", "pay", amount=100, player="car") == "pay_self"
    state, _ = play(state, "dog", "free_parking")
    assert state.jackpot == 0 and state.cash("dog") == 2500
    state, out = play(state, "dog", "free_parking")
    assert out.events == [] and "jackpot_empty" in keys(out)


def test_collect_and_pass_go_pay_what_the_bank_has_left_then_the_game_ends() -> None:
    state, _ = play(new(("car", "dog")), "car", "collect", amount=16900)
    state, out = play(state, "dog", "pass_go")
    assert state.cash("dog") == 2100 and state.bank == 0 and state.game_over
    assert "bank_short" in keys(out) and state.winners == ["car"]


def test_nobody_is_ever_out() -> None:
    state = new()
    assert refusal(state, "car", "bankrupt") == "never_out"
    state, _ = play(state, "car", "pay", amount=2000, player="dog")
    assert refusal(state, "car", "bankrupt") == "never_out"


def test_status_says_the_jackpot_and_the_bank() -> None:
    state, _ = play(new(), "car", "buy", property="Boardwalk")
    out = decide(state, "dog", "status")
    extra = [ln for ln in out.lines if ln.key == "jackpot_status"]
    assert extra and extra[0].params["amount"] == 800 and extra[0].params["bank"] == 13000


# --- a random game: the invariants hold after every event -------------------------------------

@pytest.mark.parametrize("seed", [2024, 7, 99])
def test_random_play_keeps_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    state = new()
    streets = list(ED.street_names)
    taker: str | None = None
    for _ in range(600):
        if state.game_over:
            break
        p = rng.choice(FOUR)
        if taker is not None:
            if rng.random() < 0.7:
                intent, slots = "bet", {"amount": rng.choice([0, 100, 300, 800, 2500]),
                                        "held_by": taker}
            else:
                p, intent = taker, "spinner"
                slots = {"outcome": rng.choice(RULES.outcomes), "held_by": taker,
                         "property": rng.choice([*streets, None])}
        else:
            intent = rng.choice(["buy", "buy", "pay_rent", "pay_rent", "pay_rent", "chance",
                                 "chance", "chance", "pass_go", "go_to_jail", "get_out_of_jail",
                                 "leave_jail", "no_doubles", "free_parking", "pay",
                                 "auction_close"])
            slots = {"property": rng.choice(streets), "amount": rng.choice([100, 300, 900]),
                     "player": rng.choice([*FOUR, None])}
        try:
            out = decide(state, p, intent, **slots)
        except Refusal:
            continue
        state = applied(state, out)
        if out.hold is not None and intent == "chance":
            taker = p
        while out.question is not None:
            q = out.question
            choice = rng.choice(q.choices) if q.choices else "none"
            try:
                state, out = answer(state, out, **{q.slot: choice})
            except Refusal:
                state, out = answer(state, out, **{q.slot: "cancel"})
        if out.hold is None and intent in ("spinner",):
            taker = None
    assert check(state, TOTAL) == []
    assert sum(p.cash for p in state.players.values()) + (state.bank or 0) + state.jackpot \
        + sum(state.stakes.values()) == TOTAL


# --- phrasings and the table dialogue ---------------------------------------------------------

MATCHER = Matcher.for_edition(ED)


@pytest.mark.parametrize("text,intent,slots", [
    ("bet three hundred", "bet", {"amount": 300}),
    ("bet 0", "bet", {"amount": 0}),
    ("no bet", "bet", {}),
    ("spin", "spin", {}),
    ("spin the wheel", "spin", {}),
    ("spinner says x2 pay out, hot house Park Place", "spinner",
     {"outcome": "x2 pay out", "property": "Park Place"}),
    ("the spinner says pass left, hot house Park Place", "spinner",
     {"outcome": "pass left", "property": "Park Place"}),
    ("the spinner says x1 pay out and no hot house", "spinner", {"outcome": "x1 pay out"}),
    ("the spinner landed on go to jail", "spinner", {"outcome": "go to jail"}),
    ("the spinner says jackpot", "spinner", {"outcome": "jackpot"}),
    ("steal the house on Park Place", "steal_house", {"property": "Park Place"}),
    ("swap Baltic Avenue for Park Place", "swap_house",
     {"give": "Baltic Avenue", "get": "Park Place"}),
    ("swap cash with the dog", "swap_cash", {"player": "dog"}),
    ("swap cash with green", "swap_cash", {"player": "dog"}),
    ("build a house on Boardwalk", "build_house", {"property": "Boardwalk"}),
    ("I rolled doubles", "leave_jail", {}),
    ("no doubles", "no_doubles", {}),
    ("I didn't roll doubles", "no_doubles", {}),
    ("free parking", "free_parking", {}),
    ("what's in the jackpot", "status", {}),
    ("pay bail", "get_out_of_jail", {}),
    ("take a chance", "chance", {}),
    ("pay 300 to the pink hat", "pay", {"amount": 300, "player": "hat"}),
    ("put 300 in the jackpot", "pay", {"amount": 300}),
    ("I bet three hundred dollars", "bet", {"amount": 300}),
    ("steal the house on Boardwalk from the dog", "steal_house",
     {"property": "Boardwalk", "player": "dog"}),
    ("swap my Baltic Avenue for the dog's Park Place", "swap_house",
     {"give": "Baltic Avenue", "player": "dog", "get": "Park Place"}),
])
def test_jackpot_phrasings(text: str, intent: str, slots: dict[str, Any]) -> None:
    m = MATCHER.match(text)
    assert isinstance(m, Recognized), m
    assert (m.intent, dict(m.slots)) == (intent, slots)


def session(players: tuple[str, ...] = ("car", "dog", "shoe")) -> Session:
    return Session(ED, list(players), clock=VirtualClock())


def test_the_takers_cancel_drops_the_open_round_and_nothing_is_journalled() -> None:
    s = session()
    s.hear("car", "chance")
    s.hear("dog", "bet 500")
    s.hear("car", "bet 300")
    assert s.state.stakes == {"dog": 500, "car": 300} and s.history == []
    s.hear("dog", "what's my balance")  # a query doesn't end the round
    assert s.hold is not None
    s.hear("dog", "cancel")  # not the taker: nothing happens
    assert s.hold is not None
    s.hear("car", "cancel")
    assert s.hold is None and s.state.stakes == {} and s.history == []
    assert [s.state.cash(t) for t in ("car", "dog", "shoe")] == [2000, 2000, 2000]


def test_a_chance_with_a_choice_is_one_transaction_and_uses_up_its_forced_draws() -> None:
    s = session()
    s.hear("dog", "buy Boardwalk")
    s.force("spin", "steal house")
    s.force("hot_house", "none")
    s.hear("car", "chance")
    s.hear("car", "bet 200")
    s.hear("car", "spin")
    assert s.pending is not None and s.history[-1].intent == "buy"
    s.hear("shoe", "cancel")  # only the asked player can cancel the question
    assert s.pending is not None
    s.hear("car", "Boardwalk")
    assert s.state.owner("Boardwalk") == "car" and s.history[-1].intent == "chance"
    assert "spin" not in s.forced and "hot_house" not in s.forced
    s.hear("dog", "undo")  # the dog was in it (lost Boardwalk): the whole chance goes
    assert s.state.owner("Boardwalk") == "dog" and s.state.cash("car") == 2000


def test_an_auction_won_with_ten_streets_asks_which_house_to_move() -> None:
    s = session()
    s.hear("car", "collect 4,000")
    for name in ED.street_names[:10]:
        s.hear("car", f"buy {name}")
    assert len(s.state.owned_by("car")) == 10
    s.hear("dog", "auction off Boardwalk")
    s.press("car")
    s.advance(6.5)
    assert s.pending is not None and s.state.owner("Boardwalk") is None
    s.hear("car", "Baltic Avenue")
    assert s.state.owner("Boardwalk") == "car" and s.state.owner("Baltic Avenue") is None
    assert s.state.jackpot == 3000 + 100


def test_a_game_file_keeps_whole_rounds_and_says_what_a_crash_interrupted(tmp_path: Path) -> None:
    from banker.editions.loader import editions_dir
    from banker.journal import GameFile
    from banker.journal.sqlite import Header

    path = tmp_path / "jackpot.sqlite"
    gf = GameFile(path)
    gf.create(Header(ED.id, (editions_dir() / "jackpot.yaml").read_text(), ["car", "dog"], {}, 5))
    s = Session(ED, ["car", "dog"], seed=5, journal=gf)
    s.hear("car", "chance")
    s.hear("dog", "bet 500")
    s.hear("car", "the spinner says x2 pay out")
    s.hear("dog", "chance")
    s.hear("dog", "bet 300")  # the program stops here, mid-round
    gf.close()
    gf = GameFile(path)
    loaded = gf.open()
    assert [tx.intent for tx in loaded.transactions] == ["chance"]
    assert loaded.open_dialogue == "betting"
    said: list[str] = []
    again = Session(ED, ["car", "dog"], seed=5, journal=gf, history=loaded.transactions,
                    on_say=said.append)
    again.interrupted(loaded.open_dialogue)
    assert "bet is back" in said[0]
    assert again.state.cash("dog") == 3000 and again.state.stakes == {} and again.state.bank == 16000
    gf.close()


def test_two_debtors_at_once_are_asked_oldest_first_each_by_name() -> None:
    """Debts are state: two players short of rent at once each owe a street (the rules core
    holds both; the table asks them one after the other, the oldest first)."""
    state = owned(new(), "car", "Park Place", "Boardwalk")
    state = owned(state, "dog", "Baltic Avenue")
    state = owned(state, "hat", "Oriental Avenue")
    for who in ("dog", "hat"):
        state, _ = play(state, who, "pay", amount=state.cash(who) - 100, player="shoe")
    state, _ = play(state, "dog", "pay_rent", property="Park Place")
    state, out = play(state, "hat", "pay_rent", property="Boardwalk")
    assert [(d.debtor, d.creditor) for d in state.debts] == [("dog", "car"), ("hat", "car")]
    q = RULES.debt_question(state)
    assert q is not None and q.asked == "dog" and q.key == "ask_give_street"
    state, _ = answer(state, out, give="Baltic Avenue")
    q = RULES.debt_question(state, again=True)
    assert q is not None and q.asked == "hat" and q.key == "ask_give_street_again"
    state, _ = answer(state, out, give="Oriental Avenue")
    assert state.debts == [] and RULES.debt_question(state) is None
    assert state.owned_by("car") == ["Baltic Avenue", "Oriental Avenue", "Park Place", "Boardwalk"]
    assert (state.cash("dog"), state.cash("hat")) == (100, 100)
