"""The open dialogues survive a stop: written as JSON, read back into a session built from the
game file, with their times kept on the same clock and given again on another one."""

from __future__ import annotations

from pathlib import Path

from banker.app import start_game
from banker.interpreter import dialogue_state
from banker.interpreter.clock import VirtualClock
from banker.interpreter.questions import RuleQuestion
from banker.rules import Command, Intent, Money, Question, Who
from banker.rules.outcome import AllOf


def test_reply_parameters_keep_their_types() -> None:
    value = {"amount": Money(450), "to": Who("trex"), "streets": AllOf(("Baltic Avenue",)),
             "choices": ("a", "b"), "then": Command("dog", Intent("settle_debt", {"x": 1}))}
    back = dialogue_state.dec(dialogue_state.enc(value))
    assert back == value
    assert [type(back[k]) for k in value] == [Money, Who, AllOf, tuple, Command]


def _stopped_auction(tmp_path: Path, clock: VirtualClock) -> Path:
    path = tmp_path / "g.sqlite"
    game = start_game("voice-banking", "trex,dog", [], path, False, lambda _t: None,
                      lambda _e: "", clock=clock, remember=False)
    s = game.session
    s.hear("trex", "auction Baltic Avenue")
    s.press("dog")
    clock.t += 1.0
    s.tick()
    s.finish_step()
    game.file.close()
    return path


def test_an_auction_resumed_on_the_same_clock_keeps_its_time(tmp_path: Path) -> None:
    clock = VirtualClock()
    path = _stopped_auction(tmp_path, clock)
    said: list[str] = []
    again = start_game(None, None, [], path, True, said.append, lambda _e: "", clock=clock,
                       remember=False)
    s = again.session
    assert s.auction is not None and (s.auction.bidder, s.auction.amount) == ("dog", 50)
    assert s.deadline() == 3.0  # the bid at 0 s, "Any final bids?" at 3 s as without the stop
    assert any("highest bid is M50, from Dog" in line for line in said), said
    again.file.close()


def test_an_auction_resumed_on_another_clock_gets_the_whole_call_again(tmp_path: Path) -> None:
    path = _stopped_auction(tmp_path, VirtualClock())
    later = VirtualClock()
    later.t = 5000.0  # another process: its clock has nothing to do with the first one's
    again = start_game(None, None, [], path, True, lambda _t: None, lambda _e: "", clock=later,
                       remember=False)
    assert again.session.deadline() == 5003.0
    again.file.close()


def test_another_clock_reading_the_same_time_still_gives_the_whole_call_again(
        tmp_path: Path) -> None:
    """Another process reads the same monotonic time as the one killed a moment before; the
    resume says the auction again, so the call starts again rather than running out while
    the table takes up the thread."""
    first = VirtualClock()
    path = _stopped_auction(tmp_path, first)
    same_time = VirtualClock()
    same_time.t = first.t
    again = start_game(None, None, [], path, True, lambda _t: None, lambda _e: "",
                       clock=same_time, remember=False)
    assert again.session.deadline() == first.t + 3.0
    again.file.close()


def test_a_two_step_question_resumed_by_another_process_gets_the_whole_answer_time(
        tmp_path: Path) -> None:
    first = VirtualClock()
    path = tmp_path / "g.sqlite"
    game = start_game("voice-banking", "trex,dog", [], path, False, lambda _t: None,
                      lambda _e: "", clock=first, remember=False)
    game.session.hear("trex", "buy")
    first.t += 8.0  # two of the ten seconds to answer are left at the stop
    game.session.tick()
    game.session.finish_step()
    game.file.close()
    same_time = VirtualClock()
    same_time.t = first.t
    said: list[str] = []
    again = start_game(None, None, [], path, True, said.append, lambda _e: "",
                       clock=same_time, remember=False)
    assert again.session.pending is not None
    assert again.session.deadline() == first.t + 10.0
    assert said[-1] == "Which street?", said
    again.file.close()


def test_a_rules_question_comes_back_asked_of_the_same_player(tmp_path: Path) -> None:
    clock = VirtualClock()
    path = tmp_path / "g.sqlite"
    game = start_game("secret-vault", "duck,dog", [], path, False, lambda _t: None,
                      lambda _e: "", clock=clock, remember=False)
    game.session.hear("duck", "buy Baltic Avenue")
    game.session.hear("duck", "sell Baltic Avenue to the dog for 200")
    asked = game.session.pending
    assert isinstance(asked, RuleQuestion)
    game.file.close()
    said: list[str] = []
    again = start_game(None, None, [], path, True, said.append, lambda _e: "", clock=clock,
                       remember=False)
    p = again.session.pending
    assert isinstance(p, RuleQuestion) and p.asked == frozenset({"dog"})
    assert isinstance(p.rule, Question) and p.rule == asked.rule
    assert "agree" in said[-1], said
    again.session.hear("dog", "yes")
    assert again.session.state.owner("Baltic Avenue") == "dog"
    again.file.close()
