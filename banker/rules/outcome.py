"""What goes into the rules core (``Command``) and what comes out (``Outcome`` or ``Refusal``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from banker.rules.events import Event

# Intents whose outcome never moves money or ownership: safe after the game has ended and
# never journalled.
QUERIES = frozenset({"balance", "owner", "status", "guesses", "supply", "help", "repeat"})


@dataclass(frozen=True)
class Intent:
    """One understood command: a name from ``intents.md`` and its slots (canonical values)."""

    name: str
    slots: Mapping[str, Any] = field(default_factory=dict)

    def with_slots(self, **extra: Any) -> Intent:
        return Intent(self.name, {**self.slots, **extra})

    def get(self, key: str, default: Any = None) -> Any:
        return self.slots.get(key, default)


@dataclass(frozen=True)
class Command:
    """An intent said by a player (a token id)."""

    player: str
    intent: Intent

    @property
    def name(self) -> str:
        return self.intent.name


@dataclass(frozen=True)
class Line:
    """One thing Mr. Monopoly says: a reply-template key and its parameters."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Question:
    """A question the rules ask; its answer fills ``slot`` of ``then`` and is decided again.

    ``lapses``: anything that is not an answer cancels it (otherwise it never lapses, and the
    player's other commands are refused until it is answered).
    """

    key: str  # reply key that asks it
    asked: str  # token of the player who must answer
    slot: str  # "property", "number", "player", "yes"
    then: Command
    choices: tuple[str, ...] = ()
    lapses: bool = True
    timeout: float | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hold:
    """A dialogue that keeps its transaction open (a Jackpot betting round).

    While held, the events of every outcome are added to one open transaction, committed
    when an outcome arrives with ``hold=None``. Only ``allowed`` intents are accepted.
    """

    kind: str
    owner: str
    allowed: frozenset[str]


@dataclass
class Outcome:
    """The result of ``decide``: events (a transaction) and what to say about it."""

    events: list[Event] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    question: Question | None = None
    auctions: list[str] = field(default_factory=list)  # streets to auction, one after another
    hold: Hold | None = None
    participants: set[str] = field(default_factory=set)

    def say(self, key: str, **params: Any) -> Outcome:
        self.lines.append(Line(key, params))
        return self


class Refusal(Exception):
    """A command the rules forbid. ``code`` is stable (a reply key under ``refused.``)."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(code)


@dataclass
class Draws:
    """Random draws for one ``decide`` call: deterministic from (seed, draws so far, kind).

    ``forced`` holds the transcript's ``next:`` overrides; those used are listed in ``used``
    so the session can drop them once the transaction is committed.
    """

    forced: dict[str, Any] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    made: int = 0


class Money(int):
    """An amount the replies layer prints with the edition's money sign (``M1,500``)."""


class Who(str):
    """A token id the replies layer prints as the token's name (``the T-Rex``)."""


class AllOf(tuple):  # type: ignore[type-arg]
    """Several values printed with "and" (a plain list is printed with "or": a choice)."""
