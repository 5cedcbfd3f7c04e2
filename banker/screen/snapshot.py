"""The page's content as one JSON-able dict, built from the journal and the table's moment.

Money, owners, buildings and the log come from folding the journal's transactions (the same
fold a resume does), so a reload shows the same and a resumed game comes back as it was.
Only the open question, the auction and a betting round's stakes come from the live ``Now``.
Amounts are written as the printed lines write them (``M1,440``, ``$2,000``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from banker.editions.model import Edition
from banker.rules import GameState, Rules, apply_in_place
from banker.screen.chart import wealth_chart
from banker.screen.feed import Now
from banker.screen.hints import say_now
from banker.screen.journal_view import JournalView

GROUP_COLOURS = {
    "brown": "#8b4a2b", "light blue": "#9fd8f5", "pink": "#d6399a", "orange": "#f39a1e",
    "red": "#e8262d", "yellow": "#fbe625", "green": "#1fa555", "dark blue": "#1d5fbf",
    "railroad": "#2b2b2b", "utility": "#b8c2cc",  # the classic box's railroads (stations), utilities
}
# Token colours: a colour named among the token's aliases (Jackpot's coloured players), else
# one of these by seat. Colour is never the only mark: every token is named beside it.
COLOUR_WORDS = {"blue": "#3b82f6", "green": "#22c55e", "orange": "#f97316", "pink": "#ec4899",
                "red": "#ef4444", "yellow": "#eab308", "purple": "#a855f7"}
SEAT_COLOURS = ("#f97316", "#38bdf8", "#a3e635", "#f472b6", "#facc15", "#c084fc", "#2dd4bf",
                "#f87171")  # eight seats: the classic box
LOG_LIMIT = 300  # newest first; a long game's oldest lines stay in the journal


def token_colour(edition: Edition, token: str, seat: int) -> str:
    for alias in edition.token(token).aliases:
        for word in alias.split():
            if word in COLOUR_WORDS:
                return COLOUR_WORDS[word]
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


class Folder:
    """The committed state and each player's wealth (the edition's measure) after every
    standing transaction, from the deal on. Folded on as the game grows; folded again from the
    deal only when the standing transactions stop being an extension (an undo)."""

    def __init__(self, rules: Rules, base: GameState) -> None:
        self.rules, self.base = rules, base
        self.reset()

    def reset(self) -> None:
        self.seqs: list[int] = []
        self.state = self.base.clone()
        self.series = [[self.rules.measure(self.state, t) for t in self.state.order]]

    def fold(self, view: JournalView) -> tuple[GameState, list[list[int]]]:
        live = view.live
        if [t.seq for t in live[:len(self.seqs)]] != self.seqs:
            self.reset()
        for tx in live[len(self.seqs):]:
            for e in tx.events:
                apply_in_place(self.state, e)
            self.seqs.append(tx.seq)
            self.series.append([self.rules.measure(self.state, t) for t in self.state.order])
        return self.state, self.series


def build(edition: Edition, rules: Rules, folder: Folder, view: JournalView, now: Now,
          version: int) -> dict[str, Any]:
    """The snapshot. Read-only use of ``folder``'s state: it is folded on at the next call."""
    state, series = folder.fold(view)
    live = now.state if now.state is not None and now.hold is not None else state
    names = {t: edition.token(t).name for t in state.order}
    colours = {t: token_colour(edition, t, i) for i, t in enumerate(state.order)}
    snap: dict[str, Any] = {
        "version": version,
        "edition": {"id": edition.id, "name": edition.name, "currency": edition.currency},
        "players": _players(edition, rules, state, names, colours, live),
        "board": _board(edition, state, names, colours),
        "extras": _extras(edition, state, live, names),
        "now": _now(edition, now, names),
        "log": _log(edition, view, names),
        "say_now": say_now(edition, rules, now, state, bool(view.live)),
        "end": None,
    }
    if state.game_over:
        snap["end"] = {
            "ranking": [{"place": i, "token": t, "name": names[t], "amount": edition.fmt(v)}
                        for i, (t, v) in enumerate(rules.ranking(state), start=1)],
            "winners": [names[w] for w in state.winners],
            "chart": wealth_chart(edition, [(names[t], colours[t]) for t in state.order], series),
        }
    return snap


