"""The table session: one game in progress, between the front ends and the rules core.

Receives presses and utterances (typed text, transcript text, or recognised speech) and the
clock's ticks; runs the dialogues of ``dialogues.md`` (questions, auctions, betting rounds,
two-step commands, "did you say…?", undo agreement); asks the pure rules core to decide;
writes each transaction to the journal *before* announcing it; says Mr. Monopoly's lines
through ``on_say``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from banker.editions.model import Edition
from banker.interpreter.hearing import Hearing, judge
from banker.interpreter.replies import Replies, load_replies
from banker.ledger import Journal, JournalWriteError, Transaction
from banker.nlu.matcher import Ambiguous, Match, Matcher, NotRecognized, Recognized
from banker.nlu.normalize import PLACEHOLDER, normalize, with_placeholders
from banker.rules import (
    QUERIES,
    Command,
    Draws,
    Event,
    Hold,
    Intent,
    Line,
    Money,
    Outcome,
    Question,
    Refusal,
    Rules,
    Who,
    fold,
    rules_for,
)
from banker.rules.events import VaultCodeSet
from banker.rules.outcome import AllOf

SESSION_INTENTS = frozenset({"undo", "repeat", "help", "cancel", "yes", "no", "answer"})
SLOT_PROMPTS = {"property": "two_step", "give": "two_step_trade_give",
                "get": "two_step_trade_get", "amount": "refused.which_amount",
                "player": "two_step_player", "outcome": "two_step_outcome",
                "number": "ask_guess"}
MONEY_REFUSALS = frozenset({"cannot_afford", "bid_too_high"})
ANSWER_TIMEOUT = 10.0
AGREE_TIMEOUT = 30.0
# A spoken answer whose value was only found by spotting a name inside words that fit no
# sentence ("uh, Baltic I guess"): as sure as a poorly matched sentence, so a money command it
# completes is always confirmed first.
SPOTTED_SCORE = 80.0


class Clock(Protocol):
    def now(self) -> float: ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()


class VirtualClock:
    """The transcript clock: time passes only when told (``wait``)."""

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t


@dataclass
class Pending:
    """An open question of the session (not of the rules)."""

    kind: str  # confirm | choose | slot | rule | undo
    asked: frozenset[str]
    deadline: float | None
    command: Command | None = None  # what happens on yes / on a filled slot
    slot: str = ""
    candidates: tuple[Command, ...] = ()
    rule: Question | None = None
    lapses: bool = True
    on_timeout: str = ""  # reply key said when it lapses by time
    undo_seq: int = 0
    back: Pending | None = None  # confirm of a spoken answer: the question it answers
    marked: bool = False  # its opening is noted in the journal (a resume says it was cut short)

    def marker(self) -> str:
        """The journal's name for this question (``Session.interrupted`` reads it back)."""
        if self.kind == "rule" and self.rule is not None:
            return self.rule.key
        return f"question:{self.kind}"


