""""What can I say now?": commands that make sense at this moment, worded from the grammar.

Each command's example is its first sentence in ``grammars/commands.yaml`` with the optional
words left out and the first of each choice taken, its slots filled with names from the
table. A command is listed when the rules would accept it from some seated player for some
street (the rules are pure, so asking them changes nothing); the search is capped so a
refresh never costs the game more than a few milliseconds.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from banker.editions.model import Edition
from banker.money import number_words
from banker.nlu.templates import Grammar, IntentSpec, load_grammar
from banker.rules import QUERIES, Command, Draws, GameState, Intent, Refusal, Rules
from banker.screen.feed import Now

NOT_LISTED = frozenset({"bid", "yes", "no", "answer", "cancel", "repeat", "help", "undo"})
MONEY_REFUSALS = frozenset({"cannot_afford", "bid_too_high"})  # legal, only short of money
TRIES_PER_COMMAND = 6
OWNED_FIRST = frozenset({"pay_rent", "build_house", "build_hotel", "mortgage", "unmortgage", "sell",
                         "steal_house", "trade", "swap_house"})


@functools.cache
def _grammar() -> Grammar:
    return load_grammar()


def example(raw: str, fill: dict[str, str]) -> str:
    """``"<i_will> (buy | purchase) [the] {property}"`` -> ``"buy Baltic Avenue"``."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch in "[(<":
            j = _close(raw, i)
            inner = raw[i + 1:j]
            if ch == "(":
                out.append(example(_alternatives(inner)[0], fill))
            i = j + 1
        elif ch == "{":
            j = raw.index("}", i)
            out.append(fill.get(raw[i + 1:j], "…"))
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _close(raw: str, i: int) -> int:
    pairs = {"[": "]", "(": ")", "<": ">"}
    depth, opener, closer = 0, raw[i], pairs[raw[i]]
    for j in range(i, len(raw)):
        if raw[j] == opener:
            depth += 1
        elif raw[j] == closer:
            depth -= 1
            if depth == 0:
                return j
    return len(raw) - 1


def _alternatives(inner: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(inner):
        depth += ch in "[(<"
        depth -= ch in "])>"
        if ch == "|" and depth == 0:
            parts.append(inner[start:j])
            start = j + 1
    parts.append(inner[start:])
    return parts


def say_now(edition: Edition, rules: Rules, now: Now, state: GameState, has_history: bool) -> list[dict[str, str]]:
    """A short list of ``{"say", "what"}`` for the page."""
    names = {t: edition.token(t).name for t in state.order}
    if now.auction is not None:
        a = now.auction
        nxt = edition.auction.open if a.bidder is None else a.amount + edition.auction.step
        return [{"say": "press your button", "what": f"bid {edition.fmt(nxt)} for {a.street}"},
                {"say": f"bid {number_words(nxt + edition.auction.step)}", "what": "bid a total"}]
    if now.question is not None and now.expecting != "any":
        return _answers(now, names)
    specs = [s for s in _grammar().for_edition(edition.id) if s.name not in NOT_LISTED]
    if now.hold is not None:
        specs = [s for s in specs if s.name in now.allowed]
    live = now.state if now.state is not None and now.hold is not None else state
    out: list[dict[str, str]] = []
    for spec in specs:
        if spec.name in QUERIES:
            continue
        # in a betting round the round's own commands are offered as they are
        fill = _legal_fill(edition, rules, live, spec) if now.hold is None else _default_fill(edition, spec, live)
        if fill is not None and spec.raw:
            words = {**{k: v[0] for k, v in _grammar().lists.items() if v},  # a card, "house"
                     "amount": "three hundred", "number": "three", "outcome": "pass left",
                     "property": edition.street_names[0], **fill}
            out.append({"say": _board_words(edition, example(spec.raw[0], words)),
                        "what": spec.name.replace("_", " ")})
    seated = [t for t in state.order if not state.players[t].out]
    who = names[seated[0]].lower() if seated else "dog"
    for spec in specs:
        if spec.name in QUERIES and spec.raw:
            out.append({"say": example(spec.raw[0], {"player": who, "property": edition.streets[0].name}),
                        "what": spec.name.replace("_", " ")})
    if has_history and now.hold is None:
        out.append({"say": "undo", "what": "take back the last transaction"})
    out.append({"say": "repeat that", "what": "hear the last answer again"})
    return out


def _board_words(edition: Edition, said: str) -> str:
    """The example in the words of the board in play ("super tax", "the nearest station" on
    the UK board), where the grammar's first choice is another board's word."""
    swap: dict[str, str] = edition.extra.get("board_words") or {}
    return " ".join(swap.get(w, w) for w in said.split(" "))


def _answers(now: Now, names: dict[str, str]) -> list[dict[str, str]]:
    who = ", ".join(names.get(t, t) for t in now.asked) or "anyone"
    kind = now.expecting
    if kind == "yes_no":
        items = [{"say": "yes", "what": f"{who} agrees"}, {"say": "no", "what": "not that"}]
    elif now.choices:
        items = [{"say": c, "what": f"{who} chooses"} for c in now.choices[:10]]
    elif kind == "street":
        items = [{"say": "the street's name", "what": f"{who} says which street"}]
    elif kind == "number":
        items = [{"say": "one … six", "what": f"{who} says a number"}]
    elif kind == "player":
        items = [{"say": n.lower(), "what": "a player"} for n in names.values()]
    elif kind == "amount":
        items = [{"say": "three hundred", "what": f"{who} says an amount"}]
    else:
        items = []
    return [*items, {"say": "cancel", "what": "drop the question"}]


def _legal_fill(edition: Edition, rules: Rules, state: GameState, spec: IntentSpec) -> dict[str, str] | None:
    """Slot values for which some seated player's command is accepted; None if none found."""
    seated = [t for t in state.order if not state.players[t].out]
    if state.game_over or not seated:
        return None
    streets = sorted(edition.street_names, key=lambda n: (state.streets[n].owner is None) == (spec.name in OWNED_FIRST))
    tries = 0
    for player in seated:
        other = next((t for t in seated if t != player), player)
        for street in streets[:3] if "property" in spec.requires or "give" in spec.requires else [None]:
            slots = _slots(edition, spec, state, player, other, street)
            tries += 1
            if _accepted(rules, state, Command(player, Intent(spec.name, slots))):
                return {k: _spoken(edition, k, v) for k, v in slots.items()}
            if tries >= TRIES_PER_COMMAND:
                return None
    return None


def _default_fill(edition: Edition, spec: IntentSpec, state: GameState) -> dict[str, str]:
    seated = [t for t in state.order if not state.players[t].out] or list(state.order)
    slots = _slots(edition, spec, state, seated[0], seated[-1], edition.street_names[0])
    return {k: _spoken(edition, k, v) for k, v in slots.items()}


def _slots(edition: Edition, spec: IntentSpec, state: GameState, player: str, other: str,
           street: str | None) -> dict[str, Any]:
    slots: dict[str, Any] = {}
    for slot in spec.requires:
        if slot in ("property", "give"):
            slots[slot] = street
        elif slot == "get":
            slots[slot] = next((n for n in edition.street_names if state.streets[n].owner not in (None, player)),
                               edition.street_names[-1])
        elif slot == "player":
            slots[slot] = other
        elif slot == "amount":
            slots[slot] = 100
        elif slot == "outcome":
            slots[slot] = "pass left"
    return slots


def _spoken(edition: Edition, slot: str, value: Any) -> str:
    if slot == "player":
        return f"the {edition.token(str(value)).name}"
    if slot == "amount":
        return number_words(int(value))
    return str(value)


def _accepted(rules: Rules, state: GameState, cmd: Command) -> bool:
    try:
        rules.decide(state, cmd, Draws())
    except Refusal as r:
        return r.code in MONEY_REFUSALS
    except Exception:  # a command the rules can't judge in this state is not offered
        return False
    return True
