"""What the game makes likely: the prior weighs readings, never filters them.

An illegal command heard clearly is still that command and refused with its reason; close
readings are asked about ("Boardwalk or Park Place?"); the try before "Sorry?" counts again.
"""

from __future__ import annotations

import pytest

from banker.editions import load_edition
from banker.interpreter import prior
from banker.interpreter.hearing import Said
from banker.interpreter.questions import Choose, Confirm
from banker.interpreter.session import Session, VirtualClock

VB = load_edition("voice-banking")


def _table(owned: str | None = "Boardwalk") -> tuple[Session, list[str]]:
    said: list[str] = []
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), on_say=said.append)
    if owned is not None:
        s.hear("dog", f"buy {owned}")  # typed: the dog owns it
    said.clear()
    return s, said


# --- never a filter ------------------------------------------------------------------------

@pytest.mark.parametrize("conf,alt", [(0.97, 0.6), (0.97, 0.9), (0.6, 0.2), (0.95, 0.95)])
def test_the_prior_never_turns_an_illegal_command_into_a_legal_one(conf: float, alt: float) -> None:
    """ "buy Boardwalk" (owned by the dog) with "buy Park Place" (legal) as the runner-up: never
    a purchase of Park Place without the player choosing it."""
    s, said = _table()
    s.hear("racecar", "buy Boardwalk", conf, alternatives=(("buy Park Place", alt),))
    assert s.state.owner("Park Place") is None
    assert s.state.owner("Boardwalk") == "dog"
    p = s.pending
    if p is None:  # acted on as heard: the rules refuse it, with their reason
        assert s.step.refused and any("Boardwalk" in line for line in said), said
    elif isinstance(p, Confirm):  # "Did you say buy Boardwalk?": the reading heard best
        assert p.command.intent.get("property") == "Boardwalk", said
    else:  # two close readings: asked between, the player decides
        assert isinstance(p, Choose)
        assert {c.intent.get("property") for c in p.candidates} == {"Boardwalk", "Park Place"}


def test_a_clear_illegal_command_is_refused_with_its_reason() -> None:
    """Heard clearly, the owned street stays the command and is refused at once with the
    rules' reason (refusing moves nothing: no "Did you say…?" first); heard less clearly, it
    is read back first, then refused after "yes"."""
    s, said = _table()
    s.hear("racecar", "buy Boardwalk", 0.97, alternatives=(("buy Park Place", 0.4),))
    assert s.pending is None and s.step.refused, said
    assert said == ["Boardwalk already belongs to Dog."], said
    s, said = _table()
    s.hear("racecar", "buy Boardwalk", 0.8, alternatives=(("buy Park Place", 0.4),))
    assert isinstance(s.pending, Confirm), said
    assert said == ["Did you say buy Boardwalk?"], said
    s.begin_step()
    s.press("racecar")
    assert s.step.refused and s.pending is None
    assert s.state.owner("Park Place") is None and s.state.owner("Boardwalk") == "dog"
    assert "Boardwalk" in said[-1], said


def test_understand_with_alternatives_changes_nothing() -> None:
    s, said = _table()
    before = s.state.view()
    h = s.understand(Said("buy Boardwalk", 0.7, (("buy Park Place", 0.6),)), "racecar")
    assert h.choose and {c.slots["property"] for c in h.candidates} == {"Boardwalk", "Park Place"}
    assert s.state.view() == before and s.pending is None and not said


# --- the choice question -------------------------------------------------------------------

def test_two_close_readings_are_asked_between() -> None:
    s, said = _table(owned=None)
    s.hear("racecar", "buy Boardwalk", 0.7, alternatives=(("buy Park Place", 0.6),))
    assert said == ["Boardwalk or Park Place?"], said
    assert isinstance(s.pending, Choose) and not s.history
    s.hear("racecar", "Park Place", 0.9)
    assert s.state.owner("Park Place") == "racecar" and s.state.owner("Boardwalk") is None


