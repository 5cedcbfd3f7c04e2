"""The same audio gives the same line on every start and in any order of files: offline files
are independent utterances (a fresh noise-filter state and cepstral mean per file; names and
samples in a fixed order whatever the hash seed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from banker.tools import clips
from banker.tools.clips import ESPEAK, PIPER

TEXTS = [("what is my balance", PIPER, None), ("buy Baltic Avenue", PIPER, ("pink", 8.0)),
         ("pay two hundred to the dog", ESPEAK, ("babble", 12.0)),
         ("who owns Park Place", ESPEAK, ("pink", 10.0))]


def _start(files: list[Path], seed: str, *options: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, "-m", "banker", "transcribe", "--json", *options,
                           *map(str, files)], capture_output=True, text=True, timeout=600,
                          check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    return {r["file"]: json.dumps({k: r[k] for k in ("text", "intent", "slots", "confidence",
                                                      "decision")}, sort_keys=True) for r in rows}


@pytest.mark.skipif(not clips.have_espeak(), reason="espeak-ng and sox needed")
def test_three_fresh_starts_both_orders_same_lines(tmp_path: Path) -> None:
    files = []
    for i, (text, voice, noise) in enumerate(TEXTS):
        pcm = clips.pad(clips.speech(text, voice))
        if noise is not None:  # noisy: the noise filter runs, and must not carry state over
            pcm = clips.mix(pcm, noise[0], noise[1], np.random.default_rng(i))
        files.append(tmp_path / f"{i}.wav")
        clips.write_wav(files[-1], pcm)
    for options in ((), ("--option", "asr.second_ear=moonshine")):
        first = _start(files, "1", *options)
        backwards = _start(files[::-1], "2", *options)
        again = _start(files, "3", *options)
        assert len(first) == len(TEXTS)
        assert first == backwards == again, options
