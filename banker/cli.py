"""The ``banker`` command (``banker --help`` lists every subcommand with an example).

Exit status: 0 ok, 1 a check failed, 2 bad usage or input.

A user's mistake gets one plain sentence on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from banker.config import ConfigError
from banker.editions import EditionError, available_editions, load_edition

# every subcommand: its one line of help and an example (``banker --help``, ``banker CMD --help``)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play a game at the table: press your button, speak, Mr. Monopoly banks",
             "banker play --edition secret-vault --players duck,dog,hat\n"
             "  banker play --keyboard --players racecar,dog\n  banker play --resume"),
    "editions": ("list the editions, their tokens and their rule options", "banker editions"),
    "phrases": ("list every command with the ways to say it", "banker phrases --edition jackpot"),
    "state": ("print a saved game's cash, owners and buildings, without changing it",
              "banker state --json"),
    "replay": ("run scripted games (transcripts) and check every expectation",
               "banker replay tests/transcripts/voice-banking/*.yaml"),
    "transcribe": ("say what recordings are heard as, and what play would do with them",
                   "banker transcribe --json turn.wav"),
    "say": ("Mr. Monopoly says a line (to the speaker, or to a WAV file)",
            "banker say Welcome to the table --out hello.wav"),
    "bench": ("measure recognition, latency and memory (see docs/bench.md)",
              "banker bench --quick"),
}


def version() -> str:
    """The installed version, or pyproject's for a source tree that was never installed."""
    try:
        return importlib.metadata.version("banker")
    except importlib.metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        try:
            return str(tomllib.loads(pyproject.read_text())["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"banker: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="banker", description="Mr. Monopoly, an offline voice banker for Monopoly.",
                epilog="examples:\n" + "\n".join(f"  {ex.splitlines()[0]}" for _, ex in COMMANDS.values())
                + "\n\n`banker COMMAND --help` explains each command.",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"banker {version()}")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser, metavar="COMMAND")

    def command(name: str) -> argparse.ArgumentParser:
        line, example = COMMANDS[name]
        label = "examples" if "\n" in example else "example"
        return sub.add_parser(name, help=line, description=line[0].upper() + line[1:] + ".",
                              epilog=f"{label}:\n  {example}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    play = command("play")
    play.add_argument("--edition", metavar="ID",
                      help="the edition to play (default voice-banking; `banker editions` lists them)")
    play.add_argument("--players", metavar="T1,T2,…",
                      help="tokens in turn order, e.g. racecar,dog (default: asked for at the start)")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="a rule option (`banker editions` lists them) or a setting such as "
                      "asr.engine=vosk; may be repeated")
    play.add_argument("--keyboard", action="store_true", help="typed lines only, no audio")
    play.add_argument("--game", type=Path, metavar="PATH",
                      help="the game file (default: a new file in ~/.local/share/banker/games/)")
    play.add_argument("--resume", action="store_true",
                      help="continue the latest game (or --game PATH) exactly where it stopped")
    play.add_argument("--screen-port", type=_port, metavar="PORT", help="the table screen's port (default: a free one)")
    play.add_argument("--screen-host", metavar="ADDR", help="serve the table screen on ADDR (a key is then needed)")
    play.add_argument("--no-screen", action="store_true", help="no table screen")
    play.add_argument("--no-browser", action="store_true", help="only print the table screen's address")

    rp = command("replay")
    rp.add_argument("files", nargs="+", type=Path, metavar="FILE.yaml", help="transcripts to run")
    rp.add_argument("--report", type=Path, metavar="FILE.json", help="also write every step to a JSON report")

    tr = command("transcribe")
    tr.add_argument("--edition", default="voice-banking", metavar="ID",
                    help="the edition whose names and rules the recogniser uses (default voice-banking)")
    tr.add_argument("--context", type=Path, metavar="FILE.yaml",
                    help="a Picovoice Rhino context instead of an edition's commands")
    tr.add_argument("--json", action="store_true", help="one JSON object per file")
    tr.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option or a setting such as asr.engine=vosk; may be repeated")
    tr.add_argument("wavs", nargs="+", type=Path, metavar="WAV", help="recordings to recognise")

    say = command("say")
    say.add_argument("text", nargs="+", help="what to say")
    say.add_argument("--out", type=Path, metavar="FILE.wav", help="write a WAV file instead of speaking")

    st = command("state")
    st.add_argument("--game", type=Path, metavar="PATH", help="the game file (default: the latest game)")
    st.add_argument("--json", action="store_true", help="the transcripts' expectation keys, as JSON")

    command("editions")
    ph = command("phrases")
    ph.add_argument("--edition", default="voice-banking", metavar="ID",
                    help="the edition whose commands to list (default voice-banking)")

    _bench_options(command("bench"))
    return p


