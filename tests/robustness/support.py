"""Shared machinery for the robustness tests: a table of random players, a shadow game, and a
pseudo-terminal driver for the real ``banker play --keyboard``.

* ``Actor`` picks the next thing a player at the table does (typed command, button press,
  answer to a question, silence), for any edition, from the command templates in
  ``grammars/commands.yaml`` and the current game. It takes its randomness from a
  ``Chooser`` so the same code is driven by ``random.Random`` (kill loop) or by hypothesis.
* ``Shadow`` is an in-process ``Session`` on a virtual clock that is fed the same lines as the
  real process. It records every journal write (commit) and the visible state after it, so a
  test knows which states the killed process may legitimately have left on disk.
* ``PtyGame`` runs ``banker play --keyboard`` on a pseudo-terminal and reads its output the way
  a person watches the screen: lines, and the ``> `` prompt.
"""

from __future__ import annotations

import functools
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from banker.editions import load_edition
from banker.editions.model import Edition
from banker.frontends.keyboard import handle_line
from banker.interpreter.dialogue_state import held_events
from banker.interpreter.replies import Replies
from banker.interpreter.session import Session, VirtualClock
from banker.interpreter.undo import without_balances
from banker.ledger import Transaction
from banker.nlu.matcher import Matcher
from banker.nlu.templates import load_grammar
from banker.rules import Line, fold
from banker.rules.state import GameState

ROOT = Path(__file__).resolve().parents[2]
BANKER = [sys.executable, "-m", "banker"]


# --- running the command ---------------------------------------------------------------------

def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a child banker: no user config, private data folder if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANKER_")}
    env.update(extra)
    return env


def run_banker(args: list[str], *, input: str = "", env: Mapping[str, str] | None = None,
               timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BANKER, *args], input=input, capture_output=True, text=True,
                          timeout=timeout, env=dict(env) if env is not None else clean_env(), **kw)


def assert_one_sentence(stderr: str) -> str:
    """A user's mistake: exactly one plain line on stderr, never a traceback."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, f"expected one sentence, got: {stderr!r}"
    assert len(lines[0]) < 400, lines[0]
    return lines[0]


def state_json(game: Path) -> dict[str, Any]:
    """``banker state --game F --json`` (a separate process, like a user would run it)."""
    r = run_banker(["state", "--game", str(game), "--json"])
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert isinstance(data, dict)
    return data


def jsonable(view: Mapping[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(view))
    assert isinstance(out, dict)
    return out


_EDITIONS: dict[str, Edition] = {}
_MATCHERS: dict[str, Matcher] = {}


def edition(edition_id: str) -> Edition:
    """Editions loaded once per run (the YAML takes ~0.2 s to parse)."""
    if edition_id not in _EDITIONS:
        _EDITIONS[edition_id] = load_edition(edition_id)
    return _EDITIONS[edition_id]



def matcher_for(edition: Edition) -> Matcher:
    """One compiled matcher per edition for the whole test run (compiling takes ~0.3 s)."""
    if edition.id not in _MATCHERS:
        _MATCHERS[edition.id] = Matcher.for_edition(edition)
    return _MATCHERS[edition.id]


# --- choosing ----------------------------------------------------------------------------------

class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int:
        """A whole number from lo to hi inclusive."""
        ...


class RandomChooser:
    def __init__(self, rng: Any) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return int(self.rng.randint(lo, hi))


def pick(ch: Chooser, items: list[Any]) -> Any:
    return items[ch.integer(0, len(items) - 1)]


def weighted(ch: Chooser, table: list[tuple[Any, int]]) -> Any:
    total = sum(w for _x, w in table)
    n = ch.integer(0, total - 1)
    for x, w in table:
        if n < w:
            return x
        n -= w
    raise AssertionError("unreachable")


# --- what players say ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Phrase:
    intent: str
    words: tuple[str, ...]  # with markers: @s (street), @p (player), # (number)
    slots: tuple[str, ...]  # slot names of the markers, left to right


_PHRASES: dict[str, dict[str, list[Phrase]]] = {}


@functools.cache
def grammar_lists() -> dict[str, list[str]]:
    """The grammar's word lists (cards, buildings...), read once per run."""
    return load_grammar().lists


