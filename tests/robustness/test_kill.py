"""Kill the real ``banker play --keyboard`` at random moments and resume: nothing announced is lost.

Each round starts (or resumes) a game on a pseudo-terminal, plays random commands the way a
person types them (buy, rent, Pass GO, chance, build, pay/collect, auctions with button
presses, the give-up-street question, undo, ...), then SIGKILLs the process at a random
moment: at the prompt, in the middle of handling a line, during an auction (bids open, or
while "Any final bids?" runs out) or while a question is open.

An in-process shadow game (same edition, players and seed, virtual clock) is fed the same
lines and must print the same lines (up to Mr. Monopoly's rotating wording). It knows the
state after every journal write, so after the kill:

* the journal holds exactly the commits of every completed line, plus at most the one being
  handled when the kill came (``kept`` is one of two numbers);
* ``banker state --game F --json`` is exactly the shadow's state after that many commits;
* if any line of a transaction had appeared on the screen, that transaction is on disk
  (journal before announcement);
* on ``--resume``, Mr. Monopoly repeats the last transaction and every dialogue open on disk
  (auction, betting round, question) continues where it was; the file is never reported
  damaged.

Default: 51 kills spread over the editions (about 65 s); ``--slow``: 100 per edition.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from banker.editions import available_editions, load_edition
from banker.editions.model import Edition
from banker.interpreter import dialogue_state
from banker.journal import GameFile
from banker.journal.sqlite import LAST_WRITE, PARTIAL_FRAME, UNCOMMITTED
from banker.ledger import Transaction

from .support import (
    Action,
    Actor,
    PtyGame,
    RandomChooser,
    Shadow,
    clean_env,
    state_json,
    views_equal,
)

EDITIONS = available_editions()
DEFAULT_KILLS = 51  # in total over all editions, for the default (CI) run (the issue asks for 50+)
SLOW_KILLS = 100  # per edition with --slow
TAIL_DAMAGE = {PARTIAL_FRAME, UNCOMMITTED, LAST_WRITE}
KILL_STATS: dict[str, dict[str, int]] = {}  # edition -> what the kills hit (printed with -s)


def _count(t: Table, *keys: str) -> None:
    stats = KILL_STATS.setdefault(t.edition.id, {})
    for k in keys:
        stats[k] = stats.get(k, 0) + 1


@dataclass
class Expect:
    """What the next resume must say, from what the shadow knew at the kill."""

    repeat: list[str] = field(default_factory=list)  # the last transaction's lines
    torn: int | None = None  # the kill cut a write short: "kept everything up to transaction N"
    interrupted: str = ""  # "auction:<street>" | "question" | "" (nothing) | "?" (either)


@dataclass
class Table:
    edition: Edition
    dir: Path
    rng: random.Random
    env: dict[str, str]
    game: Path | None = None
    players: list[str] = field(default_factory=list)
    seed: int = 0
    shadow: Shadow | None = None
    expect: Expect = field(default_factory=Expect)
    log: list[str] = field(default_factory=list)
    games: int = 0

    def note(self, text: str) -> None:
        self.log.append(text)

    def why(self) -> str:
        """The loop's seed (its first line, what BANKER_KILL_SEED replays) and its last lines."""
        tail = self.log[-59:] if len(self.log) > 60 else self.log
        return "\n".join([*self.log[:1], *tail] if tail is not self.log else tail)


def _same_lines(shadow: Shadow, expected: list[str], real: list[str]) -> bool:
    return len(expected) == len(real) and all(
        shadow.replies.same(e, r) for e, r in zip(expected, real, strict=True))


def _prefix_ok(shadow: Shadow, expected: list[str], real: list[str], partial: str) -> bool:
    """``real`` (whole lines) and ``partial`` (a cut line) are the start of ``expected``."""
    if len(real) > len(expected):
        return False
    if not all(shadow.replies.same(e, r) for e, r in zip(expected, real, strict=False)):
        return False
    if partial and len(real) < len(expected):
        e = expected[len(real)]
        return any(alt.startswith(partial) for alt in {e, *shadow.replies.alts.get(e, ())})
    return not partial


def _start(t: Table) -> tuple[PtyGame, list[str]]:
    ed = t.edition
    if t.game is None or t.shadow is None or t.shadow.session.state.game_over:
        t.games += 1
        t.game = t.dir / f"game{t.games}.sqlite"
        n = t.rng.randint(ed.min_players, min(ed.max_players, 4))
        t.players = t.rng.sample(list(ed.token_ids), n)
        g = PtyGame(["play", "--keyboard", "--game", str(t.game), "--edition", ed.id,
                     "--players", ",".join(t.players)], env=t.env)
        try:
            greeting = g.until_prompt()
            header = GameFile(t.game).peek().header  # read while the game runs (WAL reader)
        except BaseException:
            g.close()
            raise
        t.seed = header.seed
        t.shadow = Shadow(ed, t.players, header.options, t.seed)
        t.expect = Expect()
        t.note(f"--- new game {t.game.name}: {t.players} seed {t.seed}")
        return g, greeting
    g = PtyGame(["play", "--keyboard", "--resume", "--game", str(t.game)], env=t.env)
    try:
        greeting = g.until_prompt()
        t.note(f"--- resumed: {greeting}")
        _check_greeting(t, greeting)
    except BaseException:
        g.close()
        raise
    return g, greeting


