"""Answers to open questions: is what was said an answer, and is it sure enough to act on?

Spoken answers (``confidence`` not None) are judged like commands (``hearing.judge``), by the
risk of the command they complete: speech too unsure to be anything gets "sorry?" and changes
nothing (the question stays open); an uncertain answer that would move money is confirmed
first ("Did you say buy Baltic Avenue?"); an uncertain "yes" to a money question is not a yes.
Typed answers are taken as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from banker.interpreter import undo
from banker.interpreter.hearing import judge
from banker.interpreter.questions import (
    ANSWER_TIMEOUT,
    Choose,
    Confirm,
    Pending,
    RuleQuestion,
    SlotQuestion,
    UndoQuestion,
    differing_names,
)
from banker.nlu.matcher import Ambiguous, Match, NotRecognized, Recognized
from banker.nlu.normalize import PLACEHOLDER, normalize, with_placeholders
from banker.rules import QUERIES, Command, Line

if TYPE_CHECKING:
    from banker.interpreter.session import Session

# A spoken answer whose value was only found by spotting a name inside words that fit no
# sentence ("uh, Baltic I guess"): as sure as a poorly matched sentence, so a money command it
# completes is always confirmed first.
SPOTTED_SCORE = 80.0
# intents whose slots answer a question that asks for that slot
ANSWERING = ("answer", "use_key", "guess", "bid")
# A spoken "yes" this sure, heard on two tries running of the same question, is a yes: in
# babble a clear "yes" is heard right at 0.65-0.70 try after try and each one was too unsure
# alone for a money question (0.85), four "Sorry?"s and the command lost. Five simulated-
# table reports (babble, clean, pink; mostly the same games, so the counts overlap): "yes"
# heard as a yes at 0.6 or more 79 times, under 0.6 14 times; "no" heard as a yes at 0.6 or
# more 4 times, all one "ok" (0.69, babble), never twice running. A reading too unsure to be
# anything between the two tries does not break the run; another answer does
YES_AGAIN = 0.6
# A spoken "yes" this sure is a yes to any question, the first time: the banker already asked
# because it doubted the command, and the yes is a second, separate hearing. Above the second
# ear's doubted readings (0.69, where a "no" was once heard as Moonshine's "ok") and at its
# "two ears" value (0.76). A probe of 108 yes/no/other answers a condition (clean, 10 dB
# babble and pink; six words each kind, six dev-set voices each): no "no" and no
# chatter heard as a yes at 0.6 or more; yeses at 0.72-0.85: 2 of 36 in babble, 1 clean, 1 pink
YES_ALONE = 0.72
# A spoken answer to a choice ("Park Place or Atlantic Avenue?") that names one of the
# candidates this surely is that command, acted on without "Did you say buy Park Place?" too:
# the choice read both back, and the answer has to name one of them. 120 answers (60 street
# pairs, piper and espeak-ng voices, clean and 10 dB babble, through the ``street`` focus):
# never heard as the other candidate, at any confidence; 48 right ones were read back
# again, 35 of them (16 clean, 19 babble) at 0.5 or more in words that fit a sentence: those
# are now acted on (a margin kept below: 0.30-0.5 is still read back)
CHOSEN = 0.5
# A "Did you say…?" or "which one?" about a command, answered this many times running with
# speech not understood at all, is let go as a "no" would be (nothing moves; dialogues.md:
# not answered counts as "no"), and the player is asked for the command again. At 10 dB babble
# a short "no" is mostly heard as nothing (a probe of 20 dev-set voices: 5 understood); at the
# simulated table, five of the 13 commands lost in 12 games were a wrong reading asked about
# and the player's "no" unheard try after try, the command never said again. A "yes" is a
# press, or heard on two tries (``YES_AGAIN``): the count starts again at any answer heard
UNCLEAR_ANSWERS = 2


@dataclass
class Answers:
    session: Session

    # --- is it an answer? -------------------------------------------------------------------
    def try_answer(self, player: str, text: str, confidence: float | None) -> bool:
        """Treat ``text`` as the answer to the open question; False if it isn't one (it is
        then handled as a command)."""
        s, p = self.session, self.session.pending
        assert p is not None
        m = s.matcher.match(text)
        intent = m.intent if isinstance(m, Recognized) else None
        if intent in QUERIES and intent not in ("repeat",):
            return False
        if confidence is not None and self._unsure_speech(p, m, text, confidence):
            self.not_understood(p)
            return True
        p.unclear = 0
        if p.wants_yes():
            return self._yes_no(p, player, text, m, intent, confidence)
        if isinstance(p, Choose):
            chosen = self.pick_candidate(p.candidates, text)
            s.pending = None
            if chosen is None:
                return False
            if self._chosen(m, confidence) or self._sure_answer(
                    p, player, chosen, m, confidence):
                s.command(chosen)
            return True
        return self._fill(p, player, text, m, intent, confidence)

    def not_understood(self, p: Pending) -> None:
        """Speech that is no answer at all: "Sorry?", the question kept; a command's own
        question not understood ``UNCLEAR_ANSWERS`` times running is let go instead."""
        s = self.session
        own = isinstance(p, Choose) or (isinstance(p, Confirm) and p.back is None)
        p.unclear += 1
        if own and p.lapses and p.unclear >= UNCLEAR_ANSWERS:
            s.pending = None
            s.step.intent = "none"
            s.say("not_answered")
            return
        self._say_again(p)

    def _say_again(self, p: Pending) -> None:
        """ "Sorry, say that again?" to an answer not understood: the question stays open,
        and a "Did you say…?" or "which one?" waits its ``ANSWER_TIMEOUT`` again from here
        (he has just asked for another try; a simulated table at 10 dB babble lost questions
        while the player was still answering them, a clear "yes" then heard as no answer)."""
        s = self.session
        s.step.intent = "none"
        s.say("sorry")
        if isinstance(p, (Confirm, Choose)) and p.deadline is not None:
            p.deadline = max(p.deadline, s.clock.now() + ANSWER_TIMEOUT)

    def _yes_no(self, p: Pending, player: str, text: str, m: Match, intent: str | None,
                confidence: float | None) -> bool:
        s = self.session
        if intent == "yes":
            if (confidence is not None and not self._sure_yes(p, m, confidence)
                    and not _yes_again(p, confidence)):
                self._say_again(p)  # not a yes to move money on: press, or say it again
                return True
            s.step.intent = "yes"
            self.answer_yes(player)
            return True
        p.unsure_yes = 0.0  # the next "yes" is heard alone again
        if intent in ("no", "cancel"):
            s.step.intent = intent
            s.pending = None
            if isinstance(p, Confirm):  # the same reading again is asked about again
                s.refused[player] = (s.clock.now(), p.command)
            if isinstance(p, RuleQuestion):
                self.rule_answer(p, player, False)
            elif isinstance(p, Confirm) and p.back is not None and not p.back.lapses:
                self.reask(p.back)  # "no, not Baltic Avenue": the question still stands
            else:
                s.say("undo_declined" if isinstance(p, UndoQuestion) else "cancelled")
            return True
        if isinstance(p, Confirm) and p.back is not None:
            # instead of yes, another answer to the question itself ("Park Place")
            s.pending = p.back
            return self.try_answer(player, text, confidence)
        if isinstance(p, Confirm) and p.candidates:
            chosen = self.pick_candidate(p.candidates, text)
            if chosen is not None:
                s.pending = None
                if self._sure_answer(p, player, chosen, m, confidence):
                    s.command(chosen)
                return True
        if p.lapses or not isinstance(p, RuleQuestion):
            s.pending = None
            if isinstance(p, RuleQuestion):
                self.rule_answer(p, player, False, quiet=True)
        return False

    def _fill(self, p: Pending, player: str, text: str, m: Match, intent: str | None,
              confidence: float | None) -> bool:
        """A question that asks for a value (a street, an amount, a player…)."""
        s = self.session
        slot = p.filled_slot()
        value, fill = self._value_and_fill(p, slot, text, m)
        if value is None:
            return self._no_value(p, slot, intent)
        s.pending = None
        if isinstance(p, SlotQuestion):
            filled = Command(p.command.player, p.command.intent.with_slots(**{slot: value}))
            if self._sure_answer(p, player, filled, m, confidence):
                s.command(filled)
            return True
        assert isinstance(p, RuleQuestion)
        then = p.rule.then
        s.step.intent, s.step.slots = "answer", dict(fill)
        cmd = Command(then.player, then.intent.with_slots(**fill))
        if self._sure_answer(p, player, cmd, m, confidence, shown=fill):
            self.decide_answer(p, cmd)
        return True

    def _value_and_fill(self, p: Pending, slot: str, text: str, m: Match
                        ) -> tuple[Any, dict[str, Any]]:
        value = self.slot_value(slot, text, m)
        fill: dict[str, Any] = {slot: value}
        if (isinstance(p, RuleQuestion) and isinstance(m, Recognized)
                and m.intent == p.rule.then.name and m.slots.get(slot) is not None):
            # the whole command answers a question about it: "swap Baltic Avenue for Park Place"
            value, fill = m.slots[slot], dict(m.slots)
        asked_for = (p.rule.then.name if isinstance(p, RuleQuestion)
                     else p.command.name if isinstance(p, SlotQuestion) else "")
        if (value is not None and p.lapses and isinstance(m, Recognized)
                and m.intent not in (*ANSWERING, asked_for)):
            # another command that merely names a street ("buy Baltic Avenue") is not an
            # answer: the question lapses and the command is handled (dialogues.md)
            value = None
        return value, fill

    def _no_value(self, p: Pending, slot: str, intent: str | None) -> bool:
        """Nothing that fills the slot: cancel, lapse, or ask again."""
        s = self.session
        if intent == "cancel":
            s.step.intent = "cancel"  # the report names what was said (intents.md)
            if p.lapses:
                s.pending = None
                s.say("cancelled")
                return True
            if isinstance(p, RuleQuestion) and p.rule.params.get("cancellable"):
                s.pending = None
                s.decide_and_apply(Command(p.rule.then.player,
                                           p.rule.then.intent.with_slots(**{slot: "cancel"})))
                return True
        if p.lapses:
            s.pending = None
            return False
        if intent is None or intent in ("answer", "no", "yes"):
            s.say_line(p.prompt() if isinstance(p, RuleQuestion) else Line("sorry"))
            return True
        return False

    # --- acting on an answer ----------------------------------------------------------------
    def answer_yes(self, player: str) -> None:
        """A yes (said or pressed) to the open question."""
        s, p = self.session, self.session.pending
        assert p is not None
        s.pending = None
        if isinstance(p, Confirm):
            if isinstance(p.back, RuleQuestion):  # a spoken answer, now confirmed
                self.decide_answer(p.back, p.command)
            else:
                s.command(p.command)
        elif isinstance(p, UndoQuestion):
            undo.agreed(s, p, player)
        elif isinstance(p, RuleQuestion):
            self.rule_answer(p, player, True)

    def rule_answer(self, p: RuleQuestion, player: str, yes: bool, quiet: bool = False) -> None:
        """Yes or no to a rules question (``quiet``: it lapsed; say only that it was declined)."""
        s = self.session
        then = p.rule.then
        cmd = Command(then.player, then.intent.with_slots(yes=yes, answered_by=player))
        decided = s.decide(cmd, flag=False, quiet=quiet)
        if decided is None:
            return
        out, draws = decided
        if quiet:
            out.lines = [ln for ln in out.lines if ln.key.startswith("declined")] or out.lines
        s.apply(cmd, out, draws)

    def decide_answer(self, p: RuleQuestion, cmd: Command) -> None:
        """Decide a rules question's completed command (``then`` with the answer filled in)."""
        s = self.session
        if not p.lapses:
            # open again before the refusal is said, so the journal never shows it closed
            # (a kill between the refusal and the question again must still say "interrupted")
            s.pending = p
        decided = s.decide(cmd)
        if decided is None:
            if not p.lapses:
                s.say_line(p.prompt())  # never lapses: ask again
            return
        s.pending = None
        s.apply(cmd, *decided)

    def reask(self, p: Pending) -> None:
        """Open ``p`` again and say its question (one that never lapses)."""
        self.session.pending = p
        self.session.say_line(p.prompt())

    # --- how sure ---------------------------------------------------------------------------
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
            slot = p.filled_slot() if isinstance(p, (SlotQuestion, RuleQuestion)) else "property"
            if self.slot_value(slot, text, m) is None:
                return True
            m = Recognized("answer", {}, SPOTTED_SCORE, 100.0, text)
        return judge(m, confidence, lambda _i: "low", lambda _i, _s: True).decision == "reject"

    def _chosen(self, m: Match, confidence: float | None) -> bool:
        """A spoken answer naming one candidate of a choice in words that fit a sentence (a
        name only spotted is read back, as ever), sure enough (``CHOSEN``)."""
        return (confidence is not None and isinstance(m, Recognized)
                and confidence * m.score / 100 >= CHOSEN)

    def _sure_yes(self, p: Pending, m: Match, confidence: float) -> bool:
        """A spoken "yes" counts when it is as sure as acting on what it agrees to needs."""
        risk_of = self.session.policy.risk
        if isinstance(p, UndoQuestion):
            risk = risk_of("undo")
        elif isinstance(p, Confirm):
            risk = risk_of(p.command.name)
        elif isinstance(p, RuleQuestion):
            risk = risk_of(p.rule.then.name)
        else:
            risk = "money"
        yes = Recognized("yes", {}, *((m.score, m.margin) if isinstance(m, Recognized)
                                      else (SPOTTED_SCORE, 100.0)), m.text)
        return (confidence * yes.score / 100 >= YES_ALONE
                or judge(yes, confidence, lambda _i: risk, lambda _i, _s: True).decision
                == "accept")

    def _sure_answer(self, p: Pending, player: str, cmd: Command, m: Match,
                     confidence: float | None, shown: Mapping[str, Any] | None = None) -> bool:
        """True: act on ``cmd`` (typed, or heard surely enough for its risk). Otherwise the
        answer was handled here: "Did you say …?" (nothing moves until yes) or "sorry" with
        the question kept open."""
        s = self.session
        if confidence is None:
            return True
        h = judge(self._answer_match(m, cmd), confidence, s.policy.risk,
                  lambda i, sl: s.legal(cmd.player, i, sl))
        if h.decision == "accept":
            return True
        if h.decision == "reject":
            s.pending = p
            s.step.intent = "none"
            s.say("sorry")
            return False
        back = p.back if isinstance(p, Confirm) else p
        s.pending = Confirm(asked=frozenset({player}), deadline=s.clock.now() + ANSWER_TIMEOUT,
                            command=cmd, back=back)
        s.step.intent, s.step.slots = cmd.name, dict(cmd.intent.slots)
        # a rules question's answer is confirmed by itself ("Did you say Baltic Avenue?"):
        # its command carries the question's own slots, which mean nothing said aloud
        text = s.describe(cmd) if shown is None else " ".join(s.slot_words(shown))
        s.say("did_you_say", text=text)
        return False

    # --- what the words name ----------------------------------------------------------------
    def slot_value(self, slot: str, text: str, m: Any) -> Any:
        """The value ``text`` gives ``slot`` (a canonical name, a number, "none"), or None."""
        if isinstance(m, Recognized):
            found, value = _recognized_value(slot, text, m)
            if found:
                return value
        words = normalize(text).split()
        spot = {"property": "@s", "give": "@s", "get": "@s", "player": "@p"}.get(slot)
        if spot is not None:
            spans = [sp for sp in self.session.matcher.spot(words) if sp[2] == spot]
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

    def pick_candidate(self, cands: tuple[Command, ...], text: str) -> Command | None:
        """The candidate the words name ("Which one?" - "the avenue one: Baltic"; "Dog or
        Cat?" - "the dog")."""
        words = normalize(text).split()
        spans = [(sp[2], sp[3][0][0]) for sp in self.session.matcher.spot(words)
                 if sp[2] in ("@s", "@p")]
        telling = set(differing_names(cands))  # "the cat's Boardwalk" still names Boardwalk
        apart = {v for _k, v in spans if v in telling} or {v for k, v in spans if k == "@s"}
        names = apart if len(apart) == 1 else set()
        for c in cands:
            if names and names & {str(v) for v in c.intent.slots.values()}:
                return c
        return None


