"""The rules every edition shares, and the helpers edition modules build on.

``Rules.decide(state, command, draws)`` validates a command against the state and returns an
``Outcome`` (events + lines), or raises ``Refusal`` with a stable code. It never mutates the
state. Edition modules subclass ``Rules`` and add or override ``do_<intent>`` methods.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from banker.editions.model import Edition
from banker.rules.events import CashMoved, Drawn, Event, GameEnded, fold
from banker.rules.outcome import QUERIES, AllOf, Command, Draws, Money, Outcome, Refusal, Who
from banker.rules.state import GameState, Holding, Player

Handler = Callable[[GameState, Command, Draws], Outcome]


class Rules:
    """Rules common to all editions. Subclasses set ``edition`` data and override handlers."""

    #: intents this edition accepts (beyond the queries every edition has)
    intents: frozenset[str] = frozenset()

    def __init__(self, edition: Edition) -> None:
        self.edition = edition

    # --- set-up ---------------------------------------------------------------------------
    def initial_state(self, players: Sequence[str], options: dict[str, str], seed: int) -> GameState:
        ed = self.edition
        state = GameState(
            edition=ed,
            options={**ed.option_defaults(), **options},
            order=list(players),
            players={t: Player(t, ed.start_cash) for t in players},
            streets={s.name: Holding() for s in ed.streets},
            seed=seed,
        )
        if ed.money_total is not None:
            state.bank = ed.money_total - ed.start_cash * len(players)
        self.setup(state)
        return state

    def setup(self, state: GameState) -> None:
        """Edition-specific initial contents (stock, vault, deck). Mutates the new state."""

    # --- the one entry point --------------------------------------------------------------
    def decide(self, state: GameState, cmd: Command, draws: Draws | None = None) -> Outcome:
        draws = draws if draws is not None else Draws()
        name = cmd.name
        if cmd.player not in state.players:
            raise Refusal("not_playing", player=Who(cmd.player))
        if name not in QUERIES:
            if state.game_over:
                raise Refusal("game_over")
            if state.players[cmd.player].out:
                raise Refusal("player_out", player=Who(cmd.player))
        handler: Handler | None = getattr(self, "do_" + name, None)
        if handler is None or (name not in QUERIES and name not in self.intents):
            raise Refusal("not_in_edition")
        out = handler(state, cmd, draws)
        if out.events:
            out.participants.add(cmd.player)
            for e in out.events:
                if isinstance(e, CashMoved):
                    out.participants.update(a for a in (e.src, e.dst) if a in state.players)
        return out

    # --- helpers for handlers -------------------------------------------------------------
    def street(self, cmd: Command, slot: str = "property") -> str:
        """The street named in ``slot``, checked to be on this board."""
        name = cmd.intent.get(slot)
        if not name:
            raise Refusal("which_street")
        if name not in self.edition.street_names:
            raise Refusal("not_on_board", street=name)
        return str(name)

    def rent_owner(self, state: GameState, cmd: Command) -> tuple[str, str]:
        """(street, owner) for "pay rent on X": refused when nobody or the payer owns it."""
        street = self.street(cmd)
        owner = state.owner(street)
        if owner is None:
            raise Refusal("no_owner", street=street)
        if owner == cmd.player:
            raise Refusal("own_street", street=street)
        return street, owner

    def amount(self, cmd: Command, slot: str = "amount") -> int:
        value = cmd.intent.get(slot)
        if value is None:
            raise Refusal("which_amount")
        value = int(value)
        if value <= 0:
            raise Refusal("bad_amount", amount=Money(value))
        if value > 1_000_000:
            raise Refusal("too_much")  # the amount itself is not repeated: it may be 400 digits
        return value

    def draw(self, state: GameState, draws: Draws, what: str, choices: Sequence[str],
             forced_ok: Callable[[str], bool] | None = None) -> tuple[str, Event]:
        """One random draw of ``what`` among ``choices``: forced by ``next:`` or seeded."""
        if what in draws.forced and what not in draws.used:
            value = str(draws.forced[what])
            draws.used.add(what)
            if value in choices or (forced_ok and forced_ok(value)):
                draws.made += 1
                return value, Drawn(what, value)
        rng = random.Random(f"{state.seed}/{state.draws + draws.made}/{what}")
        draws.made += 1
        value = rng.choice(list(choices))
        return value, Drawn(what, value)

    def require_cash(self, state: GameState, player: str, amount: int, code: str = "cannot_afford",
                     **params: Any) -> None:
        """Refuse a payment the player chose to make but can't afford."""
        cash = state.cash(player)
        if cash < amount:
            raise Refusal(code, amount=Money(amount), cash=Money(cash),
                          missing=Money(amount - cash), **params)

    @staticmethod
    def pay(src: str, dst: str, amount: int) -> list[Event]:
        return [CashMoved(src, dst, amount)] if amount > 0 else []

    def can_bid(self, state: GameState, player: str) -> str | None:
        """Why ``player`` may not bid in an auction now (a refusal code), or None."""
        return None

    # --- end of game ----------------------------------------------------------------------
    def measure(self, state: GameState, player: str) -> int:
        """The edition's final measure for ranking ("who's winning"). Default: cash."""
        return state.cash(player)

    def ranking(self, state: GameState) -> list[tuple[str, int]]:
        players = [t for t in state.order if not state.players[t].out]
        return sorted(((t, self.measure(state, t)) for t in players), key=lambda x: -x[1])

    def end_game(self, state: GameState, events: list[Event], out: Outcome) -> None:
        """Append the game's end to ``out``: winners by the measure after ``events``."""
        self.close_game(self.ranking(fold(state, events)), events, out)

    @staticmethod
    def close_game(ranking: list[tuple[str, int]], events: list[Event], out: Outcome) -> None:
        """Append ``GameEnded`` for the top of ``ranking`` and announce it place by place."""
        top = ranking[0][1] if ranking else 0
        winners = tuple(t for t, v in ranking if v == top)
        events.append(GameEnded(winners))
        out.say("game_over")
        for place, (t, v) in enumerate(ranking, start=1):
            out.say("ranking_line", place=place, player=Who(t), amount=Money(v))
        if len(winners) > 1:
            out.say("winners_tie", players=AllOf(Who(w) for w in winners))
        else:
            out.say("winner", player=Who(winners[0]) if winners else Who(""))

    def collect_each(self, state: GameState, p: str, n: int) -> Outcome:
        """Every other player gives ``n``. Decision: one who can't gives all their cash (the
        amount is small; no street changes hands and no debt opens for a birthday present)."""
        events: list[Event] = []
        total = 0
        for o in state.left_of(p):
            give = min(n, state.cash(o))
            events += self.pay(o, p, give)
            total += give
        return Outcome(events=events).say("collected_each", player=Who(p), amount=Money(n),
                                          total=Money(total), cash=Money(state.cash(p) + total))

    # --- queries every edition answers ----------------------------------------------------
    def do_balance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        who = cmd.intent.get("player") or cmd.player
        if who not in state.players:
            raise Refusal("not_playing", player=Who(who))
        return Outcome().say("balance", player=Who(who), cash=Money(state.cash(who)))

    def do_owner(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        street = self.street(cmd)
        owner = state.owner(street)
        if owner is None:
            return Outcome().say("owner_none", street=street)
        return Outcome().say("owner", street=street, player=Who(owner))

    def do_status(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        out = Outcome()
        for place, (t, v) in enumerate(self.ranking(state), start=1):
            out.say("ranking_line", place=place, player=Who(t), amount=Money(v))
        self.status_extra(state, out)
        return out

    def status_extra(self, state: GameState, out: Outcome) -> None:
        """Edition-specific status lines (vault, Jackpot, Bank)."""
