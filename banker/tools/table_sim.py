"""The simulated table (``banker bench --table``): whole games through ``banker play``'s voice loop.

The loop, the listener (end of speech, the noise filter), the recogniser in its own process,
the ``Session`` and its SQLite journal are the live ones; only the two physical ends and the
clock are stand-ins:

- ``VirtualMic``: the player's utterance (a dev-set voice, mixed with the condition's noise),
  30 ms frames handed over as fast as the listener takes them; each frame moves the
  ``VirtualTime`` on by 30 ms. With hold-to-talk (``release``, the default) the button is let
  go 0.25 s after the last voiced sample, once the listener has every frame up to there.
- ``VirtualOut`` and ``SilentVoice``: Mr. Monopoly's lines are not rendered; the simulated
  players read his words (``on_say``) and the clock moves on by the time saying them takes.
- The session's clock follows the virtual time (``PausableClock(source)``), so a question's
  time-out or an auction runs on table time, not on how busy the CPU is.

A ``Player`` says each command of the script, then reacts to what the banker did: "did you say
X?" is answered yes (a tap on the button, or "yes", by the player's habit) when X is what he
meant and "no" when it isn't; "which street?" gets the street; "sorry?", a refusal of a
misheard command or a wrong answer to a question gets the command again. A wrong command that
moved money is not corrected (no undo): the player goes on with the script, and the balances
show it. The naive player answers yes to every question.
"""

from __future__ import annotations

import io
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np

from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.events import EndOfInput, KeyInput, Wake
from banker.frontends.voice.listener import TurnHeard
from banker.frontends.voice.loop import VoiceLoop
from banker.frontends.voice.playing import PausableClock, Playing
from banker.interpreter.session import Session
from banker.speech.buttons import ButtonEvent
from banker.speech.latency import true_end
from banker.speech.stand_ins import FedMic, SilentVoice
from banker.speech.stand_ins import SilentOut as VirtualOut
from banker.tools import clips
from banker.tools.clips import Voice

RATE = 16000
FRAME = 480  # 30 ms
BEFORE = 0.3  # s of room sound between the press and the first word
RELEASE_AFTER = 0.25  # s after the last voiced sample: the button is let go
CHARS_PER_SECOND = 14.0  # Mr. Monopoly's speaking rate (piper joe, measured roughly)
REACTION = 0.6  # s from the end of his line to the player's press
TEMPO = (0.92, 1.08, 0.96, 1.04)  # said again: a little slower or faster each time
MAX_TURNS = 5  # turns a player spends on one command before giving up
TURN_WAIT = 90.0  # real s to wait for one turn before calling the game broken

Mode = Literal["release", "vad"]
ASKING = ("confirm", "choose", "slot")  # the session asked about the command: nothing done yet


# -- the script a table plays -----------------------------------------------------------------
@dataclass(frozen=True)
class Cmd:
    """One scripted command: who says it, the words, and what it means (the typed path's
    reading: intent and slots), with the words for each slot (answers to "which street?")."""

    player: str
    text: str
    intent: str
    slots: tuple[tuple[str, Any], ...]
    words: tuple[tuple[str, str], ...] = ()

    def means(self, intent: str, slots: Mapping[str, Any]) -> bool:
        return intent == self.intent and _plain(slots) == dict(self.slots)


@dataclass(frozen=True)
class Script:
    """A whole game: players (turn order), their voices and yes habits, the commands, and the
    cash every player should end with (the same commands typed)."""

    seed: int
    players: tuple[str, ...]
    voices: tuple[Voice, ...]
    taps: tuple[bool, ...]  # True: answers yes with a tap of the button; False: says "yes"
    cmds: tuple[Cmd, ...]
    expected: tuple[tuple[str, int], ...]


def _plain(slots: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in slots.items() if v is not None}


# -- what a turn led to ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Seen:
    """What the banker did with one turn, taken on the loop's thread right after it."""

    heard: str  # the recogniser's words ("" for a tap, or nothing recognised)
    intent: str  # the command acted on ("none": nothing; "yes"/"no" an answer)
    slots: dict[str, Any]
    refused: bool
    moved: bool  # a transaction was committed
    asked: str = ""  # the open question put to this player: confirm, choose, slot, rule, undo
    asked_cmd: tuple[str, dict[str, Any]] | None = None  # "did you say <this>?"
    slot: str = ""  # the slot a two-step question asks for
    candidates: tuple[tuple[str, dict[str, Any]], ...] = ()
    auction: bool = False
    said: tuple[str, ...] = ()
    confidence: float = 0.0  # the recogniser's (0 for a tap)
    # the open question was open before this turn and the turn left it as it was: one left
    # by a command given up earlier, not asked about this one ("how much money do I have"
    # answered while "Did you say buy Virginia Avenue?" is still open)
    stale: bool = False