def _recognized_value(slot: str, text: str, m: Recognized) -> tuple[bool, Any]:
    """(found, value) from a matched sentence's slots; found False: look at the words."""
    for key in ((slot,) if slot not in ("give", "get", "property")
                else (slot, "property", "give", "get")):
        if key in m.slots and m.intent in ANSWERING:
            return True, m.slots[key]
    if slot == "number" and m.intent == "answer" and "amount" in m.slots:
        return True, m.slots["amount"]
    if slot == "amount" and "amount" in m.slots:
        return True, m.slots["amount"]
    if slot in ("yes",):
        return True, None
    if m.intent == "answer" and slot == "player" and "player" in m.slots:
        return True, m.slots["player"]
    if slot == "property" and m.intent == "answer" and "none" in normalize(text).split():
        return True, "none"
    return False, None


def _yes_again(p: Pending, confidence: float) -> bool:
    """A yes too unsure alone counts when an earlier try to this question was one too, both
    at least ``YES_AGAIN``, with only yeses (or nothing understood) between; the surest of
    them is remembered for the next try otherwise (a weaker yes between two clear ones does
    not break the run: 10 dB babble, "yes" heard 0.69, 0.47, 0.69 and the command lost)."""
    again = min(p.unsure_yes, confidence) >= YES_AGAIN
    p.unsure_yes = max(p.unsure_yes, confidence)
    return again