def test_the_legal_reading_is_named_first() -> None:
    """Boardwalk is owned: the prior puts Park Place first, and still asks."""
    s, said = _table()
    s.hear("racecar", "buy Boardwalk", 0.7, alternatives=(("buy Park Place", 0.6),))
    assert said == ["Park Place or Boardwalk?"], said
    s.hear("racecar", "Boardwalk", 0.9)  # the player meant the owned one: refused at once
    assert said[-1] == "Boardwalk already belongs to Dog.", said
    assert s.step.refused and s.pending is None, said
    assert s.state.owner("Boardwalk") == "dog" and s.state.owner("Park Place") is None


def test_a_distant_runner_up_is_not_asked_about() -> None:
    s, said = _table(owned=None)
    s.hear("racecar", "buy Boardwalk", 0.7, alternatives=(("buy Park Place", 0.2),))
    assert isinstance(s.pending, Confirm) and s.pending.command.intent.get("property") == "Boardwalk"
    assert said == ["Did you say buy Boardwalk?"], said


def test_readings_of_one_command_are_not_a_choice() -> None:
    """ "buy Boardwalk" and "I buy Boardwalk" are one command: no "Boardwalk or Boardwalk?"."""
    s, said = _table(owned=None)
    s.hear("racecar", "buy Boardwalk", 0.7, alternatives=(("I buy Boardwalk", 0.69),))
    assert isinstance(s.pending, Confirm), said


# --- both tries count ----------------------------------------------------------------------

def test_the_try_before_sorry_counts() -> None:
    s, said = _table(owned=None)
    s.hear("racecar", "buy Baltic Avenue", 0.25)
    assert said == ["Sorry, say that again?"] or said[-1].startswith("Sorry"), said
    s.hear("racecar", "buy Baltic Avenue", 0.25)  # alone: "Sorry?" again; with the first: asked
    assert isinstance(s.pending, Confirm), said
    assert s.pending.command.intent.get("property") == "Baltic Avenue"


def test_a_single_weak_try_is_still_sorry() -> None:
    s, said = _table(owned=None)
    s.hear("racecar", "buy Baltic Avenue", 0.25)
    s.hear("dog", "buy Baltic Avenue", 0.25)  # another player's try is not evidence for this one
    assert s.pending is None and len(said) == 2 and all(x.startswith("Sorry") for x in said), said


def test_an_old_try_does_not_count() -> None:
    s, said = _table(owned=None)
    s.hear("racecar", "buy Baltic Avenue", 0.25)
    s.advance(30.0)
    s.hear("racecar", "buy Baltic Avenue", 0.25)
    assert s.pending is None and said[-1].startswith("Sorry"), said


def test_typed_text_is_judged_alone() -> None:
    s, _said = _table(owned=None)
    h = s.understand("buy Boardwalk", "racecar")
    assert (h.decision, h.intent, h.choose) == ("accept", "buy", False)


# --- the pure parts ------------------------------------------------------------------------

def _reading(street: str, conf: float, legal: bool = True) -> prior.Reading:
    from banker.nlu.matcher import Recognized

    return prior.Reading(Recognized("buy", {"property": street}, 100.0, 100.0, f"buy {street}"),
                         conf, legal)


def test_combine_counts_the_earlier_try_for_less() -> None:
    now = (_reading("Boardwalk", 0.8),)
    before = (_reading("Boardwalk", 0.4), _reading("Park Place", 0.3))
    out = {r.match.slots["property"]: r.confidence for r in prior.combine(before, now)}
    assert out["Boardwalk"] == pytest.approx(1 - 0.2 * 0.8)
    assert out["Park Place"] == pytest.approx(0.15)


