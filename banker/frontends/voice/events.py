"""The voice front end's input events: what the one event loop waits for.

Named for input (a key, a typed line, a heard turn, the sound going or coming back), not to be
confused with the ledger's events (``banker.rules.events``: cash moved, a street bought).
"""

from __future__ import annotations

from dataclasses import dataclass

from banker.frontends.voice.listener import TurnHeard
from banker.speech.buttons import ButtonEvent


@dataclass(frozen=True)
class KeyInput:
    """A token button went down or up (a terminal key or an input device)."""

    event: ButtonEvent


@dataclass(frozen=True)
class TypedInput:
    """A typed line (keyboard play alongside the buttons)."""

    line: str


@dataclass(frozen=True)
class EndOfInput:
    """Ctrl-D, or the end of a pipe."""


@dataclass(frozen=True)
class SoundLost:
    """The sound device went away (posted once, by the watchdog)."""


@dataclass(frozen=True)
class SoundBack:
    """The sound device answers again after it was given up for lost (posted by the watchdog)."""


@dataclass(frozen=True)
class Wake:
    """Time moved on (a virtual clock, on the simulated table): look at the timers again."""


InputEvent = KeyInput | TypedInput | EndOfInput | SoundLost | SoundBack | Wake | TurnHeard
