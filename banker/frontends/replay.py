"""``banker replay``: run transcripts against the real interpreter and ledger, on a virtual clock.

Audio steps go through the configured speech engine (``banker.speech``), loaded once.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from banker.frontends.stops import GameOnFile
from banker.frontends.transcript import Malformed, Transcript, TStep, load_transcript
from banker.interpreter.questions import Confirm
from banker.interpreter.session import Session, VirtualClock
from banker.nlu.canonical import spec_intent, spec_slots
from banker.rules.state import GameState

Recognize = Callable[[Session, Path], tuple[str, float | None]]


@dataclass
class FileResult:
    file: str
    ok: bool = True
    error: str | None = None
    malformed: bool = False
    steps: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    session: Session | None = None  # the game as it ended (tests check invariants on it)


def _fold_text(s: str) -> str:
    """Text for ``says``: case, spacing, thousands separators and money signs folded, and
    names as the format compares them, ignoring punctuation and "St."/"Saint" ("trex" is
    found in "T-Rex", "Saint Charles Place" in "St. Charles Place")."""
    s = s.lower()
    s = re.sub(r"(?<=\d),(?=\d{3})", "", s)
    s = re.sub(r"[m$£](?=\d)", "", s)
    s = re.sub(r"\bsaint\b", "st", s)
    s = re.sub(r"[^\w\s]", "", s)
    return " ".join(s.split())


def check_expect(expect: dict[str, Any], state: GameState, before: GameState, said: list[str],
                 refused: bool) -> list[tuple[str, Any, Any]]:
    """(key, expected, actual) for every expectation that does not hold."""
    bad: list[tuple[str, Any, Any]] = []
    view, prior = state.view(), before.view()
    text = _fold_text(" ".join(said))
    for key, want in expect.items():
        if key == "says":
            missing = [w for w in want if _fold_text(w) not in text]
            if missing:
                bad.append((key, missing, said))
        elif key in ("cash", "owner", "houses", "hotels"):
            actual = view[key]
            assert isinstance(actual, dict)
            got = {k: actual.get(k) for k in want}
            if got != want:
                bad.append((key, want, got))
        elif key == "vault":
            actual = view["vault"]
            assert isinstance(actual, dict)
            got = {k: actual.get(k) for k in want}
            if got != want:
                bad.append((key, want, got))
        elif key in ("mortgaged", "in_jail"):
            actual_list = view[key]
            assert isinstance(actual_list, list)
            if sorted(actual_list) != want:
                bad.append((key, want, sorted(actual_list)))
        elif key in ("jackpot", "bank"):
            if view[key] != want:
                bad.append((key, want, view[key]))
        elif key == "game_over":
            if bool(view["game_over"]) != want:
                bad.append((key, want, view["game_over"]))
        elif key == "winner":
            if sorted(state.winners) != want:
                bad.append((key, want, sorted(state.winners)))
        elif key == "unchanged":
            same = _visible(view) == _visible(prior)
            if same != want:
                bad.append((key, want, same))
        elif key == "refused":
            same = _visible(view) == _visible(prior)
            if (refused and same) != want:
                bad.append((key, want, {"refused": refused, "unchanged": same}))
    return bad


def _visible(view: dict[str, Any]) -> dict[str, Any]:
    """What ``unchanged`` and ``refused`` compare (transcripts.md): not the open debts, so a
    payment that can't be made still "moves nothing" as the editions say."""
    return {k: v for k, v in view.items() if k != "debts"}


def run_transcript(t: Transcript, recognize: Recognize | None = None,
                   out: TextIO | None = None) -> FileResult:
    res = FileResult(str(t.path))
    clock = VirtualClock()
    on_file = GameOnFile() if any(s.kind == "restart" for s in t.steps) else None
    session = (on_file.start(t, clock) if on_file is not None else
               Session(t.edition, t.players, options=t.options, seed=t.seed or 0, clock=clock))
    try:
        return _run_steps(t, session, on_file, clock, res, recognize, out)
    finally:
        if on_file is not None and res.session is not None:
            on_file.close(res.session)


