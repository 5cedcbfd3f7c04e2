"""The live voice loop on the virtual sound card: real buttons path, microphone, recogniser,
session, piper voice, speaker; what Mr. Monopoly says is recorded and recognised."""

from __future__ import annotations

import io
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from banker.app import start_game
from banker.config import load_config
from banker.frontends.voice import VoiceIO, open_voice, run_voice
from banker.speech.tts import PiperTTS

from .conftest import SoundCard, decode


class Out(io.StringIO):
    """What the table sees printed; tests wait for lines to appear."""

    def wait_for(self, pattern: str, timeout: float = 20.0, start: int = 0) -> re.Match[str]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = re.search(pattern, self.getvalue()[start:])
            if m:
                return m
            time.sleep(0.05)
        raise AssertionError(f"never printed {pattern!r}; got:\n{self.getvalue()}")


class Table:
    """One game running ``run_voice`` in a thread; keys go in through a pipe (the terminal)."""

    def __init__(self, tmp: Path, tts: PiperTTS, players: str = "racecar, dog") -> None:
        self.out = Out()
        r, self.w = os.pipe()
        self.stdin = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8")
        self.config = load_config()
        self.rc: int | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(tmp, tts, players), daemon=True)
        self.thread.start()
        assert self.ready.wait(30)

    def _run(self, tmp: Path, tts: PiperTTS, players: str) -> None:
        # the game file belongs to the thread that runs the game (SQLite's rule)
        self.game = start_game(None, players, [], tmp / "game.sqlite", False,
                               lambda t: print(t, file=self.out, flush=True), lambda _e: players)
        self.io: VoiceIO = open_voice(self.config, self.stdin, self.out, tts=tts)
        self.ready.set()
        try:
            self.rc = run_voice(self.game.session, self.config, self.stdin, self.out, io=self.io)
        finally:
            self.io.close()
            self.game.file.close()

    def type(self, text: str) -> None:
        os.write(self.w, (text + "\n").encode())

    def quiet(self, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while self.io.speaker.busy() and time.monotonic() < end:
            time.sleep(0.02)

    def close(self) -> int | None:
        os.close(self.w)
        self.thread.join(30)
        return self.rc


@pytest.fixture
def table(sound_card: SoundCard, tts: PiperTTS, tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path, tts)
    yield t
    if t.thread.is_alive():
        t.close()


def say_after_press(sound_card: SoundCard, table: Table, key: str, wav: Path) -> None:
    table.type(key)  # the token button, at the key-input layer
    time.sleep(0.35)  # the beep
    sound_card.speak_into_mic(wav)


def test_a_spoken_query_is_answered_out_loud(sound_card: SoundCard, table: Table, said,  # type: ignore[no-untyped-def]
                                             tmp_path: Path) -> None:
    table.out.wait_for(r"Welcome to Monopoly")
    table.type("dog: buy Park Place")  # typed lines work alongside the buttons
    table.out.wait_for(r"Dog buys Park Place|Park Place is yours|That's Park Place")
    rec = sound_card.record_speaker(tmp_path / "reply.raw")
    mark = len(table.out.getvalue())
    # racecar presses while he is still talking: he stops, beeps, listens
    say_after_press(sound_card, table, "1", said("pay rent on Park Place"))
    table.out.wait_for(r"M35", start=mark)
    table.quiet()
    time.sleep(0.2)
    heard = decode(rec.stop())
    assert table.game.session.state.players["racecar"].cash == 1465
    assert "thirty five" in heard, heard
    assert table.close() == 0


def test_a_press_while_he_speaks_stops_him(sound_card: SoundCard, table: Table, said) -> None:  # type: ignore[no-untyped-def]
    table.out.wait_for(r"Welcome to Monopoly")
    player = table.io.player
    end = time.monotonic() + 10
    while player.played < 0.5 * player.rate and time.monotonic() < end:
        time.sleep(0.02)
    assert table.io.speaker.busy(), "the welcome is being spoken"
    table.type("2")  # press while he speaks
    time.sleep(0.25)
    at = player.played
    time.sleep(0.5)
    # only the beep (0.09 s) may have played since: the welcome was cut off
    assert player.played - at < 0.2 * player.rate
    sound_card.speak_into_mic(said("how much money do I have"))
    table.out.wait_for(r"The dog has M1,500")  # said to the table
    assert table.close() == 0


def test_a_press_without_speech_during_an_auction_is_a_bid(sound_card: SoundCard, table: Table) -> None:
    table.out.wait_for(r"Welcome to Monopoly")
    table.type("racecar: auction off Baltic Avenue")
    table.out.wait_for(r"Baltic Avenue")
    mark = len(table.out.getvalue())
    table.type("2")  # dog presses and says nothing
    table.out.wait_for(r"Dog", start=mark, timeout=10)
    auction = table.game.session.auction
    assert auction is not None and auction.bidder == "dog" and auction.amount > 0
    table.out.wait_for(r"Any final bids\?", timeout=10)
    table.out.wait_for(r"(Sold|gone)[^\n]*Dog", timeout=10)
    assert table.game.session.state.owned_by("dog"), "the auction closed and dog owns the street"
    assert table.close() == 0


def test_players_join_by_pressing_their_buttons(sound_card: SoundCard, tts: PiperTTS, said) -> None:  # type: ignore[no-untyped-def]
    """Each join names the button and the token it got; a second press and a token's name
    change it (how a misheard token is put right)."""
    from banker.editions import load_edition
    from banker.frontends import voice

    out = Out()
    r, w = os.pipe()
    stdin = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8")
    vio = open_voice(load_config(), stdin, out, tts=tts)
    result: list[str] = []
    th = threading.Thread(target=lambda: result.append(
        voice.join_by_voice(vio, load_edition("voice-banking"), out, close_after=1.5)),
        daemon=True)  # 5 s at a real table
    th.start()
    try:
        out.wait_for(r"Who's playing\?")
        os.write(w, b"2\n")  # the first to press sits first, and says a token
        time.sleep(0.35)
        sound_card.speak_into_mic(said("dog"))
        out.wait_for(r"Button 2, you're the Dog\.")
        os.write(w, b"1\n")  # the second says nothing: the next free token
        out.wait_for(r"Button 1, you're the T-Rex\.", timeout=10)
        mark = len(out.getvalue())
        os.write(w, b"1\n")  # ... and presses again to say which token they wanted
        time.sleep(0.35)
        sound_card.speak_into_mic(said("racecar"))
        out.wait_for(r"Button 1, you're now the Racecar\.", start=mark)
        th.join(15)
        assert result == ["dog, racecar"]
        assert vio.key_tokens == {"2": "dog", "1": "racecar"}
        assert "Let's play: Dog, Racecar." in out.getvalue()
        assert not vio.lost.is_set()  # the watchdog saw a working card all along
    finally:
        os.close(w)
        vio.close()


def test_a_press_and_silence_is_answered_and_ctrl_d_says_the_game_is_saved(
        sound_card: SoundCard, table: Table) -> None:
    """A press with nothing said (no auction, no question) is not ignored,
    and the end of input says the game is saved, on a line of its own."""
    table.out.wait_for(r"Welcome to Monopoly")
    table.quiet()
    mark = len(table.out.getvalue())
    table.type("1")  # racecar presses and says nothing
    table.out.wait_for(r"I didn't hear anything\.", start=mark, timeout=15)
    table.quiet()
    assert "I didn't hear anything." in table.io.speaker.spoken
    assert table.close() == 0
    # printed: the game outside the default folder is named (--game PATH); spoken: the short line
    assert [ln for ln in table.out.getvalue().splitlines()
            if ln.startswith("Game saved. Resume with banker play --resume --game ")], table.out.getvalue()
    assert "Game saved. Resume with banker play --resume." in table.io.speaker.spoken


def test_the_beep_does_not_end_the_turn_when_the_microphone_hears_the_speaker(  # type: ignore[no-untyped-def]
        sound_card: SoundCard, echo: None, table: Table, said) -> None:
    """With the speaker heard by the microphone (20 dB down), a bare press is
    still a bid, and a command spoken 0.6 s after the press is still understood."""
    table.out.wait_for(r"Welcome to Monopoly")
    table.quiet()
    table.type("racecar: auction off Baltic Avenue")
    table.out.wait_for(r"Baltic Avenue")
    mark = len(table.out.getvalue())
    table.type("2")  # dog presses and says nothing: a bid, not "Sorry, say that again?"
    table.out.wait_for(r"Dog", start=mark, timeout=10)
    assert "say that again" not in table.out.getvalue()[mark:]
    auction = table.game.session.auction
    assert auction is not None and auction.bidder == "dog", table.out.getvalue()[mark:]
    table.out.wait_for(r"(Sold|gone)[^\n]*Dog", timeout=15)
    table.quiet()
    mark = len(table.out.getvalue())
    table.type("1")
    time.sleep(0.6)
    sound_card.speak_into_mic(said("how much money do I have"))
    table.out.wait_for(r"M1,500", start=mark, timeout=20)
    assert "say that again" not in table.out.getvalue()[mark:]
    assert table.close() == 0


class Joiners:
    """``join_by_voice`` on a thread, buttons through a pipe (as ``banker play`` runs it)."""

    def __init__(self, tts: PiperTTS) -> None:
        from banker.editions import load_edition
        from banker.frontends import voice

        self.out = Out()
        r, self.w = os.pipe()
        stdin = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8")
        self.vio = open_voice(load_config(), stdin, self.out, tts=tts)
        self.result: list[str] = []
        self.thread = threading.Thread(target=lambda: self.result.append(
            voice.join_by_voice(self.vio, load_edition("voice-banking"), self.out)), daemon=True)
        self.thread.start()

    def press(self, key: str) -> None:
        os.write(self.w, f"{key}\n".encode())

    def seat_two(self) -> None:
        """Buttons 1 and 2 join, each answered with their token."""
        self.out.wait_for(r"Who's playing\?")
        self.press("1")
        self.out.wait_for(r"Button 1, you're the T-Rex\.", timeout=15)
        self.press("2")
        self.out.wait_for(r"Button 2, you're the Racecar\.", timeout=15)

    def close(self) -> None:
        os.close(self.w)
        self.vio.close()


def test_joining_warns_before_it_closes_and_a_late_third_player_still_sits(  # type: ignore[no-untyped-def]
        sound_card: SoundCard, tts: PiperTTS) -> None:
    """The window no longer closes without a word 5 s after the last join;
    a third player pressing 6 s after the second joined is seated."""
    j = Joiners(tts)
    try:
        j.seat_two()
        second = time.monotonic()
        j.out.wait_for(r"Anyone else\? Starting in 3 seconds\.", timeout=10)
        assert "Let's play" not in j.out.getvalue()
        time.sleep(max(0.0, second + 6.0 - time.monotonic()))
        j.press("3")
        j.out.wait_for(r"Button 3, you're the [A-Za-z-]+\.", timeout=15)
        j.thread.join(30)
        assert len(j.result) == 1 and len(j.result[0].split(", ")) == 3, (j.result, j.out.getvalue())
        text = j.out.getvalue()
        assert text.index("Anyone else?") < text.index("Button 3") < text.index("Let's play")
    finally:
        j.close()


def test_the_first_player_starts_the_game_by_saying_thats_everyone(  # type: ignore[no-untyped-def]
        sound_card: SoundCard, tts: PiperTTS, said) -> None:
    j = Joiners(tts)
    try:
        j.seat_two()
        j.press("1")  # the first player, again
        time.sleep(0.35)
        sound_card.speak_into_mic(said("that's everyone"))
        spoken = time.monotonic()
        j.thread.join(20)
        assert j.result == ["trex, racecar"], j.out.getvalue()
        assert time.monotonic() - spoken < 4.0  # at once, not when the window closed
        assert "Anyone else?" not in j.out.getvalue()
        assert "still the" not in j.out.getvalue()  # not taken for a change of token
        assert "Let's play: T-Rex, Racecar." in j.out.getvalue()
    finally:
        j.close()
