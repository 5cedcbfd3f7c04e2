"""Spoken answers to open questions are judged like spoken commands (``hearing.judge``), by the
risk of the command they complete: nothing moves on an uncertain hearing.

Confidences are realistic recogniser scores (0-1): 0.97 a clear answer, 0.7 an uncertain one
(a money command needs 0.85 combined with the match score), 0.2 table chatter. Typed text
(confidence None) behaves exactly as before (the transcripts check that in depth).
"""

from __future__ import annotations

from pathlib import Path

from banker.editions import load_edition
from banker.interpreter.session import ANSWER_TIMEOUT, Session, VirtualClock
from banker.journal import GameFile
from banker.journal.sqlite import Header

CLEAR, UNSURE, CHATTER = 0.97, 0.7, 0.2
VB = load_edition("voice-banking")
SV = load_edition("secret-vault")


class Table:
    """A Voice Banking (or other) session on a virtual clock that records what is said."""

    def __init__(self, edition_id: str = "voice-banking", players: tuple[str, ...] = ("racecar", "dog"),
                 journal: GameFile | None = None) -> None:
        ed = VB if edition_id == "voice-banking" else SV if edition_id == "secret-vault" else \
            load_edition(edition_id)
        self.said: list[str] = []
        self.s = Session(ed, list(players), clock=VirtualClock(), on_say=self.said.append,
                         journal=journal)

    def hear(self, player: str, text: str, conf: float | None) -> str:
        self.said.clear()
        self.s.hear(player, text, conf)
        return " ".join(self.said)

    def press(self, player: str) -> str:
        self.said.clear()
        self.s.press(player)
        return " ".join(self.said)

    def wait(self, seconds: float) -> str:
        self.said.clear()
        self.s.advance(seconds)
        return " ".join(self.said)

    @property
    def kind(self) -> str | None:
        return self.s.pending.kind if self.s.pending is not None else None


# --- the two-step form ------------------------------------------------------------------------
def test_a_clear_street_answer_is_acted_on_at_once() -> None:
    t = Table()
    assert "Which street" in t.hear("racecar", "buy", CLEAR)
    assert "Baltic Avenue" in t.hear("racecar", "Baltic Avenue", CLEAR)
    assert t.s.state.owner("Baltic Avenue") == "racecar" and t.kind is None


def test_an_uncertain_street_answer_is_confirmed_before_anything_moves() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    assert t.hear("racecar", "Baltic Avenue", UNSURE) == "Did you say buy Baltic Avenue?"
    assert t.s.state.owner("Baltic Avenue") is None and t.s.history == []
    assert t.kind == "confirm"
    assert "Baltic Avenue" in t.press("racecar")  # the speaker's press is the yes
    assert t.s.state.owner("Baltic Avenue") == "racecar" and len(t.s.history) == 1


def test_a_bare_buy_heard_fairly_is_asked_which_street_not_did_you_say() -> None:
    """Nothing moves on "buy" alone, and the street that answers it is judged as the whole
    money command, so a query's certainty (0.60) opens the question at once."""
    t = Table()
    assert "Which street" in t.hear("racecar", "buy", UNSURE)
    assert t.kind == "slot"
    assert t.hear("racecar", "Baltic Avenue", UNSURE) == "Did you say buy Baltic Avenue?"
    assert t.s.state.owner("Baltic Avenue") is None


def test_a_bare_buy_heard_poorly_is_still_did_you_say() -> None:
    t = Table()
    assert t.hear("racecar", "buy", 0.5) == "Did you say buy?"
    assert t.kind == "confirm"
    t2 = Table()  # the whole money command at the same certainty is asked about too
    assert t2.hear("racecar", "buy Baltic Avenue", UNSURE) == "Did you say buy Baltic Avenue?"


def test_an_uncertain_yes_to_a_money_confirmation_is_not_a_yes() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    t.hear("racecar", "Baltic Avenue", UNSURE)
    assert "Sorry" in t.hear("racecar", "yes", UNSURE)
    assert t.s.state.owner("Baltic Avenue") is None and t.kind == "confirm"  # still asked
    assert "Baltic Avenue" in t.hear("racecar", "yes", CLEAR)
    assert t.s.state.owner("Baltic Avenue") == "racecar"


