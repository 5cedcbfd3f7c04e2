"""The classic box's part of ``banker bench``'s dev set: its own commands and chatter.

Commands are sampled from the classic grammar like the main set's (every classic intent, with
its railroads, utilities, taxes, spoken cards, buildings sold back and deals), and the chatter
talks about railroads, utilities and the board the way a table does, without a command in it.
Each item carries its edition, so it is decoded by that edition's recogniser and judged in a
classic game. A random generator of its own keeps the voice-banking items as they were.
"""

from __future__ import annotations

import random
from typing import Any

EDITION = "classic"
#: the share of the commands drawn from the intents only the classic box has
OWN_SHARE = 0.6
CHATTER = (
    "the railroads are the best deal on the board", "I always land on the water works",
    "electric company is a waste of money", "who has the short line", "I hate the utilities",
    "four railroads is a nice little earner", "take the train to reading next summer",
    "the pennsylvania railroad was famous once", "my electric bill is huge this month",
    "we should fix the water works in the kitchen", "the station is closed on sundays",
    "kings cross is so busy in the morning", "luxury tax is daylight robbery",
    "I never get community chest cards I like", "chance is not on my side tonight",
    "the free parking money should be mine", "hotels on every street would be lovely",
    "do you remember when we all went to mayfair", "the utilities never pay for themselves",
    "I am saving up for a railroad", "dice total of eight again", "roll a twelve please",
)


def items(n: int, seed: int, pick_voice: Any, item: Any) -> list[Any]:
    """``n`` classic commands and about a third as much chatter, as ``item(...)`` dev-set
    items of this edition, deterministic for ``seed``."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Recognized
    from banker.speech.grammar import SpeechGrammar

    ed = load_edition(EDITION)
    g = SpeechGrammar(ed)
    rng = random.Random(f"{seed}/{EDITION}")
    specs = [s for s in g.intents() if s.name not in ("answer", "yes", "no")]
    own = [s.name for s in specs if s.editions == (EDITION,)]
    shared = [s.name for s in specs if s.name not in own]
    board = set(ed.street_names)
    out: list[Any] = []
    tries = 0
    while len(out) < n and tries < 200 * max(n, 1):
        tries += 1
        pool = own if rng.random() < OWN_SHARE else shared
        s = g.sample(rng, intents=[rng.choice(pool)])
        names = [v for k, v in s.slots if k in ("property", "give", "get")]
        if any(name not in board for name in names):
            continue
        r = g.matcher.match(g.to_written(s.text))
        if not (isinstance(r, Recognized) and r.intent == s.intent and dict(r.slots) == dict(s.slots)):
            continue
        out.append(item(s.text, s.intent, s.slots, pick_voice(rng), edition=EDITION))
    lines = list(CHATTER)
    rng.shuffle(lines)
    out += [item(line, "none", (), pick_voice(rng), edition=EDITION)
            for line in lines[: max(1, n // 3)]]
    return out