@dataclass
class Auction:
    street: str
    started: float
    bidder: str | None = None
    amount: int = 0
    last: float = 0.0
    final_at: float | None = None
    starter: str | None = None


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
        self.history: list[Transaction] = list(history or [])
        self.state = fold(self.base, [e for tx in self.history for e in tx.events])
        self.forced: dict[str, Any] = {}
        self._closing: str | None = None  # a rules question ended: journal it unless a tx does
        self._pending: Pending | None = None
        self.auction: Auction | None = None
        self.auction_queue: list[str] = []
        self.hold: Hold | None = None
        self.hold_events: list[Event] = []
        self.hold_said: list[str] = []
        self.hold_command: Command | None = None
        self._repeat_buffer: list[str] = []
        self.step = Step()
        self.total = self.state.total_money() if edition.money_total is not None else None

    @property
    def pending(self) -> Pending | None:
        return self._pending

    @pending.setter
    def pending(self, value: Pending | None) -> None:
        """The open question. It is journalled (a note, not a transaction) when it opens, and
        when it ends without a transaction (answered "no", lapsed, timed out) just before Mr.
        Monopoly's next words, so that a resume says "interrupted" only about a question
        really open. (An answer's transaction closes it by itself; a kill before that keeps it
        open.) Every question is noted: the rules' questions, and the session's own (two-step
        prompt, "did you say…?", "which one?", undo agreement) unless an auction or a betting
        round is open - that dialogue's note already says what a kill would cut short."""
        old, self._pending = self._pending, value
        if old is value:
            return
        if old is not None and old.marked:
            self._closing = old.marker()
        if value is not None and (value.kind == "rule" or (self.auction is None and self.hold is None)):
            self._closing = None
            value.marked = True
            if self.journal is not None:
                self.journal.note("dialogue_open", value.marker())

    def _journal_closing(self) -> None:
        if self._closing is not None and self.journal is not None:
            self.journal.note("dialogue_closed", self._closing)
        self._closing = None

    # ------------------------------------------------------------------------------------
    # output
    def say(self, key: str, **params: Any) -> str:
        return self.say_line(Line(key, params))

    def say_line(self, line: Line) -> str:
        self._journal_closing()
        text = self.replies.render(line)
        self.step.said.append(text)
        self.on_say(text)
        return text

    def _start_answer(self) -> None:
        """Hook for a new answer (nothing to reset: steps collect what is said)."""

    # ------------------------------------------------------------------------------------
    # inputs
    def begin_step(self) -> Step:
        self.step = Step()
        return self.step

    def press(self, player: str) -> None:
        """A bare button press: a bid in an auction, "yes" to a question asked of this player."""
        self.tick()
        player = self._seat(player)
        p = self.pending
        if (self.auction is not None and p is not None and p.kind == "confirm"
                and player in p.asked and p.command is not None and p.command.name == "bid"):
            # "Did you say bid 300?": the speaker's press is the yes, not a bid of its own
            self.step.intent = "yes"
            self._start_answer()
            self._answer_yes(player)
            return
        if self.auction is not None:
            self.step.intent = "bid"
            self._start_answer()
            self._bid(player, None)
            return
        p = self.pending
        if p is not None and player in p.asked and p.kind in ("confirm", "undo", "rule") and (
                p.kind != "rule" or (p.rule is not None and p.rule.slot == "yes")):
            self.step.intent = "yes"
            self._start_answer()
            self._answer_yes(player)

    def hear(self, player: str, text: str, confidence: float | None = None) -> None:
        """An utterance after a press. ``confidence`` is the recogniser's (None: typed text)."""
        self.tick()
        player = self._seat(player)
        self.step.heard.append(text)
        self._start_answer()
        if self.pending is not None and player in self.pending.asked and self._try_answer(player, text, confidence):
            return
        match = self.matcher.match(text)
        hearing = judge(match, confidence, self._risk, lambda i, s: self._legal(player, i, s),
                        requires=self._requires)
        if hearing.decision == "reject":
            self.step.intent = "none"
            if (self.pending is not None and player in self.pending.asked and self.pending.lapses
                    and confidence is None):  # speech not understood changes nothing
                self._lapse()
            self.say("sorry")
            return
        if hearing.decision == "confirm" and confidence is not None:
            self._ask_confirm(player, hearing)
            return
        if hearing.candidates and len(hearing.candidates) > 1:
            self._ask_choose(player, hearing)
            return
        self.command(Command(player, Intent(hearing.intent, dict(hearing.slots))))

    def force(self, kind: str, value: Any) -> None:
        """A transcript's ``next:``: the next random draw of ``kind`` comes out as ``value``."""
        if kind == "vault_code":
            self._commit(Transaction(None, "force", {"vault_code": int(value)},
                                     [VaultCodeSet(int(value))], [], []), announce=False)
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
    # the clock
    def deadline(self) -> float | None:
        times: list[float] = []
        if self.auction is not None:
            a = self.auction
            spec = self.edition.auction
            times.append(a.final_at + spec.final_seconds if a.final_at is not None
                         else a.last + spec.quiet_seconds)
        if self.pending is not None and self.pending.deadline is not None:
            times.append(self.pending.deadline)
        return min(times) if times else None

    def tick(self) -> None:
        """Fire every timer that is due (auction calls, answer time-outs)."""
        for _ in range(100):
            due = self.deadline()
            if due is None or due > self.clock.now() + 1e-9:
                return
            self._fire(due)

    def _fire(self, due: float) -> None:
        a = self.auction
        spec = self.edition.auction
        if a is not None:
            if a.final_at is None and a.last + spec.quiet_seconds <= due + 1e-9:
                a.final_at = a.last + spec.quiet_seconds
                self.say("auction_final")
                return
            if a.final_at is not None and a.final_at + spec.final_seconds <= due + 1e-9:
                self._close_auction()
                return
        p = self.pending
        if p is not None and p.deadline is not None and p.deadline <= due + 1e-9:
            self.pending = None
            if p.kind == "confirm" and p.back is not None:
                if not p.back.lapses:  # "did you say Baltic Avenue?" unanswered: ask again
                    self._reask(p.back)
                    return
                p = p.back  # as if the question itself had run out
            if p.kind == "rule" and p.rule is not None and p.rule.key == "ask_agree":
                self.say("agree_timeout")
            elif p.on_timeout:
                self.say(p.on_timeout)
            return

    def advance(self, seconds: float) -> None:
        """Virtual clock only: let ``seconds`` pass, firing timers at their own times."""
        clock = self.clock
        assert isinstance(clock, VirtualClock)
        end = clock.t + seconds
        while True:
            due = self.deadline()
            if due is None or due > end:
                break
            clock.t = max(clock.t, due)
            self._fire(due)
        clock.t = end

    def finish(self) -> None:
        """End of a transcript: an open auction closes as if 6 s had passed."""
        if self.auction is not None and isinstance(self.clock, VirtualClock):
            spec = self.edition.auction
            self.advance(spec.quiet_seconds + spec.final_seconds + 0.01)

    # ------------------------------------------------------------------------------------
    # commands
    def command(self, cmd: Command) -> None:
        """Handle one understood command (after matching and any confirmation)."""
        self.step.intent, self.step.slots = cmd.name, dict(cmd.intent.slots)
        name = cmd.name
        if self.auction is not None and name not in QUERIES and name != "bid":
            self._refuse("auction_busy_line")
            return
        if name == "bid":
            if self.auction is None:
                self._refuse("no_auction")
                return
            self._bid(cmd.player, cmd.intent.get("amount"))
            return
        if name in SESSION_INTENTS:
            self._session_intent(cmd)
            return
        if self.pending is not None and name not in QUERIES:
            if not self.pending.lapses:
                asked = sorted(self.pending.asked)
                self.say("refused.waiting", asked=Who(asked[0]) if asked else Who(""))
                self.step.refused = True
                return
            self._lapse()
        if self.hold is not None and name not in QUERIES and name not in self.hold.allowed:
            self._refuse("hold_busy", kind=self.hold.kind)
            return
        cmd = self._in_hold(cmd)
        spec = self.matcher.grammar.intents.get(name)
        if spec is not None:
            for slot in spec.requires:
                if cmd.intent.get(slot) is None and not (name == "spinner" and slot == "outcome"):
                    self._ask_slot(cmd, slot)
                    return
        self._decide(cmd)

    def _decide(self, cmd: Command) -> None:
        draws = Draws(forced=dict(self.forced))
        try:
            out = self.rules.decide(self.state, cmd, draws)
        except Refusal as r:
            self.step.refused = True
            self.say_line(Line("refused." + r.code, r.params))
            return
        self._outcome(cmd, out, draws)

    def _outcome(self, cmd: Command, out: Outcome, draws: Draws) -> None:
        said = [self.replies.render(line) for line in out.lines]
        if out.hold is not None or (self.hold is not None and cmd.name not in QUERIES):
            # (a query during a betting round answers without ending it)
            self._held(cmd, out, said, draws)
            return
        if out.events:
            tx = Transaction(cmd.player, cmd.name, _plain(cmd.intent.slots), list(out.events),
                             said, sorted(out.participants))
            self._commit_and_say(tx, draws, said, cmd, out)
            return
        self._announce(said)
        self._follow_up(cmd, out)

    def _commit_and_say(self, tx: Transaction, draws: Draws, said: list[str], cmd: Command,
                        out: Outcome) -> None:
        """Journal the transaction, use up its forced draws, then say it and ask what follows."""
        if not self._commit(tx):
            return
        for k in draws.used:
            self.forced.pop(k, None)
        self._announce(said)
        self._follow_up(cmd, out)

    def _follow_up(self, cmd: Command, out: Outcome) -> None:
        if out.question is not None:
            self._ask_rule(out.question)
        if out.auctions:
            self.auction_queue.extend(out.auctions)
            if self.auction is None:
                self._open_next_auction(cmd.player)

    def _announce(self, said: list[str]) -> None:
        self._journal_closing()
        for text in said:
            self.step.said.append(text)
            self.on_say(text)

    def _held(self, cmd: Command, out: Outcome, said: list[str], draws: Draws) -> None:
        """A betting round: events gather in one open transaction until the hold ends."""
        if self.hold is None:
            self.hold_command = cmd
            if self.journal is not None:
                self.journal.note("dialogue_open", f"{out.hold.kind if out.hold else ''}")
        self.hold_events.extend(out.events)
        self.hold_said.extend(said)
        self.state = fold(self.state, list(out.events))
        if out.hold is not None:
            self.hold = out.hold
            for k in draws.used:  # drawn inside the open transaction (a spin): used up
                self.forced.pop(k, None)
            self._announce(said)
            self._follow_up(cmd, out)
            return
        # the round ends: one transaction for all of it
        start = self.hold_command or cmd
        events, everything = self.hold_events, self.hold_said
        committed = fold(self.base, [e for tx in self.history for e in tx.events])
        participants = sorted({t for t in self.state.players
                               if self.state.cash(t) != committed.cash(t)
                               or self.state.owned_by(t) != committed.owned_by(t)} | {start.player})
        self.state = committed
        self._clear_hold()
        tx = Transaction(start.player, start.name, _plain(start.intent.slots), events,
                         everything, participants)
        self._commit_and_say(tx, draws, said, cmd, out)

    def _clear_hold(self) -> None:
        self.hold, self.hold_events, self.hold_said, self.hold_command = None, [], [], None

    def _commit(self, tx: Transaction, announce: bool = True) -> bool:
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
        self._closing = None  # a transaction closes any dialogue in the journal
        self.history.append(tx)
        self.state = fold(self.state, tx.events)
        return True

    def _refuse(self, key: str, **params: Any) -> None:
        self.step.refused = True
        if key == "auction_busy_line":
            self.say("auction_busy")
            return
        self.say("refused." + key, **params)

    # ------------------------------------------------------------------------------------
    # session-level intents
    def _session_intent(self, cmd: Command) -> None:
        name = cmd.name
        if name == "repeat":
            previous = list(self._repeat_buffer)
            if not previous:
                self.say("nothing_to_repeat")
                return
            self._announce(previous)
            return
        if name == "help":
            self.say("help")
            return
        if name == "undo":
            self._undo(cmd.player)
            return
        if name == "cancel":
            if self.hold is not None and cmd.player == self.hold.owner:
                self.state = fold(self.base, [e for tx in self.history for e in tx.events])
                if self.journal is not None:
                    self.journal.note("dialogue_closed", self.hold.kind)
                self._clear_hold()
                self.say("cancelled")
                return
            if self.hold is not None and self.pending is None:
                self._refuse("hold_owner_only", player=Who(self.hold.owner))
                return
            if self.pending is not None and (cmd.player in self.pending.asked or self.pending.lapses):
                self.pending = None  # a question that never lapses is cancelled only by its addressee
            self.say("cancelled")
            return
        # yes / no / answer with nothing asked of this player
        self.say("sorry")

    def _undo(self, player: str) -> None:
        if self.hold is not None:
            self._refuse("hold_busy", kind=self.hold.kind)
            return
        if self.auction is not None:
            self._refuse("auction_busy_line")
            return
        undoable = [tx for tx in self.history if tx.intent != "force"]
        if not undoable:
            self.say("nothing_to_undo")
            return
        tx = undoable[-1]
        if player in tx.participants or not tx.participants:
            self._do_undo(tx, player)
            return
        asked = frozenset(tx.participants)
        self.pending = Pending("undo", asked, self.clock.now() + ANSWER_TIMEOUT,
                               undo_seq=tx.seq, on_timeout="undo_declined")
        self.say("undo_confirm", player=Who(player), what=_what(tx),
                 asked=Who(tx.participants[0]))

    def _do_undo(self, tx: Transaction, player: str | None) -> None:
        if self.journal is not None:
            try:
                self.journal.append_undo(tx.seq, player)
            except JournalWriteError as exc:
                self.say("refused." + exc.code)
                return
        self.history = [t for t in self.history if t.seq != tx.seq]
        self.state = fold(self.base, [e for t in self.history for e in t.events])
        self.say("undone", what=_what(tx))

    # ------------------------------------------------------------------------------------
    # questions
    def asked_players(self) -> frozenset[str]:
        return self.pending.asked if self.pending is not None else frozenset()

    def expecting(self) -> tuple[str, frozenset[str]]:
        """What the banker waits for, for the recogniser's grammar: (kind, who).

        kind: ``bid`` (auction), ``yes_no``, ``street``, ``number``, ``player``, ``amount``,
        or ``any``.
        """
        if self.auction is not None:
            return "bid", frozenset(self.state.seated)
        p = self.pending
        if p is None:
            return "any", frozenset(self.state.seated)
        if p.kind in ("confirm", "undo"):
            return "yes_no", p.asked
        if p.kind == "choose":
            return "street", p.asked
        slot = p.slot if p.kind == "slot" else (p.rule.slot if p.rule else "")
        kind = {"property": "street", "give": "street", "get": "street", "yes": "yes_no",
                "number": "number", "player": "player", "amount": "amount"}.get(slot, "any")
        return kind, p.asked

    def _ask_confirm(self, player: str, hearing: Hearing) -> None:
        cmd = Command(player, Intent(hearing.intent, dict(hearing.slots)))
        cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
        self.pending = Pending("confirm", frozenset({player}), self.clock.now() + ANSWER_TIMEOUT,
                               command=cmd, candidates=cands)
        self.step.intent, self.step.slots = cmd.name, dict(cmd.intent.slots)
        self.say("did_you_say", text=self.describe(cmd))

    def _ask_choose(self, player: str, hearing: Hearing) -> None:
        cands = tuple(Command(player, Intent(c.intent, dict(c.slots))) for c in hearing.candidates)
        names = _differing_names(cands)
        self.pending = Pending("choose", frozenset({player}), self.clock.now() + ANSWER_TIMEOUT,
                               candidates=cands)
        self.say("which_one", options=names)

    def _ask_slot(self, cmd: Command, slot: str) -> None:
        self.pending = Pending("slot", frozenset({cmd.player}), self.clock.now() + ANSWER_TIMEOUT,
                               command=cmd, slot=slot, on_timeout="sorry")
        self.say(SLOT_PROMPTS.get(slot, "two_step"))

    def _ask_rule(self, q: Question) -> None:
        asked = frozenset({q.asked}) if q.asked != "*" else frozenset(self.state.seated)
        deadline = self.clock.now() + q.timeout if q.timeout else None
        self.pending = Pending("rule", asked, deadline, rule=q, lapses=q.lapses,
                               on_timeout=str(q.params.get("on_timeout", "")))
        self.say_line(Line(q.key, q.params))

    def _lapse(self) -> None:
        self.pending = None

    def _answer_yes(self, player: str) -> None:
        p = self.pending
        assert p is not None
        self.pending = None
        if p.kind == "confirm" and p.command is not None:
            if p.back is not None and p.back.kind == "rule":  # a spoken answer, now confirmed
                self._decide_answer(p.back, p.command)
            else:
                self.command(p.command)
        elif p.kind == "undo":
            tx = next((t for t in self.history if t.seq == p.undo_seq), None)
            if tx is not None:
                self._do_undo(tx, player)
        elif p.kind == "rule" and p.rule is not None:
            self._rule_answer(p, player, True)

    def _try_answer(self, player: str, text: str, confidence: float | None) -> bool:
        """Treat ``text`` as the answer to the open question; False if it isn't one.

        Spoken answers (``confidence`` not None) are judged like commands, by the risk of the
        command they complete: speech too unsure to be anything gets "sorry?" and changes
        nothing (the question stays open); an uncertain answer that would move money is
        confirmed first ("Did you say buy Baltic Avenue?"); an uncertain "yes" to a money
        question is not a yes.
        """
        p = self.pending
        assert p is not None
        m = self.matcher.match(text)
        intent = m.intent if isinstance(m, Recognized) else None
        if intent in QUERIES and intent not in ("repeat",):
            return False
        if confidence is not None and self._unsure_speech(p, m, text, confidence):
            self.step.intent = "none"
            self.say("sorry")
            return True
        if p.kind in ("confirm", "undo") or (p.kind == "rule" and p.rule and p.rule.slot == "yes"):
            if intent == "yes":
                if confidence is not None and not self._sure_yes(p, m, confidence):
                    self.step.intent = "none"
                    self.say("sorry")  # not a yes to move money on: press, or say it again
                    return True
                self.step.intent = "yes"
                self._answer_yes(player)
                return True
            if intent in ("no", "cancel"):
                self.step.intent = "no"
                self.pending = None
                if p.kind == "rule" and p.rule is not None:
                    self._rule_answer(p, player, False)
                elif p.back is not None and not p.back.lapses:
                    self._reask(p.back)  # "no, not Baltic Avenue": the question still stands
                else:
                    self.say("undo_declined" if p.kind == "undo" else "cancelled")
                return True
            if p.kind == "confirm" and p.back is not None:
                # instead of yes, another answer to the question itself ("Park Place")
                self.pending = p.back
                return self._try_answer(player, text, confidence)
            if p.kind == "confirm" and p.candidates:
                chosen = self._pick_candidate(p.candidates, text)
                if chosen is not None:
                    self.pending = None
                    if self._sure_answer(p, player, chosen, m, confidence):
                        self.command(chosen)
                    return True
            if p.lapses or p.kind != "rule":
                self.pending = None
                if p.kind == "rule" and p.rule is not None:
                    self._rule_answer(p, player, False, quiet=True)
            return False
        if p.kind == "choose":
            chosen = self._pick_candidate(p.candidates, text)
            self.pending = None
            if chosen is not None:
                if self._sure_answer(p, player, chosen, m, confidence):
                    self.command(chosen)
                return True
            return False
        slot = p.slot if p.kind == "slot" else (p.rule.slot if p.rule else "")
        value = self._slot_value(slot, text, m)
        fill: dict[str, Any] = {slot: value}
        if (p.kind == "rule" and p.rule is not None and isinstance(m, Recognized)
                and m.intent == p.rule.then.name and m.slots.get(slot) is not None):
            # the whole command answers a question about it: "swap Baltic Avenue for Park Place"
            value, fill = m.slots[slot], dict(m.slots)
        asked_for = p.rule.then.name if p.rule is not None else (p.command.name if p.command else "")
        if (value is not None and p.lapses and isinstance(m, Recognized)
                and m.intent not in ("answer", "use_key", "guess", "bid", asked_for)):
            # another command that merely names a street ("buy Baltic Avenue") is not an
            # answer: the question lapses and the command is handled (dialogues.md)
            value = None
        if value is None:
            if intent == "cancel":
                if p.lapses:
                    self.pending = None
                    self.say("cancelled")
                    return True
                if p.kind == "rule" and p.rule is not None and p.rule.params.get("cancellable"):
                    self.pending = None
                    self._decide(Command(p.rule.then.player,
                                         p.rule.then.intent.with_slots(**{slot: "cancel"})))
                    return True
            if p.lapses:
                self.pending = None
                return False
            if intent is None or intent in ("answer", "no", "yes"):
                self.say_line(Line(p.rule.key, p.rule.params) if p.rule else Line("sorry"))
                return True
            return False
        self.pending = None
        if p.kind == "slot" and p.command is not None:
            filled = Command(p.command.player, p.command.intent.with_slots(**{slot: value}))
            if self._sure_answer(p, player, filled, m, confidence):
                self.command(filled)
            return True
        assert p.rule is not None
        then = p.rule.then
        self.step.intent, self.step.slots = "answer", dict(fill)
        cmd = Command(then.player, then.intent.with_slots(**fill))
        if self._sure_answer(p, player, cmd, m, confidence, shown=fill):
            self._decide_answer(p, cmd)
        return True

    def _decide_answer(self, p: Pending, cmd: Command) -> None:
        """Decide a rules question's completed command (``then`` with the answer filled in)."""
        assert p.rule is not None
        try:
            out = self.rules.decide(self.state, cmd, Draws(forced=dict(self.forced)))
        except Refusal as r:
            self.step.refused = True
            self.say_line(Line("refused." + r.code, r.params))
            if not p.lapses:
                self.pending = p  # never lapses: ask again
                self.say_line(Line(p.rule.key, p.rule.params))
            return
        self._outcome(cmd, out, Draws(forced=dict(self.forced)))

    def _reask(self, p: Pending) -> None:
        """Open ``p`` again and say its question (one that never lapses)."""
        self.pending = p
        self.say_line(Line(p.rule.key, p.rule.params) if p.rule is not None
                      else Line(SLOT_PROMPTS.get(p.slot, "two_step")))

    # --- judging spoken answers (hearing.judge, with the completed command's risk) ----------
    def _answer_match(self, m: Match, cmd: Command) -> Recognized:
        """The completed command as a match, as sure as the words the answer was heard in."""
        if isinstance(m, Recognized):
            score, margin = m.score, m.margin
        elif isinstance(m, Ambiguous):  # a bare number is an answer and a `collect` sentence
            score, margin = max(c.score for c in m.candidates), 0.0
        else:
            score, margin = SPOTTED_SCORE, 100.0
        return Recognized(cmd.name, dict(cmd.intent.slots), score, margin, m.text)

    def _unsure_speech(self, p: Pending, m: Match, text: str, confidence: float) -> bool:
        """Speech too unsure to be an answer or a command: judged as the least risky
        command (a "low" one), it is rejected. Not even that: a name spotted in words that
        fit no sentence counts, as sure as ``SPOTTED_SCORE``."""
        if isinstance(m, NotRecognized):
            slot = p.slot if p.kind == "slot" else (p.rule.slot if p.rule else "property")
            if p.kind in ("choose", "confirm"):
                slot = "property"
            if self._slot_value(slot, text, m) is None:
                return True
            m = Recognized("answer", {}, SPOTTED_SCORE, 100.0, text)
        return judge(m, confidence, lambda _i: "low", lambda _i, _s: True).decision == "reject"

    def _sure_yes(self, p: Pending, m: Match, confidence: float) -> bool:
        """A spoken "yes" counts when it is as sure as acting on what it agrees to needs."""
        if p.kind == "undo":
            risk = self._risk("undo")
        elif p.kind == "confirm" and p.command is not None:
            risk = self._risk(p.command.name)
        elif p.rule is not None:
            risk = self._risk(p.rule.then.name)
        else:
            risk = "money"
        yes = Recognized("yes", {}, *((m.score, m.margin) if isinstance(m, Recognized)
                                      else (SPOTTED_SCORE, 100.0)), m.text)
        return judge(yes, confidence, lambda _i: risk, lambda _i, _s: True).decision == "accept"

    def _sure_answer(self, p: Pending, player: str, cmd: Command, m: Match,
                     confidence: float | None, shown: Mapping[str, Any] | None = None) -> bool:
        """True: act on ``cmd`` (typed, or heard surely enough for its risk). Otherwise the
        answer was handled here: "Did you say …?" (nothing moves until yes) or "sorry" with
        the question kept open."""
        if confidence is None:
            return True
        h = judge(self._answer_match(m, cmd), confidence, self._risk,
                  lambda i, s: self._legal(cmd.player, i, s))
        if h.decision == "accept":
            return True
        if h.decision == "reject":
            self.pending = p
            self.step.intent = "none"
            self.say("sorry")
            return False
        back = p.back if p.kind == "confirm" else p
        self.pending = Pending("confirm", frozenset({player}), self.clock.now() + ANSWER_TIMEOUT,
                               command=cmd, back=back)
        self.step.intent, self.step.slots = cmd.name, dict(cmd.intent.slots)
        # a rules question's answer is confirmed by itself ("Did you say Baltic Avenue?"):
        # its command carries the question's own slots, which mean nothing said aloud
        text = self.describe(cmd) if shown is None else " ".join(self._slot_words(shown))
        self.say("did_you_say", text=text)
        return False

    def _rule_answer(self, p: Pending, player: str, yes: bool, quiet: bool = False) -> None:
        assert p.rule is not None
        then = p.rule.then
        cmd = Command(then.player, then.intent.with_slots(yes=yes, answered_by=player))
        draws = Draws(forced=dict(self.forced))
        try:
            out = self.rules.decide(self.state, cmd, draws)
        except Refusal as r:
            if not quiet:
                self.say_line(Line("refused." + r.code, r.params))
            return
        if quiet:
            out.lines = [ln for ln in out.lines if ln.key.startswith("declined")] or out.lines
        self._outcome(cmd, out, draws)

    def _slot_value(self, slot: str, text: str, m: Any) -> Any:
        if isinstance(m, Recognized):
            for key in ((slot,) if slot not in ("give", "get", "property")
                        else (slot, "property", "give", "get")):
                if key in m.slots and m.intent in ("answer", "use_key", "guess", "bid"):
                    return m.slots[key]
            if slot == "number" and m.intent == "answer" and "amount" in m.slots:
                return m.slots["amount"]
            if slot == "amount" and "amount" in m.slots:
                return m.slots["amount"]
            if slot in ("yes",):
                return None
            if m.intent == "answer" and slot == "player" and "player" in m.slots:
                return m.slots["player"]
            if slot == "property" and m.intent == "answer" and "none" in normalize(text).split():
                return "none"
        words = normalize(text).split()
        if slot in ("property", "give", "get"):
            spans = [s for s in self.matcher.spot(words) if s[2] == "@s"]
            if len(spans) == 1:
                return spans[0][3][0][0]
            if "none" in words:
                return "none"
        if slot == "player":
            spans = [s for s in self.matcher.spot(words) if s[2] == "@p"]
            if len(spans) == 1:
                return spans[0][3][0][0]
            if "none" in words:
                return "none"
        if slot in ("number", "amount"):
            # a bare number ("four") is also a `collect` sentence, so the matcher finds it
            # ambiguous; as the answer to "what's your guess?" / "how much?" it is the number
            bare, numbers = with_placeholders(text)
            if bare == PLACEHOLDER and len(numbers) == 1:
                return numbers[0]
        return None

    def _pick_candidate(self, cands: tuple[Command, ...], text: str) -> Command | None:
        words = normalize(text).split()
        spans = [s for s in self.matcher.spot(words) if s[2] == "@s"]
        names = {spans[0][3][0][0]} if len(spans) == 1 else set()
        for c in cands:
            if names and names & {str(v) for v in c.intent.slots.values()}:
                return c
        return None

    # ------------------------------------------------------------------------------------
    # auctions
    def _open_next_auction(self, starter: str | None) -> None:
        while self.auction_queue:
            street = self.auction_queue.pop(0)
            if self.state.owner(street) is not None:
                continue
            now = self.clock.now()
            self.auction = Auction(street, now, last=now, starter=starter)
            if self.journal is not None:
                self.journal.note("dialogue_open", f"auction:{street}")
            self.say("auction_open", street=street, amount=Money(self.edition.auction.open))
            return

    def _bid(self, player: str, amount: Any) -> None:
        a = self.auction
        assert a is not None
        spec = self.edition.auction
        self.step.intent, self.step.slots = "bid", ({"amount": amount} if amount else {})
        why = self.rules.can_bid(self.state, player)
        if why:
            self._refuse(why, player=Who(player))
            return
        if amount is None:
            if a.bidder == player:
                self.step.refused = True
                self.say("auction_highest", player=Who(player))
                return
            value = spec.open if a.bidder is None else a.amount + spec.step
        else:
            value = int(amount)
            least = spec.open if a.bidder is None else a.amount + spec.step
            if value < least:
                self._refuse("bid_too_low", amount=Money(least))
                return
            if value % spec.step:
                self._refuse("bid_step", amount=Money(spec.step))
                return
        cash = self.state.cash(player)
        if value > cash:
            self._refuse("bid_too_high", amount=Money(value), cash=Money(cash))
            return
        a.bidder, a.amount, a.last, a.final_at = player, value, self.clock.now(), None
        self.step.slots = {"amount": value}
        self.say("auction_bid", player=Who(player), amount=Money(value))

    def _close_auction(self) -> None:
        a = self.auction
        assert a is not None
        self.auction = None
        if a.bidder is None:
            self.say("auction_unsold", street=a.street)
            if self.journal is not None:
                self.journal.note("dialogue_closed", f"auction:{a.street}")
        else:
            cmd = Command(a.bidder, Intent("auction_close", {"property": a.street, "amount": a.amount}))
            try:
                out = self.rules.decide(self.state, cmd, Draws())
            except Refusal as r:
                self.say_line(Line("refused." + r.code, r.params))
            else:
                if out.question is not None and not out.events:
                    # the winner must choose first (Jackpot: which house to move for an 11th)
                    self._announce([self.replies.render(line) for line in out.lines])
                    self._ask_rule(out.question)
                    self._open_next_auction(a.starter)
                    return
                said = [self.replies.render(line) for line in out.lines]
                tx = Transaction(a.bidder, "auction", {"property": a.street, "amount": a.amount},
                                 list(out.events), said, sorted(out.participants))
                if self._commit(tx):
                    self._announce(said)
        self._open_next_auction(a.starter)

    # ------------------------------------------------------------------------------------
    # helpers
    def _seat(self, who: str) -> str:
        """A token id from a token id, a name or a seat number (1 = first in turn order)."""
        w = who.strip().lower()
        if w.isdecimal() and 1 <= int(w) <= len(self.state.order):
            return self.state.order[int(w) - 1]
        for t in self.edition.tokens:
            if w in (t.id, t.name.lower()) or normalize(w) in (normalize(t.name), normalize(t.id)):
                return t.id
        return w

    def _requires(self, intent: str) -> tuple[str, ...]:
        spec = self.matcher.grammar.intents.get(intent)
        return spec.requires if spec is not None else ()

    def _risk(self, intent: str) -> str:
        spec = self.matcher.grammar.intents.get(intent)
        return spec.risk if spec is not None else "money"

    def _in_hold(self, cmd: Command) -> Command:
        """A command the open hold allows carries whose dialogue it is (``held_by``): the
        rules are pure, and this is how they know e.g. who took the Jackpot chance."""
        if self.hold is not None and cmd.name in self.hold.allowed:
            return Command(cmd.player, cmd.intent.with_slots(held_by=self.hold.owner))
        return cmd

    def _legal(self, player: str, intent: str, slots: Mapping[str, Any]) -> bool:
        if intent in SESSION_INTENTS or intent in QUERIES or intent == "bid":
            return True
        spec = self.matcher.grammar.intents.get(intent)
        if spec is not None and any(slots.get(s) is None for s in spec.requires):
            return True  # the first step of a two-step command: the rest is asked for
        try:
            self.rules.decide(self.state, self._in_hold(Command(player, Intent(intent, dict(slots)))),
                              Draws(forced=dict(self.forced)))
        except Refusal as r:
            # Money is not a reason to prefer another name: the rules will say why.
            return r.code in MONEY_REFUSALS
        except Exception:
            return False
        return True

    def describe(self, cmd: Command) -> str:
        words = cmd.name.replace("_", " ")
        return " ".join([words, *self._slot_words(cmd.intent.slots)])

    def _slot_words(self, slots: Mapping[str, Any]) -> list[str]:
        return [self.replies.value(Who(v)) if k == "player" else
                (self.edition.fmt(v) if k == "amount" and isinstance(v, int) else str(v))
                for k, v in slots.items()]

    def announce_result(self) -> None:
        """A finished game's result: the ranking by the edition's measure, and the winner."""
        self.say("game_over")
        for place, (t, v) in enumerate(self.rules.ranking(self.state), start=1):
            self.say("ranking_line", place=place, player=Who(t), amount=Money(v))
        winners = self.state.winners
        if len(winners) > 1:
            self.say("winners_tie", players=AllOf(Who(w) for w in winners))
        elif winners:
            self.say("winner", player=Who(winners[0]))

    def interrupted(self, note: str) -> None:
        """Say what a crash interrupted (from the journal's last open dialogue note)."""
        if note.startswith("auction:"):
            self.say("auction_interrupted", street=note.split(":", 1)[1])
        elif note == "betting":
            self.say("betting_interrupted")
        elif note == "question:undo":
            self.say("undo_interrupted")
        else:
            self.say("dialogue_interrupted")

    def finish_step(self) -> Step:
        """Close the current step; what was said becomes what "repeat" repeats."""
        step = self.step
        if step.intent != "repeat" and step.said:
            self._repeat_buffer = list(step.said)
        return step


def _plain(slots: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, str, bool, float)) or v is None else str(v))
            for k, v in slots.items()}


def _what(tx: Transaction) -> str:
    return tx.said[0].rstrip(".!") if tx.said else tx.intent.replace("_", " ")


def _differing_names(cands: tuple[Command, ...]) -> list[str]:
    names: list[str] = []
    for c in cands:
        for v in c.intent.slots.values():
            if isinstance(v, str) and v not in names and not all(
                    v in d.intent.slots.values() for d in cands):
                names.append(v)
    return names