def seen_after(session: Session, player: str, heard: str, tx_before: int,
               said: tuple[str, ...], confidence: float = 0.0, stale: bool = False) -> Seen:
    st, p = session.step, session.pending
    asked = p.kind if p is not None and player in p.asked else ""
    cmd = getattr(p, "command", None) if asked else None  # the question kinds that hold one
    return Seen(
        heard, st.intent, _plain(st.slots), st.refused, len(session.history) > tx_before,
        asked, (cmd.name, _plain(cmd.intent.slots)) if cmd is not None else None,
        str(getattr(p, "slot", "")) if asked == "slot" else "",
        tuple((c.name, _plain(c.intent.slots)) for c in getattr(p, "candidates", ())) if asked
        else (), session.auction is not None, said, confidence, stale)


Move = tuple[Literal["say", "tap"], str]


def next_move(cmd: Cmd, seen: Seen, naive: bool = False, taps: bool = True) -> Move:
    """What the player does after ``seen`` when ``cmd`` is not done yet (the pure part of the
    simulated player)."""
    words = dict(cmd.words)
    yes: Move = ("tap", "") if taps else ("say", "yes")
    if seen.asked == "confirm":
        if naive or (seen.asked_cmd is not None and cmd.means(*seen.asked_cmd)):
            return yes
        if any(cmd.means(*c) for c in seen.candidates):
            return ("say", _telling_words(cmd, seen.candidates))
        return ("say", "no")
    if seen.asked == "choose":
        if any(cmd.means(*c) for c in seen.candidates):
            return ("say", _telling_words(cmd, seen.candidates))
        return ("say", cmd.text)
    if seen.asked == "slot":
        if seen.asked_cmd is not None and seen.asked_cmd[0] == cmd.intent and seen.slot in words:
            return ("say", words[seen.slot])
        return ("say", cmd.text)
    if seen.asked in ("rule", "undo"):
        return yes if naive else ("say", "no")
    return ("say", cmd.text)


def done_by(cmd: Cmd, seen: Seen) -> bool:
    """The banker understood ``cmd`` in this turn: acted on it (or refused it with a reason),
    not asked about it; a question left open from a command given up earlier does not
    count against it."""
    return cmd.means(seen.intent, seen.slots) and (seen.asked not in ASKING or seen.stale)


def _telling_words(cmd: Cmd, candidates: tuple[tuple[str, dict[str, Any]], ...]) -> str:
    """The words of the slot that tells the candidates apart ("Baltic Avenue")."""
    words, slots = dict(cmd.words), dict(cmd.slots)
    for name in slots:
        if len({repr(c[1].get(name)) for c in candidates}) > 1 and name in words:
            return words[name]
    return cmd.text


# -- stand-ins for the physical ends and the clock -------------------------------------------------
class VirtualTime:
    """The table's time: it moves only as the players talk and Mr. Monopoly speaks."""

    def __init__(self) -> None:
        self._t = 1000.0
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._t

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._t += seconds


class VirtualMic(FedMic):
    """One utterance's frames, as fast as the listener takes them (one frame in hand at a
    time, so the release comes exactly after the frame it follows)."""

    def __init__(self, clock: VirtualTime) -> None:
        super().__init__(maxsize=1)
        self.clock = clock
        self.audio = np.zeros(0, dtype=np.int16)
        self.release_at: int | None = None  # sample index; None: VAD ends the turn
        self.on_release: Callable[[], None] = lambda: None

    def _feeder(self, stop: threading.Event) -> Callable[[], None]:
        return partial(self._feed, stop, self.audio, self.release_at, self.on_release)

    def _feed(self, stop: threading.Event, pcm: clips.Pcm, release_at: int | None,
              on_release: Callable[[], None]) -> None:
        for i in range(0, len(pcm) - FRAME + 1, FRAME):
            frame = pcm[i:i + FRAME].tobytes()
            while True:
                if stop.is_set():
                    return
                try:
                    self._q.put(frame, timeout=0.05)
                    break
                except queue.Full:
                    continue
            self.clock.advance(FRAME / RATE)
            if release_at is not None and i + FRAME >= release_at:
                while not self._q.empty() and not stop.is_set():
                    time.sleep(0.002)  # the listener has this frame: now let go
                on_release()
                return