def _bench_options(b: argparse.ArgumentParser) -> None:
    """`banker bench`: the dev set's size, and the other modes (real speech, the table, phones, the
    hearing model)."""
    b.add_argument("--quick", action="store_true", help="a small dev set, for a quick look")
    b.add_argument("--out", type=Path, metavar="FILE.json", help="write the JSON report here")
    b.add_argument("--commands", type=_count,
                   help="commands in the dev set (default 200; 40 quick; 1000 full)")
    b.add_argument("--chatter", type=_count,
                   help="chatter lines (default 60; 15 quick; 300 full)")
    b.add_argument("--real", type=Path, metavar="DIR",
                   help="a real-speech set (recordings, labels, context, noise) instead")
    b.add_argument("--full", action="store_true",
                   help="the whole dev set in seven conditions; with --real: every "
                        "recording; with --table: seven noise conditions")
    b.add_argument("--table", action="store_true",
                   help="whole games by voice at a simulated table, clean and in noise")
    b.add_argument("--games", type=_count, help="with --table: games per condition (default 3)")
    b.add_argument("--phones", action="store_true",
                   help="a phone's reply latency beside the local microphone's; with --table: "
                        "the far microphone beside a close one (a phone)")
    b.add_argument("--files", type=_count, help="with --real: how many recordings (default 36)")
    b.add_argument("--hearing", action="store_true",
                   help="the hearing model on the voice corpus: fitted on all voice families "
                        "but one, scored on the one left out, against the rules")


