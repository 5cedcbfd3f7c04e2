"""Secret Vault's vault: the 1-6 code (virtual or the plastic one), guesses, opening it and
its refill, and the keys that unlock the four locked streets."""

from __future__ import annotations

from banker.rules.base import counted
from banker.rules.events import GuessMade, ItemsMoved, OwnerChanged, StreetUnlocked, VaultCodeSet, fold
from banker.rules.outcome import Command, Draws, Intent, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState
from banker.rules.sv_debts import DebtRules

CODES = ("1", "2", "3", "4", "5", "6")
GUESS_TIMEOUT = 10.0


class VaultRules(DebtRules):
    """The vault and the locked streets."""

    def vault_items(self) -> dict[str, int]:
        raw = self.edition.extra.get("vault_items", {"key": 1, "hotel": 1})
        return {str(k): int(v) for k, v in dict(raw).items()}

    @staticmethod
    def virtual(state: GameState) -> bool:
        return state.options.get("vault", "virtual") != "physical"

    # --- locked streets and keys -------------------------------------------------------------
    def locked(self, state: GameState, street: str) -> bool:
        return self.edition.street(street).locked and not state.streets[street].unlocked

    def locked_left(self, state: GameState) -> list[str]:
        return [s.name for s in self.edition.streets if self.locked(state, s.name)
                and state.owner(s.name) is None]

    def do_use_key(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, street = cmd.player, self.street(cmd)
        if not state.players[p].count("key"):
            raise Refusal("no_key", player=Who(p))
        if not self.edition.street(street).locked:
            raise Refusal("not_locked", street=street, streets=self.locked_left(state))
        owner = state.owner(street)
        if state.streets[street].unlocked or owner is not None:
            raise Refusal("already_unlocked", street=street, player=Who(owner or "bank"))
        return Outcome(events=[StreetUnlocked(street, source=p), OwnerChanged(street, p)]).say(
            "unlocked", player=Who(p), street=street)

    # --- guesses and opening ------------------------------------------------------------------
    def offer_guess(self, state: GameState, p: str, via: str) -> Outcome:
        """One guess: the virtual vault asks "What's your guess?" (10 s, lapses); with the
        physical vault the player turns the dial."""
        if not self.virtual(state):
            return Outcome().say("use_dial", player=Who(p))
        then = Command(p, Intent("guess", {"via": via}))
        return Outcome(question=Question(
            "ask_guess", p, "number", then, lapses=True, timeout=GUESS_TIMEOUT,
            params={"player": Who(p), "on_timeout": "no_guess"}))

    def do_free_parking(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        return self.offer_guess(state, cmd.player, "free_parking")

    def do_guess(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        p, number = cmd.player, cmd.intent.get("number")
        if not self.virtual(state):
            if number is not None:
                raise Refusal("use_the_dial", player=Who(p))
            return Outcome().say("use_dial", player=Who(p))
        if number is None:
            return self.offer_guess(state, p, str(cmd.intent.get("via", "guess")))
        return self.make_guess(state, p, self.guess_number(number), draws, Outcome())

    @staticmethod
    def guess_number(value: object) -> int:
        try:
            n = int(str(value))
        except ValueError:
            raise Refusal("bad_guess", number=str(value)) from None
        if not 1 <= n <= 6:
            raise Refusal("bad_guess", number=n)
        return n

    def do_pay_to_guess(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """M100 to the bank, then one guess. Without a number the fee is checked now and
        taken with the guess, so a question that lapses costs nothing."""
        p, number = cmd.player, cmd.intent.get("number")
        fee = self.edition.fees["pay_to_guess"]
        self.require_cash(state, p, fee)
        paid = Outcome(events=self.pay(p, "bank", fee)).say(
            "paid_to_guess", player=Who(p), amount=Money(fee), cash=Money(state.cash(p) - fee))
        if not self.virtual(state):
            return paid.say("use_dial", player=Who(p))
        if number is None:
            then = Command(p, Intent("pay_to_guess", {}))
            return Outcome(question=Question(
                "ask_guess", p, "number", then, lapses=True, timeout=GUESS_TIMEOUT,
                params={"player": Who(p), "on_timeout": "no_guess"}))
        n = self.guess_number(number)
        return self.make_guess(fold(state, paid.events), p, n, draws, paid)

    def make_guess(self, state: GameState, p: str, n: int, draws: Draws, out: Outcome) -> Outcome:
        if n != state.vault_code:
            out.events.append(GuessMade(p, n, False))
            tried = sorted({*state.guessed, n})
            return out.say("guess_wrong_again" if n in state.guessed else "guess_wrong",
                           player=Who(p), number=n, tried=", ".join(str(x) for x in tried))
        out.events.append(GuessMade(p, n, True))
        return self.open_vault(state, p, draws, out)

    def do_open_vault(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if self.virtual(state):
            raise Refusal("virtual_vault")
        return self.open_vault(state, cmd.player, draws, Outcome())

    def open_vault(self, state: GameState, p: str, draws: Draws, out: Outcome) -> Outcome:
        """The finder takes everything; the bank refills it (1 key and 1 hotel if the box
        still has them, M400); the virtual vault draws a new code. A key: which street?"""
        cash, keys = state.vault_cash, state.vault_items.get("key", 0)
        hotels = state.vault_items.get("hotel", 0)
        events = out.events
        events += self.pay("vault", p, cash)
        if keys:
            events.append(ItemsMoved("key", "vault", p, keys))
        if hotels:
            events.append(ItemsMoved("hotel", "vault", p, hotels))
        for item, n in self.vault_items().items():
            take = min(n, state.box.get(item, 0))
            if take:
                events.append(ItemsMoved(item, "box", "vault", take))
        events += self.pay("bank", "vault", self.edition.fees["vault_refill"])
        out.say("vault_opened", player=Who(p), amount=Money(cash), keys=counted(keys, "key"),
                hotels=counted(hotels, "hotel"), cash=Money(state.cash(p) + cash))
        if self.virtual(state):
            code, drawn = self.draw(state, draws, "vault_code", CODES)
            events += [drawn, VaultCodeSet(int(code))]
        else:
            out.say("vault_reset_physical")
        left = self.locked_left(state) if keys else []
        if len(left) == 1:  # nothing to choose: the key opens the last locked street now
            out.events += [StreetUnlocked(left[0], source=p), OwnerChanged(left[0], p)]
            out.say("unlocked", player=Who(p), street=left[0])
        elif left:
            then = Command(p, Intent("use_key", {}))
            out.question = Question("ask_key", p, "property", then, tuple(left), lapses=True,
                                    params={"player": Who(p), "streets": left})
        return out

    def do_guesses(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        if not self.virtual(state):
            return Outcome().say("guesses_physical")
        if not state.guessed:
            return Outcome().say("guesses_none")
        return Outcome().say("guesses", numbers=", ".join(str(n) for n in sorted(state.guessed)),
                             left=", ".join(str(n) for n in range(1, 7)
                                            if n not in state.guessed))
