"""``banker bench --table``: whole Voice Banking games at a simulated table, per noise condition.

Each game is a script of short commands that make sense in order (buy streets, pay rent on
them, pay each other, pass GO, ask balances and owners), two or three players, each with a
dev-set voice (a piper variant for every third player, espeak-ng accents otherwise, as in the
dev set) and a yes habit (a tap of the button
or the word). The expected end is the same script *typed* into a fresh ``Session`` (the
keyboard path: every command acted on as read). The game itself is played by voice through
the live loop on a virtual clock (``table_sim``), once with honest players and once with naive
ones who answer yes to every question (the baseline), on the same audio.

Reported per condition, with the counts: games ending with exact balances, commands completed
(understood: acted on, or refused with a reason), acted on at once, extra turns per command
(every press after the first one for a command: repeats, yes/no answers, taps), and wrong money
commands acted on.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, TextIO

from banker.tools import clips
from banker.tools.clips import Voice
from banker.tools.table_sim import Cmd, GameResult, Mode, Script, play_game

EDITION = "voice-banking"
CONDITIONS = ("clean", "babble:10", "pink:10")
FULL_CONDITIONS = ("clean", "babble:20", "babble:10", "babble:5", "pink:20", "pink:10", "pink:5")
# The far microphone (the laptop in the middle of the table, babble 10 dB below the speech)
# beside a close one (a phone a hand's breadth from the mouth hears its player 15 dB louder
# over the same babble).
PHONE_CONDITIONS = ("babble:10", "babble:25")
CONDITION_NAMES = {"babble:10": "far microphone", "babble:25": "close microphone (a phone)"}
GAMES = 3  # per condition, by default
COMMANDS = 6  # per game
TARGETS = {"exact_clean_pct": 95.0, "exact_babble_10_pct": 70.0, "extra_turns_clean_max": 0.3}

AMOUNTS = {20: "twenty", 50: "fifty", 100: "one hundred", 150: "one hundred fifty",
           200: "two hundred"}
SAID_NAMES = {"trex": "the t rex", "racecar": "the racecar", "cat": "the cat", "dog": "the dog"}
PHRASES: dict[str, tuple[str, ...]] = {
    "buy": ("buy {street}", "I'll buy {street}", "buy {street} please"),
    "pay_rent": ("pay rent on {street}", "pay the rent on {street}"),
    "pay": ("pay {amount} to {player}", "pay {player} {amount}"),
    "collect": ("collect {amount}",),
    "pass_go": ("I passed go", "pass go"),
    "balance": ("what is my balance", "how much money do I have"),
    "owner": ("who owns {street}",),
}
WEIGHTS = {"buy": 4, "pay_rent": 3, "pay": 2, "collect": 1, "pass_go": 1, "balance": 1,
           "owner": 1}


def said_street(name: str) -> str:
    """A street as a player says it ("St. Charles Place": "saint charles place")."""
    return name.replace("St. ", "saint ").lower()


def make_script(seed: int, n_commands: int = COMMANDS) -> Script:
    """A game that makes sense in order (each command legal when its turn comes), with voices
    and yes habits drawn for its players."""
    from banker.editions import load_edition
    from banker.interpreter.session import Session, VirtualClock
    from banker.tools.bench import PIPER_VOICES, espeak_voices

    ed = load_edition(EDITION)
    rng = random.Random(seed)
    players = rng.sample([t.id for t in ed.tokens], rng.choice((2, 3)))
    ref = Session(ed, players, seed=seed, clock=VirtualClock())
    lines: list[tuple[str, str, dict[str, str]]] = []
    for _ in range(n_commands * 50):
        if len(lines) == n_commands:
            break
        who = rng.choice(players)
        intent = "buy" if not lines else rng.choices(list(WEIGHTS), list(WEIGHTS.values()))[0]
        filled = _fill(intent, who, players, ref, rng)
        if filled is not None:
            ref.hear(who, filled[0], None)
            lines.append((who, *filled))
    # the dev set's families in its proportions (a third piper): in turn, not by chance,
    # so that three games don't come out all espeak
    voices = tuple(rng.choice(PIPER_VOICES) if (seed + j) % 3 == 0 else espeak_voices(rng)
                   for j in range(len(players)))
    taps = tuple(rng.random() < 0.5 for _ in players)
    return scripted(players, lines, voices, taps, seed)


def scripted(players: Sequence[str], lines: Sequence[tuple[str, str, dict[str, str]]],
             voices: Sequence[Voice], taps: Sequence[bool], seed: int = 0) -> Script:
    """A script from (player, words, slot words) lines: what each line means and the cash it
    should all end with come from typing the lines into a fresh game (the keyboard path)."""
    from banker.editions import load_edition
    from banker.interpreter.session import Session, VirtualClock

    ref = Session(load_edition(EDITION), list(players), seed=seed, clock=VirtualClock())
    cmds = []
    for who, text, words in lines:
        ref.begin_step()
        ref.hear(who, text, None)
        step = ref.finish_step()
        if step.refused or ref.pending is not None or step.intent == "none":
            raise ValueError(f"typed, {text!r} from {who} is not acted on at once")
        slots = tuple(sorted((k, v) for k, v in step.slots.items() if v is not None))
        cmds.append(Cmd(who, text, step.intent, slots, tuple(sorted(words.items()))))
    cash = tuple(sorted((t, p.cash) for t, p in ref.state.players.items()))
    return Script(seed, tuple(players), tuple(voices), tuple(taps), tuple(cmds), cash)


def _fill(intent: str, who: str, players: list[str], ref: Any, rng: random.Random
          ) -> tuple[str, dict[str, str]] | None:
    """Words for ``intent`` that are legal now, or None."""
    state = ref.state
    streets = list(state.edition.street_names)
    words: dict[str, str] = {}
    if intent == "buy":
        free = [s for s in streets if state.owner(s) is None and state.cash(who) > 400]
        if not free:
            return None
        words["property"] = said_street(rng.choice(free))
    elif intent == "pay_rent":
        theirs = [s for s in streets if state.owner(s) not in (None, who)]
        if not theirs:
            return None
        words["property"] = said_street(rng.choice(theirs))
    elif intent == "owner":
        words["property"] = said_street(rng.choice(streets))
    elif intent in ("pay", "collect"):
        amount = rng.choice(list(AMOUNTS))
        words["amount"] = AMOUNTS[amount]
        if intent == "pay":
            words["player"] = SAID_NAMES[rng.choice([p for p in players if p != who])]
    text = rng.choice(PHRASES[intent]).format(street=words.get("property", ""),
                                              amount=words.get("amount", ""),
                                              player=words.get("player", ""))
    h = ref.understand(text, who)
    if h.decision != "accept" or h.intent != intent or not ref.legal(who, intent, h.slots):
        return None
    return text, words


# --- scoring -------------------------------------------------------------------------------
def score(games: Sequence[GameResult]) -> dict[str, Any]:
    """Counts and percentages for one condition (one kind of player)."""
    res = [r for g in games for r in g.results]
    n_cmd = sum(len(g.script.cmds) for g in games)  # a broken game's missing commands count
    turns = sum(r.turns for r in res)
    exact = sum(g.exact for g in games)
    return {
        "games": len(games), "exact_games": exact, "exact_pct": _pct(exact, len(games)),
        "commands": n_cmd, "completed": sum(r.done for r in res),
        "completed_pct": _pct(sum(r.done for r in res), n_cmd),
        "at_once": sum(r.at_once for r in res), "at_once_pct": _pct(sum(r.at_once for r in res), n_cmd),
        "turns": turns, "extra_turns_per_command": round((turns - len(res)) / len(res), 3) if res else None,
        "asked": sum(r.asked for r in res), "refused": sum(r.refused for r in res),
        "wrong_money": sum(r.wrong_money for r in res),
        "wrong_money_pct": _pct(sum(r.wrong_money for r in res), n_cmd),
        "errors": [g.error for g in games if g.error],
        "seconds": round(sum(g.seconds for g in games), 1),
    }


def _pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 1) if d else None


def table(report: dict[str, Any]) -> str:
    head = (f"{'condition':<10} {'games':>5} {'exact balances':>16} {'completed':>15} "
            f"{'at once':>15} {'extra turns/cmd':>17} {'wrong money':>13} {'asked':>6}")
    lines = []
    for who in ("players", "baseline"):
        rows = report.get(who) or {}
        if not rows:
            continue
        lines.append("simulated table, honest players:" if who == "players" else
                     "baseline, players who answer yes to every question:")
        lines.append(head)
        for cond, e in rows.items():
            lines.append(
                f"{cond:<10} {e['games']:>5} {_frac(e['exact_games'], e['games'], e['exact_pct']):>16} "
                f"{_frac(e['completed'], e['commands'], e['completed_pct']):>15} "
                f"{_frac(e['at_once'], e['commands'], e['at_once_pct']):>15} "
                f"{_num(e['extra_turns_per_command']) + ' (' + str(e['turns']) + ' turns)':>17} "
                f"{_frac(e['wrong_money'], e['commands'], e['wrong_money_pct']):>13} "
                f"{e['asked']:>6}")
            for err in e["errors"]:
                lines.append(f"  a game broke off: {err}")
    return "\n".join(lines)


def _frac(n: int, d: int, pct: float | None) -> str:
    return f"{n}/{d} {'-' if pct is None else f'{pct:g}%'}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def targets_line(report: dict[str, Any]) -> str:
    rows = report.get("players") or {}
    clean, babble = rows.get("clean"), rows.get("babble:10")
    parts = []
    if clean:
        parts.append(f"clean exact balances {_frac(clean['exact_games'], clean['games'], clean['exact_pct'])} "
                     f"(target >= {TARGETS['exact_clean_pct']:g}%)")
        parts.append(f"clean extra turns/command {_num(clean['extra_turns_per_command'])} "
                     f"(target <= {TARGETS['extra_turns_clean_max']:g})")
    if babble:
        parts.append(f"babble 10 dB exact balances "
                     f"{_frac(babble['exact_games'], babble['games'], babble['exact_pct'])} "
                     f"(target >= {TARGETS['exact_babble_10_pct']:g}%)")
    return "targets: " + "; ".join(parts)


# --- the command ---------------------------------------------------------------------------
def run_table(games: int | None = None, full: bool = False, out: Path | None = None,
              stream: TextIO | None = None, *, baseline: bool = True, mode: Mode = "release",
              n_commands: int = COMMANDS, phones: bool = False) -> int:
    """Play ``games`` scripted games per condition (honest, then naive players); print the
    table; write the JSON report. ``phones``: the far microphone beside the close one
    (``PHONE_CONDITIONS``), honest players only."""
    from banker.config import load_config

    stream = stream or sys.stdout
    if not clips.have_espeak():
        print("banker: bench needs espeak-ng and sox (apt-get install espeak-ng sox).",
              file=sys.stderr)
        return 2
    n_games = games or GAMES
    conditions = PHONE_CONDITIONS if phones else FULL_CONDITIONS if full else CONDITIONS
    baseline = baseline and not phones
    scripts = [make_script(2026 + i, n_commands) for i in range(n_games)]
    config = load_config()  # a turn waits for the second ear's load: the same game every run
    config = {**config, "asr": {**(config.get("asr") or {}), "second_ear_wait": True}}
    print(f"banker bench --table: {n_games} games x {len(conditions)} conditions "
          f"({', '.join(conditions)}), {sum(len(s.cmds) for s in scripts)} commands a condition"
          f"{', with the always-yes baseline' if baseline else ''}; end of turn: {mode}",
          file=stream, flush=True)
    t0 = time.monotonic()
    report: dict[str, Any] = {"edition": EDITION, "conditions": list(conditions), "mode": mode,
                              "scripts": [asdict(s) for s in scripts], "targets": TARGETS,
                              "players": {}, "baseline": {}, "games": []}
    for cond in conditions:
        honest, naive = [], []
        for s in scripts:
            g = play_game(s, cond, config, mode=mode)
            honest.append(g)
            _progress(g, "players", stream)
            report["games"].append(_game_json(g, "players"))
            if baseline:
                # the same audio and the same answers give the same game: replayed only when
                # the honest players said something a naive one wouldn't (a "no")
                again = g.diverged or bool(g.error)
                b = (play_game(s, cond, config, naive=True, mode=mode) if again
                     else replace(g, naive=True, seconds=0.0))
                naive.append(b)
                _progress(b, "baseline", stream, replayed=again)
                report["games"].append(_game_json(b, "baseline"))
        report["players"][cond] = score(honest)
        if baseline:
            report["baseline"][cond] = score(naive)
    report["seconds"] = round(time.monotonic() - t0, 1)
    print(table(report), file=stream)
    for cond in conditions:
        if phones and cond in CONDITION_NAMES:
            print(f"{cond}: {CONDITION_NAMES[cond]}", file=stream)
    print(targets_line(report), file=stream)
    print(f"time: {report['seconds']:.0f} s", file=stream)
    out = out or clips.cache_dir() / "bench" / "table.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"report: {out}", file=stream)
    return 0


def _progress(g: GameResult, kind: str, stream: TextIO, replayed: bool = True) -> None:
    print(f"  {g.condition:<10} {kind:<8} game {g.script.seed}: "
          f"{sum(r.done for r in g.results)}/{len(g.script.cmds)} completed, "
          f"{'exact balances' if g.exact else 'balances off'}, "
          + (f"{g.seconds:.0f} s" if replayed else "the same game (nobody said no)")
          + (f" ({g.error})" if g.error else ""), file=stream, flush=True)


def _game_json(g: GameResult, kind: str) -> dict[str, Any]:
    return {"seed": g.script.seed, "condition": g.condition, "players": kind, "exact": g.exact,
            "cash": g.cash, "expected": dict(g.script.expected), "error": g.error,
            "seconds": round(g.seconds, 1),
            "commands": [{"player": r.cmd.player, "text": r.cmd.text, "turns": r.turns,
                          "done": r.done, "wrong_money": r.wrong_money, "log": r.log}
                         for r in g.results]}


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run_table(int(sys.argv[1]) if len(sys.argv) > 1 else None))
