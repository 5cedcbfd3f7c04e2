"""End of speech on real piper speech, and token buttons from a pipe and from a terminal."""

from __future__ import annotations

import io
import os
import pty
import queue
import threading
import time

import numpy as np
import pytest

from banker.speech.buttons import ButtonEvent, TerminalKeys, key_map
from banker.speech.tts import PiperTTS
from banker.speech.vad import FRAME_MS, EndOfSpeech, VadSettings, frames_of

from .conftest import to16k


@pytest.fixture(scope="module")
def speech(tts: PiperTTS) -> np.ndarray:
    return to16k(tts.speak_all("pay rent on Park Place"), tts.sample_rate)


def _true_end(pcm: np.ndarray) -> float:
    loud = np.nonzero(np.abs(pcm.astype(np.int32)) > 600)[0]
    return (int(loud[-1]) + 1) / 16000


def _run(det: EndOfSpeech, pcm: np.ndarray) -> tuple[str | None, int]:
    for i, f in enumerate(frames_of(pcm)):
        if det.feed(f):
            return det.reason, i
    return det.reason, -1


def test_vad_ends_after_the_hangover(speech: np.ndarray) -> None:
    lead = np.zeros(8000, dtype=np.int16)
    pcm = np.concatenate([lead, speech, np.zeros(32000, dtype=np.int16)])
    det = EndOfSpeech(VadSettings(hangover_ms=300))
    reason, i = _run(det, pcm)
    assert reason == "vad"
    utt = det.utterance()
    end = _true_end(pcm)
    decided = (i + 1) * FRAME_MS / 1000
    assert utt.speech_start is not None and 0.3 < utt.speech_start < 0.7
    assert utt.speech_end is not None and abs(utt.speech_end - end) < 0.15
    assert 0.28 <= decided - utt.speech_end <= 0.33, "ends one hang-over after the last voiced frame"


def test_a_longer_hangover_waits_longer(speech: np.ndarray) -> None:
    pcm = np.concatenate([speech, np.zeros(32000, dtype=np.int16)])
    _, short = _run(EndOfSpeech(VadSettings(hangover_ms=240)), pcm)
    _, long = _run(EndOfSpeech(VadSettings(hangover_ms=600)), pcm)
    assert (long - short) * FRAME_MS == pytest.approx(360, abs=31)


def test_no_speech_is_a_bare_press_and_too_long_stops(speech: np.ndarray) -> None:
    det = EndOfSpeech(VadSettings(no_speech_seconds=1.0))
    reason, i = _run(det, np.zeros(48000, dtype=np.int16))
    assert reason == "silence" and i == 33 and not det.utterance().has_speech
    det = EndOfSpeech(VadSettings(max_seconds=2.0, hangover_ms=1500))
    reason, i = _run(det, np.concatenate([speech] * 3))
    assert reason == "max" and i == 66 and det.utterance().has_speech


def test_a_second_press_ends_the_utterance(speech: np.ndarray) -> None:
    det = EndOfSpeech()
    frames = frames_of(speech)
    for f in frames[:20]:
        det.feed(f)
    det.end("press")
    assert det.feed(frames[20]) == "press" and det.utterance().reason == "press"
    assert len(det.utterance().audio) == 20 * 480


def test_settings_from_config() -> None:
    s = VadSettings.from_config({"vad_hangover_ms": 450, "vad_aggressiveness": 3,
                                 "max_utterance_seconds": 6})
    assert (s.hangover_ms, s.aggressiveness, s.max_seconds) == (450, 3, 6.0)


# ------------------------------------------------------------------------------------------
# buttons

def test_key_map_defaults_and_config() -> None:
    assert key_map({}) == {str(i): i for i in range(1, 9)}  # eight seats (the classic box)
    assert key_map({"buttons": {"a": 1, "b": 2}}) == {"a": 1, "b": 2}


def _collect(keys: TerminalKeys) -> tuple[queue.Queue[object], threading.Event]:
    got: queue.Queue[object] = queue.Queue()
    done = threading.Event()
    keys.on_line = lambda line: got.put(("line", line))
    keys.on_eof = done.set
    keys.start(lambda ev: got.put(ev))
    return got, done


def test_a_pipe_gives_presses_for_lone_keys_and_lines_for_the_rest() -> None:
    r, w = os.pipe()
    stream = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8")
    keys = TerminalKeys(stream, {"1": 1, "2": 2}, lambda _l: None, lambda: None)
    assert not keys.tty
    got, done = _collect(keys)
    os.write(w, b"1\ndog: buy Baltic Avenue\n 2 \n3\n")
    os.close(w)
    assert done.wait(5)
    items = [got.get_nowait() for _ in range(got.qsize())]
    kinds = [(i.key, i.kind, i.source) if isinstance(i, ButtonEvent) else i for i in items]
    assert kinds == [("1", "press", "terminal"), ("line", "dog: buy Baltic Avenue"),
                     ("2", "press", "terminal"), ("line", "3")]


def test_a_terminal_reads_key_by_key_with_a_line_editor() -> None:
    master, slave = pty.openpty()
    stream = io.TextIOWrapper(io.FileIO(slave, "r", closefd=False), encoding="utf-8")
    echo = io.StringIO()
    live = {"1"}
    keys = TerminalKeys(stream, {"1": 1, "2": 2}, lambda _l: None, lambda: None, echo=echo,
                        is_live_key=lambda k: k in live)
    assert keys.tty
    got, done = _collect(keys)
    try:
        for chunk in (b"1", b"dox\x7fg: 1 buy", b"\r", b"2", b"\n", b"\x04"):
            os.write(master, chunk)
            time.sleep(0.05)
        assert done.wait(5)
        items = [got.get_nowait() for _ in range(got.qsize())]
        kinds = [(i.key, i.kind) if isinstance(i, ButtonEvent) else i for i in items]
        # "1" on an empty line is a press; inside a line it is text; "2" is no live seat
        assert kinds == [("1", "press"), ("line", "dog: 1 buy"), ("line", "2")]
        assert "dox\b \bg: 1 buy" in echo.getvalue()
    finally:
        keys.close()
        os.close(master)
        os.close(slave)