class TablePlaying(Playing):
    """``Playing`` as at the table, on the virtual clock; after each turn it notes what the
    banker did (``Seen``) for the simulated player."""

    def __init__(self, session: Session, vio: VoiceIO, out: io.StringIO, clock: VirtualTime,
                 said: list[str]) -> None:
        super().__init__(session, vio, out, warm_ahead=False, clock=PausableClock(clock.now))
        self.said = said
        self._read = 0
        self.seen: queue.Queue[Seen] = queue.Queue()

    def lines(self) -> tuple[str, ...]:
        new = tuple(self.said[self._read:])
        self._read = len(self.said)
        return new

    def heard(self, turn: TurnHeard) -> None:
        before, was = len(self.session.history), self.session.pending
        super().heard(turn)
        stale = was is not None and self.session.pending is was
        self.seen.put(seen_after(self.session, turn.listening.token, turn.heard.text, before,
                                 self.lines(), turn.heard.confidence, stale))


# -- one game ---------------------------------------------------------------------------------------
@dataclass
class CmdResult:
    cmd: Cmd
    turns: int = 0
    done: bool = False  # the banker understood it (acted on it, or refused it with a reason)
    at_once: bool = False  # on the first turn, without a question
    refused: bool = False
    noes: int = 0  # "no" said to a wrong "did you say…?"
    wrong_money: int = 0  # wrong money commands acted on while trying this one
    asked: int = 0  # "did you say…?" questions
    log: list[str] = field(default_factory=list)


@dataclass
class GameResult:
    script: Script
    condition: str
    naive: bool
    results: list[CmdResult] = field(default_factory=list)
    cash: dict[str, int] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0
    diverged: bool = False  # the honest players did something the naive ones wouldn't

    @property
    def exact(self) -> bool:
        return not self.error and self.cash == dict(self.script.expected)