def test_the_same_command_on_both_tries_is_at_least_asked_about() -> None:
    """Two weak tries of one command (each worth remembering) are at least ``REPEATED``
    sure: asked about, never a money command acted on at once; a try too weak to remember
    is no evidence."""
    from banker.interpreter.hearing import ACCEPT_MONEY, CONFIRM_FLOOR

    out = prior.combine((_reading("Boardwalk", 0.2),), (_reading("Boardwalk", 0.2),))
    assert out[0].confidence == prior.REPEATED
    assert CONFIRM_FLOOR < prior.REPEATED < ACCEPT_MONEY
    weak = prior.combine((_reading("Boardwalk", 0.05),), (_reading("Boardwalk", 0.2),))
    assert weak[0].confidence < CONFIRM_FLOOR
    # the simulated table: a clear "I'll buy Baltic Avenue" heard right at 0.13, then 0.15
    low = prior.combine((_reading("Boardwalk", 0.13),), (_reading("Boardwalk", 0.15),))
    assert low[0].confidence == prior.REPEATED


def test_a_query_heard_the_same_twice_is_answered() -> None:
    """"who owns Boardwalk" heard right twice, each time too unsure alone (in babble): the
    second try is answered instead of a third "Sorry?"."""
    s, said = _table(owned=None)
    s.hear("racecar", "who owns Boardwalk", 0.25)
    assert said[-1].startswith("Sorry"), said
    s.hear("racecar", "who owns Boardwalk", 0.25)
    assert not said[-1].startswith("Sorry") and "Boardwalk" in said[-1], said


def test_close_pair_orders_by_the_prior_only_when_close() -> None:
    a, b = _reading("Boardwalk", 0.7, legal=False), _reading("Park Place", 0.6)
    pair = prior.close_pair([a, b])
    assert pair is not None and pair[0] is b
    assert prior.close_pair([a, _reading("Park Place", 0.3)]) is None


def test_two_weak_readings_are_not_a_question() -> None:
    """Below the floor where speech is ignored, two close readings are still "Sorry?"."""
    s, said = _table(owned=None)
    s.hear("racecar", "buy Boardwalk", 0.2, alternatives=(("buy Park Place", 0.19),))
    assert s.pending is None and said[-1].startswith("Sorry"), said


def test_two_readings_differing_in_an_amount_too_are_never_asked_by_names_alone() -> None:
    """ "Cat or Hat?" names only the names: if the readings also differed in the amount, the
    one picked would move an amount nobody read back. Such a pair is read back whole ("Did you
    say …?" about the best one) instead."""
    s, said = _table(None)
    s.hear("racecar", "pay 200 to the dog", 0.6, alternatives=(("pay 300 to the racecar", 0.55),))
    assert not isinstance(s.pending, Choose), said
    s2, said2 = _table(None)
    s2.hear("racecar", "buy Boardwalk", 0.6, alternatives=(("buy Park Place", 0.55),))
    assert isinstance(s2.pending, Choose), said2  # names alone: asked between


def test_a_choice_between_players_listens_for_a_token() -> None:
    """ "Dog or Racecar?" is answered "the dog": the recogniser listens for tokens (the
    ``player`` focus), not for streets, whose focus has no token (at the simulated table it
    heard "the dog" as "that is all", twice). Between streets it listens for a street."""
    said: list[str] = []
    s = Session(VB, ["racecar", "dog", "cat"], clock=VirtualClock(), on_say=said.append)
    s.hear("racecar", "pay 200 to the dog", 0.6, alternatives=(("pay 200 to the cat", 0.55),))
    assert isinstance(s.pending, Choose), said
    assert s.expecting()[0] == "player"
    s.hear("racecar", "the dog", 0.9)
    assert (s.state.cash("dog"), s.state.cash("cat")) == (1700, 1500), said
    s2, said2 = _table(None)
    s2.hear("racecar", "buy Boardwalk", 0.6, alternatives=(("buy Park Place", 0.55),))
    assert isinstance(s2.pending, Choose) and s2.expecting()[0] == "street", said2
    s2.hear("racecar", "the cat says park place", 0.9)  # a token that tells nothing apart
    assert said2[-1] == "Did you say buy Park Place?", said2


# --- names nobody at the table answers to ---------------------------------------------------