def _check_greeting(t: Table, greeting: list[str]) -> None:
    assert t.shadow is not None
    text = "\n".join(greeting)
    if t.expect.torn is None:
        assert "damaged" not in text, f"nothing was torn, yet: {greeting}\n{t.why()}"
    else:  # a write cut short by the kill: repaired, said once, original kept
        assert f"kept everything up to transaction {t.expect.torn}" in text, (
            f"resume of a torn journal: {greeting}\n{t.why()}")
        assert t.game is not None and list(t.game.parent.glob(t.game.name + ".damaged*"))
    assert any("welcome back" in ln.lower() for ln in greeting), greeting
    for line in t.expect.repeat:  # the last transaction, repeated word for word
        assert line in greeting, f"resume didn't repeat {line!r}: {greeting}\n{t.why()}"
    # every dialogue open on disk continues: nothing is ever "interrupted"
    said_interrupted = [ln for ln in greeting if "interrupted" in ln.lower()]
    assert not said_interrupted, f"a dialogue was dropped, not continued: {greeting}\n{t.why()}"
    want = t.expect.interrupted
    if want.startswith("auction:"):  # the auction goes on: its street and bid are said
        street = want.split(":", 1)[1]
        assert any(street in ln for ln in greeting), (
            f"resume didn't continue the auction of {street}: {greeting}\n{t.why()}")


def _do(t: Table, g: PtyGame, action: Action) -> None:
    """One completed action: the real output must equal the shadow's."""
    sh = t.shadow
    assert sh is not None
    if action.kind == "line":
        expected = sh.line(action.text)
        g.send(action.text)
        real = g.until_prompt()
    else:  # the auction runs out on the real clock
        expected = sh.close_auction()
        real = g.until_line(lambda _l: True, timeout=15) if expected else []
        while len(real) < len(expected):
            real += g.until_line(lambda _l: True, timeout=15)
    sh.tick()
    t.note(f"{action} -> {real}")
    assert _same_lines(sh, expected, real), (
        f"real and shadow differ after {action}:\n real:   {real}\n shadow: {expected}\n{t.why()}")


def _dialogue(sh: Shadow) -> str:
    """The dialogue the journal marks as open (auction, or any question: the rules', a
    two-step prompt, "which one?", an undo agreement), if any."""
    s = sh.session
    if s.auction is not None:
        return f"auction:{s.auction.street}"
    if s.pending is not None:
        return "question"
    if s.hold is not None:
        return "question"
    return ""


def _noted(state: str | None, dialogue: str) -> bool:
    """The journal's dialogue state note (what a resume continues) holds ``dialogue``: the
    auction of its street, or a question or betting round. An opening marker alone is not
    enough: a question's closing marker clears it even while an auction stays open."""
    data = json.loads(state) if state else {}
    if dialogue.startswith("auction:"):
        return bool((data.get("auction") or {}).get("street") == dialogue.split(":", 1)[1])
    return "pending" in data or "betting" in data


def _scenario(t: Table, sh: Shadow) -> Iterator[Action]:
    """How a round starts: random play, or steered into an auction or the give-up question
    (so that kills land in dialogues often, not only when chance leads there)."""
    kind = t.rng.choices(["random", "auction", "squeeze"], weights=[5, 3, 2])[0]
    s = sh.session
    if kind == "auction":
        free = [n for n in t.edition.street_names
                if s.state.owner(n) is None and not t.edition.street(n).locked]
        if not free or not s.state.seated:
            return
        yield Action("line", f"{t.rng.choice(s.state.seated)}: auction {t.rng.choice(free)}")
        for _ in range(t.rng.randint(0, 3)):
            yield Action("line", f"press {t.rng.choice(s.state.seated)}")
    elif kind == "squeeze":  # A owns a street and can't pay B's rent: "which street?"
        seated = list(s.state.seated)
        if len(seated) < 2:
            return
        a, b = t.rng.sample(seated, 2)
        for who in (a, b):
            if not s.state.owned_by(who):
                free = [n for n in t.edition.street_names
                        if s.state.owner(n) is None and not t.edition.street(n).locked]
                if free:
                    yield Action("line", f"{who}: buy {t.rng.choice(free)}")
        if not (s.state.owned_by(a) and s.state.owned_by(b)) or s.state.cash(a) < 2:
            return
        yield Action("line", f"{a}: pay {s.state.cash(a) - 1}")
        yield Action("line", f"{a}: pay rent on {t.rng.choice(s.state.owned_by(b))}")


