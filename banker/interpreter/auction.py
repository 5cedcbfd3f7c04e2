"""Auctions: the open auction, the streets queued for one, bids, and the calls of the clock.

An auction is the session's dialogue (bids are not transactions); its close is one
transaction (``auction_close``, decided by the rules) through the session's commit path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from banker.rules import Command, Intent, Money, Who

if TYPE_CHECKING:
    from banker.interpreter.session import Session


@dataclass
class Auction:
    street: str
    started: float
    bidder: str | None = None
    amount: int = 0
    last: float = 0.0
    final_at: float | None = None
    starter: str | None = None


@dataclass
class Auctions:
    """The auction dialogue of one session."""

    session: Session
    current: Auction | None = None
    queue: list[str] = field(default_factory=list)

    def deadline(self) -> float | None:
        a, spec = self.current, self.session.edition.auction
        if a is None:
            return None
        return a.final_at + spec.final_seconds if a.final_at is not None else a.last + spec.quiet_seconds

    def fire(self, due: float) -> bool:
        """The auction's call at ``due`` ("going once…", then sold); False: none was due."""
        a, spec = self.current, self.session.edition.auction
        if a is None:
            return False
        if a.final_at is None and a.last + spec.quiet_seconds <= due + 1e-9:
            a.final_at = a.last + spec.quiet_seconds
            self.session.say("auction_final")
            return True
        if a.final_at is not None and a.final_at + spec.final_seconds <= due + 1e-9:
            self.close()
            return True
        return False

    def queue_up(self, streets: list[str], starter: str) -> None:
        self.queue.extend(streets)
        if self.current is None:
            self.open_next(starter)

    def open_next(self, starter: str | None) -> None:
        s = self.session
        while self.queue:
            street = self.queue.pop(0)
            if street in s.state.streets and s.state.owner(street) is not None:
                continue  # (not a street: one of the Bank's last buildings, classic)
            now = s.clock.now()
            self.current = Auction(street, now, last=now, starter=starter)
            s.notes.note("dialogue_open", f"auction:{street}")
            s.say("auction_open", street=street, amount=Money(s.edition.auction.open))
            return
        s.ask_owed()

    def least(self, spoken: bool = False) -> int:
        """The lowest bid that is accepted now (``spoken``: a bid said aloud, which may top
        the current one by less than a press where the edition allows it)."""
        a, spec = self.current, self.session.edition.auction
        assert a is not None
        if a.bidder is None:
            return spec.open
        return a.amount + (spec.spoken_unit if spoken else spec.step)

    def bid(self, player: str, amount: Any) -> None:
        """A bid: ``amount`` None is a press (the next step up)."""
        s, a, spec = self.session, self.current, self.session.edition.auction
        assert a is not None
        s.step.intent, s.step.slots = "bid", ({"amount": amount} if amount else {})
        why = s.rules.can_bid(s.state, player)
        if why:
            s.refuse(why, player=Who(player))
            return
        if amount is None:
            if a.bidder == player:
                s.step.refused = True
                s.say("auction_highest", player=Who(player))
                return
            value = self.least()
        else:
            value = int(amount)
            if value < self.least(spoken=True):
                s.refuse("bid_too_low", amount=Money(self.least(spoken=True)))
                return
            if value % spec.spoken_unit:
                s.refuse("bid_step", amount=Money(spec.spoken_unit))
                return
        cash = s.state.cash(player)
        if value > cash:
            s.refuse("bid_too_high", amount=Money(value), cash=Money(cash))
            return
        a.bidder, a.amount, a.last, a.final_at = player, value, s.clock.now(), None
        s.step.slots = {"amount": value}
        s.say("auction_bid", player=Who(player), amount=Money(value))

    def close(self) -> None:
        """Sold (one transaction) or unsold; then the next queued street."""
        s, a = self.session, self.current
        assert a is not None
        self.current = None
        if a.bidder is None:
            s.notes.note("dialogue_closed", f"auction:{a.street}")  # on disk before it is said
            s.say("auction_unsold", street=a.street)
        else:
            cmd = Command(a.bidder, Intent("auction_close", {"property": a.street, "amount": a.amount}))
            decided = s.decide(cmd, flag=False)
            if decided is not None:
                out, draws = decided
                if out.question is not None and not out.events:
                    # the winner must choose first (Jackpot: which house to move for an 11th)
                    s.announce([s.replies.render(line) for line in out.lines])
                    s.ask_rule(out.question)
                    self.open_next(a.starter)
                    return
                said = [s.replies.render(line) for line in out.lines]
                s.commit_and_announce(s.transaction(cmd, out, said, intent="auction"), draws, said)
        self.open_next(a.starter)
