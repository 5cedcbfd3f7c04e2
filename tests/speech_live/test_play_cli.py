"""``banker play`` as a family runs it: the real command, the virtual sound card, buttons as
key strokes, commands spoken into the microphone; and without any sound device."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from .conftest import SoundCard


def _default_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Play:
    """``banker play`` in a subprocess; stdout collected line by line as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        # Ctrl-C as at a terminal: a suite started in the background of a script inherits
        # SIGINT ignored, and Python then never installs its handler in the child
        self.proc = subprocess.Popen([sys.executable, "-m", "banker", "play", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, text=True, bufsize=1,
                                     preexec_fn=_default_sigint)
        self.text = ""
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            ch = self.proc.stdout.read(1)
            if not ch:
                return
            with self.lock:
                self.text += ch

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, pattern: str, start: int = 0, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                m = re.search(pattern, self.text[start:])
            if m:
                return m.group(0)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
        err = self.proc.communicate(timeout=10)[1]
        raise AssertionError(f"never printed {pattern!r}; got:\n{self.text}\nstderr: {err}")

    def mark(self) -> int:
        with self.lock:
            return len(self.text)

    def finish(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=60)
        err = self.proc.stderr.read() if self.proc.stderr else ""
        return rc, err


def _env(base: dict[str, str], tmp: Path) -> dict[str, str]:
    return dict(base, XDG_DATA_HOME=str(tmp / "data"), XDG_CACHE_HOME=str(tmp / "cache"),
                XDG_CONFIG_HOME=str(tmp / "config"))


def _state(game: Path, env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    r = subprocess.run([sys.executable, "-m", "banker", "state", "--game", str(game), "--json"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def _spoken_command(sound_card: SoundCard, play: Play, key: str, wav: Path, reply: str) -> str:
    """Press, speak, and (if he asks "did you say …?") confirm with a second press."""
    mark = play.mark()
    play.send(key)
    time.sleep(0.4)
    sound_card.speak_into_mic(wav)
    got = play.wait_for(rf"{reply}|Did you say[^\n]*", start=mark)
    if got.startswith("Did you say"):
        mark = play.mark()
        play.send(key)  # a bare press is "yes"
        got = play.wait_for(reply, start=mark)
    return got


def test_a_short_spoken_game(sound_card: SoundCard, said, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env = _env(sound_card.env, tmp_path)
    game = tmp_path / "g.sqlite"
    play = Play(["--players", "racecar,dog", "--game", str(game)], env)
    play.wait_for(r"Welcome to Monopoly[^\n]*\n> ")  # the prompt: the voice loop is ready
    _spoken_command(sound_card, play, "1", said("buy Baltic Avenue"), r"M60[^\n]*")
    _spoken_command(sound_card, play, "2", said("pay rent on Baltic Avenue"), r"M4\b[^\n]*")
    got = _spoken_command(sound_card, play, "2", said("how much money do I have"), r"M1,49\d")
    assert got == "M1,496"
    rc, err = play.finish()
    assert rc == 0, err
    assert "Traceback" not in err
    state = _state(game, env)
    text = json.dumps(state)
    assert "1444" in text and "1496" in text, text


def test_no_sound_device_says_so_once_and_plays_by_keyboard(tmp_path: Path) -> None:
    env = _env(dict(os.environ), tmp_path)
    env["PULSE_RUNTIME_PATH"] = str(tmp_path / "no-pulse")  # no sound server, no card
    env["PULSE_SERVER"] = f"unix:{tmp_path}/no-pulse/native"
    game = tmp_path / "g.sqlite"
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--players", "racecar,dog",
                        "--game", str(game)], input="racecar: buy Baltic Avenue\ndog: balance\n",
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = r.stdout
    assert out.count("can't open a microphone") == 1, out
    sentence = next(line for line in out.splitlines() if "microphone" in line)
    assert sentence.count(".") == 1 and sentence.endswith(".")
    assert "M60" in out and "M1,500" in out  # and the game went on, by keyboard
    assert out.index("microphone") < out.index("M60")


def test_keyboard_flag_never_touches_audio(tmp_path: Path) -> None:
    env = _env(dict(os.environ), tmp_path)
    env["PULSE_RUNTIME_PATH"] = str(tmp_path / "no-pulse")
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players",
                        "racecar,dog", "--game", str(tmp_path / "g.sqlite")],
                       input="dog: balance\n", capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and "microphone" not in r.stdout and "M1,500" in r.stdout


def test_a_command_in_a_noisy_room(sound_card: SoundCard, said, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A loud fan-like hiss, 10 dB under the voice: the live loop filters the noise while the
    player talks (LiveCleaner) and the commands are understood (pocketsphinx alone gets about
    six in ten commands right at this level). A "did you say…?" must name the right thing."""
    import numpy as np

    from banker.tools import clips

    noisy = {}
    for text in ("pay rent on Baltic Avenue", "buy Mediterranean Avenue"):
        pcm = clips.read_pcm(said(text, silence=0.6))
        noisy[text] = tmp_path / f"{len(noisy)}.wav"
        clips.write_wav(noisy[text], clips.mix(pcm, "pink", 10, np.random.default_rng(len(noisy))))
    env = _env(sound_card.env, tmp_path)
    game = tmp_path / "g.sqlite"
    play = Play(["--players", "racecar,dog", "--game", str(game)], env)
    play.wait_for(r"Welcome to Monopoly[^\n]*\n> ")
    play.send("racecar: buy baltic avenue")
    play.wait_for(r"M60[^\n]*")
    for key, text, reply in (("2", "pay rent on Baltic Avenue", r"M4\b[^\n]*"),
                             ("1", "buy Mediterranean Avenue", r"M1,384")):
        mark = play.mark()
        play.send(key)
        time.sleep(0.4)
        sound_card.speak_into_mic(noisy[text])
        got = play.wait_for(rf"{reply}|Did you say[^\n]*", start=mark)
        if got.startswith("Did you say"):
            assert text.split()[-2] in got, got  # the question is about the right street
            mark = play.mark()
            play.send(key)
            play.wait_for(reply, start=mark)
    rc, err = play.finish()
    assert rc == 0, err
    cash = _state(game, env)["cash"]
    assert cash == {"racecar": 1384, "dog": 1496}, cash


def test_ctrl_c_in_a_voice_game_says_the_game_is_saved(sound_card: SoundCard, tmp_path: Path) -> None:
    """Ctrl-C leaves with the game saved, and he says (and prints) so."""
    import signal

    env = _env(sound_card.env, tmp_path)
    game = tmp_path / "g.sqlite"
    play = Play(["--players", "racecar,dog", "--game", str(game)], env)
    play.wait_for(r"Welcome to Monopoly[^\n]*\n> ")
    play.send("racecar: buy baltic avenue")
    play.wait_for(r"M60[^\n]*")
    play.proc.send_signal(signal.SIGINT)
    rc = play.proc.wait(timeout=60)
    err = play.proc.stderr.read() if play.proc.stderr else ""
    assert rc == 0, err
    assert "Traceback" not in err
    play.wait_for(r"\nGame saved\. Resume with banker play --resume --game \S+\.\n")
    assert _state(game, env)["cash"]["racecar"] == 1440
