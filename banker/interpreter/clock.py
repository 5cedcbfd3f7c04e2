"""The table's clock: real time at the table, virtual time in transcripts.

The session asks only ``now()``; a transcript's ``wait:`` moves a ``VirtualClock`` forward, so
auctions and answer time-outs run the same code in both.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from banker.interpreter.questions import Confirm

if TYPE_CHECKING:
    from banker.interpreter.session import Session


class Clock(Protocol):
    def now(self) -> float: ...


def clock_ident(clock: object) -> str | None:
    """Who a clock is: a note's deadlines are kept only on the clock that noted them (a
    transcript restarted on its own virtual clock). Another process reading the same
    monotonic time is another clock: its resume says the question again, with the whole time."""
    ident = getattr(clock, "ident", None)
    return ident if isinstance(ident, str) else None


class RealClock:
    def __init__(self) -> None:
        self.ident = uuid.uuid4().hex

    def now(self) -> float:
        return time.monotonic()


class VirtualClock:
    """The transcript clock: time passes only when told (``wait``)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.ident = uuid.uuid4().hex

    def now(self) -> float:
        return self.t


@dataclass
class Timers:
    """The session's timers: the auction's calls and the open question's time-out."""

    session: Session

    def deadline(self) -> float | None:
        s = self.session
        times = [t for t in (s.auctions.deadline(),
                             s.pending.deadline if s.pending is not None else None)
                 if t is not None]
        return min(times) if times else None

    def tick(self) -> None:
        """Fire every timer that is due."""
        for _ in range(100):
            due = self.deadline()
            if due is None or due > self.session.clock.now() + 1e-9:
                return
            self.fire(due)

    def fire(self, due: float) -> None:
        s = self.session
        if s.auctions.fire(due):
            return
        p = s.pending
        if p is not None and p.deadline is not None and p.deadline <= due + 1e-9:
            s.pending = None
            if isinstance(p, Confirm) and p.back is not None:
                if not p.back.lapses:  # "did you say Baltic Avenue?" unanswered: ask again
                    s.answers.reask(p.back)
                    return
                p = p.back  # as if the question itself had run out
            line = p.timeout_line()
            if line:
                s.say(line)

    def advance(self, seconds: float) -> None:
        """Virtual clock only: let ``seconds`` pass, firing timers at their own times."""
        clock = self.session.clock
        assert isinstance(clock, VirtualClock)
        end = clock.t + seconds
        while True:
            due = self.deadline()
            if due is None or due > end:
                break
            clock.t = max(clock.t, due)
            self.fire(due)
        clock.t = end

    def finish(self) -> None:
        """End of a transcript: an open auction closes as if 6 s had passed."""
        s = self.session
        if s.auction is not None and isinstance(s.clock, VirtualClock):
            spec = s.edition.auction
            self.advance(spec.quiet_seconds + spec.final_seconds + 0.01)