def test_a_token_nobody_plays_is_said_and_the_players_who_could_be_meant_asked() -> None:
    """ "pay car two hundred" heard unsure in a game without a racecar (espeak-ng's "the dog"
    at the simulated table, three times): not "Did you say pay M200 to Racecar?", which a yes
    could only get refused, but the reason and the players it could be; answered, paid."""
    said: list[str] = []
    s = Session(VB, ["dog", "trex", "cat"], clock=VirtualClock(), on_say=said.append)
    s.hear("trex", "pay car two hundred", 0.69)
    assert said == ["Racecar isn't playing in this game.", "Dog or Cat?"], said
    assert isinstance(s.pending, Choose) and s.expecting()[0] == "player"
    s.hear("trex", "the dog", 0.97)
    assert (s.state.cash("dog"), s.state.cash("trex"), s.state.cash("cat")) == (1700, 1300, 1500)
    said.clear()  # two players: the one other player is asked about
    s2 = Session(VB, ["dog", "trex"], clock=VirtualClock(), on_say=said.append)
    s2.hear("trex", "pay car two hundred", 0.69)
    assert said == ["Racecar isn't playing in this game.", "Did you say pay M200 to Dog?"]
    assert s2.state.cash("dog") == 1500


def test_a_token_nobody_plays_heard_clearly_or_typed_is_refused_as_said() -> None:
    """Heard surely, or typed, the name is what was said: refused with its reason, no
    question (never turned into another player's payment by itself)."""
    for conf in (None, 0.97):
        said: list[str] = []
        s = Session(VB, ["dog", "trex", "cat"], clock=VirtualClock(), on_say=said.append)
        s.hear("trex", "pay the racecar two hundred", conf)
        assert said == ["Racecar isn't playing in this game."] and s.pending is None, said
        assert s.state.cash("trex") == 1500


def test_a_choice_drops_the_reading_that_pays_the_speaker() -> None:
    """ "pay one hundred fifty to the dinosaur" (the T-Rex speaking) close to "… to the dog":
    not "Dog or T-Rex?" but the one reading that can be meant, read back."""
    said: list[str] = []
    s = Session(VB, ["dog", "trex", "cat"], clock=VirtualClock(), on_say=said.append)
    s.hear("trex", "pay one hundred fifty to the dinosaur", 0.6,
           alternatives=(("pay one hundred fifty to the dog", 0.55),))
    assert said == ["Did you say pay M150 to Dog?"], said
    assert isinstance(s.pending, Confirm)


# --- a yes heard on two tries ----------------------------------------------------------------

def test_a_yes_heard_twice_running_is_a_yes() -> None:
    """In babble a clear "yes" is heard right at 0.65-0.70 try after try, each too unsure
    alone to buy on (0.85): the second such try running is a yes. One alone, or after a
    weaker one, is still "Sorry?" and nothing moves."""
    said: list[str] = []
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), on_say=said.append)
    s.hear("racecar", "buy Baltic Avenue", 0.6)
    assert said[-1] == "Did you say buy Baltic Avenue?", said
    s.hear("racecar", "yes", 0.5)  # too weak to count even twice
    s.hear("racecar", "yes", 0.69)
    assert s.state.owner("Baltic Avenue") is None and said[-1].startswith("Sorry"), said
    s.hear("racecar", "yes", 0.65)
    assert s.state.owner("Baltic Avenue") == "racecar", said


def test_a_weaker_yes_between_two_clear_ones_does_not_break_the_run() -> None:
    """10 dB babble at the simulated table: "yes" heard 0.69, 0.47, 0.69 to the same
    question, and the command was lost. The surest unsure yes so far is kept: the third try
    is a yes. A "no" between starts the count again (and cancels the question)."""
    said: list[str] = []
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), on_say=said.append)
    s.hear("racecar", "buy Baltic Avenue", 0.6)
    s.hear("racecar", "yes", 0.69)
    s.hear("racecar", "yes", 0.47)
    assert s.state.owner("Baltic Avenue") is None and said[-1].startswith("Sorry"), said
    s.hear("racecar", "yes", 0.69)
    assert s.state.owner("Baltic Avenue") == "racecar", said
    s.hear("dog", "buy Park Place", 0.6)
    s.hear("dog", "yes", 0.69)
    s.hear("dog", "no", 0.69)
    assert s.pending is None and s.state.owner("Park Place") is None, said



