"""Commands in words: what Mr. Monopoly reads back ("Did you say buy Baltic Avenue?")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banker.interpreter.replies import Replies
from banker.rules import Command, Who


def describe(replies: Replies, cmd: Command) -> str:
    words = cmd.name.replace("_", " ")
    return " ".join([words, *slot_words(replies, cmd.intent.slots)])


def slot_words(replies: Replies, slots: Mapping[str, Any]) -> list[str]:
    return [replies.value(Who(v)) if k == "player" else
            (replies.edition.fmt(v) if k == "amount" and isinstance(v, int) else str(v))
            for k, v in slots.items()]