def _kill_round(t: Table) -> str:
    g, _greeting = _start(t)
    sh = t.shadow
    assert sh is not None and t.game is not None
    actor = Actor(t.edition)
    ch = RandomChooser(t.rng)
    try:
        if sh.session.auction is not None:
            # A resumed auction keeps its deadline on the machine's clock across the restart;
            # the shadow's virtual clock can't follow that time, so it runs out first.
            _do(t, g, Action("close"))
        scripted = _scenario(t, sh)
        pending: Action | None = None
        for _ in range(t.rng.randint(0, 9)):
            action = next(scripted, None) or actor.next(ch, sh.session)
            if action.kind == "wait":
                continue
            if action.kind == "close" and t.rng.random() < 0.5:
                pending = action  # kill while the auction's last seconds run out
                break
            _do(t, g, action)
            if sh.session.state.game_over:
                break
            if (sh.session.auction is not None or sh.session.pending is not None) and \
                    t.rng.random() < 0.35:
                break  # kill while a dialogue is open more often than chance would
        # --- the kill -----------------------------------------------------------------
        done = sh.commits
        written = len(sh.journal.disk) - 1  # the last write before the line in flight
        dialogue = _dialogue(sh)
        mode = t.rng.choice(["prompt", "inflight", "inflight", "inflight"])
        in_flight: list[str] = []
        action = pending or actor.next(ch, sh.session)
        if pending is not None:
            mode = "inflight"
        if sh.session.state.game_over or action.kind == "wait":
            mode = "prompt"
        if mode == "inflight":
            if action.kind == "line":
                in_flight = sh.line(action.text)
                g.send(action.text)
                time.sleep(t.rng.choice([0.0, 0.0, 0.001, 0.003, 0.01, 0.03, 0.1]))
            else:  # while the auction's last seconds run out
                in_flight = sh.close_auction()
                spec = t.edition.auction
                time.sleep(t.rng.uniform(0.0, spec.quiet_seconds + spec.final_seconds + 0.5))
            mode = f"inflight {action}"
        flight = sh.commits
        dialogue_after = _dialogue(sh)
        g.kill()
        seen = g.unread_lines()
    finally:
        g.close()
    # --- what survived ------------------------------------------------------------------
    loaded = GameFile(t.game).peek()
    if loaded.damaged:
        # SIGKILL can cut a write() short (Linux stops a write to a file between pages when a
        # fatal signal is pending, and SQLite writes a frame's header and page separately):
        # the WAL then ends in a torn tail, which is only ever the unannounced write.
        assert set(loaded.notes) <= TAIL_DAMAGE and not loaded.dropped, f"{loaded.notes}\n{t.why()}"
        _count(t, "tore the WAL tail")
    kept = loaded.kept
    t.note(f"KILL ({mode}) done={done} flight={flight} kept={kept} seen={seen}")
    _count(t, "kills", mode.split(" ")[0] if " " not in mode else
           ("inflight-close" if mode.endswith("<close>") else "inflight-line"))
    if dialogue:
        _count(t, f"during {dialogue.split(':')[0]}")
    if flight > done:
        _count(t, "commit in flight", "... on disk" if kept == flight else "... not on disk")
    assert kept in (done, flight), f"journal has {kept} commits, expected {done} or {flight}\n{t.why()}"
    view = state_json(t.game)
    assert any(views_equal(view, v) for v in sh.journal.views(written, kept)), (
        f"state after the kill differs from the shadow's after {kept} commits\n{t.why()}")
    partial = seen[-1] if seen and not g.raw.endswith("\n") and g.raw.strip() else ""
    whole = seen[:-1] if partial else seen
    assert _prefix_ok(sh, in_flight, whole, partial), (
        f"output before the kill isn't the start of the answer: {seen} vs {in_flight}\n{t.why()}")
    if flight > done:
        c = sh.journal.commits[flight]
        said = c.tx.said if c.tx is not None else []
        shown = any(any(sh.replies.same(s, r) for r in whole) for s in said)
        if shown:  # announced, so it must be on disk
            assert kept == flight, f"announced {said} but not journalled\n{t.why()}"
            _count(t, "... partly announced")
    # --- the next round resumes from what is on disk --------------------------------------
    commit = sh.journal.commits[kept]
    history: list[Transaction] = commit.history
    real_history = loaded.transactions
    assert len(real_history) == len(history)
    settled = kept == done and dialogue == dialogue_after  # the kill changed no dialogue
    t.expect = Expect(repeat=list(real_history[-1].said) if real_history else [],
                      interrupted=dialogue if settled else "?",
                      torn=len(real_history) if loaded.damaged else None)
    if settled and dialogue:  # the note is written when the dialogue opens: it must be there
        assert _noted(loaded.dialogue_state, dialogue), (
            f"dialogue {dialogue} open but not in the journal\n{t.why()}")
    if commit.kind == "undo":  # the undo is repeated ("Undone: ...")
        t.expect.repeat = [f"Undone: {loaded.undone_last.said[0].rstrip('.!')}."] \
            if loaded.undone_last is not None and loaded.undone_last.said else []
    if sh.journal.commits[kept].view.get("game_over"):
        t.expect.repeat = []
    t.shadow = Shadow(t.edition, t.players, dict(sh.session.state.options), t.seed,
                      history=history, seq=sh.journal.seq, prior=sh.journal.commits[:kept + 1],
                      alts=sh.replies.alts, dialogue=loaded.dialogue_state)
    # the dialogues open on disk continue, as the real resume continues them
    shadow = t.shadow
    shadow._said(lambda: dialogue_state.resumed(shadow.session, loaded.dialogue_state, None))
    if t.shadow.session.state.game_over:
        t.shadow = None
    return mode


