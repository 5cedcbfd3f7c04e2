"""Betting holds (Jackpot): a dialogue whose outcomes gather in one open transaction.

While a hold is open every outcome's events are applied to the session's state at once (so
the next bet sees them) but journalled only when the hold ends, as one transaction; "cancel"
by its owner puts the state back as committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from banker.interpreter.policy import plain
from banker.ledger import Transaction
from banker.rules import Command, Draws, Event, Hold, Outcome, fold

if TYPE_CHECKING:
    from banker.interpreter.session import Session


@dataclass
class Betting:
    session: Session
    hold: Hold | None = None
    events: list[Event] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    command: Command | None = None  # the command that opened the hold

    def clear(self) -> None:
        self.hold, self.events, self.said, self.command = None, [], [], None

    def held(self, cmd: Command, out: Outcome, said: list[str], draws: Draws) -> None:
        """One outcome inside the hold; the one that ends it commits the whole round."""
        s = self.session
        opening = self.hold is None
        if opening:
            self.command = cmd
        self.events.extend(out.events)
        self.said.extend(said)
        s.state = fold(s.state, list(out.events))
        if opening and out.hold is None:
            s.notes.note("dialogue_open", "")
        if out.hold is not None:
            self.hold = out.hold
            if opening:  # the round's state is noted (the flush) before its opening marker:
                s.notes.note("dialogue_open", out.hold.kind)  # a stop between them resumes it
            s.use_draws(draws)  # drawn inside the open transaction (a spin): used up
            s.announce(said)
            s.follow_up(cmd, out)
            return
        # the round ends: one transaction for all of it
        start = self.command or cmd
        events, everything = self.events, self.said
        committed = s.committed_state()
        participants = sorted({t for t in s.state.players
                               if s.state.cash(t) != committed.cash(t)
                               or s.state.owned_by(t) != committed.owned_by(t)} | {start.player})
        s.state = committed
        self.clear()
        tx = Transaction(start.player, start.name, plain(start.intent.slots), events,
                         everything, participants)
        s.commit_and_announce(tx, draws, said, then=(cmd, out))

    def cancel(self, player: str) -> bool:
        """The owner's "cancel": the round is dropped, nothing journalled. False: not theirs."""
        s = self.session
        if self.hold is None or player != self.hold.owner:
            return False
        staked = bool(s.state.stakes)
        s.state = s.committed_state()
        s.notes.note("dialogue_closed", self.hold.kind)
        self.clear()
        s.say("betting_cancelled" if staked else "cancelled")  # say that the stakes went back
        return True
