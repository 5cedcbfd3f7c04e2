"""The latency bench (``banker bench``): the real voice loop, timed from end of speech to reply.

``measure()`` runs the real voice loop (buttons, end of speech, the configured recogniser, the
session with a real SQLite journal, piper with its cache) on recorded commands played in real
time into a stand-in microphone (``banker.speech.latency.ClipMic``); what is timed, and the
report, are described in ``banker.speech.latency``. It lives here, above the speech stage,
because it starts a game and drives the front end.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.events import EndOfInput, KeyInput
from banker.frontends.voice.loop import VoiceLoop
from banker.frontends.voice.playing import Playing, seated_openings
from banker.speech.latency import (
    RATE,
    ClipMic,
    LatencyReport,
    Pcm,
    TimedOut,
    Turn,
    cold_start,
    commands,
    report,
)
from banker.speech.protocols import Synthesizer

__all__ = ["LatencyReport", "measure"]


def measure(clips: Sequence[tuple[str, Pcm]] | None = None, *, config: dict[str, Any] | None = None,
            quick: bool = False, modes: Sequence[str] = ("release", "vad"),
            cold: bool = True, tts: Synthesizer | None = None, warm: str = "all",
            overrides: Mapping[str, str] | None = None) -> LatencyReport:
    """Run each clip through the live loop once per end-of-turn mode; see the module doc.

    ``clips``: (text, 16 kHz mono audio) of commands for a racecar-and-dog Voice Banking game;
    default: ``commands(quick)`` said by the piper voice (``quick``: the first four).
    ``overrides``: settings over the user's, for the loop and the cold start alike
    (``{"asr.second_ear": "none"}``: pocketsphinx alone).
    """
    from banker.config import load_config
    from banker.speech.tts import load_tts

    config = config or load_config(overrides=overrides)
    voice: Synthesizer = tts or load_tts(config)
    if clips is None:
        from banker.speech.audio import resample

        texts = commands(quick)
        pad = np.zeros(int(0.25 * RATE), dtype=np.int16)
        clips = [(t, np.concatenate([pad, resample(voice.speak_all(t), voice.sample_rate, RATE)]))
                 for t in texts]
    turns: list[Turn] = []
    for mode in modes:
        turns += _run_mode(list(clips), mode, config, voice, warm)
    rep = report(turns, config)
    if cold:
        try:
            cs, rss = cold_start(overrides=overrides)
            rep.cold_start_s, rep.rss_mb = cs, rss
        except (OSError, RuntimeError, subprocess.SubprocessError, ValueError):
            pass
    return rep


def _run_mode(clips: list[tuple[str, Pcm]], mode: str, config: dict[str, Any], voice: Synthesizer,
              warm: str) -> list[Turn]:
    """One game, one end-of-turn mode. The loop runs on this thread (it owns the SQLite
    game file); a driver thread plays the part of the player."""
    from banker.app import start_game
    from banker.speech.buttons import key_map

    turns: list[Turn] = []
    out = _NullText()
    mic = ClipMic()
    player = TimedOut(voice.sample_rate)
    with tempfile.TemporaryDirectory() as tmp:
        game = start_game(None, "racecar, dog", [], Path(tmp) / "bench.sqlite", False,
                          lambda _t: None, lambda _e: "racecar, dog")
        vio = VoiceIO(config, player, mic, out, key_map(config))
        try:
            vio.load_tts_async(voice)
            playing = Playing(game.session, vio, out, warm_ahead=False)  # warm_now does it
            warm_now(voice, playing, warm)
            vio.ready(game.session.edition)  # the table is ready: players may press
            driver = threading.Thread(target=_drive, args=(clips, mode, vio, mic, turns),
                                      daemon=True)
            driver.start()
            VoiceLoop(vio, out, playing).run()
            driver.join(30)
        finally:
            vio.close()
            game.file.close()
    return turns


def _drive(clips: list[tuple[str, Pcm]], mode: str, vio: VoiceIO, mic: ClipMic,
           turns: list[Turn]) -> None:
    """The player: presses, says the clip (and lets go, in release mode), waits for the reply."""
    from banker.speech.buttons import ButtonEvent

    source = "evdev" if mode == "release" else "terminal"

    def press(kind: Literal["press", "release"]) -> None:
        vio.events.put(KeyInput(ButtonEvent("1", kind, source, time.monotonic())))

    try:
        for text, pcm in clips:
            # the player presses while he is still talking (barge-in), once the last reply is
            # rendered: its rendering would otherwise be timed too
            vio.speaker.wait_rendered(30)
            mic.clip = pcm
            n0 = len(vio.timings)
            mic.on_speech_end = (lambda: press("release")) if mode == "release" else None
            press("press")
            deadline = time.monotonic() + 60  # a crowded machine took 14 s for a reply
            while time.monotonic() < deadline:
                if len(vio.timings) > n0 and vio.timings[n0].first_audio is not None:
                    break
                time.sleep(0.01)
            if len(vio.timings) > n0:
                tt = vio.timings[n0]
                turns.append(Turn(text, mode, tt.text, mic.end_of_speech, tt.ended_at,
                                  tt.decoded_at, tt.first_audio))
    finally:
        vio.speaker.stop()  # the last reply needn't be heard to the end
        vio.events.put(EndOfInput())


def warm_now(voice: Synthesizer, playing: Playing, warm: str) -> None:
    """What a table has cached after its first minute (``all``: the short fixed phrases,
    player and street names), or just the players' names and the fixed cues (``openings``)."""
    from banker.speech.tts import fixed_lines

    session = playing.session
    whole, cues = fixed_lines(dict(session.replies.templates))
    ed = session.edition
    seated = seated_openings(session)
    names = seated + [t.name for t in ed.tokens] + [s.name for s in ed.streets]
    voice.add_fixed(whole, list(cues) + names)
    if warm == "all":
        voice.warm([p for p in voice.fixed if len(p) <= 40])
    else:
        voice.warm(seated + sorted(cues))


class _NullText(io.StringIO):
    """A text stream nobody reads (the bench's table has no screen)."""

    def write(self, s: str) -> int:
        return len(s)


def main(argv: Sequence[str]) -> int:
    rep = measure(quick="--quick" in argv)
    print(rep.table())
    if "--json" in argv:
        print(json.dumps(rep.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
