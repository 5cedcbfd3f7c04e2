"""What the game thread hands the screen: Mr. Monopoly's lines and the table's moment.

``Feed.said`` is called with every line Mr. Monopoly says (the session's ``on_say``), in the
game thread, right after the journal commit it announces. It copies the few things only the
live session knows (the open question and who is asked, the auction, a betting round in
progress) into a frozen ``Now`` and wakes the screen's server; nothing here waits, reads the
disk or takes more than a few microseconds, so the game loop never waits for the screen.
The session is only read, never called to change anything.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from banker.rules import GameState

if TYPE_CHECKING:
    from banker.interpreter.session import Session

KEEP_LINES = 40  # lines kept for the page (it shows the latest few; a reload shows them again)


@dataclass(frozen=True)
class AuctionNow:
    street: str
    bidder: str | None
    amount: int
    ends_in: float  # seconds until it is sold if nobody bids again
    final: bool  # "Any final bids?" has been asked


@dataclass(frozen=True)
class Now:
    """The live part of the table at one moment (the journal holds the rest)."""

    lines: tuple[tuple[int, str], ...] = ()  # (running number, text), oldest first
    question: str | None = None  # the line that asked the open question
    asked: tuple[str, ...] = ()
    expecting: str = "any"  # Session.expecting(): bid, yes_no, street, number, player, amount, any
    choices: tuple[str, ...] = ()
    auction: AuctionNow | None = None
    hold: str | None = None  # a betting round in progress: its kind
    hold_owner: str | None = None
    allowed: tuple[str, ...] = ()
    state: GameState | None = None  # the session's state (a betting round's stakes included)
    taken: float = 0.0  # time.monotonic() when captured


class Feed:
    """Lines and moments from the game thread; ``listener`` is woken after each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lines: list[tuple[int, str]] = []
        self._count = 0
        self._session: Session | None = None
        self._seen_pending: object | None = None
        self._question: str | None = None
        self._final_seen = False
        self.now = Now()
        self.listener: Callable[[], None] = lambda: None

    def attach(self, session: Session) -> None:
        """The game has started: from now on each line also captures the table's moment."""
        self._session = session
        self._capture(None)

    def said(self, text: str) -> None:
        with self._lock:
            self._count += 1
            self._lines.append((self._count, text))
            del self._lines[:-KEEP_LINES]
        self._capture(text)

    def _capture(self, text: str | None) -> None:
        s = self._session
        lines = tuple(self._lines)
        if s is None:
            self.now = Now(lines=lines, taken=time.monotonic())
            self.listener()
            return
        pending, a = s.pending, s.auction
        if pending is None:
            self._question = None
        elif pending is not self._seen_pending and text is not None:
            self._question = text
        self._seen_pending = pending
        if a is not None and a.final_at is not None and not self._final_seen and text is not None:
            self._question = text  # "Any final bids?"
        self._final_seen = a is not None and a.final_at is not None
        kind, who = s.expecting()
        question = self._question if (pending is not None or self._final_seen) else None
        asked = tuple(t for t in s.state.order if t in who) if question else ()
        self.now = Now(lines=lines, question=question, asked=asked, expecting=kind,
                       choices=_choices(pending), auction=_auction(s), state=s.state,
                       hold=s.hold.kind if s.hold else None, hold_owner=s.hold.owner if s.hold else None,
                       allowed=tuple(sorted(s.hold.allowed)) if s.hold else (), taken=time.monotonic())
        self.listener()


def _choices(pending: object | None) -> tuple[str, ...]:
    rule = getattr(pending, "rule", None)
    if rule is not None and rule.choices:
        return tuple(str(c) for c in rule.choices)
    names: list[str] = []
    for c in getattr(pending, "candidates", ()) or ():
        for v in c.intent.slots.values():
            if isinstance(v, str) and v not in names:
                names.append(v)
    return tuple(names)


def _auction(s: Session) -> AuctionNow | None:
    a = s.auction
    if a is None:
        return None
    spec = s.edition.auction
    end = (a.final_at + spec.final_seconds if a.final_at is not None
           else a.last + spec.quiet_seconds + spec.final_seconds)
    return AuctionNow(a.street, a.bidder, a.amount, max(0.0, end - s.clock.now()), a.final_at is not None)
