"""Classic cards and the rents that need a roll: Chance and Community Chest are the players'
own decks, read aloud; the banker applies only their money and jail parts.

"chance, speeding fine" / "community chest, bank error in your favour": the words are looked
up in the edition's ``extra.card_words`` and the card's effect is the base's ``effect_<name>``
(the same methods Voice Banking and Secret Vault use). The cards that move the token only say
where to go. "advance to the nearest railroad, I'm on Short Line" pays its owner twice the rent;
"... nearest utility" 10 x a roll the player says, asked for when it isn't ("What did you roll?").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from banker.editions.model import ChanceCard
from banker.rules.base import Rules
from banker.rules.outcome import Command, Draws, Line, Outcome, Question, Refusal, Who
from banker.rules.state import GameState

ROLL_TIMEOUT = 10.0
DECKS = {"chance_card": "chance", "chest_card": "chest"}


class CardRules(Rules):
    """Spoken cards, railroads and utilities."""

    # --- what a railroad or a utility earns -------------------------------------------------
    def kind(self, street: str) -> str:
        return self.edition.street(street).group

    def held(self, state: GameState, owner: str, kind: str) -> int:
        """How many of a kind (railroad, utility) ``owner`` holds, mortgaged ones included."""
        return sum(1 for s in self.edition.streets
                   if s.group == kind and state.streets[s.name].owner == owner)

    def by_count(self, state: GameState, street: str, key: str) -> int:
        owner = state.owner(street)
        table = self.edition.extra[key]
        return int(table[min(self.held(state, owner, self.kind(street)), len(table)) - 1]) if owner else 0

    def roll(self, cmd: Command, then: Command, key: str = "ask_roll") -> int | Outcome:
        """The dice total the player said (2-12), or the question that asks for it."""
        value = cmd.intent.get("amount")
        if value is None:
            return Outcome(question=Question(key, cmd.player, "amount", then, lapses=True,
                                             timeout=ROLL_TIMEOUT, params={"player": Who(cmd.player)}))
        roll = int(value)
        if not 2 <= roll <= 12:
            raise Refusal("bad_roll", amount=roll)
        return roll

    def utility_rent(self, state: GameState, cmd: Command, street: str, times: int | None,
                     reason: str) -> Outcome:
        """Rent on a utility: ``times`` (the utility table by number owned, or the card's 10)
        x the roll said."""
        owner = state.owner(street)
        assert owner is not None
        roll = self.roll(cmd, cmd)
        if isinstance(roll, Outcome):
            return roll
        n = (times or self.by_count(state, street, "utility_times")) * roll
        return self.owe(state, cmd, [(owner, n)], "rent_paid", reason=reason, street=street)

    # --- spoken cards -----------------------------------------------------------------------
    def deck(self, name: str) -> tuple[ChanceCard, ...]:
        if name == "chance":
            return self.edition.chance
        return tuple(ChanceCard(c["id"], c["title"], c["effect"])
                     for c in self.edition.extra.get("community_chest", ()))

    def do_card(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A card read aloud: its words give the card of that deck; its effect is applied."""
        for slot, deck in DECKS.items():
            words = cmd.intent.get(slot)
            if words is None:
                continue
            card_id = self.edition.extra["card_words"][deck].get(str(words))
            card = next((c for c in self.deck(deck) if c.id == card_id), None)
            if card is None:
                raise Refusal("unknown_card")
            return self.apply_card(state, cmd, card)
        raise Refusal("unknown_card")

    def apply_card(self, state: GameState, cmd: Command, card: ChanceCard) -> Outcome:
        out = Outcome()
        for name, value in card.effect.items():
            handler: Callable[[GameState, Command, str, Any], Outcome] | None = getattr(
                self, "effect_" + name, None)
            if handler is not None:
                out = handler(state, cmd, card.id, value)
                break
        if out.question is None:
            out.lines.insert(0, Line("chance_card", {"title": card.title}))
        return out

    def effect_move(self, state: GameState, cmd: Command, card: str, where: Any) -> Outcome:
        return Outcome().say("move_token", player=Who(cmd.player), where=str(where))

    def do_card_advance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"chance, advance to Boardwalk": the token moves; nothing is paid until the player
        says what happens there (buy it, pay rent, pass go on the way)."""
        street = self.street(cmd)
        return Outcome().say("advance", player=Who(cmd.player), street=street)

    def card_street(self, state: GameState, cmd: Command, kind: str, key: str) -> str | Outcome:
        """The railroad or utility the card took the player to: named, or asked for."""
        if cmd.intent.get("property") is None:
            return Outcome(question=Question(key, cmd.player, "property", cmd, lapses=True,
                                             timeout=ROLL_TIMEOUT,
                                             params={"player": Who(cmd.player)}))
        street = self.street(cmd)
        if self.kind(street) != kind:
            raise Refusal("not_a_" + kind, street=street)
        return street

    def card_owner(self, state: GameState, cmd: Command, kind: str) -> tuple[str, str] | Outcome:
        """(street, owner) the card takes the player to, or what is said instead (asked which
        one; nobody owns it; it is their own)."""
        street = self.card_street(state, cmd, kind, f"ask_{kind}")
        if isinstance(street, Outcome):
            return street
        owner = state.owner(street)
        if owner is None or owner == cmd.player:
            key = "card_unowned" if owner is None else "card_own"
            return Outcome().say(key, player=Who(cmd.player), street=street)
        self.rent_due(state, street, owner)
        return street, owner

    def effect_nearest_railroad(self, state: GameState, cmd: Command, card: str, times: Any) -> Outcome:
        found = self.card_owner(state, cmd, "railroad")
        if isinstance(found, Outcome):
            return found
        street, owner = found
        n = int(times) * self.rent(state, street)
        return self.owe(state, cmd, [(owner, n)], "rent_paid", reason=f"rent on {street}",
                        street=street)

    def effect_nearest_utility(self, state: GameState, cmd: Command, card: str, times: Any) -> Outcome:
        found = self.card_owner(state, cmd, "utility")
        if isinstance(found, Outcome):
            return found
        street, _owner = found
        return self.utility_rent(state, cmd, street, int(times), f"rent on {street}")

    def do_nearest_railroad(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.apply_card(state, cmd, self.edition.card("nearest-railroad"))

    def do_nearest_utility(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.apply_card(state, cmd, self.edition.card("nearest-utility"))