def test_a_yes_heard_surely_enough_alone_is_a_yes_and_one_at_the_doubted_value_is_not() -> None:
    """ "yes" at 0.76 (pocketsphinx's own, or two ears') answers "Did you say buy Baltic
    Avenue?" the first time (``YES_ALONE``); at 0.69, the second ear's doubted value (where
    a "no" was once heard as "ok"), it is "Sorry?" and nothing moves."""
    from banker.interpreter.answers import YES_ALONE
    from banker.speech.ear_rules import DOUBTED, TWICE

    assert DOUBTED < YES_ALONE <= TWICE
    said: list[str] = []
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), on_say=said.append)
    s.hear("racecar", "buy Baltic Avenue", 0.6)
    s.hear("racecar", "yes", DOUBTED)
    assert s.state.owner("Baltic Avenue") is None and said[-1].startswith("Sorry"), said
    s.hear("dog", "buy Park Place", 0.6)
    s.hear("dog", "yes", TWICE)
    assert s.state.owner("Park Place") == "dog", said


# --- a bid with no auction -------------------------------------------------------------------

def test_a_bid_heard_unsurely_with_no_auction_open_is_not_asked_about() -> None:
    """ "bid M152" heard at 0.6 between turns, no auction open: "Did you say bid M152?"
    could only be refused after the yes, so it is heard as any illegal command is (its
    doubt deepened: "Sorry?"), and nothing moves. Typed, it is refused with the reason."""
    s, said = _table(owned=None)
    s.hear("racecar", "bid one hundred fifty two", 0.6)
    assert s.pending is None and not any(line.startswith("Did you say") for line in said), said
    assert s.state.cash("racecar") == 1500
    said.clear()
    s.hear("racecar", "bid one hundred fifty two")
    assert len(said) == 1 and "auction" in said[0].lower(), said
    s.hear("racecar", "auction off Baltic Avenue")  # in an auction the same bid is a bid
    said.clear()
    s.hear("dog", "bid one hundred fifty two", 0.6)
    assert isinstance(s.pending, Confirm) or any("152" in line for line in said), said


def test_a_choice_answered_surely_is_acted_on_without_reading_it_back_again() -> None:
    """ "Park Place or Atlantic Avenue?" answered "park place" heard at 0.69 (at the
    simulated table: then "Did you say buy Park Place?" and one more turn): bought. Heard at
    0.4, or only spotted in other words, it is still read back first."""
    for conf, bought in ((0.69, True), (0.4, False)):
        s, said = _table(None)
        s.hear("racecar", "buy Park Place", 0.6, alternatives=(("buy Atlantic Avenue", 0.55),))
        assert isinstance(s.pending, Choose), said
        s.hear("racecar", "park place", conf)
        assert (s.state.owner("Park Place") == "racecar") is bought, said
        assert s.state.owner("Atlantic Avenue") is None
        if not bought:
            assert said[-1] == "Did you say buy Park Place?", said


# --- a reading the player said no to ---------------------------------------------------------

