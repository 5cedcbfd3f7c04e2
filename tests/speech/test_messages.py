"""The recogniser process's messages (``banker.speech.protocols``) cross a real pipe unchanged,
and the engine's ``Heard`` reaches the caller of ``ProcessRecognizer`` as the engine made it."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np

from banker.editions import load_edition
from banker.speech import protocols as p
from banker.speech.asr_process import ProcessRecognizer
from banker.speech.protocols import Heard, WordScore

HEARD = Heard("buy park place", 0.82, (WordScore("buy", 0.9, 0.1, 0.3),
                                       WordScore("park", 0.8, 0.3, 0.6)),
              engine="pocketsphinx", focus="street", seconds=0.12, details={"lm": -1.5})
SAMPLES = {
    p.Ready: p.Ready(4242),
    p.EngineFailed: p.EngineFailed("OSError: no model"),
    p.Transcribe: p.Transcribe(np.arange(-5, 5, dtype=np.int16).tobytes(), "bid", early=True),
    p.FirstReading: p.FirstReading(HEARD),
    p.Stale: p.Stale(),
    p.Transcript: p.Transcript(HEARD),
    p.TranscribeFailed: p.TranscribeFailed("RuntimeError: decoder"),
    p.Quit: p.Quit(),
}


def test_every_message_class_round_trips_through_a_pipe() -> None:
    assert set(SAMPLES) == set(p.MESSAGES), "a message class without a round-trip sample"
    a, b = mp.get_context("spawn").Pipe()
    try:
        for cls, msg in SAMPLES.items():
            a.send(msg)
            back = b.recv()
            assert type(back) is cls
            assert back == msg
    finally:
        a.close()
        b.close()


def test_the_engines_heard_arrives_unchanged_from_the_child() -> None:
    rec = ProcessRecognizer({"asr": {"engine": "pocketsphinx", "denoise": "off"}},
                            load_edition("voice-banking"))
    try:
        assert rec.ready(60)
        noise = np.random.default_rng(1).integers(-300, 300, 16000).astype(np.int16)
        heard = rec.recognize(noise, "yes_no")
        assert isinstance(heard, Heard)
        assert heard.engine == "pocketsphinx"  # set by the engine, in the child
        assert heard.focus == "yes_no"
        assert rec.proc.is_alive()  # it came from the child, not the in-process fallback
        assert rec._local is None
    finally:
        rec.close()
