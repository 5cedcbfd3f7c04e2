"""The simulated table (``banker bench --table``): the players' answers, the scripts, and one
short game played by voice through the live loop on the virtual clock."""

from __future__ import annotations

import time

from banker.config import load_config
from banker.tools.bench_table import make_script, score, scripted, table
from banker.tools.clips import PIPER, Voice
from banker.tools.table_sim import Cmd, GameResult, Seen, done_by, next_move, play_game, varied

BUY = Cmd("dog", "buy baltic avenue", "buy", (("property", "Baltic Avenue"),),
          (("property", "baltic avenue"),))


def seen(**kw: object) -> Seen:
    base: dict[str, object] = {"heard": "", "intent": "none", "slots": {}, "refused": False,
                               "moved": False}
    base.update(kw)
    return Seen(**base)  # type: ignore[arg-type]


def test_the_player_says_yes_only_to_what_he_meant() -> None:
    right = seen(asked="confirm", asked_cmd=("buy", {"property": "Baltic Avenue"}))
    wrong = seen(asked="confirm", asked_cmd=("buy", {"property": "Park Place"}))
    assert next_move(BUY, right, taps=True) == ("tap", "")
    assert next_move(BUY, right, taps=False) == ("say", "yes")
    assert next_move(BUY, wrong) == ("say", "no")
    assert next_move(BUY, wrong, naive=True) == ("tap", "")  # the baseline: yes to everything


def test_the_player_answers_the_question_or_says_it_again() -> None:
    which = seen(asked="slot", asked_cmd=("buy", {}), slot="property")
    assert next_move(BUY, which) == ("say", "baltic avenue")
    choose = seen(asked="choose", candidates=(("buy", {"property": "Baltic Avenue"}),
                                              ("buy", {"property": "Park Place"})))
    assert next_move(BUY, choose) == ("say", "baltic avenue")
    assert next_move(BUY, seen(said=("Sorry, say that again?",))) == ("say", BUY.text)
    refused_wrong = seen(intent="pay_rent", slots={"property": "Baltic Avenue"}, refused=True)
    assert next_move(BUY, refused_wrong) == ("say", BUY.text)


def test_a_query_answered_under_a_question_left_from_earlier_is_done() -> None:
    """ "how much money do I have" answered while "Did you say buy Virginia Avenue?" (a
    command given up before) is still open: done. Asked about itself, it is not."""
    balance = Cmd("cat", "how much money do I have", "balance", ())
    left = ("buy", {"property": "Virginia Avenue"})
    assert done_by(balance, seen(intent="balance", asked="confirm", asked_cmd=left, stale=True))
    assert not done_by(balance, seen(intent="balance", asked="confirm", asked_cmd=left))
    assert not done_by(BUY, seen(intent="buy", slots={"property": "Baltic Avenue"},
                                 asked="confirm", asked_cmd=("buy", {"property": "Baltic Avenue"})))


def test_said_again_a_little_faster_or_slower() -> None:
    espeak = Voice("espeak", "en-us+m3", 150)
    assert varied(espeak, 0) == espeak
    assert {varied(espeak, k).speed for k in (1, 2)} == {138, 162}
    assert varied(PIPER, 1).speed > PIPER.speed  # piper's speed is a length scale


def test_scripts_are_deterministic_and_end_where_the_typed_game_ends() -> None:
    a, b = make_script(7, 6), make_script(7, 6)
    assert a == b and len(a.cmds) == 6 and a.cmds[0].intent == "buy"
    assert len(a.voices) == len(a.players) == len(a.taps)
    assert dict(a.expected) != {p: 1500 for p in a.players}  # money moved
    assert make_script(8, 6) != a


def test_scoring_counts_games_commands_and_turns() -> None:
    s = scripted(["dog", "cat"], [("dog", "buy baltic avenue", {"property": "baltic avenue"}),
                                  ("cat", "pay rent on baltic avenue", {"property": "baltic avenue"})],
                 [PIPER, PIPER], [True, True])
    assert dict(s.expected) == {"dog": 1444, "cat": 1496}
    from banker.tools.table_sim import CmdResult

    good = GameResult(s, "clean", False, [CmdResult(s.cmds[0], 1, True, True),
                                         CmdResult(s.cmds[1], 3, True)], dict(s.expected))
    bad = GameResult(s, "clean", False, [CmdResult(s.cmds[0], 2, False, wrong_money=1),
                                        CmdResult(s.cmds[1], 1, True, True)], {"dog": 1, "cat": 2})
    r = score([good, bad])
    assert (r["games"], r["exact_games"], r["commands"], r["completed"]) == (2, 1, 4, 3)
    assert r["turns"] == 7 and r["extra_turns_per_command"] == 0.75 and r["wrong_money"] == 1
    assert "1/2 50%" in table({"players": {"clean": r}})


def test_a_short_game_by_voice_ends_with_the_typed_balances() -> None:
    """Five commands said by the piper voice, clean, through the live loop: every one is
    understood (at once, or after a question answered honestly) and the game ends with the
    balances the same commands give typed."""
    lines = [("dog", "buy baltic avenue", {"property": "baltic avenue"}),
             ("cat", "buy park place", {"property": "park place"}),
             ("cat", "pay rent on baltic avenue", {"property": "baltic avenue"}),
             ("dog", "pay fifty to the cat", {"amount": "fifty", "player": "the cat"}),
             ("dog", "what is my balance", {})]
    script = scripted(["dog", "cat"], lines, [PIPER, Voice("piper", "joe", 1.2, noise=0.5)],
                      [True, False], seed=3)
    t0 = time.monotonic()
    g = play_game(script, "clean", load_config())
    logs = [r.log for r in g.results]
    assert not g.error, g.error
    assert [r.done for r in g.results] == [True] * 5, logs
    assert sum(r.wrong_money for r in g.results) == 0, logs
    assert g.cash == {"dog": 1500 - 60 - 50 + 4, "cat": 1500 - 350 - 4 + 50}, logs
    assert g.exact
    assert all(r.log and "heard" in r.log[0] for r in g.results)  # by voice, not typed
    assert time.monotonic() - t0 < 90


def test_games_without_table_is_one_sentence(capsys) -> None:  # type: ignore[no-untyped-def]
    from banker.cli import main

    assert main(["bench", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "--games goes with --table" in err and "Traceback" not in err
