"""Jackpot's Chance: a betting round, then the spinner (virtual or physical) and its outcome.

"chance" opens the round (``Outcome.hold``), bets move cash to ``stake:<token>``, and only the
taker's "spin" / "the spinner says ..." settles it (``resolve_spin``). The Session gathers the
round into one transaction and tells us the taker in the ``held_by`` slot. Outcomes that need
the taker's choice (build, steal, swap house, swap cash) ask, and the round stays open.
"""

from __future__ import annotations

from collections.abc import Mapping

from banker.rules.events import Event, JailChanged, OwnerChanged
from banker.rules.jackpot_core import GIVE_UP, JackpotCore, _Ledger
from banker.rules.outcome import Command, Draws, Hold, Intent, Money, Outcome, Question, Refusal, Who
from banker.rules.state import GameState

BETTING = frozenset({"bet", "spin", "spinner"})
CHOICE_INTENTS = {"build house": "build_house", "steal house": "steal_house",
                  "swap house": "swap_house", "swap cash": "swap_cash"}


class SpinnerRules(JackpotCore):
    """The betting round and the spinner."""

    def betting(self, taker: str) -> Hold:
        return Hold("betting", taker, BETTING)

    def taker(self, cmd: Command, only_taker: bool) -> str:
        """The player who took the chance now being bet on (the Session's ``held_by``)."""
        taker = cmd.intent.get("held_by")
        if not taker:
            raise Refusal("no_betting")
        if only_taker and cmd.player != taker:
            raise Refusal("only_taker", player=Who(taker))
        return str(taker)

    def do_chance(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """Opens the betting round. Players in jail can't take a chance (``Rules.decide``
        refuses every landing command in jail) nor bet."""
        return Outcome(hold=self.betting(cmd.player)).say("place_bets", player=Who(cmd.player))

    def do_bet(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """A bet of whole $100 bills up to the bettor's cash (plus a stake being replaced). A
        second bet replaces the first; "bet 0", "no bet" (no amount) withdraw."""
        taker = self.taker(cmd, only_taker=False)
        p = cmd.player
        if self.jailed(state, p):
            raise Refusal("jail_no_bet", player=Who(p))
        raw = cmd.intent.get("amount")
        n = int(raw) if raw is not None else 0
        if n < 0:
            raise Refusal("bad_amount", amount=Money(n))
        self.check_amount(n)
        old = state.stakes.get(p, 0)
        available = state.cash(p) + old
        if n > available:
            raise Refusal("bet_too_high", amount=Money(n), cash=Money(available))
        ledger = _Ledger(state)
        if n > old:
            ledger.move(p, f"stake:{p}", n - old)
        else:
            ledger.move(f"stake:{p}", p, old - n)
        out = Outcome(events=ledger.events, hold=self.betting(taker))
        if n:
            return out.say("bet_placed" if not old else "bet_changed", player=Who(p),
                           amount=Money(n), cash=ledger.cash(p))
        return out.say("bet_withdrawn" if old else "no_bet", player=Who(p), cash=ledger.cash(p))

    def do_spin(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The virtual spinner: one of the 16 segments and one of the 16 streets (Hot House),
        each uniformly at random; recorded as draws so replay never re-draws."""
        taker = self.taker(cmd, only_taker=True)
        outcome, e1 = self.draw(state, draws, "spin", self.segments,
                                forced_ok=lambda v: v in self.outcomes)
        hot, e2 = self.draw(state, draws, "hot_house", self.edition.street_names,
                            forced_ok=lambda v: v == "none")
        return self.resolve_spin(state, taker, outcome, None if hot == "none" else hot, [e1, e2])

    def do_spinner(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """The physical spinner's result said aloud (outcome, and the Hot House if any)."""
        taker = self.taker(cmd, only_taker=True)
        outcome = cmd.intent.get("outcome")
        if not outcome or str(outcome) not in self.outcomes:
            raise Refusal("which_outcome")
        hot = cmd.intent.get("property")
        if hot is not None and hot not in self.edition.street_names:
            raise Refusal("not_on_board", street=hot)
        return self.resolve_spin(state, taker, str(outcome), hot, [])

    def resolve_spin(self, state: GameState, taker: str, outcome: str, hot: str | None,
               drawn: list[Event]) -> Outcome:
        """Everything the spin decides, in the seed's order: the Hot House bonus first, then
        the outcome (pay-outs from the taker round to the left). Outcomes needing a choice
        return every stake first and ask; the round's transaction stays open until answered."""
        ledger = _Ledger(state, drawn)
        out = Outcome().say("spin_result", outcome=outcome, player=Who(taker))
        if hot is not None:
            self._hot_house(ledger, out, hot)
        order = [taker, *state.left_of(taker)]
        stakes = {t: state.stakes[t] for t in order if state.stakes.get(t, 0) > 0}
        if outcome in CHOICE_INTENTS:
            self._stakes_back(ledger, out, stakes)
            question = None if ledger.dry else self._choice(ledger.after, taker, outcome, out)
            if question is not None:
                out.events, out.question = ledger.events, question
                out.hold = Hold("betting", taker, frozenset())  # only the answer goes on
                return out
            if ledger.dry:
                out.say("choice_skipped", player=Who(taker))
            return self._finish(state, ledger, out)
        mult = self.payout(outcome)
        if not stakes and (mult or outcome in ("pass left", "pass right", "pay jackpot")):
            out.say("no_bets")
        elif mult:
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", t, s)
                paid = ledger.from_bank(t, mult * s)
                key = "payout" if paid == mult * s else "payout_short" if paid else "payout_none"
                out.say(key, player=Who(t),
                        amount=Money(paid), owed=Money(mult * s), stake=Money(s),
                        cash=ledger.cash(t))
        elif outcome in ("pass left", "pass right"):
            self._pass(ledger, out, stakes, left=outcome == "pass left")
        elif outcome == "pay jackpot":
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", "jackpot", s)
            out.say("stakes_to_jackpot", amount=Money(sum(stakes.values())),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "go to jail":
            ledger.move(f"stake:{taker}", "jackpot", stakes.get(taker, 0))
            self._stakes_back(ledger, out, {t: s for t, s in stakes.items() if t != taker})
            ledger.add(JailChanged(taker, True, 0))
            out.say("spin_jail", player=Who(taker), amount=Money(stakes.get(taker, 0)),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "bankrupt":
            lost = stakes.get(taker, 0) + ledger.after.cash(taker)
            ledger.move(f"stake:{taker}", "jackpot", stakes.get(taker, 0))
            ledger.move(taker, "jackpot", ledger.after.cash(taker))
            self._stakes_back(ledger, out, {t: s for t, s in stakes.items() if t != taker})
            out.say("spin_bankrupt", player=Who(taker), amount=Money(lost),
                    jackpot=Money(ledger.after.jackpot))
        elif outcome == "jackpot":
            won = ledger.after.jackpot
            ledger.move("jackpot", taker, won)
            for t, s in stakes.items():
                ledger.move(f"stake:{t}", taker, s)
            out.say("spin_jackpot", player=Who(taker), amount=Money(won),
                    stakes=Money(sum(stakes.values())), cash=ledger.cash(taker))
        return self._finish(state, ledger, out)

    def _hot_house(self, ledger: _Ledger, out: Outcome, street: str) -> None:
        owner = ledger.after.owner(street)
        if owner is None:
            out.say("hot_house_unowned", street=street)
        elif self.jailed(ledger.after, owner):
            out.say("hot_house_jail", street=street, player=Who(owner))
        else:
            bonus = self.hot_house_bonus(ledger.after, street, owner)
            paid = ledger.from_bank(owner, bonus)
            out.say("hot_house" if paid == bonus else "hot_house_short", street=street,
                    player=Who(owner), amount=Money(paid), owed=Money(bonus),
                    cash=ledger.cash(owner))

    def _stakes_back(self, ledger: _Ledger, out: Outcome, stakes: Mapping[str, int]) -> None:
        for t, s in stakes.items():
            ledger.move(f"stake:{t}", t, s)
            out.say("stake_back", player=Who(t), amount=Money(s), cash=ledger.cash(t))

    def _pass(self, ledger: _Ledger, out: Outcome, stakes: Mapping[str, int], left: bool) -> None:
        """Each bettor's stake goes to the next *bettor* that way (non-bettors are skipped);
        a lone bettor keeps their stake. ``stakes`` is in turn order from the taker."""
        bettors = list(stakes)
        if len(bettors) == 1:
            self._stakes_back(ledger, out, stakes)
            return
        if not left:  # said in the direction of the passing: the taker's side first
            bettors = bettors[:1] + bettors[:0:-1]
        for i, t in enumerate(bettors):
            to = bettors[(i + 1) % len(bettors)]
            ledger.move(f"stake:{t}", to, stakes[t])
            out.say("stake_passed", player=Who(t), to=Who(to), amount=Money(stakes[t]))
        for t in bettors:
            out.say("balance", player=Who(t), cash=ledger.cash(t))

    # --- Chance: outcomes that need the taker's choice ------------------------------------
    def _choice(self, state: GameState, taker: str, outcome: str, out: Outcome) -> Question | None:
        """The question an outcome asks (or None, with the reason said, when there's no choice)."""
        then = Command(taker, Intent(CHOICE_INTENTS[outcome], {"held_by": taker, "spun": outcome}))
        mine = state.owned_by(taker)
        theirs = [n for n in self.edition.street_names if state.owner(n) not in (None, taker)]
        if outcome == "build house":
            free = [n for n in self.edition.street_names if state.owner(n) is None]
            if free:
                return self.ask("ask_build", taker, "property", then, free, player=Who(taker))
            out.say("no_build", player=Who(taker))
        elif outcome == "steal house":
            if theirs:
                return self.ask("ask_steal", taker, "property", then, theirs, player=Who(taker))
            else:
                out.say("no_steal", player=Who(taker))
        elif outcome == "swap house":
            if mine and theirs:
                return self.ask("ask_swap_give", taker, "give", then, mine, player=Who(taker))
            out.say("no_swap", player=Who(taker))
        else:  # swap cash
            others = [t for t in state.left_of(taker)]
            if others:
                return self.ask("ask_swap_cash", taker, "player", then, others, player=Who(taker))
        return None

    def spun(self, cmd: Command, outcome: str) -> str:
        """The taker, if this command answers the spinner's ``outcome``; refused otherwise (the
        choice commands exist only as answers to the spin)."""
        if cmd.intent.get("spun") != outcome or not cmd.intent.get("held_by"):
            raise Refusal("only_on_spin", outcome=outcome)
        return str(cmd.intent.get("held_by"))

    def _choice_done(self, state: GameState, ledger: _Ledger, out: Outcome) -> Outcome:
        return self._finish(state, ledger, out)  # hold None: the round's transaction commits

    def _keep_asking(self, question: Question, taker: str) -> Outcome:
        return Outcome(question=question, hold=Hold("betting", taker, frozenset()))

    def do_build_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"build house": one of your houses on an unowned street, free. With all 10 houses
        out, one is moved (asked); "none" leaves the street unowned."""
        taker = self.spun(cmd, "build house")
        ledger, out = _Ledger(state), Outcome()
        if cmd.intent.get("property") in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        street = self.street(cmd)
        if state.owner(street) is not None:
            raise Refusal("already_owned", street=street, player=Who(state.owner(street) or ""))
        vacate, question = self.room(state, cmd, taker, "give", "ask_move_house", street=street)
        if question is not None:
            return self._keep_asking(question, taker)
        if vacate == "none":
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        self._receive(ledger, out, street, taker, vacate)
        out.say("built", player=Who(taker), street=street)
        return self._choice_done(state, ledger, out)

    def do_steal_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"steal house": another player's street becomes yours; their house goes back to their
        supply. A thief who already holds 10 streets still steals (the rulebook: "you CAN
        still steal"): asked which of their own streets to vacate; "none" leaves the stolen
        street unowned."""
        taker = self.spun(cmd, "steal house")
        ledger, out = _Ledger(state), Outcome()
        if cmd.intent.get("property") in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        street = self.street(cmd)
        victim = state.owner(street)
        if victim is None or victim == taker:
            raise Refusal("steal_whose", street=street)
        vacate, question = self.room(state, cmd, taker, "give", "ask_vacate", street=street)
        if question is not None:
            return self._keep_asking(question, taker)
        out.say("stolen", player=Who(taker), street=street, other=Who(victim))
        self._receive(ledger, out, street, taker, vacate)
        return self._choice_done(state, ledger, out)

    def do_swap_house(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"swap house": one of your streets for another player's (asked one at a time, or
        both at once: "swap Baltic Avenue for Park Place")."""
        taker = self.spun(cmd, "swap house")
        ledger, out = _Ledger(state), Outcome()
        give, get = cmd.intent.get("give"), cmd.intent.get("get")
        if give in GIVE_UP or get in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        give = self.street(cmd, "give")
        if state.owner(give) != taker:
            raise Refusal("not_your_street", street=give)
        if get is None:
            theirs = [n for n in self.edition.street_names if state.owner(n) not in (None, taker)]
            return self._keep_asking(self.ask("ask_swap_get", taker, "get", cmd, theirs,
                                              player=Who(taker), street=give), taker)
        get = self.street(cmd, "get")
        other = state.owner(get)
        if other is None or other == taker:
            raise Refusal("swap_whose", street=get)
        ledger.add(OwnerChanged(give, other), OwnerChanged(get, taker))
        out.say("swapped_houses", player=Who(taker), give=give, get=get, other=Who(other))
        return self._choice_done(state, ledger, out)

    def do_swap_cash(self, state: GameState, cmd: Command, draws: Draws) -> Outcome:
        """"swap cash": all of your cash for all of another player's (stakes already back)."""
        taker = self.spun(cmd, "swap cash")
        ledger, out = _Ledger(state), Outcome()
        other = cmd.intent.get("player")
        if other in GIVE_UP:
            return self._choice_done(state, ledger, out.say("choice_given_up", player=Who(taker)))
        if other not in state.players or other == taker or state.players[other].out:
            raise Refusal("swap_whom", player=Who(str(other or "")))
        mine, theirs = state.cash(taker), state.cash(other)
        ledger.move(taker, other, mine)
        ledger.move(other, taker, theirs)
        out.say("swapped_cash", player=Who(taker), other=Who(other), cash=ledger.cash(taker),
                other_cash=ledger.cash(other))
        return self._choice_done(state, ledger, out)
