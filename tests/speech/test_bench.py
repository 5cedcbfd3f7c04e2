"""The bench's dev set and scoring (the decoding itself is what ``banker bench`` runs)."""

from __future__ import annotations

from pathlib import Path

from banker.tools.bench import Item, dev_set, score, table
from banker.tools.clips import PIPER


def test_dev_set_is_deterministic_and_labelled() -> None:
    a, b = dev_set(30, 6, 4), dev_set(30, 6, 4)
    assert a == b
    cmds = [i for i in a if i.intent != "none" and i.focus == "any"]
    assert len(cmds) == 30 and sum(i.intent == "none" for i in a) == 6
    assert {i.focus for i in a} == {"any", "street", "yes_no", "bid", "number"}
    assert {i.voice.engine for i in a} == {"piper", "espeak"}


def test_scoring_counts_misbanked_and_accepted_chatter() -> None:
    items = [
        Item("buy baltic avenue", "buy", (("property", "Baltic Avenue"),), PIPER),
        Item("buy park place", "buy", (("property", "Park Place"),), PIPER),
        Item("order a pizza", "none", (), PIPER),
        Item("what a lovely avenue", "none", (), PIPER),
    ]
    results = [
        (0, "clean", "buy baltic avenue", 0.99, 0.1),  # right, acted on
        (1, "clean", "buy boardwalk", 0.99, 0.1),  # wrong money command acted on: misbanked
        (2, "clean", "", 0.0, 0.1),  # chatter ignored
        (3, "clean", "chance card", 0.99, 0.1),  # chatter acted on (and money moved)
    ]
    r = score(items, results)["clean"]
    assert r["commands"] == 2 and r["chatter"] == 2
    assert r["exact_pct"] == 50.0 and r["misbanked"] == 2
    assert r["chatter_accepted_pct"] == 50.0
    assert "clean" in table({"ours": {"clean": r}})


def test_a_wrong_command_without_its_street_is_not_misbanked() -> None:
    """ "buy" alone heard for "pass go" only asks "Which street?": acted on, wrong, and no
    money moves (the street that answers is judged as the whole money command)."""
    items = [Item("pass go", "pass_go", (), PIPER), Item("pass go", "pass_go", (), PIPER)]
    results = [(0, "clean", "buy", 0.7, 0.1), (1, "clean", "buy boardwalk", 0.9, 0.1)]
    r = score(items, results)["clean"]
    assert r["accepted_right_pct"] == 0.0 and r["rejected_pct"] == 0.0
    assert r["misbanked"] == 1  # only the whole command


def test_chatter_that_only_opens_a_question_is_asked_about_not_acted_on() -> None:
    """ "check the oven please" heard as "let me auction please" (0.66) only asks "Which
    street?": nothing changes, as after "Did you say…?"; the whole command is acted on."""
    items = [Item("check the oven please", "none", (), PIPER),
             Item("hand me that card", "none", (), PIPER)]
    results = [(0, "clean", "let me auction please", 0.66, 0.1),
               (1, "clean", "auction off baltic avenue", 0.9, 0.1)]
    r = score(items, results)["clean"]
    assert r["chatter_accepted_pct"] == 50.0 and r["chatter_confirmed_pct"] == 50.0


def test_a_bid_is_judged_with_an_auction_open_and_chatter_heard_as_one_without() -> None:
    """A bid is only said in an auction: heard unsurely it is asked about there (right), while
    table talk heard as a bid between turns is "Sorry?" (no auction open)."""
    items = [Item("bid two hundred", "bid", (("amount", 200),), PIPER),
             Item("my dice are lucky", "none", (), PIPER)]
    results = [(0, "clean", "bid two hundred", 0.6, 0.1),
               (1, "clean", "bid two hundred", 0.6, 0.1)]
    r = score(items, results)["clean"]
    assert r["exact_pct"] == 100.0 and r["confirmed_pct"] == 100.0
    assert r["chatter_confirmed_pct"] == 0.0


def test_other_readings_are_weighed_as_play_weighs_them() -> None:
    """A close second reading that differs by a name makes a choice ("Baltic Avenue or
    Oriental Avenue?"): counted apart, not as exact or asked about. The second ear's reading
    offered where the first would get "Sorry?" is asked about: exact when it is the meant one."""
    items = [Item("buy baltic avenue", "buy", (("property", "Baltic Avenue"),), PIPER),
             Item("pass go", "pass_go", (), PIPER)]
    results = [(0, "clean", "buy baltic avenue", 0.6, 0.1, (("buy oriental avenue", 0.6),)),
               (1, "clean", "pay bail", 0.2, 0.1, (("pass go", 0.69),))]
    r = score(items, results)["clean"]
    assert (r["choices"], r["choices_right"]) == (1, 1)
    assert r["exact_pct"] == 50.0 and r["confirmed_pct"] == 50.0
    without = score(items, [res[:5] for res in results])["clean"]
    assert without["choices"] == 0 and without["exact_pct"] == 50.0
    assert without["rejected_pct"] == 50.0


def test_the_default_run_is_sized_for_about_fifteen_minutes() -> None:
    """About 1,000 decodes (2 cores, ~1 s each with the noise filter); the whole set is --full."""
    from banker.tools.bench import CONDITIONS, DEFAULT_SIZE, FULL_SIZE, QUICK_CONDITIONS

    decodes = sum(DEFAULT_SIZE) * len(QUICK_CONDITIONS)
    assert 600 <= decodes <= 1200, decodes
    assert sum(FULL_SIZE) * len(CONDITIONS) > 5 * decodes


