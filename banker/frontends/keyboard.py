"""``banker play --keyboard``: typed lines in, Mr. Monopoly's lines printed out.

An accessibility front end, not a debug mode: the same commands as speech, a ``> `` prompt,
flushed output (works in a terminal and over a pipe), and auction timers on the real clock.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from typing import TextIO

from banker.interpreter.session import Session

PROMPT = "> "


def parse_line(line: str, session: Session) -> tuple[str, str | None] | None:
    """``(token, text)``; text None for a bare press. None: the line names no player."""
    s = line.strip()
    if not s:
        return None
    low = s.lower()
    if low.startswith("press ") or low == "press":
        who = s[5:].strip()
        return (who, None) if who else None
    if ":" in s:
        who, text = s.split(":", 1)
        who = who.strip()
        if who and (session.seat(who) in session.state.players):
            return session.seat(who), (text.strip() or None)
    asked = session.asked_players()
    if len(asked) == 1:
        return next(iter(asked)), s
    return _anyones_question(s, session)


# questions whose answer is the same whoever asks ("who's winning", "who owns Boardwalk")
ANYONES = frozenset({"status", "owner", "guesses", "help"})


def _anyones_question(text: str, session: Session) -> tuple[str, str] | None:
    """A question typed without a token, asked for the table: answered (as the first seated
    player's, which changes nothing) when its answer doesn't depend on who asks."""
    seated = [p for p in session.state.order if p in session.state.seated]
    if not seated:
        return None
    h = session.understand(text, seated[0])
    mine = h.intent == "balance" and h.slots.get("player") is None  # "what's my balance"
    if h.decision == "accept" and (h.intent in ANYONES or (h.intent == "balance" and not mine)):
        return seated[0], text
    return None


def handle_line(line: str, session: Session, out: TextIO) -> None:
    parsed = parse_line(line, session)
    if parsed is None:
        if line.strip():
            print(session.hint(), file=out, flush=True)
        return
    who, text = parsed
    who = session.seat(who)
    session.begin_step()
    if who not in session.state.players:
        shown = "".join(ch for ch in who if ch.isprintable())[:40]  # no control codes echoed
        print(f"There's no {shown or 'such player'} in this game.", file=out, flush=True)
        return
    try:
        if text is None:
            session.press(who)
        else:
            session.hear(who, text)
    except Exception:  # the table must go on; the details go to the log
        log_internal_error(line)
        session.say("internal_error")
    session.finish_step()


def log_internal_error(context: str) -> None:
    """Append the traceback of an unexpected error to the user's banker.log."""
    import traceback

    from banker.paths import user_data_dir

    try:
        folder = user_data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "banker.log", "a", encoding="utf-8") as log:
            log.write(f"--- while handling {context!r}\n{traceback.format_exc()}\n")
    except OSError:
        pass


def run_keyboard(session: Session, inp: TextIO, out: TextIO) -> int:
    """Typed lines until the end of input or Ctrl-C; both leave the game saved and say so."""
    with contextlib.suppress(KeyboardInterrupt):
        _play_lines(session, inp, out)
    say_farewell(session, out)
    return 0


def say_farewell(session: Session, out: TextIO) -> None:
    """``app.farewell`` on a line of its own (the prompt is left open before it)."""
    from banker.app import farewell

    line = farewell(session)
    if line is not None:
        print(f"\n{line}", file=out, flush=True)


def _play_lines(session: Session, inp: TextIO, out: TextIO) -> None:
    lines: queue.Queue[str | None] = queue.Queue()

    def reader() -> None:
        for raw in inp:
            lines.put(raw)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    print(PROMPT, end="", file=out, flush=True)
    while True:
        due = session.deadline()
        timeout = None if due is None else max(0.0, due - session.clock.now())
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            session.begin_step()
            session.tick()
            session.finish_step()
            continue
        if line is None:
            _drain_timers(session)
            return
        handle_line(line, session, out)
        print(PROMPT, end="", file=out, flush=True)


def _drain_timers(session: Session) -> None:
    """At the end of input, let a running auction finish on the real clock (at most ~6 s)."""
    import time

    while session.auction is not None:
        due = session.deadline()
        if due is None:
            break
        time.sleep(max(0.0, due - session.clock.now()) + 0.01)
        session.begin_step()
        session.tick()
        session.finish_step()


def ask_players_stdin(inp: TextIO, out: TextIO, tokens: list[str]) -> str:
    print(f"Who's playing? Type the tokens in turn order ({', '.join(tokens)}):", file=out, flush=True)
    print(PROMPT, end="", file=out, flush=True)
    line = inp.readline()
    return line.strip()


def default_streams() -> tuple[TextIO, TextIO]:
    return sys.stdin, sys.stdout
