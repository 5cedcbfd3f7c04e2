"""Every open dialogue, written down so a stopped game resumes exactly where it was.

``snapshot`` turns what the session holds between transactions (an auction: street, bid,
leader, whether "Any final bids?" was asked, the streets queued after it; a betting round and
its stakes; the open question and whom it is for, a deal or an undo awaiting agreement; the
draws a transcript's ``next:`` forced) into JSON, journalled as a ``dialogue_state`` note
before Mr. Monopoly speaks (``DialogueNotes.sync``). ``resume`` puts it back into a session
built from the game file and says where the game stands.

Times: a deadline is kept as it was if it was noted on the same clock (a transcript restarted
on its virtual clock) and lies between now and now plus the time that was left. Otherwise
(another process, even a moment later, says the question again at the resume) the whole time
is given again from the resume: an auction's 3 s call, or at least the usual time to answer,
since the table needs a moment to take up the thread.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from banker.interpreter import questions as q
from banker.interpreter.auction import Auction
from banker.interpreter.clock import clock_ident
from banker.rules import Command, Hold, Intent, Line, Money, Question, Who, fold
from banker.rules.events import Event, event_from_json
from banker.rules.outcome import AllOf

if TYPE_CHECKING:
    from banker.interpreter.session import Session


# --- values: the typed parameters of replies survive the round trip ------------------------
def enc(v: Any) -> Any:
    if isinstance(v, Money):
        return {"$": "money", "v": int(v)}
    if isinstance(v, Who):
        return {"$": "who", "v": str(v)}
    if isinstance(v, AllOf):
        return {"$": "all", "v": [enc(x) for x in v]}
    if isinstance(v, Command):
        return {"$": "cmd", "player": v.player, "name": v.name, "slots": enc(dict(v.intent.slots))}
    if isinstance(v, tuple):
        return {"$": "tuple", "v": [enc(x) for x in v]}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        return {"$": "map", "v": {str(k): enc(x) for k, x in v.items()}}
    return v


def dec(v: Any) -> Any:
    if isinstance(v, list):
        return [dec(x) for x in v]
    if not isinstance(v, dict):
        return v
    tag = v.get("$")
    if tag == "money":
        return Money(int(v["v"]))
    if tag == "who":
        return Who(str(v["v"]))
    if tag == "all":
        return AllOf(dec(x) for x in v["v"])
    if tag == "tuple":
        return tuple(dec(x) for x in v["v"])
    if tag == "cmd":
        return Command(str(v["player"]), Intent(str(v["name"]), dec(v["slots"])))
    return {k: dec(x) for k, x in v["v"].items()}


# --- the open question --------------------------------------------------------------------
def _left(deadline: float | None, now: float) -> float | None:
    return None if deadline is None else max(deadline - now, 0.0)


def _deadline(data: dict[str, Any], now: float, whole: float = q.ANSWER_TIMEOUT,
              same_clock: bool = False) -> float | None:
    """The deadline back: as it was on the same clock, else ``whole`` (or the time that was
    left, if longer) from now."""
    left, at = data.get("left"), data.get("at")
    if left is None:
        return None
    if (same_clock and isinstance(at, (int, float))
            and now - 1e-9 <= at <= now + float(left) + 1e-9):
        return float(at)
    return now + max(float(left), whole)


def pending_data(p: q.Pending, now: float) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": p.kind, "asked": sorted(p.asked), "at": p.deadline,
                            "left": _left(p.deadline, now), "lapses": p.lapses,
                            "on_timeout": p.on_timeout, "unclear": p.unclear}
    if isinstance(p, q.Confirm):
        data.update(command=enc(p.command), candidates=enc(p.candidates),
                    back=pending_data(p.back, now) if p.back is not None else None)
    elif isinstance(p, q.Choose):
        data.update(candidates=enc(p.candidates))
    elif isinstance(p, q.SlotQuestion):
        data.update(command=enc(p.command), slot=p.slot)
    elif isinstance(p, q.RuleQuestion):
        r = p.rule
        data.update(rule={"key": r.key, "asked": r.asked, "slot": r.slot, "then": enc(r.then),
                          "choices": list(r.choices), "lapses": r.lapses, "timeout": r.timeout,
                          "params": enc(dict(r.params))})
    elif isinstance(p, q.UndoQuestion):
        data.update(undo_seq=p.undo_seq)
    return data


def pending_from(data: dict[str, Any], now: float, same_clock: bool = False) -> q.Pending | None:
    common: dict[str, Any] = {"asked": frozenset(data["asked"]),
                              "deadline": _deadline(data, now, same_clock=same_clock), "lapses": bool(data["lapses"]),
                              "on_timeout": str(data.get("on_timeout", "")),
                              "unclear": int(data.get("unclear", 0))}
    kind = data.get("kind")
    if kind == "confirm":
        back = data.get("back")
        return q.Confirm(command=dec(data["command"]), candidates=dec(data["candidates"]),
                       back=pending_from(back, now, same_clock) if back else None, **common)
    if kind == "choose":
        return q.Choose(candidates=dec(data["candidates"]), **common)
    if kind == "slot":
        return q.SlotQuestion(command=dec(data["command"]), slot=str(data["slot"]), **common)
    if kind == "rule":
        r = data["rule"]
        rule = Question(r["key"], r["asked"], r["slot"], dec(r["then"]), tuple(r["choices"]),
                     lapses=bool(r["lapses"]), timeout=r.get("timeout"), params=dec(r["params"]))
        return q.RuleQuestion(rule=rule, **common)
    if kind == "undo":
        return q.UndoQuestion(undo_seq=int(data["undo_seq"]), **common)
    return None


# --- the whole session ----------------------------------------------------------------------
def snapshot(s: Session) -> str | None:
    """The open dialogues as JSON text, or None when nothing is open."""
    now = s.clock.now()
    data: dict[str, Any] = {}
    a = s.auction
    if a is not None:
        at = s.auctions.deadline()
        data["auction"] = {"street": a.street, "bidder": a.bidder, "amount": a.amount,
                           "starter": a.starter, "final": a.final_at is not None,
                           "at": at, "left": _left(at, now)}
    if s.auction_queue:
        data["queue"] = list(s.auction_queue)
    b = s.betting
    if b.hold is not None:
        data["betting"] = {"kind": b.hold.kind, "owner": b.hold.owner,
                           "allowed": sorted(b.hold.allowed),
                           "events": [e.to_json() for e in b.events], "said": list(b.said),
                           "command": enc(b.command) if b.command is not None else None}
    if s.pending is not None:
        data["pending"] = pending_data(s.pending, now)
    if s.forced:
        data["forced"] = enc(dict(s.forced))
    if not data:
        return None
    ident = clock_ident(s.clock)
    if ident is not None:  # whose times these are
        data["clock"] = ident
    return json.dumps(data, sort_keys=True)


def held_events(text: str | None) -> list[Event]:
    """The events of a betting round open at the stop (its stakes on the table), from the
    note: ``banker state`` shows them as the table saw them, the bets out of the bettors' cash.
    An unreadable note holds none."""
    try:
        b = json.loads(text).get("betting") if text else None
        return [event_from_json(e) for e in b["events"]] if b is not None else []
    except (ValueError, KeyError, TypeError, AttributeError):
        return []


def restore(s: Session, text: str) -> bool:
    """Put the noted dialogues back into ``s`` (a session just built from the game file)
    without saying anything. False: the note can't be read (the game goes on without it)."""
    try:
        data = json.loads(text)
        now = s.clock.now()
        same = data.get("clock") is not None and data.get("clock") == clock_ident(s.clock)
        s.forced.update(dec(data.get("forced", {"$": "map", "v": {}})))
        s.auction_queue = [str(n) for n in data.get("queue", [])]
        a = data.get("auction")
        # an auction of a street still unowned, or of one of the Bank's last buildings
        if a is not None and (a["street"] not in s.state.streets or s.state.owner(a["street"]) is None):
            spec = s.edition.auction
            whole = spec.final_seconds if a["final"] else spec.quiet_seconds
            due = _deadline(a, now, whole, same) or now
            auction = Auction(a["street"], now, bidder=a["bidder"], amount=int(a["amount"]),
                              starter=a["starter"])
            if a["final"]:
                auction.final_at, auction.last = due - spec.final_seconds, due - spec.final_seconds
            else:
                auction.last = due - spec.quiet_seconds
            s.auction = auction
            s.notes.note("dialogue_open", f"auction:{auction.street}")  # as when it opened
        b = data.get("betting")
        if b is not None:
            bet = s.betting
            bet.hold = Hold(b["kind"], b["owner"], frozenset(b["allowed"]))
            bet.events = [event_from_json(e) for e in b["events"]]
            bet.said = list(b["said"])
            bet.command = dec(b["command"]) if b["command"] is not None else None
            s.state = fold(s.committed_state(), list(bet.events))
            s.notes.note("dialogue_open", bet.hold.kind)
        p = data.get("pending")
        if p is not None:
            s.pending = pending_from(p, now, same)
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    return True


