"""The composition root: builds a game session (new or resumed) with its journal.

Front ends (keyboard, voice) call ``start_game`` and then feed the session.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from banker.editions import EditionError, load_edition
from banker.editions.loader import for_game, parse_edition
from banker.editions.model import Edition
from banker.interpreter import dialogue_state
from banker.interpreter.clock import Clock
from banker.interpreter.session import Session
from banker.journal import GameFile, JournalError, default_game_path, latest_game
from banker.journal.sqlite import Header
from banker.nlu.matcher import Matcher
from banker.paths import user_data_dir
from banker.rules import Money

SAVED = "Game saved. Resume with banker play --resume."


def farewell(session: Session) -> str | None:
    """The last line when play stops before the game is over (Ctrl-C, Ctrl-D, the end of a
    pipe): the game is on disk, and how to go on with it. None once the game is over.

    A game kept outside the default folder is named (``--resume --game PATH``): a plain
    ``--resume`` looks in the default folder and would resume another game."""
    if session.state.game_over:
        return None
    path = session.journal.path if isinstance(session.journal, GameFile) else None
    if path is None or path.resolve().parent == (user_data_dir() / "games").resolve():
        return SAVED
    return f"{SAVED[:-1]} --game {shlex.quote(str(path))}."


LAST_GAME = "last-game"  # in the user data folder: the path of the game played last


def remember_last(path: Path) -> None:
    """The game being played is the one ``banker play --resume`` continues, wherever its
    file is (``--game PATH`` included). Best effort: a read-only home only loses this."""
    try:
        folder = user_data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / LAST_GAME).write_text(str(Path(path).resolve()) + "\n", encoding="utf-8")
    except OSError:
        pass


def last_game() -> Path | None:
    """The game played last: the one remembered if its file is still there, else the
    newest game file in the default folder."""
    try:
        text = (user_data_dir() / LAST_GAME).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if text and Path(text).is_file():
        return Path(text)
    return latest_game()


class UsageError(Exception):
    """Bad usage or input: one sentence, exit status 2."""


@dataclass
class Game:
    session: Session
    file: GameFile
    resumed: bool


def parse_players(text: str, edition: Edition) -> list[str]:
    names = [w for w in text.replace(",", " ").split() if w]
    out: list[str] = []
    for n in names:
        low = n.lower()
        match = [t.id for t in edition.tokens if low in (t.id, t.name.lower(), t.name.lower().replace("-", ""))]
        if not match:
            raise UsageError(f"There's no token called {n!r} in {edition.name} "
                             f"(tokens: {', '.join(edition.token_ids)}).")
        if match[0] in out:
            raise UsageError(f"{n} is listed twice.")
        out.append(match[0])
    if not edition.min_players <= len(out) <= edition.max_players:
        raise UsageError(f"{edition.name} needs {edition.min_players} to {edition.max_players} players.")
    return out


def ask_until_valid(ask_players: Callable[[Edition], str], edition: Edition,
                    on_say: Callable[[str], None]) -> list[str]:
    """The players asked for at the start: a typo ("racecar, unicorn") is said and asked
    again, as a family at the keyboard expects; nothing given (end of input) is still the
    usage error (exit 2) it was."""
    while True:
        text = ask_players(edition)
        try:
            return parse_players(text, edition)
        except UsageError as exc:
            if not text.strip():
                raise
            on_say(str(exc))


def parse_options(items: list[str], edition: Edition) -> dict[str, str]:
    specs = {o.name: o for o in edition.options}
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"Options look like KEY=VALUE, not {item!r}.")
        k, v = (s.strip() for s in item.split("=", 1))
        if k in specs:
            if specs[k].choices and v not in specs[k].choices:
                raise UsageError(f"Option {k} must be one of {', '.join(specs[k].choices)}.")
            out[k] = v
        elif "." not in k:  # dotted keys are settings (asr.engine=vosk), handled by config
            raise UsageError(f"{edition.name} has no option {k!r}.")
    return out


def start_game(edition_id: str | None, players_text: str | None, option_items: list[str],
               game_path: Path | None, resume: bool, on_say: Callable[[str], None],
               ask_players: Callable[[Edition], str], clock: Clock | None = None,
               remember: bool = True, matcher: Matcher | None = None) -> Game:
    """A new game, or (``resume``) the one on file as it stopped: its transactions, then its
    open dialogues (``dialogue_state``). ``remember``: this is the game ``--resume`` finds
    next (transcripts replayed with stops leave the user's record alone). ``matcher``: one
    already built for this edition (a transcript resumed in the same process)."""
    if resume:
        if edition_id or players_text or [o for o in option_items if "." not in o.split("=")[0]]:
            raise UsageError("--resume continues a game as it was: don't give --edition, --players or --option.")
        path = game_path or last_game()
        if path is None:
            raise UsageError("There is no saved game to resume.")
        gf = GameFile(path)
        loaded = gf.open()
        try:
            edition = for_game(parse_edition(loaded.header.edition_yaml, f"{path} (edition)"),
                               loaded.header.options)
        except EditionError as exc:
            gf.close()
            raise JournalError(exc.sentence()) from None
        session = Session(edition, loaded.header.players, options=loaded.header.options,
                          seed=loaded.header.seed, journal=gf, on_say=on_say,
                          history=loaded.transactions, clock=clock,
                          matcher=matcher if matcher is not None and matcher.edition == edition
                          else None)
        if remember:
            remember_last(path)
        if loaded.repaired_from is not None:
            session.say("journal_repaired", count=loaded.kept_upto())
        if session.state.game_over:
            session.announce_result()
        else:
            session.say("resumed")
        if loaded.undone_last is not None and not session.state.game_over:
            # the last thing journalled was an undo: that is what to repeat
            undone = loaded.undone_last
            session.say("undone", what=undone.said[0].rstrip(".!") if undone.said
                        else undone.intent.replace("_", " "))
        elif session.history and not session.state.game_over:
            session.announce(session.history[-1].said)
        dialogue_state.resumed(session, loaded.dialogue_state, loaded.open_dialogue)
        return Game(session, gf, True)
    edition = load_edition(edition_id or "voice-banking")
    options = parse_options(option_items, edition)
    try:
        edition = for_game(edition, options)
    except EditionError as exc:
        raise UsageError(exc.errors[0] + ".") from None
    players = (parse_players(players_text, edition) if players_text is not None
               else ask_until_valid(ask_players, edition, on_say))
    path = game_path or default_game_path()
    gf = GameFile(path)
    seed = random.SystemRandom().randrange(1, 2**31)
    yaml_text = _edition_text(edition, edition_id)
    gf.create(Header(edition.id, yaml_text, players, options, seed))
    session = Session(edition, players, options=options, seed=seed, journal=gf, on_say=on_say,
                      clock=clock)
    if remember:
        remember_last(path)
    session.say("welcome", amount=Money(edition.start_cash))
    return Game(session, gf, False)


def _edition_text(edition: Edition, source: str | None = None) -> str:
    """The YAML the game was started with (journalled: a resume plays by the same rules).

    ``--edition`` may name a file (as ``load_edition`` allows): that file, not the shipped
    edition of the same id, is what this game uses.
    """
    from banker.editions.loader import editions_dir

    given = Path(source) if source else None
    if given is not None and given.suffix in (".yaml", ".yml") and given.is_file():
        return given.read_text(encoding="utf-8")
    return (editions_dir() / f"{edition.id}.yaml").read_text(encoding="utf-8")