def phrases(edition: Edition) -> dict[str, list[Phrase]]:
    """The few shortest sentences of every command of the edition, from the templates."""
    if edition.id in _PHRASES:
        return _PHRASES[edition.id]
    grammar = load_grammar()
    markers: dict[str, list[tuple[str, str]]] = {
        "property": [("@s", "")], "give": [("@s", "")], "get": [("@s", "")],
        # the further streets of a Secret Vault deal's side
        **{f"{k}{n}": [("@s", "")] for k in ("property", "give", "get") for n in (2, 3)},
        "player": [("@p", "")],
        "outcome": [(o, o) for o in grammar.lists.get("outcome", [])],
        # any other list (the classic box's cards, a building): a marker the actor fills in
        **{name: [(f"@{name}", "")] for name in grammar.lists if name not in ("outcome", "number")}}
    out: dict[str, list[Phrase]] = {}
    for spec in grammar.for_edition(edition.id):
        found: dict[tuple[str, ...], Phrase] = {}
        for n, exp in enumerate(grammar.expand(spec, markers)):
            if n > 4000:
                break
            order = tuple(k for k, v in exp.slots if v in ("", "#"))
            found.setdefault(tuple(exp.text.split()), Phrase(spec.name, tuple(exp.text.split()), order))
        ranked = sorted(found.values(), key=lambda p: (len(p.words), p.words))
        by_slots: dict[tuple[str, ...], list[Phrase]] = {}
        for p in ranked:
            by_slots.setdefault(tuple(sorted(p.slots)), []).append(p)
        out[spec.name] = [p for group in by_slots.values() for p in group[:3]]
    _PHRASES[edition.id] = out
    return out


# Rough weights: money-moving commands often, queries and the game's end rarely.
WEIGHTS = {"buy": 8, "pay_rent": 6, "auction": 4, "chance": 5, "pass_go": 4, "build_house": 4,
           "build_hotel": 3, "pay": 4, "collect": 2, "trade": 2, "train_ride": 2, "undo": 3,
           "bankrupt": 1, "help": 1, "repeat": 1, "cancel": 1, "yes": 1, "no": 1, "answer": 1,
           "bid": 1, "balance": 1, "owner": 1, "status": 1}
DEFAULT_WEIGHT = 2
AMOUNTS = [10, 50, 100, 150, 200, 250, 300, 400, 500, 1000]
STREET_PICK = {
    "buy": "unowned", "auction": "unowned", "pay_rent": "others", "steal_house": "others",
    "build_house": "mine", "build_hotel": "mine", "mortgage": "mine", "unmortgage": "mine",
    "sell": "mine", "use_key": "locked", "buy_from": "others", "owner": "any",
}


@dataclass
class Action:
    """One thing that happens at the table."""

    kind: str  # line | close (let the auction run out) | wait (seconds of silence)
    text: str = ""
    seconds: float = 0.0

    def __str__(self) -> str:
        return self.text if self.kind == "line" else (
            f"<{self.kind} {self.seconds}>" if self.seconds else f"<{self.kind}>")

    def apply(self, session: Session) -> None:
        """Do it at an in-process table: type the line, or let the time pass (7 s closes an
        auction)."""
        if self.kind == "line":
            handle_line(self.text, session, io.StringIO())
        else:
            session.begin_step()
            session.advance(7.0 if self.kind == "close" else self.seconds)
            session.finish_step()