def test_no_to_the_confirmation_cancels_the_two_step_command() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    t.hear("racecar", "Baltic Avenue", UNSURE)
    assert t.hear("racecar", "no", CLEAR) in ("Cancelled.", "Okay, never mind.")
    assert t.s.state.owner("Baltic Avenue") is None and t.kind is None and t.s.history == []


def test_another_street_instead_of_yes_answers_the_question_again() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    t.hear("racecar", "Baltic Avenue", UNSURE)
    assert "Oriental Avenue" in t.hear("racecar", "Oriental Avenue", CLEAR)
    assert t.s.state.owner("Oriental Avenue") == "racecar"
    assert t.s.state.owner("Baltic Avenue") is None


def test_chatter_after_the_prompt_gets_sorry_and_the_question_stays_open() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    assert "Sorry" in t.hear("racecar", "Baltic Avenue", CHATTER)
    assert t.kind == "slot" and t.s.history == []
    assert "Baltic Avenue" in t.hear("racecar", "Baltic Avenue", CLEAR)
    assert t.s.state.owner("Baltic Avenue") == "racecar"


def test_typed_answers_are_unchanged_by_the_policy() -> None:
    t = Table()
    t.hear("racecar", "buy", None)
    assert "Baltic Avenue" in t.hear("racecar", "Baltic Avenue", None)
    assert t.s.state.owner("Baltic Avenue") == "racecar"
    t.hear("dog", "buy", None)
    assert "Sorry" in t.hear("dog", "pass the salt", None)
    assert t.kind is None  # typed text that is no answer drops a question that lapses


def test_an_unanswered_confirmation_of_a_two_step_answer_lapses() -> None:
    t = Table()
    t.hear("racecar", "buy", CLEAR)
    t.hear("racecar", "Baltic Avenue", UNSURE)
    t.wait(ANSWER_TIMEOUT + 0.1)
    assert t.kind is None and t.s.state.owner("Baltic Avenue") is None


# --- questions of the rules ------------------------------------------------------------------
def _squeezed() -> Table:
    """The racecar owns Baltic Avenue and can't pay the dog's rent: "which street?"."""
    t = Table()
    t.hear("racecar", "buy Baltic Avenue", None)
    t.hear("dog", "buy Park Place", None)
    t.hear("racecar", f"pay {t.s.state.cash('racecar') - 1}", None)
    assert "give up" in t.hear("racecar", "pay rent on Park Place", None)
    return t


def test_an_uncertain_answer_to_the_give_up_question_is_confirmed_and_no_asks_again() -> None:
    t = _squeezed()
    assert t.hear("racecar", "Baltic Avenue", UNSURE) == "Did you say Baltic Avenue?"
    assert t.s.state.owner("Baltic Avenue") == "racecar"
    assert "give up" in t.hear("racecar", "no", CLEAR)  # the question never lapses
    assert t.kind == "rule"
    t.hear("racecar", "Baltic Avenue", UNSURE)
    assert "give up" in t.wait(ANSWER_TIMEOUT + 0.1)  # nor does it by silence
    assert t.kind == "rule" and t.s.state.owner("Baltic Avenue") == "racecar"
    t.hear("racecar", "Baltic Avenue", UNSURE)
    assert "Dog" in t.hear("racecar", "yes", CLEAR)
    assert t.s.state.owner("Baltic Avenue") == "dog" and t.kind is None


def test_a_clear_answer_to_the_give_up_question_is_acted_on() -> None:
    t = _squeezed()
    assert "Sorry" in t.hear("racecar", "Baltic Avenue", CHATTER)
    assert t.kind == "rule" and t.s.state.owner("Baltic Avenue") == "racecar"
    t.hear("racecar", "Baltic Avenue", CLEAR)
    assert t.s.state.owner("Baltic Avenue") == "dog"


def test_an_uncertain_yes_to_a_deal_is_not_an_agreement() -> None:
    t = Table("secret-vault", ("duck", "dog"))
    t.hear("duck", "buy Oriental Avenue", None)
    assert "agree" in t.hear("duck", "sell Oriental Avenue to the dog for three hundred", None)
    assert "Sorry" in t.hear("dog", "yes", UNSURE)
    assert t.s.state.owner("Oriental Avenue") == "duck" and t.kind == "rule"
    t.hear("dog", "yes", CLEAR)
    assert t.s.state.owner("Oriental Avenue") == "dog"


