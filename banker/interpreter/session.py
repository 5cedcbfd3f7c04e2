"""The table session: one game in progress, between the front ends and the rules core.

Receives presses and utterances (typed text, transcript text, or recognised speech) and the
clock's ticks; runs the dialogues of ``dialogues.md`` (questions, auctions, betting rounds,
two-step commands, "did you say…?", undo agreement); asks the pure rules core to decide;
writes each transaction to the journal *before* announcing it; says Mr. Monopoly's lines
through ``on_say``. ``understand`` tells what an utterance would be and changes nothing;
``hear``/``press``/``command`` act. The dialogues live beside it: ``questions``/``answers``,
``auction``, ``betting``, ``undo``; what a command is (legal, risk) in ``policy``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from banker.editions.model import Edition
from banker.interpreter import counterparts, dialogue_state, prior, questions, session_commands, wording
from banker.interpreter.answers import Answers
from banker.interpreter.auction import Auction, Auctions
from banker.interpreter.betting import Betting
from banker.interpreter.clock import Clock, RealClock, Timers, VirtualClock
from banker.interpreter.dialogue_notes import DialogueNotes
from banker.interpreter.hearing import Hearing, Said, Utterance, judge, rare_checked, twin_checked
from banker.interpreter.policy import MONEY_REFUSALS, SESSION_INTENTS, Policy, in_hold, plain
from banker.interpreter.questions import ANSWER_TIMEOUT, Confirm, Pending, RuleQuestion
from banker.interpreter.replies import Replies, load_replies
from banker.ledger import Journal, JournalWriteError, Transaction
from banker.nlu.matcher import Matcher
from banker.nlu.normalize import normalize
from banker.rules import (
    QUERIES,
    Command,
    Draws,
    Hold,
    Intent,
    Line,
    Outcome,
    Question,
    Refusal,
    Rules,
    Who,
    fold,
    rules_for,
)
from banker.rules.events import VaultCodeSet
from banker.rules.state import GameState

# what callers import from here (tests: Session, VirtualClock, ANSWER_TIMEOUT)
__all__ = ["ANSWER_TIMEOUT", "MONEY_REFUSALS", "Auction", "Clock", "Pending", "Session", "Step",
           "VirtualClock"]


@dataclass
class Step:
    """What one press/utterance led to (for transcript reports)."""

    heard: list[str] = field(default_factory=list)
    intent: str = "none"
    slots: dict[str, Any] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)
    refused: bool = False


class Session:
    """One game at the table."""

    def __init__(self, edition: Edition, players: list[str], *, options: Mapping[str, str] | None = None,
                 seed: int = 0, journal: Journal | None = None, clock: Clock | None = None,
                 on_say: Callable[[str], None] | None = None, rules: Rules | None = None,
                 matcher: Matcher | None = None, history: list[Transaction] | None = None) -> None:
        self.edition = edition
        self.rules = rules or rules_for(edition)
        self.base = self.rules.initial_state(players, dict(options or {}), seed)
        self.journal = journal
        self.clock = clock or RealClock()
        self.on_say = on_say or (lambda _t: None)
        self.replies = Replies(edition, load_replies(edition.id))
        self.matcher = matcher or Matcher.for_edition(edition)
        self.policy = Policy(self.rules, self.matcher.grammar)
        self.history: list[Transaction] = list(history or [])
        self.state = self.committed_state()
        self.forced: dict[str, Any] = {}
        self.notes = DialogueNotes(lambda: self.journal, lambda: dialogue_state.snapshot(self))
        self._pending: Pending | None = None
        self.auctions = Auctions(self)
        self.betting = Betting(self)
        self.answers = Answers(self)
        self.timers = Timers(self)
        self.repeat_buffer: list[str] = []
        self._tries: dict[str, tuple[float, tuple[prior.Reading, ...]]] = {}  # before "Sorry?"
        self.refused: dict[str, tuple[float, Command]] = {}  # "no" to "Did you say…?": when, what
        self.step = Step()
        self.total = self.state.total_money() if edition.money_total is not None else None

    # --- the dialogues' state, as attributes (tests and front ends read and reset them) ----
    @property
    def auction(self) -> Auction | None:
        return self.auctions.current

    @auction.setter
    def auction(self, value: Auction | None) -> None:
        self.auctions.current = value

    @property
    def auction_queue(self) -> list[str]:
        return self.auctions.queue

    @auction_queue.setter
    def auction_queue(self, value: list[str]) -> None:
        self.auctions.queue = value

    @property
    def hold(self) -> Hold | None:
        return self.betting.hold

    @hold.setter
    def hold(self, value: Hold | None) -> None:
        self.betting.hold = value

    @property
    def pending(self) -> Pending | None:
        return self._pending

    @pending.setter
    def pending(self, value: Pending | None) -> None:
        """The open question, journalled (a note) when it opens, again after another player's
        transaction, and when it ends without a transaction (no, lapsed, timed out) just
        before the next words: a resume says "interrupted" only about a question really open.
        Every question is noted (the rules', and the session's own: two-step prompt, "did you
        say…?", "which one?", undo agreement) unless an auction or betting round's note is."""
        old, self._pending = self._pending, value
        if old is value:
            return
        if old is not None and old.marked:
            self.notes.ended(old.marker())
        if value is not None and value.marked and self.notes.asked_again(value.marker()):
            return
        if value is not None and (isinstance(value, RuleQuestion)
                                  or (self.auction is None and self.hold is None)):
            value.marked = True
            self.notes.opened(value.marker())

    def committed_state(self) -> GameState:
        """The state of the journalled history (no open betting round)."""
        return fold(self.base, [e for tx in self.history for e in tx.events])

    # ------------------------------------------------------------------------------------
    # output
    def say(self, key: str, **params: Any) -> str:
        return self.say_line(Line(key, params))

    def say_line(self, line: Line) -> str:
        self.notes.flush()
        text = self.replies.render(line)
        self.step.said.append(text)
        self.on_say(text)
        return text

    def announce(self, said: list[str]) -> None:
        """Say already rendered lines (a transaction's, or the last one's again on resume)."""
        self.notes.flush()
        for text in said:
            self.step.said.append(text)
            self.on_say(text)

    def refuse(self, key: str, **params: Any) -> None:
        self.step.refused = True
        if key == "auction_busy_line":
            self.say("auction_busy")
            return
        self.say("refused." + key, **params)

    # ------------------------------------------------------------------------------------
    # inputs
    def begin_step(self) -> Step:
        self.step = Step()
        return self.step

    def not_heard(self, player: str) -> None:
        """Speech in which the recogniser found no words: "Sorry?". To a question put to this
        player it is an answer not understood (``Answers.not_understood``); the player's
        earlier try, if any, still counts with the next one."""
        self.tick()
        player = self.seat(player)
        if self.pending is not None and player in self.pending.asked:
            self.answers.not_understood(self.pending)
            return
        self.say("sorry")

    def press(self, player: str) -> None:
        """A bare button press: a bid in an auction, "yes" to a question asked of this player."""
        self.tick()
        player = self.seat(player)
        p = self.pending
        if (self.auction is not None and isinstance(p, Confirm) and player in p.asked
                and p.command.name == "bid"):
            # "Did you say bid 300?": the speaker's press is the yes, not a bid of its own
            self.step.intent = "yes"
            self.answers.answer_yes(player)
            return
        if self.auction is not None:
            self.step.intent = "bid"
            self.auctions.bid(player, None)
            return
        if p is not None and player in p.asked and p.wants_yes():
            self.step.intent = "yes"
            self.answers.answer_yes(player)

    def understand(self, heard: str | Utterance, player: str | None = None) -> Hearing:
        """What ``heard`` (typed text, or a recogniser's ``Heard``) would be as a command of
        ``player`` (default: the first in turn order) now: accept, confirm or reject. Changes
        nothing (an open question is not considered)."""
        return self._weigh(Said(heard, None) if isinstance(heard, str) else heard, player, ())[0]

    def _weigh(self, heard: Utterance, player: str | None, earlier: tuple[prior.Reading, ...]
               ) -> tuple[Hearing, tuple[prior.Reading, ...]]:
        """The best reading's hearing, weighed with the others and the try before "Sorry?"."""
        who = self.seat(player) if player is not None else self.state.order[0]
        legal, text, conf = (lambda i, s: self.legal(who, i, s)), heard.text, heard.confidence
        judged = partial(judge, risk_of=self.policy.risk, legal=legal, requires=self.policy.requires)
        top = judged(self.matcher.match(text), conf)
        if conf is None:
            return top, ()
        rs = prior.combine(earlier, prior.readings(
            ((text, conf), *getattr(heard, "alternatives", ())), self.matcher.match, legal))
        hearing = prior.weigh(top, rs, judged, questions.differing_slot_names)
        if ((hearing.decision == "confirm" and not hearing.choose and hearing.intent == "bid"
                and self.auction is None)  # "Did you say bid M152?" could only be refused
                or hearing.intent == "answer"):  # a bare name, nothing asked: talk
            return Hearing("reject", "none", confidence=hearing.confidence), rs
        hearing = rare_checked(twin_checked(hearing, legal), legal)
        return counterparts.at_the_table(hearing, self.state.seated, who, partial(
            self.policy.why_not, self.state, who, forced=self.forced, hold=self.hold)), rs

    def hear(self, player: str, text: str, confidence: float | None = None,
             alternatives: tuple[tuple[str, float], ...] = ()) -> None:
        """An utterance after a press: the recogniser's confidence (None: typed text) and
        other readings (``Heard.alternatives``)."""
        self.tick()
        player = self.seat(player)
        self.step.heard.append(text)
        earlier, refused = self._tries.pop(player, (0.0, ())), self.refused.pop(player, None)
        if (self.pending is not None and player in self.pending.asked
                and self.answers.try_answer(player, text, confidence)):
            return
        hearing, rs = self._weigh(Said(text, confidence, alternatives), player, earlier[1]
                                  if self.clock.now() - earlier[0] <= ANSWER_TIMEOUT else ())
        if hearing.decision == "reject":
            self.step.intent = "none"
            if (self.pending is not None and player in self.pending.asked and self.pending.lapses
                    and confidence is None):  # speech not understood changes nothing
                self.pending = None
            if confidence is not None:  # the next try counts this one too
                self._tries[player] = (self.clock.now(), prior.remembered(rs))
            self.say("sorry")
            return
        if hearing.instead is not None:  # "Racecar isn't playing in this game." first
            self.say(f"refused.{hearing.instead[0]}", player=Who(hearing.instead[1]))
        hearing = questions.unless_refused(hearing, refused, confidence, self.clock.now())
        huge = questions.far_beyond(hearing, self.edition.money_total)
        if huge is not hearing and not self.legal(player, hearing.intent, hearing.slots):
            huge = hearing  # the rules refuse it anyway: the reason is said at once
        if huge is not hearing or (hearing.decision == "confirm" and confidence is not None
                                   and not hearing.choose):
            hearing = huge
            questions.ask_confirm(self, player, hearing)
            return
        if hearing.candidates and len(hearing.candidates) > 1:
            questions.ask_choose(self, player, hearing)
            return
        self.command(Command(player, Intent(hearing.intent, dict(hearing.slots))))

    def force(self, kind: str, value: Any) -> None:
        """A transcript's ``next:``: the next random draw of ``kind`` comes out as ``value``."""
        if kind == "vault_code":
            self._commit(Transaction(None, "force", {"vault_code": int(value)},
                                     [VaultCodeSet(int(value))], [], []))
            return
        if kind == "chance":
            value = self.card_id(str(value))
        self.forced[kind] = value

    def card_id(self, value: str) -> str:
        for c in self.edition.chance:
            if value == c.id or normalize(value) == normalize(c.title):
                return c.id
        return value

    # ------------------------------------------------------------------------------------
    # the clock (``clock.Timers``)
    def deadline(self) -> float | None:
        return self.timers.deadline()

    def tick(self) -> None:
        """Fire every timer that is due (auction calls, answer time-outs)."""
        self.timers.tick()

    def advance(self, seconds: float) -> None:
        """Virtual clock only: let ``seconds`` pass, firing timers at their own times."""
        self.timers.advance(seconds)

    def finish(self) -> None:
        """End of a transcript: an open auction closes as if 6 s had passed."""
        self.timers.finish()

    # ------------------------------------------------------------------------------------
    # commands
    def command(self, cmd: Command) -> None:
        """Handle one understood command (after matching and any confirmation)."""
        self.step.intent, self.step.slots = cmd.name, dict(cmd.intent.slots)
        name = cmd.name
        if self.auction is not None and name not in QUERIES and name != "bid":
            self.refuse("auction_busy_line")
            return
        if name == "bid":
            if self.auction is None:
                self.refuse("no_auction")
                return
            self.auctions.bid(cmd.player, cmd.intent.get("amount"))
            return
        if name in SESSION_INTENTS:
            session_commands.run(self, cmd)
            return
        if self.pending is not None and name not in QUERIES:
            if not self.pending.lapses:
                asked = sorted(self.pending.asked)
                self.say("refused.waiting", asked=Who(asked[0]) if asked else Who(""))
                self.step.refused = True
                return
            self.pending = None if self.pending.dropped_by(cmd.player) else self.pending
        if self.hold is not None and name not in QUERIES and name not in self.hold.allowed:
            self.refuse("hold_busy", kind=self.hold.kind)
            return
        cmd = in_hold(cmd, self.hold)
        for slot in self.policy.requires(name):
            if cmd.intent.get(slot) is None and not (name == "spinner" and slot == "outcome"):
                questions.ask_slot(self, cmd, slot)
                return
        self.decide_and_apply(cmd)

    def legal(self, player: str, intent: str, slots: Mapping[str, Any]) -> bool:
        """Would the rules accept this command of ``player`` now (``Policy.legal``; a bid
        only in an auction)?"""
        return (intent != "bid" or self.auction is not None) and self.policy.legal(
            self.state, player, intent, slots, forced=self.forced, hold=self.hold)

    def decide(self, cmd: Command, *, flag: bool = True, quiet: bool = False
               ) -> tuple[Outcome, Draws] | None:
        """The one place the rules decide a command for real. A refusal is said (unless
        ``quiet``; ``flag`` marks the step refused) and gives None."""
        t = self.policy.trial(self.state, cmd, self.forced)
        if t.outcome is None:
            r = self.policy.clearer(self.state, cmd, t.refusal or Refusal("internal"), self.forced)
            if flag:
                self.step.refused = True
            if not quiet:
                self.say_line(Line("refused." + r.code, r.params))
            return None
        return t.outcome, t.draws

    def decide_and_apply(self, cmd: Command) -> None:
        decided = self.decide(cmd)
        if decided is not None:
            self.apply(cmd, *decided)

    def apply(self, cmd: Command, out: Outcome, draws: Draws) -> None:
        """A decided outcome: held in a betting round, committed and said, or only said."""
        if cmd.name == "status":  # about a pot: not the ranking; in an auction: its bid
            out.lines = wording.status_lines(self, out.lines)
        said = [self.replies.render(line) for line in out.lines]
        if out.hold is not None or (self.hold is not None and cmd.name not in QUERIES):
            # (a query during a betting round answers without ending it)
            self.betting.held(cmd, out, said, draws)
            return
        if out.events:
            self.commit_and_announce(self.transaction(cmd, out, said), draws, said, then=(cmd, out))
            return
        self.announce(said)
        self.follow_up(cmd, out)

    def transaction(self, cmd: Command, out: Outcome, said: list[str],
                    intent: str | None = None) -> Transaction:
        return Transaction(cmd.player, intent or cmd.name, plain(cmd.intent.slots),
                           list(out.events), said, sorted(out.participants))

    def commit_and_announce(self, tx: Transaction, draws: Draws, said: list[str],
                            then: tuple[Command, Outcome] | None = None) -> bool:
        """The one way from a decision to words: journal the transaction (if that fails it
        is not applied and not announced), apply it, use up its forced draws, say it, then
        ask what follows (``then``: the rules' question, auctions)."""
        if not self._commit(tx):
            return False
        self.use_draws(draws)
        self.announce(said)
        if then is not None:
            self.follow_up(*then)
        return True

    def use_draws(self, draws: Draws) -> None:
        for k in draws.used:
            self.forced.pop(k, None)

    def follow_up(self, cmd: Command, out: Outcome) -> None:
        if out.question is not None:
            self.ask_rule(out.question)
        if out.auctions:
            self.auctions.queue_up(out.auctions, cmd.player)
        self.ask_owed()

    def ask_owed(self, again: bool = False) -> None:
        """The question an open debt asks, from the state (``questions.ask_owed``)."""
        questions.ask_owed(self, again)

    def _commit(self, tx: Transaction) -> bool:
        """Journal, then apply. Nothing is applied if the journal can't store it."""
        if self.journal is not None:
            try:
                tx.seq = self.journal.append(tx)
            except JournalWriteError as exc:
                self.step.refused = True
                self.say("refused." + exc.code)
                return False
        else:
            tx.seq = len(self.history) + 1
        self.notes.committed(self._pending)
        self.history.append(tx)
        self.state = fold(self.state, tx.events)
        return True

    # ------------------------------------------------------------------------------------
    # session-level intents
    # ------------------------------------------------------------------------------------
    # questions
    def asked_players(self) -> frozenset[str]:
        return self.pending.asked if self.pending is not None else frozenset()

    def expecting(self, token: str = "") -> tuple[str, frozenset[str]]:
        """What the banker waits for from ``token`` (the player about to speak), for the
        recogniser's grammar: (kind, who); kind ``bid`` (an auction: but "Did you say bid
        M300?" waits for the bidder's yes or no), ``yes_no``, ``street``, ``number``,
        ``player``, ``amount`` or ``any``."""
        p = self.pending
        if self.auction is not None and not (p and token in p.asked and p.wants_yes()):
            return "bid", frozenset(self.state.seated)
        if p is None:
            return "any", frozenset(self.state.seated)
        return p.expecting(), p.asked

    def ask_rule(self, q: Question) -> None:
        questions.ask_rule(self, q)

    # ------------------------------------------------------------------------------------
    # helpers
    def seat(self, who: str) -> str:
        """A token id from a token id, a name or a seat number (1 = first in turn order)."""
        w = who.strip().lower()
        if w.isdecimal() and 1 <= int(w) <= len(self.state.order):
            return self.state.order[int(w) - 1]
        for t in self.edition.tokens:
            if w in (t.id, t.name.lower()) or normalize(w) in (normalize(t.name), normalize(t.id)):
                return t.id
        return w

    def example_token(self, speaker: str | None = None) -> str:
        """A token that is playing, for an example (see ``wording.example_token``)."""
        return wording.example_token(self.state, speaker)

    def hint(self) -> str:
        """The keyboard's hint for a line that names no player, with a token that plays."""
        return self.replies.render(Line("keyboard_hint", {"token": self.example_token()}))

    def describe(self, cmd: Command) -> str:
        """``cmd`` in words, for "Did you say …?"."""
        return wording.describe(self.replies, cmd, self.matcher.grammar)

    def slot_words(self, slots: Mapping[str, Any]) -> list[str]:
        return wording.slot_words(self.replies, slots)

    def announce_result(self) -> None:
        """A finished game's result: the ranking by the edition's measure, and the winner."""
        wording.announce_result(self)

    def interrupted(self, note: str) -> None:
        """Say what a crash interrupted (from the journal's last open dialogue note)."""
        wording.interrupted(self, note)

    def finish_step(self) -> Step:
        """Close the current step; what was said becomes what "repeat" repeats. The open
        dialogues are on disk as they stand (a stop may come next)."""
        self.notes.sync()
        step = self.step
        if step.intent != "repeat" and step.said:
            self.repeat_buffer = list(step.said)
        return step