class Actor:
    """Picks what happens next at the table, looking at the game like the players do."""

    def __init__(self, edition: Edition) -> None:
        self.edition = edition
        self.book = phrases(edition)
        self.table = [(name, WEIGHTS.get(name, DEFAULT_WEIGHT)) for name in sorted(self.book)]

    # --- names ---------------------------------------------------------------------------
    def street(self, ch: Chooser, s: GameState, me: str, how: str) -> str:
        names = list(self.edition.street_names)
        pools = {
            "unowned": [n for n in names if s.owner(n) is None],
            "others": [n for n in names if s.owner(n) not in (None, me)],
            "mine": [n for n in names if s.owner(n) == me],
            "locked": [st.name for st in self.edition.streets if st.locked],
        }
        pool = pools.get(how) or []
        if pool and ch.integer(0, 9) < 8:
            return str(pick(ch, pool))
        if ch.integer(0, 19) == 0 and self.edition.foreign_streets:
            return str(pick(ch, list(self.edition.foreign_streets)))  # another board's street
        return str(pick(ch, names))

    def player_name(self, ch: Chooser, s: GameState, me: str) -> str:
        others = [t for t in s.seated if t != me] or list(s.order)
        tok = pick(ch, others) if ch.integer(0, 9) else me
        return self.edition.token(tok).name

    def amount(self, ch: Chooser, s: GameState, me: str) -> int:
        cash = s.cash(me)
        options = [*AMOUNTS, max(cash - 1, 1), max(cash // 2, 1), cash + 50]
        return int(pick(ch, options))

    # --- sentences -----------------------------------------------------------------------
    def say(self, ch: Chooser, s: GameState, me: str, intent: str) -> str:
        phrase: Phrase = pick(ch, self.book[intent])
        how = STREET_PICK.get(intent, "any")
        slots = iter(phrase.slots)
        lists = grammar_lists()
        words: list[str] = []
        for w in phrase.words:
            if w == "@s":
                slot = next(slots, "property")
                side = slot.rstrip("23")
                kind = "mine" if side == "give" else ("others" if side == "get" else how)
                words.append(self.street(ch, s, me, kind))
            elif w == "@p":
                next(slots, None)
                words.append(self.player_name(ch, s, me))
            elif w.startswith("@") and w[1:] in lists:
                next(slots, None)
                words.append(str(pick(ch, lists[w[1:]])))
            elif w == "#":
                slot = next(slots, "amount")
                words.append(str(ch.integer(1, 6)) if slot == "number" else str(self.amount(ch, s, me)))
            else:
                words.append(w)
        return " ".join(words)

    def line(self, who: str, text: str, ch: Chooser) -> str:
        """A typed line for ``who``: by token id, token name or seat number."""
        form = ch.integer(0, 5)
        return f"{who}: {text}" if form else f"{self.edition.token(who).name}: {text}"

    # --- the next action -----------------------------------------------------------------
    def next(self, ch: Chooser, session: Session) -> Action:
        s = session.state
        seated = s.seated or list(s.order)
        if session.auction is not None:
            a = session.auction
            choice = weighted(ch, [("press", 14), ("bid", 3), ("close", 4), ("other", 1)])
            bidders = [t for t in seated if t != a.bidder] or seated
            who = pick(ch, bidders)
            if choice == "press":
                return Action("line", f"press {who}" if ch.integer(0, 1) else f"{who}:")
            if choice == "bid":
                step = self.edition.auction.step
                n = max(a.amount, self.edition.auction.open) + step * ch.integer(0, 4)
                if ch.integer(0, 9) == 0:
                    return Action("line", f"{who}: bid a billion")
                return Action("line", f"{who}: bid {n}")
            if choice == "close":
                return Action("close")
        p = session.pending
        if p is not None and ch.integer(0, 9) < 8:
            asked = sorted(p.asked)
            if asked:
                return self.answer(ch, session, pick(ch, asked))
        hold = session.hold
        if hold is not None and ch.integer(0, 9) < 8:
            owner = hold.owner
            choice = weighted(ch, [("bet", 5), ("close", 3), ("cancel", 1)])
            if choice == "bet":
                who = pick(ch, seated)
                return Action("line", f"{who}: bet {100 * ch.integer(0, 5)}")
            if choice == "close" and "spinner" in self.book and ch.integer(0, 1):
                return Action("line", f"{owner}: {self.say(ch, s, owner, 'spinner')}")
            if choice == "close" and "spin" in self.book:
                return Action("line", f"{owner}: spin")
            return Action("line", f"{owner}: cancel")
        if ch.integer(0, 29) == 0:
            return Action("wait", seconds=float(pick(ch, [1, 4, 11])))
        me = pick(ch, seated)
        if ch.integer(0, 14) == 0:
            squeeze = self.squeeze(ch, s, me)
            if squeeze is not None:
                return squeeze
        intent = weighted(ch, self.table)
        return Action("line", self.line(me, self.say(ch, s, me, intent), ch))

    def squeeze(self, ch: Chooser, s: GameState, me: str) -> Action | None:
        """Spend down to almost nothing, so the next rent can't be paid (give-up question)."""
        if not s.owned_by(me) or s.cash(me) <= 1 or "pay" not in self.book:
            return None
        return Action("line", f"{me}: pay {s.cash(me) - 1}")

    def answer(self, ch: Chooser, session: Session, who: str) -> Action:
        s = session.state
        kind, _asked = session.expecting()
        prefix = f"{who}: " if ch.integer(0, 3) or len(session.asked_players()) != 1 else ""
        if kind == "yes_no":
            choice = weighted(ch, [("press", 3), ("yes", 3), ("no", 2)])
            if choice == "press":
                return Action("line", f"press {who}")
            return Action("line", prefix + choice)
        if kind == "street":
            mine = s.owned_by(who)
            name = pick(ch, mine) if mine and ch.integer(0, 3) else self.street(ch, s, who, "any")
            return Action("line", prefix + (name if ch.integer(0, 2) else f"the {name}"))
        if kind == "number":
            return Action("line", prefix + str(ch.integer(1, 6)))
        if kind == "player":
            return Action("line", prefix + self.player_name(ch, s, who))
        if kind == "amount":
            return Action("line", prefix + str(self.amount(ch, s, who)))
        intent = weighted(ch, self.table)
        return Action("line", self.line(who, self.say(ch, s, who, intent), ch))


# --- the shadow game ---------------------------------------------------------------------------

class VariantReplies(Replies):
    """Replies that remember every wording a rendered line could have had.

    Mr. Monopoly rotates between wordings; a resumed process starts its rotation afresh, so the
    shadow compares lines "up to wording".
    """

    def __init__(self, base: Replies) -> None:
        super().__init__(base.edition, base.templates)
        self.alts: dict[str, set[str]] = {}

    def render(self, line: Line) -> str:
        text = super().render(line)
        saved = self._turn
        # a parameter may itself be an earlier line ("Undone: <what was said>")
        options: list[list[Line]] = [[line]]
        for k, v in line.params.items():
            if isinstance(v, str) and type(v) is str:
                alts = (self.alts.get(v) or self.alts.get(v + ".") or self.alts.get(v + "!")
                        or self._without_balances(v))
                if alts:
                    options.append([Line(line.key, {**line.params, k: a.rstrip(".!")})
                                    for a in alts])
        found = {text}
        for variant in (ln for group in options for ln in group):
            for turn in range(len(self.templates.get(line.key) or [])):
                self._turn = turn - 1
                found.add(super().render(variant))
        self._turn = saved
        self.alts.setdefault(text, set()).update(found)
        return text

    def _without_balances(self, what: str) -> set[str]:
        """The wordings of an earlier line that "Undone: …" quotes without its balances
        (``undo.without_balances``): each wording of that line, its balances cut the same way."""
        for full, alts in self.alts.items():
            if full.startswith(what) and full != what:
                balances = set(re.findall(r"[A-Z$]?[0-9][0-9,]*", full[len(what):]))
                return {without_balances(a, balances) for a in alts}
        return set()

    def same(self, shadow_text: str, real_text: str) -> bool:
        return real_text == shadow_text or real_text in self.alts.get(shadow_text, ())


@dataclass
class Commit:
    kind: str  # tx | undo
    tx: Transaction | None
    view: dict[str, Any]  # the visible state after this commit
    history: list[Transaction]  # live transactions after this commit


class RecordingJournal:
    """The shadow's journal: counts commits and keeps the state after each one, and every
    state the file can show (``disk``): a commit, or a dialogue note (a betting round's stakes
    are on the table, out of the bettors' cash, as ``banker state`` reads them from the note)."""

    def __init__(self, base: GameState, dialogue: str | None = None) -> None:
        self.base = base
        self.history: list[Transaction] = []
        self.commits: list[Commit] = [Commit("start", None, jsonable(base.view()), [])]
        self.seq = 0
        self.dialogue = dialogue  # the open dialogues as last noted (a commit closes them)
        self.disk: list[tuple[int, dict[str, Any]]] = []  # (commits, view) after each write

    def _view(self) -> dict[str, Any]:
        events = [e for t in self.history for e in t.events]
        return jsonable(fold(self.base, events + held_events(self.dialogue)).view())

    def _snap(self, kind: str, tx: Transaction | None) -> None:
        self.dialogue = None
        state = fold(self.base, [e for t in self.history for e in t.events])
        self.commits.append(Commit(kind, tx, jsonable(state.view()), list(self.history)))
        self.disk.append((len(self.commits) - 1, self.commits[-1].view))

    def start(self, commits: int) -> None:
        """What the file shows before anything more is written (``commits`` on it)."""
        self.disk = [(commits, self._view())]

    def append(self, tx: Transaction) -> int:
        self.seq += 1
        tx.seq = self.seq
        self.history.append(tx)
        self._snap("tx", tx)
        return self.seq

    def append_undo(self, target: int, player: str | None) -> int:
        self.seq += 1
        self.history = [t for t in self.history if t.seq != target]
        self._snap("undo", None)
        return self.seq

    def note(self, kind: str, text: str) -> None:
        """Dialogue markers are not commits; the dialogue state note may hold stakes."""
        if kind == "dialogue_state":
            self.dialogue = text or None
            self.disk.append((len(self.commits) - 1, self._view()))

    def views(self, since: int, commits: int) -> list[dict[str, Any]]:
        """The views the file may show with ``commits`` on it, from write ``since`` on (the
        last write before a kill is on disk; the ones after it may or may not be)."""
        return [v for n, v in self.disk[max(since, 0):] if n == commits]


class Shadow:
    """The same game in-process, on a virtual clock, fed the same lines as the real one."""

    def __init__(self, edition: Edition, players: list[str], options: dict[str, str], seed: int,
                 history: list[Transaction] | None = None, seq: int = 0,
                 prior: list[Commit] | None = None, alts: dict[str, set[str]] | None = None,
                 dialogue: str | None = None) -> None:
        """``prior``: the commits before this process (so commit numbers count from the start);
        ``alts``: wordings known from before (history lines are quoted by "Undone: ...");
        ``dialogue``: the dialogue state note on disk (a resume continues it)."""
        self.out = io.StringIO()
        self.session = Session(edition, players, options=options, seed=seed, clock=VirtualClock(),
                               history=list(history or []), matcher=matcher_for(edition))
        self.replies = VariantReplies(self.session.replies)
        self.replies.alts.update(alts or {})
        self.session.replies = self.replies
        self.journal = RecordingJournal(self.session.base, dialogue)
        self.journal.history = list(history or [])
        self.journal.seq = seq
        self.journal.commits = list(prior) if prior else [
            Commit("start", None, jsonable(self.session.state.view()), list(history or []))]
        self.journal.start(self.commits)
        self.session.journal = self.journal

    @property
    def commits(self) -> int:
        return len(self.journal.commits) - 1

    def _said(self, run: Callable[[], None]) -> list[str]:
        said: list[str] = []
        self.session.on_say = said.append
        run()
        return said

    def line(self, text: str) -> list[str]:
        """What Mr. Monopoly prints for a typed line (as ``banker play --keyboard`` does)."""
        sink = io.StringIO()
        said = self._said(lambda: handle_line(text, self.session, sink))
        extra = [ln for ln in sink.getvalue().splitlines() if ln]  # front-end hints
        return said + extra

    def advance(self, seconds: float) -> list[str]:
        s = self.session

        def run() -> None:
            s.begin_step()
            s.advance(seconds)
            s.finish_step()

        return self._said(run)

    def close_auction(self) -> list[str]:
        """"Any final bids?" and the close, each its own step as the real clock fires them
        (so "repeat" afterwards repeats the close alone, as at the table)."""
        spec = self.session.edition.auction
        return self.advance(spec.quiet_seconds + 0.005) + self.advance(spec.final_seconds + 0.005)

    def tick(self) -> None:
        """A little time passes between typed lines (never enough for a timer)."""
        self.session.clock.t += 0.01  # type: ignore[attr-defined]


def views_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return jsonable(a) == jsonable(b)


# --- the real game on a pseudo-terminal ---------------------------------------------------------

@dataclass
class Output:
    """Lines and prompts as they appeared on the screen."""

    events: list[tuple[str, str]] = field(default_factory=list)  # ("line", text) | ("prompt", "")
    partial: str = ""


class PtyGame:
    """``banker play --keyboard`` on a pseudo-terminal, driven like a person at the keyboard."""

    def __init__(self, args: list[str], env: Mapping[str, str] | None = None, *,
                 preexec: Callable[[], None] | None = None, argv: list[str] | None = None) -> None:
        """``args`` for ``banker``; or a whole ``argv`` (e.g. wrapped in ``unshare``)."""
        master, slave = pty.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # the person sees their own typing; we don't need to
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self.proc = subprocess.Popen(argv or [*BANKER, *args], stdin=slave, stdout=slave,
                                     stderr=subprocess.PIPE, env=dict(env or clean_env()),
                                     start_new_session=True, close_fds=True,
                                     preexec_fn=preexec)
        os.close(slave)
        self.master = master
        self.raw = ""
        self.events: list[tuple[str, str]] = []
        self.consumed = 0
        self.transcript: list[str] = []

    # --- reading -------------------------------------------------------------------------
    def _pump(self, timeout: float) -> bool:
        """Read what is there (waiting up to ``timeout``); False at end of output."""
        if self.master < 0:
            return False
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "")
        while True:
            if self.raw.startswith("> "):
                self.events.append(("prompt", ""))
                self.raw = self.raw[2:]
                continue
            i = self.raw.find("\n")
            if i < 0:
                break
            self.events.append(("line", self.raw[:i]))
            self.transcript.append(self.raw[:i])
            self.raw = self.raw[i + 1:]
        return True

    def _take(self) -> list[tuple[str, str]]:
        new = self.events[self.consumed:]
        self.consumed = len(self.events)
        return new

    def until_prompt(self, timeout: float = 30.0) -> list[str]:
        """Lines up to the next prompt (the answer to what was typed)."""
        return self._read_until(lambda kind, _text: kind == "prompt", timeout, "no prompt",
                                keep_last=False)

    def until_line(self, want: Callable[[str], bool], timeout: float = 15.0) -> list[str]:
        """Lines (prompts skipped) up to and including the first one ``want`` accepts."""
        return self._read_until(lambda kind, text: kind == "line" and want(text), timeout,
                                "line not seen", keep_last=True)

    def _read_until(self, stop: Callable[[str, str], bool], timeout: float, missing: str,
                    keep_last: bool) -> list[str]:
        """Consume events until ``stop(kind, text)``; the lines read on the way (and the
        stopping one when ``keep_last``). A timeout or the end of banker is an error."""
        lines: list[str] = []
        end = time.monotonic() + timeout
        while True:
            while self.consumed < len(self.events):
                kind, text = self.events[self.consumed]
                self.consumed += 1
                if stop(kind, text):
                    return [*lines, text] if keep_last else lines
                if kind == "line":
                    lines.append(text)
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{missing} within {timeout}s; got {lines!r} {self.raw!r}")
            if not self._pump(min(left, 0.5)):
                raise EOFError(f"banker ended: {lines!r}; stderr: {self.stderr()}")

    def glance(self, seconds: float) -> list[str]:
        """Whatever appears within ``seconds`` (lines only; the rest stays for later reads)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if not self._pump(max(0.0, end - time.monotonic())):
                break
        return [t for k, t in self.events[self.consumed:] if k == "line"]

    def unread_lines(self) -> list[str]:
        """Complete lines not consumed yet, plus a partial last line if any."""
        self._pump(0.0)
        lines = [t for k, t in self.events[self.consumed:] if k == "line"]
        return lines + ([self.raw] if self.raw.strip() else [])

    # --- writing and ending --------------------------------------------------------------
    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def kill(self) -> None:
        """SIGKILL: no clean-up, no final checkpoint, like a power cut for the process."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._drain()

    def end_input(self, timeout: float = 30.0) -> int:
        """Ctrl-D: the game is saved and the banker exits."""
        os.write(self.master, b"\x04")
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._pump(0.1)
        self._drain()
        return int(self.proc.wait(timeout=5))

    def _drain(self) -> None:
        for _ in range(50):
            if not self._pump(0.02):
                break
        os.close(self.master)
        self.master = -1

    def stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        if self.proc.stderr is not None:
            self.proc.stderr.close()
