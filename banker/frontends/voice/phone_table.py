"""A table without sound of its own (``--keyboard``, or no usable device) that hears the phones.

Typed lines work exactly as in keyboard mode, and the players' phones are token buttons and
microphones: the same voice loop, listener, recogniser and game phase as a table with a
microphone, with a speaker that sounds nothing (``SilentOut``: the lines are printed, and
shown on the screen and the phones) and a microphone that hears silence (``SilentMic``: a
phone without a microphone is a button, its press a bid or a "yes"). The recogniser is loaded
when the first phone opens its page, so a game nobody joins by phone never loads it.
"""

from __future__ import annotations

import threading
from typing import Any, TextIO

from banker.editions.model import Edition
from banker.frontends.voice.devices import VoiceIO
from banker.frontends.voice.events import EndOfInput, TypedInput
from banker.frontends.voice.loop import VoiceLoop
from banker.frontends.voice.phone_audio import PhoneEars, SilentMic
from banker.frontends.voice.playing import Playing
from banker.interpreter.session import Session
from banker.screen.phones import Phones
from banker.speech.protocols import Heard, Pcm, Recognizer
from banker.speech.stand_ins import SilentOut, SilentVoice


class LazyRecognizer:
    """The recogniser's process, started on ``load`` (or the first decode), not before."""

    engine = "pocketsphinx"

    def __init__(self, config: dict[str, Any], edition: Edition) -> None:
        self.config, self.edition = config, edition
        self._inner: Recognizer | None = None
        self._lock = threading.Lock()

    def _get(self) -> Recognizer:
        with self._lock:
            if self._inner is None:
                from banker.speech.asr_process import ProcessRecognizer

                self._inner = ProcessRecognizer(self.config, self.edition)
            return self._inner

    def load(self) -> None:
        threading.Thread(target=self._get, name="asr-load", daemon=True).start()

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        return self._get().recognize(pcm, focus, speaker, raw)

    def close(self) -> None:
        with self._lock:
            inner, self._inner = self._inner, None
        close = getattr(inner, "close", None)
        if close is not None:
            close()


def run_phone_table(session: Session, config: dict[str, Any], stdin: TextIO, out: TextIO,
                    phones: Phones) -> int:
    """Typed lines and the phones until the end of input or Ctrl-C; the game is saved."""
    io = VoiceIO(config, SilentOut(), SilentMic(), out, {})  # no key is a button: lines are lines
    io.load_tts_async(SilentVoice())
    rec = LazyRecognizer(config, session.edition)
    io.use_recognizer(session.edition, rec)
    io.phones = PhoneEars(phones, io.events.put)
    phones.on_connect = rec.load

    def read() -> None:
        for raw in stdin:
            io.events.put(TypedInput(raw.rstrip("\r\n")))
        io.events.put(EndOfInput())
    threading.Thread(target=read, name="typed-lines", daemon=True).start()
    try:
        VoiceLoop(io, out, Playing(session, io, out, warm_ahead=False)).run()
        return 0
    finally:
        phones.on_connect = lambda: None
        io.close()