def _count(text: str) -> int:
    """A positive whole number for an option (argparse turns the error into exit 2)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return n


def _port(text: str) -> int:
    """A TCP port number for an option (argparse turns the error into exit 2)."""
    if not text.isdecimal() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader stopped reading (``banker state | head -3``): fine
        _quiet_stdout()
        return 0


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _check_edition(getattr(args, "edition", None))
        return _dispatch(args)
    except KeyboardInterrupt:
        return 0
    except (EditionError, ConfigError) as exc:
        print(f"banker: {exc.sentence()}", file=sys.stderr)
        return 2
    except _UserError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush doesn't raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _check_edition(edition: str | None) -> None:
    """A mistyped edition id is a usage mistake, not a broken file: name the ones there are."""
    if edition is None or edition in available_editions():
        return
    path = Path(edition)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return  # an edition file of the user's own
    editions = available_editions()
    if not editions:
        raise _UserError(f"There is no edition called {edition!r}; no editions are installed.")
    *rest, last = editions
    known = f"{', '.join(rest)} and {last}" if rest else last
    raise _UserError(f"There is no edition called {edition!r}; the editions are {known}.")


class _UserError(Exception):
    pass


def _dispatch(args: argparse.Namespace) -> int:
    from banker.app import UsageError
    from banker.journal import JournalError

    try:
        if args.cmd == "editions":
            return cmd_editions()
        if args.cmd == "phrases":
            return cmd_phrases(args.edition)
        if args.cmd == "replay":
            from banker.frontends.replay import replay_files

            return replay_files(list(args.files), args.report)
        if args.cmd == "play":
            return cmd_play(args)
        if args.cmd == "state":
            return cmd_state(args)
        if args.cmd == "say":
            from banker.tools.say import run_say

            return run_say(" ".join(args.text), args.out)
        if args.cmd == "transcribe":
            from banker.tools.transcribe import run_context, run_transcribe

            if args.context is not None:
                return run_context(args.context, list(args.wavs), args.json, args.option)
            return run_transcribe(args.edition, list(args.wavs), args.json, args.option)
        if args.cmd == "bench":
            from banker.tools.bench import run_bench

            if args.games is not None and not args.table:
                raise UsageError("--games goes with --table (games per condition).")
            if args.phones and not args.table:
                from banker.tools.bench_phones import run_phones

                return run_phones(quick=args.quick, out=args.out)
            if args.hearing:
                from banker.tools.hearing_fit import run_hearing

                return run_hearing()
            if args.table:
                from banker.tools.bench_table import run_table

                return run_table(args.games, args.full, out=args.out, phones=args.phones)
            if args.real is not None:
                from banker.tools.bench_real import run_real

                return run_real(args.real, args.full, args.files, out=args.out)
            return run_bench(args.quick, args.out, size=(args.commands, args.chatter),
                             full=args.full)
    except (UsageError, JournalError) as exc:
        raise _UserError(str(exc)) from None
    return 2


def cmd_editions() -> int:
    for ed_id in available_editions():
        ed = load_edition(ed_id)
        print(f"{ed.id}: {ed.name} ({ed.min_players}-{ed.max_players} players, start {ed.fmt(ed.start_cash)})")
        print(f"  tokens: {', '.join(t.id for t in ed.tokens)}")
        for o in ed.options:
            values = " | ".join(o.choices) or "N"  # no choices: a number (``start``)
            print(f"  option {o.name}: {values} (default {o.default}){' - ' + o.doc if o.doc else ''}")
    return 0


def cmd_phrases(edition: str) -> int:
    from banker.nlu.phrases import phrase_lines

    print("\n".join(phrase_lines(load_edition(edition))))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from banker.app import start_game
    from banker.config import load_config
    from banker.frontends.keyboard import ask_players_stdin, run_keyboard

    settings = {k: v for k, v in (o.split("=", 1) for o in args.option if "=" in o) if "." in k}
    config = load_config(overrides=settings)
    out = sys.stdout
    from banker.screen import Screen

    screen = Screen(args.screen_port, args.screen_host, not args.no_browser, enabled=not args.no_screen)

    def on_say(text: str) -> None:
        print(text, file=out, flush=True)
        screen.said(text)

    voice = None
    if not args.keyboard:  # sound opens when first needed: to join by buttons, or to play
        from banker.frontends.voice import VoiceFrontend

        voice = VoiceFrontend(config, sys.stdin, out, on_say)
    try:
        game = start_game(args.edition, args.players, args.option, args.game, args.resume, on_say,
                          voice.ask_players if voice is not None
                          else lambda ed: ask_players_stdin(sys.stdin, out, list(ed.token_ids)))
        try:
            if game.session.state.game_over and game.resumed:
                return 0
            screen.start(game.session, game.file.path)
            rc = voice.run(game.session, screen.phones) if voice is not None else None
            if rc is not None:
                return rc
            if screen.phones is not None:  # no sound here: typed lines, and the phones
                from banker.frontends.voice.phone_table import run_phone_table

                return run_phone_table(game.session, config, sys.stdin, out, screen.phones)
            return run_keyboard(game.session, sys.stdin, out)
        finally:
            screen.close()
            game.file.close()
    finally:
        if voice is not None:
            voice.close()


def cmd_state(args: argparse.Namespace) -> int:
    from banker.app import last_game
    from banker.editions.loader import for_game, parse_edition
    from banker.interpreter.dialogue_state import held_events
    from banker.journal import GameFile
    from banker.rules import fold, rules_for
    from banker.state_text import state_lines

    path = args.game or last_game()
    if path is None:
        raise _UserError("There is no saved game.")
    # peek, not open: "without changing it" (no repair, no lock; works while a game is played)
    loaded = GameFile(path).peek()
    if loaded.damaged:
        print(f"banker: the game file {path} is damaged; this is the state up to transaction "
              f"{loaded.kept_upto()}, and `banker play --resume` will repair it.", file=sys.stderr)
    ed = for_game(parse_edition(loaded.header.edition_yaml, str(path)), loaded.header.options)
    base = rules_for(ed).initial_state(loaded.header.players, loaded.header.options, loaded.header.seed)
    state = fold(base, [e for tx in loaded.transactions for e in tx.events]
                 + held_events(loaded.dialogue_state))  # a betting round's stakes on the table
    if args.json:
        print(json.dumps(state.view(), indent=1))
        return 0
    print("\n".join(state_lines(state, loaded.header.players)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
