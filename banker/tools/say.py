"""``banker say TEXT [--out FILE.wav]``: Mr. Monopoly says TEXT, to the speaker or to a WAV.

Money in the text is said in words (``M1,500`` -> "one thousand five hundred").
"""

from __future__ import annotations

import sys
import wave
from pathlib import Path

from banker.speech.audio import AudioError
from banker.speech.tts import TTSError


def run_say(text: str, out_path: Path | None) -> int:
    text = text.strip()
    if not text:
        print("banker: say what? Give the words to say.", file=sys.stderr)
        return 2
    from banker.config import load_config
    from banker.speech.tts import load_tts

    try:
        tts = load_tts(load_config())
    except TTSError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2
    if out_path is not None:
        pcm = tts.speak_all(text)
        try:
            with open(out_path, "wb") as f, wave.open(f, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(tts.sample_rate)
                w.writeframes(pcm.astype("<i2").tobytes())
        except OSError as exc:
            print(f"banker: can't write {out_path}: {exc.strerror or exc}.", file=sys.stderr)
            return 2
        return 0
    from banker.speech.audio import Player

    try:
        player = Player(tts.sample_rate, (load_config().get("audio") or {}).get("output_device"))
    except AudioError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2
    try:
        for pcm in tts.speak(text):  # starts speaking while the rest renders
            player.play(pcm)
        player.wait(120.0)
    finally:
        player.close()
    return 0