class Table:
    """The simulated players of one game, on a thread of their own (the loop has the main
    thread: it owns the SQLite game file)."""

    def __init__(self, script: Script, condition: str, vio: VoiceIO, playing: TablePlaying,
                 mic: VirtualMic, clock: VirtualTime, result: GameResult, mode: Mode) -> None:
        self.script, self.condition, self.vio, self.playing = script, condition, vio, playing
        self.mic, self.clock, self.result, self.mode = mic, clock, result, mode
        self._n = 0  # utterances so far (the noise seed)
        self.voice = dict(zip(script.players, script.voices, strict=True))
        self.taps = dict(zip(script.players, script.taps, strict=True))

    def run(self) -> None:
        try:
            self.playing.lines()  # the opening lines: heard before the first press
            for cmd in self.script.cmds:
                self.result.results.append(self.command(cmd))
            self.wait_auction()
        except Exception as exc:  # a broken game is reported, never a hang
            self.result.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.vio.events.put(EndOfInput())

    def command(self, cmd: Cmd) -> CmdResult:
        res = CmdResult(cmd)
        move: Move = ("say", cmd.text)
        tries: dict[str, int] = {}
        while res.turns < MAX_TURNS:
            again = tries[move[1]] = tries.get(move[1], -1) + 1
            seen = self.turn(cmd.player, move, again)
            res.turns += 1
            res.noes += move == ("say", "no")
            res.log.append(f"{move[0]} {move[1]!r} -> heard {seen.heard!r} "
                           f"({seen.confidence:.2f}), {seen.intent}"
                           f"{' refused' if seen.refused else ''}"
                           f"{' asked ' + seen.asked if seen.asked else ''}")
            res.log.append(" | ".join(seen.said))
            res.asked += seen.asked == "confirm"
            self.listen(seen.said)
            if done_by(cmd, seen):
                res.done, res.refused = True, seen.refused
                res.at_once = res.turns == 1 and not seen.refused
                return res
            if seen.moved:
                res.wrong_money += 1  # a wrong command moved money: no undo, go on
                return res
            if seen.auction:
                self.wait_auction()
            taps = self.taps[cmd.player]
            move = next_move(cmd, seen, self.result.naive, taps)
            if move != next_move(cmd, seen, True, taps):
                self.result.diverged = True  # a naive player would do otherwise here
        return res

    def listen(self, said: tuple[str, ...]) -> None:
        """The player hears Mr. Monopoly out, then reaches for the button."""
        self.clock.advance(sum(len(s) for s in said) / CHARS_PER_SECOND + REACTION)

    def turn(self, player: str, move: Move, again: int = 0) -> Seen:
        """One press: a tap, or words (``again``: how often he said them already)."""
        key = self._key(player)
        source = "evdev" if self.mode == "release" else "terminal"

        def button(kind: Literal["press", "release"]) -> None:
            self.vio.events.put(KeyInput(ButtonEvent(key, kind, source, time.monotonic())))

        if move[0] == "tap":
            self.mic.audio, self.mic.release_at = np.zeros(0, dtype=np.int16), None
            button("press")
            button("release" if self.mode == "release" else "press")
        else:
            voice = varied(self.voice[player], again)
            self.mic.audio, self.mic.release_at = self.utterance(move[1], voice)
            self.mic.on_release = lambda: button("release")
            button("press")
        try:
            return self.playing.seen.get(timeout=TURN_WAIT)
        except queue.Empty:
            raise TimeoutError(f"no answer to {move[1] or 'a tap'!r} in {TURN_WAIT:.0f} s") from None

    def utterance(self, text: str, voice: Voice) -> tuple[clips.Pcm, int | None]:
        """The words in the player's voice, in the room's noise, and where he lets go."""
        speech = clips.speech(text, voice)
        end = true_end(speech)
        max_s = self.playing.vad.max_seconds
        after = RELEASE_AFTER + 0.5 if self.mode == "release" else max_s + 1.0
        pcm = clips.pad(speech, BEFORE, after)
        self._n += 1
        if self.condition != "clean":
            kind, snr = self.condition.split(":")
            seed = self.script.seed * 1009 + self._n * 31  # the baseline hears the same
            pcm = clips.mix(pcm, kind, float(snr), np.random.default_rng(seed))
        release = int((BEFORE + end + RELEASE_AFTER) * RATE) if self.mode == "release" else None
        return pcm, release

    def _key(self, player: str) -> str:
        seat = self.playing.session.state.order.index(player) + 1
        return next(k for k, s in self.vio.keys.items() if s == seat)

    def wait_auction(self) -> None:
        """Nobody bids on an auction started by a misheard command: let it run out."""
        session = self.playing.session
        for _ in range(40):
            if session.auction is None:
                return
            self.clock.advance(1.0)
            self.vio.events.put(Wake())
            time.sleep(0.05)
        self.playing.lines()


def varied(voice: Voice, again: int) -> Voice:
    """The same person saying it again: the same voice, a little slower or faster."""
    if again <= 0:
        return voice
    f = TEMPO[(again - 1) % len(TEMPO)]
    if voice.engine == "piper":  # speed is piper's length scale
        return replace(voice, speed=round(voice.speed / f, 3))
    return replace(voice, speed=round(voice.speed * f))


def play_game(script: Script, condition: str, config: dict[str, Any], *, naive: bool = False,
              mode: Mode = "release") -> GameResult:
    """One whole game at the simulated table, as ``banker play`` would run it."""
    from banker.app import start_game
    from banker.speech.buttons import key_map

    t0 = time.monotonic()
    result = GameResult(script, condition, naive)
    said: list[str] = []
    out = _NullText()
    clock = VirtualTime()
    mic = VirtualMic(clock)
    with tempfile.TemporaryDirectory() as tmp:
        game = start_game("voice-banking", ", ".join(script.players), [],
                          Path(tmp) / "table.sqlite", False, said.append,
                          lambda _e: ", ".join(script.players))
        vio = VoiceIO(config, VirtualOut(), mic, out, key_map(config))
        try:
            vio.load_tts_async(SilentVoice())
            playing = TablePlaying(game.session, vio, out, clock, said)
            if not vio.ready(game.session.edition):
                raise RuntimeError("the recogniser could not be loaded")
            table = Table(script, condition, vio, playing, mic, clock, result, mode)
            driver = threading.Thread(target=table.run, name="table", daemon=True)
            driver.start()
            VoiceLoop(vio, out, playing).run()
            driver.join(30)
            result.cash = {t: p.cash for t, p in game.session.state.players.items()}
        finally:
            vio.close()
            game.file.close()
    result.seconds = time.monotonic() - t0
    return result


class _NullText(io.StringIO):
    """The table's screen: nobody reads it."""

    def write(self, s: str) -> int:
        return len(s)