def _players(edition: Edition, rules: Rules, state: GameState, names: dict[str, str],
             colours: dict[str, str], live: GameState) -> list[dict[str, Any]]:
    """Each player; cash from ``live`` (a betting round's bets are off the bettors' cash and
    on the table as stakes, as the table hears it), everything else as journalled."""
    out = []
    for t in state.order:
        p = replace(state.players[t], cash=live.players.get(t, state.players[t]).cash)
        items = [f"{n} {_item_word(k, n)}" for k, n in sorted(p.items.items()) if n]
        debts = state.debts_of(t)
        out.append({
            "token": t, "name": names[t], "colour": colours[t], "cash": p.cash, "cash_text": edition.fmt(p.cash),
            "worth_text": edition.fmt(rules.measure(state, t)), "streets": len(state.owned_by(t)),
            "in_jail": p.in_jail, "out": p.out, "items": items,
            "debt": "; ".join(f"owes {edition.fmt(d.amount)} to "
                              f"{names.get(d.creditor, 'the ' + d.creditor)}" for d in debts) or None,
        })
    return out


def _item_word(kind: str, n: int) -> str:
    word = {"jail_card": "get out of jail free card", "key": "key", "hotel": "hotel"}.get(kind, kind.replace("_", " "))
    return word + ("s" if n != 1 and not word.endswith("card") else "")


def _board(edition: Edition, state: GameState, names: dict[str, str],
           colours: dict[str, str]) -> list[dict[str, Any]]:
    """The streets in board order, grouped by colour set (the page lays the sets round a square)."""
    groups: list[dict[str, Any]] = []
    for g in edition.groups:
        streets = []
        for s in (s for s in edition.streets if s.group == g):
            h = state.streets[s.name]
            streets.append({
                "name": s.name, "price": edition.fmt(s.price), "owner": h.owner,
                "owner_name": names.get(h.owner) if h.owner else None,
                "owner_colour": colours.get(h.owner) if h.owner else None,
                "houses": h.houses, "hotels": h.hotels, "mortgaged": h.mortgaged,
                "locked": s.locked and not h.unlocked,
            })
        groups.append({"group": g, "colour": GROUP_COLOURS.get(g, "#888888"), "streets": streets})
    return groups


def _extras(edition: Edition, state: GameState, live: GameState, names: dict[str, str]) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if edition.rules == "secret_vault":
        extras["vault"] = {"cash": edition.fmt(state.vault_cash), "keys": state.vault_items.get("key", 0),
                           "hotels": state.vault_items.get("hotel", 0),
                           "guessed": [str(n) for n in state.guessed],
                           "physical": state.options.get("vault") == "physical"}
    if edition.rules == "jackpot" or state.jackpot:
        extras["jackpot"] = edition.fmt(state.jackpot)
    if state.bank is not None:
        extras["bank"] = edition.fmt(state.bank)
    stakes = live.stakes
    extras["stakes"] = [{"name": names.get(t, t), "amount": edition.fmt(v)} for t, v in stakes.items() if v]
    if state.debts:
        extras["debt"] = "; ".join(
            f"{names.get(d.debtor, d.debtor)} owes {edition.fmt(d.amount)} to "
            f"{names.get(d.creditor, 'the ' + d.creditor)}" for d in state.debts)
    return extras


def _now(edition: Edition, now: Now, names: dict[str, str]) -> dict[str, Any]:
    a = now.auction
    return {
        "lines": [{"n": n, "text": t} for n, t in now.lines[-8:]],
        "question": now.question,
        "asked": [names.get(t, t) for t in now.asked],
        "choices": list(now.choices),
        "auction": None if a is None else {
            "street": a.street, "bid": edition.fmt(a.amount) if a.bidder else None,
            "bidder": names.get(a.bidder, a.bidder) if a.bidder else None,
            "opening": edition.fmt(edition.auction.open), "ends_in": round(a.ends_in, 1), "final": a.final},
        "round": None if now.hold is None else {
            "kind": now.hold, "owner": names.get(now.hold_owner or "", now.hold_owner)},
    }


def _log(edition: Edition, view: JournalView, names: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for e in reversed(view.entries[-LOG_LIMIT:]):
        tx = e.tx
        if tx.intent == "force":
            continue  # a transcript's set-up, not something that happened at the table
        out.append({"seq": tx.seq, "who": names.get(tx.player or "", "") if tx.player else "",
                    "what": tx.intent.replace("_", " "),
                    "text": " ".join(tx.said) or tx.intent.replace("_", " "), "undone": e.undone, "at": e.at})
    return out