def test_decodes_are_cached_by_audio_and_code_version(tmp_path: Path) -> None:
    from banker.tools.bench import decode_all, decode_version, dev_set

    items = dev_set(2, 1, 0, seed=5)
    first: list[int] = []
    a = decode_all(items, ("clean",), "ours", lambda _n: None, workers=1, cache=tmp_path,
                   cached=first)
    again: list[int] = []
    b = decode_all(items, ("clean",), "ours", lambda _n: None, workers=1, cache=tmp_path,
                   cached=again)
    assert (first, again) == ([0], [3]) and a == b
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert decode_version("ours") != decode_version("naive")


def _latency_report(p50: float, p95: float, cold: float, rss: float) -> dict[str, object]:
    from banker.speech.latency import LatencyReport

    rep = LatencyReport(p50, p95, 12, 2.0, 4.0, 430.0, 450.0, 12, 300, 428.0, 25.0, 0.0,
                        cold_start_s=cold, rss_mb=rss)
    return {"table": rep.table(), "report": rep.to_json()}


def test_latency_is_shown_as_configured_and_alone_with_the_cost_and_the_goals() -> None:
    """The second ear's cost is a ratio of the baseline measured in the same run, and the
    goals are set beside what pocketsphinx alone measured (they hold for it)."""
    from banker.tools.bench_latency import text

    lat = {**_latency_report(110.0, 400.0, 0.9, 780.0),
           "alone": _latency_report(100.0, 160.0, 1.0, 390.0)}
    out = text(lat)
    assert "as configured / alone: release p50 x1.10, release p95 x2.50, cold start x0.90, " \
           "peak memory x2.00" in out
    assert "goals, pocketsphinx alone: release p95 160 ms (goal <= 250), cold start 1.00 s " \
           "(goal <= 2), peak memory 390 MB (goal <= 400); peak memory as configured 780 MB " \
           "(goal <= 1000)" in out
    assert out.count("end of speech -> reply, button release") == 2
    # a run that could not measure the baseline says so in one sentence, as before
    assert text({"error": "alone: RuntimeError: probe failed"}) == \
        "latency not measured: alone: RuntimeError: probe failed"
    # nor is it lost when the configured run was measured before the baseline failed
    configured = _latency_report(110.0, 400.0, 0.9, 780.0)
    assert text({**configured, "error": "alone: RuntimeError: probe failed"}) == \
        f"{configured['table']}\nlatency not measured: alone: RuntimeError: probe failed"


def test_the_dev_set_has_classic_commands_and_chatter_after_the_same_voice_banking_lines() -> None:
    """``banker bench`` adds the classic box's own commands and its railroad and utility
    chatter, each judged in a classic game; the voice-banking lines stay as they were."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Matcher, Recognized

    plain = dev_set(4, 2, 0)
    both = dev_set(4, 2, 0, n_classic=9)
    assert both[:len(plain)] == plain
    classic = both[len(plain):]
    assert {it.edition for it in classic} == {"classic"}
    commands = [it for it in classic if it.intent != "none"]
    chatter = [it for it in classic if it.intent == "none"]
    assert len(commands) == 9 and len(chatter) == 3
    m = Matcher.for_edition(load_edition("classic"))
    for it in commands:
        r = m.match(it.text)
        assert isinstance(r, Recognized) and r.intent == it.intent, it.text
    about = ("railroad", "station", "utilit", "water works", "electric company")
    assert any(word in it.text.lower() for it in chatter for word in about)
    assert not any(isinstance(m.match(it.text), Recognized) for it in chatter)


def test_the_end_of_turn_by_the_grammar_is_shown_against_the_end_by_silence() -> None:
    """Ratios of the same run's end by silence, the goals beside both ears' numbers, and the
    cut-offs counted (live and over dev-set commands said with a pause)."""
    from banker.tools.bench_latency import text

    def rep(total50: float, total95: float, cut: int) -> dict[str, object]:
        part = _latency_report(100.0, 160.0, 0.9, 780.0)
        report = dict(part["report"], vad_total_p50=total50, vad_total_p95=total95, n_cut=cut)
        return {"table": part["table"], "report": report}

    lat = {**rep(220.0, 380.0, 0), "alone": rep(200.0, 300.0, 0),
           "silence": rep(440.0, 760.0, 0), "alone_silence": rep(400.0, 500.0, 1),
           "paused": {"heard_whole": 57, "cut": 1, "unplaced": 2,
                      "cut_examples": [["new player the dog", "new player the car"]]},
           "one_core": rep(330.0, 610.0, 0), "one_core_alone": {"error": "OSError: no CPU"}}
    out = text(lat)
    assert "on one core, both ears: p50 330 ms, p95 610 ms; cut off 0 of 12" in out
    assert "on one core: not measured: OSError: no CPU" in out
    assert "both ears: p50 220 ms vs 440 ms (x0.50), p95 380 ms vs 760 ms (x0.50); cut off " \
           "0 of 12 vs 0 of 12" in out
    assert "pocketsphinx alone: p50 200 ms vs 400 ms (x0.50)" in out and "vs 1 of 12" in out
    assert "goals, both ears: p50 220 ms (goal <= 250), p95 380 ms (goal <= 400)" in out
    assert "57 heard whole, 1 cut off (goal 0; 0 of them meaning the same command), 2 not placed" in out


def test_a_cut_off_that_keeps_the_command_is_counted_apart() -> None:
    """The paused dev set counts cut-offs whose reading still means the whole command (a last
    word that changes nothing) apart from those that change it."""
    from banker.tools.pauses import _meaning

    assert _meaning("whose is connecticut") == _meaning("whose is connecticut avenue") is not None
    assert _meaning("remove race car from the game") == _meaning(
        "remove race car from the game please")
    assert _meaning("pay two hundred") != _meaning("pay two hundred fifty")
    assert _meaning("the weather is nice") is None
