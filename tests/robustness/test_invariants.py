"""Random games for every edition (hypothesis): invariants, exact undo, journal replay.

Hypothesis plays a random game through ``Session``: typed commands of the edition, button
presses, answers to the questions asked, auctions running out and silences on a virtual
clock, with a real SQLite ``GameFile`` as the journal. It checks:

* after every event of every transaction: ``banker.rules.invariants.check`` (no negative cash
  or stock, one owner per street, buildings/keys within the stock, money conserved where the
  edition's money is finite, vault and Jackpot never negative);
* after every step: the live state equals the journal read back from disk and folded (the
  state a resume would have), and the open transaction of a betting round is not on disk;
* "undo" right after a transaction (by a player in it, or by another player with the agreement
  of one who was) restores the state before it exactly, random draws included.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from banker.editions import available_editions
from banker.editions.loader import editions_dir
from banker.frontends.keyboard import handle_line
from banker.interpreter.session import Session, VirtualClock
from banker.journal import GameFile
from banker.journal.sqlite import Header
from banker.ledger import Transaction
from banker.rules import apply
from banker.rules.invariants import check
from banker.rules.state import GameState

from .support import Actor, edition, matcher_for

EDITIONS = available_editions()


class HypothesisChooser:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return int(self.data.draw(st.integers(lo, hi)))


class CheckedJournal(GameFile):
    """The real journal, checking the invariants after each event before it is written."""

    session: Session | None = None
    total: int | None = None
    events_checked = 0
    undo_targets: list[int]

    def append(self, tx: Transaction) -> int:
        assert self.session is not None
        state = self.session.state  # before the transaction (a betting round's is cleared)
        for event in tx.events:
            state = apply(state, event)
            problems = check(state, self.total)
            assert not problems, f"after {event} of {tx.intent} by {tx.player}: {problems}"
            self.events_checked += 1
        return super().append(tx)

    def append_undo(self, target: int, player: str | None) -> int:
        self.undo_targets.append(target)
        return super().append_undo(target, player)


def _committed(session: Session) -> GameState:
    from banker.rules import fold

    return fold(session.base, [e for tx in session.history for e in tx.events])


def _replayed(path: Path, session: Session) -> GameState:
    from banker.rules import fold

    loaded = GameFile(path).peek()  # a second reader while the game is open
    assert not loaded.damaged
    return fold(session.base, [e for tx in loaded.transactions for e in tx.events])


@contextmanager
def _game(edition_id: str, players: list[str], seed: int) -> Iterator[tuple[Session, CheckedJournal, Path]]:
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="banker-inv-", dir=base) as tmp:
        ed = edition(edition_id)
        path = Path(tmp) / "g.sqlite"
        gf = CheckedJournal(path)
        gf.undo_targets = []
        gf.create(Header(ed.id, (editions_dir() / f"{ed.id}.yaml").read_text(), players, {}, seed))
        session = Session(ed, players, seed=seed, journal=gf, clock=VirtualClock(),
                          matcher=matcher_for(ed))
        gf.session = session
        gf.total = session.total
        try:
            yield session, gf, path
        finally:
            gf.close()


def _check_undo(session: Session, gf: CheckedJournal, before: GameState, tx: Transaction,
                ch: HypothesisChooser, log: list[str]) -> None:
    """Undo the transaction just made and compare with the state before it; then redo nothing."""
    seated = session.state.seated or list(session.state.order)
    others = [t for t in seated if t not in tx.participants]
    if others and tx.participants and ch.integer(0, 2) == 0:
        asker, agree = others[ch.integer(0, len(others) - 1)], tx.participants[0]
        handle_line(f"{asker}: undo", session, io.StringIO())
        handle_line(f"press {agree}" if ch.integer(0, 1) else f"{agree}: yes", session, io.StringIO())
        log.append(f"{asker}: undo / {agree}: agrees")
    else:
        who = tx.participants[0] if tx.participants else seated[0]
        handle_line(f"{who}: undo", session, io.StringIO())
        log.append(f"{who}: undo")
    assert gf.undo_targets and gf.undo_targets[-1] == tx.seq, f"undo didn't target {tx}: {log}"
    assert session.state == before, f"undo of {tx.intent} didn't restore the state exactly: {log}"


def _play(data: st.DataObject, edition_id: str) -> None:
    ed = edition(edition_id)
    ch = HypothesisChooser(data)
    n = ch.integer(ed.min_players, min(ed.max_players, 4))
    tokens = list(ed.token_ids)
    players = [tokens[i] for i in data.draw(st.permutations(range(len(tokens))))[:n]]
    seed = ch.integer(0, 1000)
    actor = Actor(ed)
    log: list[str] = []
    with _game(edition_id, players, seed) as (session, gf, path):
        for _ in range(ch.integer(5, 40)):
            if session.state.game_over:
                break
            action = actor.next(ch, session)
            log.append(str(action))
            before = _committed(session)  # a betting round's stakes aren't part of it yet
            count = len(session.history)
            action.apply(session)
            problems = check(session.state, session.total)
            assert not problems, f"{problems} after {log}"
            held = session.hold is not None
            committed = _committed(session)
            assert _replayed(path, session) == committed, f"journal and game differ after {log}"
            if not held:
                assert committed == session.state, f"state is not its history after {log}"
            grew = len(session.history) == count + 1 and not held and session.auction is None
            if grew and session.pending is None and not session.state.game_over \
                    and ch.integer(0, 3) == 0:
                _check_undo(session, gf, before, session.history[-1], ch, log)
                assert _replayed(path, session) == session.state, f"after undo: {log}"
        assert gf.events_checked >= 0


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_random_games_keep_invariants_undo_and_journal(edition_id: str, slow: bool) -> None:
    examples = 400 if slow else 30

    @settings(max_examples=examples, deadline=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        _play(data, edition_id)

    run()