def test_a_reading_the_player_said_no_to_is_asked_about_again_not_paid() -> None:
    """A simulated table in pink noise: "pay one hundred to the racecar" heard "…one hundred
    two…", asked about twice and refused twice, then heard sure enough (0.95) and paid
    M102. The very command the player just said "no" to is asked about again instead; a
    different command, typed text, or the same one after ``REFUSED_FOR`` are done at once."""
    from banker.interpreter.questions import REFUSED_FOR

    s, said = _table(owned=None)
    cash = s.state.view()
    s.hear("dog", "pay one hundred two to the racecar", 0.7)
    assert isinstance(s.pending, Confirm) and said[-1] == "Did you say pay M102 to Racecar?"
    s.begin_step()
    s.hear("dog", "no", 0.97)
    assert s.pending is None
    s.begin_step()
    s.hear("dog", "pay one hundred two to the racecar", 0.95)
    assert isinstance(s.pending, Confirm), said
    assert said[-1] == "Did you say pay M102 to Racecar?" and s.state.view() == cash
    s.begin_step()
    s.hear("dog", "no", 0.97)
    s.begin_step()
    s.hear("dog", "pay one hundred to the racecar", 0.95)  # another amount: done at once
    assert s.pending is None and s.state.view() != cash, said
    s, said = _table(owned=None)
    s.hear("dog", "pay one hundred two to the racecar", 0.7)
    s.hear("dog", "no", 0.97)
    s.hear("dog", "pay one hundred two to the racecar")  # typed: exactly what was meant
    assert s.pending is None and "M102" in said[-1], said
    s, said = _table(owned=None)
    s.hear("dog", "pay one hundred two to the racecar", 0.7)
    s.hear("dog", "no", 0.97)
    assert isinstance(s.clock, VirtualClock)
    s.clock.t += REFUSED_FOR + 1
    s.hear("dog", "pay one hundred two to the racecar", 0.95)  # long after: heard afresh
    assert s.pending is None and "M102" in said[-1], said


def test_an_answer_not_understood_gives_the_question_its_time_again() -> None:
    """ "Did you say buy Baltic Avenue?" at 0 s; an answer he could not make out at 8 s gets
    "Sorry, say that again?", and the question waits ``ANSWER_TIMEOUT`` from there: the clear
    "yes" at 15 s buys the street. Without an answer since, it lapses as before (a "no")."""
    from banker.interpreter.questions import ANSWER_TIMEOUT

    s, said = _table(owned=None)
    s.hear("racecar", "buy Baltic Avenue", 0.6)
    assert isinstance(s.pending, Confirm), said
    s.clock.t += 8
    s.hear("racecar", "connecticut", 0.2)
    assert isinstance(s.pending, Confirm) and said[-1].startswith("Sorry"), said
    s.clock.t += 7
    s.hear("racecar", "yes", 0.97)
    assert s.state.owner("Baltic Avenue") == "racecar", said
    s, said = _table(owned=None)
    s.hear("racecar", "buy Baltic Avenue", 0.6)
    s.clock.t += 8
    s.hear("racecar", "connecticut", 0.2)
    s.clock.t += ANSWER_TIMEOUT + 1
    s.tick()
    assert s.pending is None and s.state.owner("Baltic Avenue") is None, said


def test_a_question_answered_twice_with_nothing_understood_is_let_go() -> None:
    """ "Did you say auction Atlantic Avenue?" (misheard), and the player's "no" heard as
    nothing (``not_heard``: no words found) or as words that are no answer, twice (10 dB
    babble at the simulated table: four times running, and the command lost): the second
    lets the question go, as a "no" would, and asks for the command again; nothing moves.
    One unclear answer between heard ones is only "Sorry?"."""
    from banker.interpreter.answers import UNCLEAR_ANSWERS

    assert UNCLEAR_ANSWERS == 2
    s, said = _table(owned=None)
    s.hear("racecar", "auction off Atlantic Avenue", 0.6)
    assert isinstance(s.pending, Confirm), said
    s.not_heard("racecar")
    assert isinstance(s.pending, Confirm) and said[-1].startswith("Sorry"), said
    s.hear("racecar", "marvin gardens", 0.13)
    assert s.pending is None and s.auction is None, said
    assert said[-1] == "I still didn't catch that, so nothing's done. Say it again?", said
    assert s.state.cash("racecar") == 1500 and s.state.owner("Atlantic Avenue") is None
    s.hear("racecar", "buy Baltic Avenue", 0.6)  # a yes heard between starts the count again
    s.not_heard("racecar")
    s.hear("racecar", "yes", 0.65)
    s.not_heard("racecar")
    assert isinstance(s.pending, Confirm) and said[-1].startswith("Sorry"), said
    s.hear("racecar", "yes", 0.69)  # and the two unsure yeses still make a yes
    assert s.state.owner("Baltic Avenue") == "racecar", said