def _run_steps(t: Transcript, session: Session, on_file: GameOnFile | None, clock: VirtualClock,
               res: FileResult, recognize: Recognize | None, out: TextIO | None) -> FileResult:
    res.session = session
    for step in t.steps:
        before = session.state.clone()
        session.begin_step()
        heard_override: list[str] = []
        try:
            if step.kind == "restart":  # a stop is no step at the table: a question stays open
                if on_file is not None:
                    session = res.session = on_file.restart(session, step.mode, clock)
            else:
                _lapse_confirm(session, step)
            _run_step(session, step, recognize, heard_override)
        except Malformed as exc:
            res.ok, res.malformed, res.error = False, True, str(exc)
            break
        except Exception as exc:  # a bug fails the file, it doesn't crash replay
            res.ok = False
            res.error = f"{t.path} step {step.index} (line {step.line}): internal error {exc.__class__.__name__}"
            if out is not None:
                print(res.error, file=out)
            break
        if step is t.steps[-1]:
            session.finish()
        s = session.finish_step()
        bad = check_expect(step.expect, session.state, before, s.said, s.refused)
        entry = {"step": step.index, "player": step.player or (step.presses[0] if step.presses else None),
                 "heard": heard_override or s.heard, "intent": spec_intent(s.intent),
                 "slots": spec_slots(_jsonable(s.slots)), "said": " ".join(s.said), "ok": not bad}
        res.steps.append(entry)
        if bad:
            res.ok = False
            for key, want, got in bad:
                msg = (f"{t.path} step {step.index} (line {step.line}: {step.source})\n"
                       f"  heard: {entry['heard']}\n  said: {entry['said']}\n"
                       f"  {key}: expected {want!r}, got {got!r}")
                res.failures.append(msg)
                if out is not None:
                    print(msg, file=out)
    if res.failures and res.error is None:
        res.error = f"{len(res.failures)} expectation(s) failed"
    return res


def _lapse_confirm(session: Session, step: TStep) -> None:
    """transcripts.md: after speech that led to "Did you say …?", the next step answers it
    only if it is that player's (their yes, no or press; anything else they say counts as no
    in the session); any other step lets it lapse as "no". (At the table another player's
    command leaves it open: dialogues.md lapses it by that player's command or 10 s.)"""
    p = session.pending
    if not isinstance(p, Confirm):
        return
    if step.kind == "press" and step.presses and step.presses[0] in p.asked:
        return
    if step.kind == "say" and step.player in p.asked:
        return
    back = p.back
    session.pending = back if back is not None and not back.lapses else None


def _run_step(session: Session, step: TStep, recognize: Recognize | None, heard: list[str]) -> None:
    if step.kind == "press":
        for tok in step.presses:
            session.press(tok)
    elif step.kind == "wait":
        session.advance(step.seconds)
    elif step.kind == "restart":
        return  # the game was resumed from its file before this step (``GameOnFile``)
    elif step.kind == "next":
        for kind, value in step.forced.items():
            if kind == "chance" and value == "jail-free" and any(
                    p.count("jail_card") for p in session.state.players.values()) and \
                    session.edition.rules in ("voice_banking", "secret_vault"):
                raise Malformed(f"line {step.line}: the Get Out of Jail Free card is out")
            session.force(kind, value)
    else:
        assert step.player is not None
        if not step.utterances or all(u.text == "" for u in step.utterances):
            session.press(step.player)
            return
        for u in step.utterances:
            if u.audio is not None:
                if recognize is None:
                    raise Malformed(f"line {step.line}: audio steps need the speech engine")
                text, conf = recognize(session, u.audio)
                heard.append(text)
                session.hear(step.player, text, conf)
            else:
                session.hear(step.player, u.text or "")


def _jsonable(slots: dict[str, Any]) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, str, float, bool)) or v is None else str(v))
            for k, v in slots.items()}


def replay_files(paths: list[Path], report: Path | None = None, out: TextIO | None = None,
                 recognize: Recognize | None = None) -> int:
    err = sys.stderr if out is None else None  # the command line: reasons on stderr too (cli.md)
    out = out or sys.stdout
    results: list[FileResult] = []
    for p in paths:
        try:
            t = load_transcript(p)
        except Malformed as exc:
            r = FileResult(str(p), ok=False, error=str(exc), malformed=True)
            print(f"malformed: {exc}", file=out)
            if err is not None:
                print(f"banker: malformed transcript: {exc}", file=err)
            results.append(r)
            continue
        if recognize is None and any(u.audio for s in t.steps for u in s.utterances):
            recognize = _speech_recognizer()
        r = run_transcript(t, recognize, out)
        results.append(r)
        if r.malformed:  # one line, naming the file once
            print(f"malformed: {t.path}: {r.error}", file=out)
            if err is not None:
                print(f"banker: malformed transcript: {t.path}: {r.error}", file=err)
        else:
            print(f"{'ok' if r.ok else 'FAILED'}: {p} ({len(r.steps)} steps)", file=out)
    if report is not None:
        try:
            report.write_text(json.dumps({"files": [
                {"file": r.file, "ok": r.ok, "error": r.error, "steps": r.steps} for r in results
            ]}, indent=1))
        except OSError as exc:  # a user's mistake: one sentence, exit 2, never a traceback
            print(f"banker: can't write the report {report}: {exc.strerror or exc}.",
                  file=err or out)
            return 2
    if any(r.malformed for r in results):
        return 2
    return 0 if all(r.ok for r in results) else 1


def _speech_recognizer() -> Recognize:
    from banker.frontends.audio_steps import make_recognizer

    return make_recognizer()
