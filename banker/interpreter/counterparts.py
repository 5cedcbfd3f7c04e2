"""Who a spoken command can name: the players at the table (pure).

A recogniser that hears a token nobody plays ("pay car two hundred" in a game without a
racecar: ``espeak-ng``'s "the dog" is heard as "car" by both ears) has heard a name the
speaker cannot have meant. Asking "Did you say pay M200 to Racecar?" helps nobody: a "yes"
can only be refused. When speech would be asked about anyway (never when it would be acted
on, never typed text), such a reading is replaced:

- in a choice between readings, the ones that name an impossible player are dropped ("Dog or
  T-Rex?" asked of the T-Rex paying: "Did you say pay M150 to Dog?");
- a single reading is said to be impossible, with the rules' reason, and the same command
  naming each player it could be is asked about instead ("Racecar isn't playing in this
  game. Dog or Cat?"; one such player: "Did you say pay M200 to Dog?").

It is still a question: nothing moves until the player answers, and a name that cannot be
replaced (every other player refused too) is asked about as heard. The grammar itself was
not weighted by the seated tokens: pocketsphinx's finite-state search with the absent
tokens' words at 0.03 of the others' probability heard the same "pay car" (12 of 12 decodes
the same as unweighted, docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from banker.interpreter.hearing import Hearing
from banker.nlu.matcher import Recognized

# the rules' refusals that say the named player can't be this one (not playing, out of the
# game, or the speaker themself)
NAME_REFUSALS = frozenset({"not_playing", "player_out", "pay_self", "deal_self"})
SLOT = "player"

Why = Callable[[str, Mapping[str, Any]], str | None]  # (intent, slots) -> refusal code


def at_the_table(hearing: Hearing, seated: Sequence[str], speaker: str, why: Why) -> Hearing:
    """``hearing`` with readings that name a player nobody can be replaced, when it is a
    question anyway (``confirm``). ``why``: the rules' refusal code of a command of
    ``speaker`` now, None when they would take it (a money refusal counts as taken)."""
    if hearing.decision != "confirm":
        return hearing
    readings = (hearing.candidates if hearing.choose and hearing.candidates
                else (Recognized(hearing.intent, dict(hearing.slots), 100.0, 0.0, ""),))
    kept = tuple(r for r in readings if not _impossible(r, seated, speaker, why))
    if len(kept) == len(readings):
        return hearing
    if not kept:
        first = readings[0]
        named, reason = str(first.slots[SLOT]), why(first.intent, first.slots) or ""
        kept = tuple(replace(first, slots={**first.slots, SLOT: who}) for who in seated
                     if who not in (speaker, named)
                     and why(first.intent, {**first.slots, SLOT: who}) is None)
        if not kept:
            return hearing
        hearing = replace(hearing, instead=(reason, named))
    best = kept[0]
    return replace(hearing, intent=best.intent, slots=dict(best.slots),
                   candidates=kept if len(kept) > 1 else (), choose=len(kept) > 1)


def _impossible(r: Recognized, seated: Sequence[str], speaker: str, why: Why) -> bool:
    """``r`` names a player the rules refuse as that player (not seated, or the speaker)."""
    who = r.slots.get(SLOT)
    if not isinstance(who, str) or (who in seated and who != speaker):
        return False
    return why(r.intent, r.slots) in NAME_REFUSALS