def test_an_uncertain_vault_guess_is_confirmed_first() -> None:
    t = Table("secret-vault", ("duck", "dog"))
    t.s.force("vault_code", 4)
    assert "guess" in t.hear("dog", "guess for free", None).lower()
    assert t.hear("dog", "four", 0.6) == "Did you say 4?"
    assert t.s.state.cash("dog") == SV.start_cash and t.kind == "confirm"
    assert "open" in t.press("dog")
    assert t.s.state.cash("dog") > SV.start_cash


def test_undo_agreement_needs_a_sure_yes() -> None:
    t = Table()
    t.hear("racecar", "buy Baltic Avenue", None)
    assert "Racecar" in t.hear("dog", "undo", None)  # the dog wasn't in it: the racecar agrees
    assert "Sorry" in t.hear("racecar", "yes", 0.5)
    assert t.s.state.owner("Baltic Avenue") == "racecar" and t.kind == "undo"
    assert "Undone" in t.hear("racecar", "yes", CLEAR)
    assert t.s.state.owner("Baltic Avenue") is None


def test_a_press_confirms_a_misheard_bid_instead_of_raising_it() -> None:
    t = Table()
    t.hear("racecar", "auction Baltic Avenue", None)
    assert t.hear("dog", "bid three hundred", UNSURE) == "Did you say bid M300?"
    assert t.s.auction is not None and t.s.auction.bidder is None
    t.press("dog")
    assert t.s.auction.bidder == "dog" and t.s.auction.amount == 300


def test_in_an_auction_the_player_asked_about_a_bid_is_listened_to_for_yes_or_no() -> None:
    """ "Did you say bid M300?" in an auction: the dog's next turn is decoded for yes or no
    (the bid grammar has "yes" only as any other command, 20 times less likely); everyone
    else is still listened to for bids, and once answered the dog is too."""
    t = Table()
    t.hear("racecar", "auction Baltic Avenue", None)
    assert t.s.expecting("dog")[0] == "bid"
    assert t.hear("dog", "bid three hundred", UNSURE) == "Did you say bid M300?"
    assert t.s.expecting("dog")[0] == "yes_no" and t.s.expecting("racecar")[0] == "bid"
    assert t.s.expecting()[0] == "bid"
    t.hear("dog", "yes", CLEAR)
    assert t.s.auction is not None and t.s.auction.bidder == "dog"
    assert t.s.expecting("dog")[0] == "bid"


def test_nothing_is_journalled_until_the_uncertain_answer_is_confirmed(tmp_path: Path) -> None:
    gf = GameFile(tmp_path / "g.sqlite")
    gf.create(Header(VB.id, "", ["racecar", "dog"], {}, 1))
    try:
        t = Table(journal=gf)
        t.hear("racecar", "buy", CLEAR)
        t.hear("racecar", "Baltic Avenue", UNSURE)
        assert gf.peek().kept == 0
        t.press("racecar")
        assert gf.peek().kept == 1
    finally:
        gf.close()


def test_a_stop_during_did_you_say_asks_it_again_on_resume(tmp_path: Path) -> None:
    """The process dies while "Did you say buy Baltic Avenue?" waits (the journal is left as a
    kill leaves it): nothing was bought, and every resume asks the same question again (it is
    still open until answered), which a yes then answers."""
    from banker.app import start_game

    path = tmp_path / "g.sqlite"
    said: list[str] = []
    game = start_game("voice-banking", "racecar,dog", [], path, False, said.append,
                      lambda _e: "")
    game.session.hear("racecar", "buy", CLEAR)
    game.session.hear("racecar", "Baltic Avenue", UNSURE)
    assert said[-1] == "Did you say buy Baltic Avenue?"
    game.file.close()  # no clean-up of the dialogue: as after SIGKILL
    for last in (False, True):
        said.clear()
        again = start_game(None, None, [], path, True, said.append, lambda _e: "")
        try:
            assert again.session.state.owner("Baltic Avenue") is None
            assert said[-1] == "Did you say buy Baltic Avenue?", said
            if last:
                again.session.hear("racecar", "yes", CLEAR)
                assert again.session.state.owner("Baltic Avenue") == "racecar"
        finally:
            again.file.close()
