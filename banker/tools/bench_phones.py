"""``banker bench --phones``: the reply's latency from a phone's release beside the local microphone's.

One Voice Banking game (racecar and dog) through the real voice loop, the real screen server
and its phones' WebSocket, the configured recogniser, the session with a real SQLite journal
and piper: the racecar talks into the local microphone (a stand-in fed in real time,
``speech.latency.ClipMic``, its button let go at the end of speech), the dog into a phone (a
WebSocket client doing what the page does: press, 30 ms frames of 16 kHz PCM in real time,
release at the end of speech). Each command of the latency bench is said by both, in turn,
``rounds`` times. Timed: from the release to the first sample of Mr. Monopoly's reply handed
to the (stand-in) loudspeaker, p50 and p95 per microphone, with the counts.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, TextIO

from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.events import EndOfInput, KeyInput
from banker.frontends.voice.latency import warm_now
from banker.frontends.voice.loop import VoiceLoop
from banker.frontends.voice.phone_audio import FRAME_BYTES, PhoneEars
from banker.frontends.voice.playing import Playing
from banker.speech.buttons import ButtonEvent
from banker.speech.latency import RATE, ClipMic, Pcm, TimedOut, percentile, true_end

ROUNDS = 2
TURN_WAIT = 30.0  # s for a reply before the turn counts as lost


class PagePhone:
    """What the players' page does, over the same WebSocket: hello, claim, press, sound, release."""

    def __init__(self, url: str, token: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(url, max_size=None)
        self._closed = threading.Event()
        self.ws.send(json.dumps({"hello": "bench-phone"}))
        self.ws.send(json.dumps({"claim": token}))
        self.ws.send(json.dumps({"mic": "on"}))
        threading.Thread(target=self._read, name="phone-read", daemon=True).start()
        threading.Thread(target=self._ping, name="phone-ping", daemon=True).start()

    def _read(self) -> None:
        try:
            for _msg in self.ws:
                pass
        except Exception:  # closed
            return

    def _ping(self) -> None:
        while not self._closed.wait(1.0):
            try:
                self.ws.send(json.dumps({"ping": time.time()}))
            except Exception:
                return

    def say(self, pcm: Pcm) -> float:
        """Press, send the clip in real time, release at its end of speech; the release's time."""
        self.ws.send(json.dumps({"press": True}))
        end = true_end(pcm)
        data = pcm.tobytes()
        t0 = time.monotonic()
        step = FRAME_BYTES // 2
        for i in range(0, len(pcm) - step + 1, step):
            delay = t0 + (i + step) / RATE - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.ws.send(data[2 * i:2 * (i + step)])
            if (i + step) / RATE >= end:
                break
        released = time.monotonic()
        self.ws.send(json.dumps({"release": True}))
        return released

    def close(self) -> None:
        self._closed.set()
        self.ws.close()


def run_phones(rounds: int = ROUNDS, stream: TextIO | None = None, quick: bool = False,
               out: Path | None = None) -> int:
    from banker.app import start_game
    from banker.config import load_config
    from banker.screen import Screen
    from banker.speech.buttons import key_map
    from banker.speech.tts import load_tts
    from banker.tools import clips

    stream = stream or sys.stdout
    config = load_config()
    voice = load_tts(config)
    said = clips.latency_commands(quick)
    print(f"banker bench --phones: {len(said)} commands x {rounds} rounds, each said into the local "
          "microphone and into a phone; release -> first reply sample", file=stream, flush=True)
    times: dict[str, list[float]] = {"local microphone": [], "phone": []}
    lost: dict[str, int] = {"local microphone": 0, "phone": 0}
    mic, player, text_out = ClipMic(), TimedOut(voice.sample_rate), io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        game = start_game(None, "racecar, dog", [], Path(tmp) / "bench.sqlite", False,
                          lambda _t: None, lambda _e: "racecar, dog")
        screen = Screen(browser=False, err=io.StringIO())
        vio = VoiceIO(config, player, mic, text_out, key_map(config))
        phone: PagePhone | None = None
        try:
            vio.load_tts_async(voice)
            screen.start(game.session, game.file.path)
            assert screen.phones is not None and screen.url is not None
            vio.phones = PhoneEars(screen.phones, vio.events.put)
            playing = Playing(game.session, vio, text_out, warm_ahead=False)
            warm_now(voice, playing, "all")
            vio.ready(game.session.edition)
            phone = _connect(screen.url.replace("http://", "ws://") + "phone")
            driver = threading.Thread(target=_drive, args=(said * rounds, vio, mic, phone, times, lost),
                                      daemon=True)
            driver.start()
            VoiceLoop(vio, text_out, playing).run()
            driver.join(30)
        finally:
            if phone is not None:
                phone.close()
            vio.close()
            screen.close()
            game.file.close()
    report = _report(times, lost)
    print(report, file=stream)
    if out is not None:
        out.write_text(json.dumps({"ms": times, "lost": lost}, indent=1))
    return 0


def _connect(url: str) -> PagePhone:
    for _ in range(50):  # the server's thread may still be starting
        try:
            return PagePhone(url, "dog")
        except OSError:
            time.sleep(0.1)
    return PagePhone(url, "dog")


def _drive(said: Sequence[tuple[str, Pcm]], vio: VoiceIO, mic: ClipMic, phone: PagePhone,
           times: dict[str, list[float]], lost: dict[str, int]) -> None:
    def key(kind: Literal["press", "release"], at: list[float]) -> Callable[[], None]:
        def send() -> None:
            now = time.monotonic()
            at.append(now)
            vio.events.put(KeyInput(ButtonEvent("1", kind, "evdev", now)))
        return send

    try:
        for _text, pcm in said:
            for who in ("local microphone", "phone"):
                vio.speaker.wait_rendered(30)
                n0 = len(vio.timings)
                at: list[float] = []
                if who == "phone":
                    at.append(phone.say(pcm))
                else:
                    mic.clip = pcm
                    mic.on_speech_end = key("release", at)
                    key("press", [])()
                ms = _first_audio(vio, n0, at)
                if ms is None:
                    lost[who] += 1
                else:
                    times[who].append(ms)
    finally:
        vio.speaker.stop()
        vio.events.put(EndOfInput())


def _first_audio(vio: VoiceIO, n0: int, released: list[float]) -> float | None:
    """ms from the release to the reply's first sample (None: no reply in time)."""
    end = time.monotonic() + TURN_WAIT
    while time.monotonic() < end:
        first = vio.timings[n0].first_audio if len(vio.timings) > n0 else None
        if first is not None and released:
            return round((first - released[0]) * 1000, 1)
        time.sleep(0.01)
    return None


def _report(times: dict[str, list[float]], lost: dict[str, int]) -> str:
    lines = [f"{'microphone':<18} {'turns':>5} {'p50 ms':>8} {'p95 ms':>8} {'no reply':>9}"]
    for who, ms in times.items():
        p50 = f"{percentile(ms, 50):.0f}" if ms else "-"
        p95 = f"{percentile(ms, 95):.0f}" if ms else "-"
        lines.append(f"{who:<18} {len(ms):>5} {p50:>8} {p95:>8} {lost[who]:>9}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    return run_phones(quick="--quick" in argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
