"""Does learning each player's voice pay? A bench of speakers each taking a run of turns.

Every dev-set voice says the same run of Voice Banking commands in order, as one player would
over a game. Each run is decoded twice by the real recogniser and hearing policy: every turn on
its own (batch CMN, what offline files get) and with the player's start values carried from
turn to turn (``speaker_norm.Voices``; a turn teaches only when it was acted on or confirmed
and right, as the game would have it). Counts beside percentages, per condition.

``python -m banker.tools.bench_voices [--turns N] [--conditions clean,babble:10]``
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from banker.tools import clips
from banker.tools.bench import EDITION, PIPER_VOICES, Item, dev_set
from banker.tools.clips import Voice

VOICES = (PIPER_VOICES[0], PIPER_VOICES[3], PIPER_VOICES[5],
          Voice("espeak", "en-us+m3", 155, 50), Voice("espeak", "en-gb+f2", 135, 65),
          Voice("espeak", "en-gb-x-rp+m1", 175, 35), Voice("espeak", "en-us-nyc+f5", 155, 65),
          Voice("espeak", "en-gb+m5", 175, 50), Voice("espeak", "en-us+f2", 135, 35),
          Voice("espeak", "en-gb-x-rp+m3", 155, 50))
_ENGINE: Any = None
_JUDGE: Any = None


def _init() -> None:
    global _ENGINE, _JUDGE
    from banker.editions import load_edition
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer
    from banker.tools.transcribe import NewGameJudge

    ed = load_edition(EDITION)
    _ENGINE = PocketsphinxRecognizer(SpeechGrammar(ed))
    _JUDGE = NewGameJudge(ed)


def _run(job: tuple[int, Voice, Sequence[Item], str, bool]) -> list[dict[str, Any]]:
    """One speaker's run of turns, in order."""
    from banker.speech.speaker_norm import Voices

    v, voice, items, cond, carried = job
    voices = Voices()
    out = []
    for i, item in enumerate(items):
        pcm = clips.pad(clips.speech(item.text, voice))
        if cond != "clean":
            kind, snr = cond.split(":")
            pcm = clips.mix(pcm, kind, float(snr), np.random.default_rng(v * 1000 + i))
        heard = _ENGINE.recognize(pcm, "any", voices.start("p") if carried else "")
        h = _JUDGE.hear(heard.text, heard.confidence)
        right = h.intent == item.intent and dict(h.slots) == dict(item.slots)
        if carried and right and h.decision != "reject":
            voices.learn("p", heard)
        out.append({"exact": right and h.decision != "reject",
                    "at_once": right and h.decision == "accept"})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_voices")
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--conditions", default="clean,babble:10")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    items = [it for it in dev_set(a.turns * 3, 0, 0) if it.focus == "any"][: a.turns]
    random.Random(7).shuffle(items)
    jobs = [(v, voice, items, cond, carried) for cond in a.conditions.split(",")
            for carried in (False, True) for v, voice in enumerate(VOICES)]
    with ProcessPoolExecutor(a.workers, initializer=_init) as ex:
        runs = list(ex.map(_run, jobs))
    print(f"{len(VOICES)} voices x {len(items)} turns each, in order")
    print(f"{'condition':<11} {'turns':<22} {'exact':>14} {'acted on at once':>18}")
    for (_v, _voice, _items, cond, carried), _ in list(zip(jobs, runs, strict=True))[:: len(VOICES)]:
        rows = [r for j, run in zip(jobs, runs, strict=True)
                if j[3] == cond and j[4] == carried for r in run]
        n = len(rows)
        ex_, ao = sum(r["exact"] for r in rows), sum(r["at_once"] for r in rows)
        label = "voice carried" if carried else "each on its own"
        print(f"{cond:<11} {label:<22} {ex_:>4}/{n} {100 * ex_ / n:5.1f}% "
              f"{ao:>6}/{n} {100 * ao / n:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
