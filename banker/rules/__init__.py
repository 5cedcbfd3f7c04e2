"""The pure, event-sourced rules core.

Receives a ``GameState`` and a ``Command``; returns an ``Outcome`` (events to apply and lines
for Mr. Monopoly) or raises ``Refusal`` with a stable code. No I/O, no speech, no YAML: a test
checks that this package imports none of them.
"""

from __future__ import annotations

from banker.editions.model import Edition
from banker.rules.base import Rules
from banker.rules.events import Event, apply, apply_in_place, event_from_json, fold
from banker.rules.lookup import rules_class
from banker.rules.outcome import (
    QUERIES,
    Command,
    Draws,
    Hold,
    Intent,
    Line,
    Money,
    Outcome,
    Question,
    Refusal,
    Who,
)
from banker.rules.state import GameState

__all__ = [
    "QUERIES", "Command", "Draws", "Event", "GameState", "Hold", "Intent", "Line", "Money",
    "Outcome", "Question", "Refusal", "Rules", "Who", "apply", "apply_in_place",
    "event_from_json", "fold", "rules_for",
]


def rules_for(edition: Edition) -> Rules:
    """The rules class registered for the edition's ``rules:`` key, for this edition."""
    return rules_class(edition.rules)(edition)