def _kills(edition_id: str, slow: bool) -> int:
    if slow:
        return SLOW_KILLS
    share, extra = divmod(DEFAULT_KILLS, len(EDITIONS))
    return share + (1 if EDITIONS.index(edition_id) < extra else 0)


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_kill_anywhere_then_resume_keeps_every_announced_transaction(
        edition_id: str, tmp_path: Path, slow: bool) -> None:
    rounds = _kills(edition_id, slow)
    # BANKER_KILL_SEED replays a failing loop: its seed is the first line of the failure.
    seed = int(os.environ.get("BANKER_KILL_SEED") or random.randrange(1 << 30))
    t = Table(load_edition(edition_id), tmp_path, random.Random(seed),
              clean_env(XDG_DATA_HOME=str(tmp_path / "data")))
    t.note(f"kill loop seed {seed}")
    modes: dict[str, int] = {}
    for _ in range(rounds):
        mode = _kill_round(t).split(" ")[0]
        modes[mode] = modes.get(mode, 0) + 1
    assert sum(modes.values()) == rounds
    log = tmp_path / "data" / "banker" / "banker.log"
    assert not log.exists(), f"internal errors were logged:\n{log.read_text()[-3000:]}"
    assert KILL_STATS[edition_id]["kills"] >= rounds
    print(f"\nkills {edition_id}: {KILL_STATS[edition_id]}")


# --- a kill while a question is open: the resume says so, once -----------------------------------
QUESTIONS = {
    # name: (edition, players, typed lines that leave the question open, its prompt's words)
    "two-step prompt": ("voice-banking", "racecar,dog", ["racecar: buy"], "Which street"),
    "which one": ("voice-banking", "racecar,dog", ["racecar: buy pa avenue"], "?"),
    "undo agreement": ("voice-banking", "racecar,dog",
                       ["racecar: buy Baltic Avenue", "dog: undo"], "Racecar"),
    "rules question": ("voice-banking", "racecar,dog",
                       ["racecar: buy Baltic Avenue", "dog: buy Park Place", "racecar: pay 1439",
                        "racecar: pay rent on Park Place"], "give up"),
}


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_a_kill_during_a_question_asks_it_again_on_resume(name: str, tmp_path: Path) -> None:
    """SIGKILL while a question waits for its answer: nothing of it was committed (``banker
    state`` is as before the kill), and every resume asks the same question again, by name,
    since it is still open; it is never "interrupted" (a game resumes where it stopped)."""
    edition, players, lines, prompt = QUESTIONS[name]
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    game = tmp_path / "g.sqlite"
    g = PtyGame(["play", "--keyboard", "--game", str(game), "--edition", edition,
                 "--players", players], env=env)
    try:
        g.until_prompt()
        for line in lines:
            g.send(line)
            answer = g.until_prompt()
        assert any(prompt in ln for ln in answer), answer
        before = state_json(game)
        g.kill()
    finally:
        g.close()
    assert state_json(game) == before
    for _ in range(2):
        greeting = _resume_greeting(game, env)
        assert any(prompt in ln for ln in greeting[1:]), greeting
        assert not [ln for ln in greeting if "interrupted" in ln.lower()], greeting
        assert state_json(game) == before


def _resume_greeting(game: Path, env: dict[str, str]) -> list[str]:
    """What ``banker play --resume`` says before its first prompt (then Ctrl-D)."""
    g = PtyGame(["play", "--keyboard", "--resume", "--game", str(game)], env=env)
    try:
        greeting = g.until_prompt()
        g.end_input()
    finally:
        g.close()
    return greeting