def resume(s: Session, text: str) -> bool:
    """Restore the noted dialogues and say where each one stands, asking the open question
    again by name. False: nothing could be restored."""
    if not restore(s, text):
        return False
    a = s.auction
    if a is not None:
        if a.bidder is None:
            s.say("auction_status_none", street=a.street, amount=Money(s.edition.auction.open))
        else:
            s.say("auction_status", street=a.street, amount=Money(a.amount), player=Who(a.bidder))
        if a.final_at is not None:
            s.say("auction_final")
    if s.hold is not None:
        s.say("betting_resumed", player=Who(s.hold.owner),
              amount=Money(sum(s.state.stakes.values())))
    p = s.pending
    if isinstance(p, q.RuleQuestion) and p.rule.then.name == "settle_debt" and p.rule.slot == "give":
        s.pending = None  # asked again from the state, "you still owe…"
        s.ask_owed(again=True)
    elif isinstance(p, q.UndoQuestion):
        tx = next((t for t in s.history if t.seq == p.undo_seq), None)
        if tx is None:
            s.pending = None
        else:
            from banker.interpreter.undo import brief

            s.say("undo_still_asked", what=brief(s, tx), by=Who(tx.player or ""),
                  asked=Who(sorted(p.asked)[0]))
    elif isinstance(p, q.RuleQuestion):
        s.say_line(Line(p.rule.key, p.rule.params))
    elif isinstance(p, q.Confirm):
        s.say("did_you_say", text=s.describe(p.command))
    elif isinstance(p, q.Choose):
        s.say("which_one", options=[Who(n) if n in s.state.players else n
                                    for n in q.differing_names(p.candidates)])
    elif p is not None:
        s.say_line(p.prompt())
    else:
        s.ask_owed(again=True)
    return True


def resumed(s: Session, state: str | None, open_dialogue: str | None) -> None:
    """The end of a resume: the noted dialogues continue (``resume``); a file from before
    they were noted says only that its last dialogue was interrupted; an open debt's question
    is asked again; then the dialogues are on disk as they now stand."""
    if not (state and resume(s, state)):
        if open_dialogue:
            s.interrupted(open_dialogue)
        elif not s.state.game_over:
            s.ask_owed(again=True)
    s.notes.sync(force=True)
