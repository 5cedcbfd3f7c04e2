"""``banker bench --real DIR``: real people's recordings, scored the way the Picovoice
speech-to-intent benchmark scores them, beside its published results.

DIR holds ``clean/*.wav`` (16 kHz recordings), ``labels.json`` (per file: ``intent`` and
``slots``), the context (``*.yaml``, Rhino format), ``kitchen.wav`` (noise) and a README whose
"Published results" table is printed above our row. Each recording is decoded clean and mixed
with the noise at 6-24 dB the benchmark's way (``mix``) through ``banker transcribe
--context``'s ear (``ContextEar``: same recogniser, noise filter and hearing policy). A command
counts when it is not ignored and the intent and every slot are exactly right; "at once"
counts those acted on without a "did you say…?". Decodes are cached, keyed by the audio's
hash and the code's, so a second run only decodes what changed.
"""

from __future__ import annotations

import json
import sys
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from banker.paths import user_cache_dir
from banker.speech.base import AudioFileError, Pcm, read_wav
from banker.tools import decode_cache

SNRS = (6, 9, 12, 15, 18, 21, 24)
CONDITIONS = ("clean", *(f"kitchen:{s}" for s in SNRS))
DEFAULT_FILES = 36  # x 8 conditions: about 15 minutes on 2 busy cores (~50 s of CPU a file)
FRAME = 2048  # the benchmark's SNR frame
F64 = npt.NDArray[np.float64]
# the modules whose code decides a result: a change to any of them invalidates the cache
# every module a decode passes through: the whole speech and nlu packages (the second ear's
# rules in speech/two_ears.py (now ear_rules.py) and its snap were once left out, and a changed rule was
# scored from stale decodes)
CODE = ("nlu", "speech", "interpreter/hearing.py", "interpreter/prior.py",
        "tools/transcribe.py")


class RealSetError(Exception):
    """The folder is not a usable real-speech set (one plain sentence)."""


@dataclass(frozen=True)
class Recording:
    name: str
    path: Path
    intent: str
    slots: dict[str, str]


def _max_frame_energy(x: F64) -> float:
    n = len(x) // FRAME
    frames = x[: n * FRAME].reshape(n, FRAME)
    return float((frames ** 2).sum(axis=1).max())


def noise_scale(clean: F64, seg: F64, snr_db: float) -> float:
    """The factor that puts the loudest frame of ``seg`` ``snr_db`` below that of ``clean``."""
    return float(np.sqrt(_max_frame_energy(clean) / (_max_frame_energy(seg) * 10 ** (snr_db / 10))))


def mix(clean: F64, noise: F64, snr_db: float, rng: np.random.Generator) -> Pcm:
    """The benchmark's mix: noise from a random offset, scaled so the loudest 2048-sample
    frame of speech stands ``snr_db`` above the loudest frame of that noise segment, and the
    sum scaled to half of full scale. ``clean`` and ``noise`` are floats in -1..1."""
    if len(noise) <= len(clean):  # the benchmark's noise is longer than any recording
        noise = np.tile(noise, len(clean) // len(noise) + 2)
    start = int(rng.integers(0, len(noise) - len(clean)))
    seg = noise[start:start + len(clean)]
    noisy = clean + noise_scale(clean, seg, snr_db) * seg
    noisy = noisy / (2 * np.max(np.abs(noisy)))
    out: Pcm = np.clip(np.round(noisy * 32767), -32768, 32767).astype(np.int16)
    return out


def load_set(folder: Path) -> tuple[list[Recording], Path, F64]:
    """The recordings (sorted by name), the context file and the kitchen noise."""
    try:
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        contexts = sorted(folder.glob("*.yaml"))
        noise = read_wav(folder / "kitchen.wav").astype(np.float64) / 32768
    except (OSError, ValueError, AudioFileError) as exc:
        raise RealSetError(f"{folder} is not a real-speech set ({exc}).") from None
    if not contexts:
        raise RealSetError(f"{folder} has no context (*.yaml).")
    recs = [Recording(name, folder / "clean" / name, str(lab["intent"]),
                      {str(k): str(v).strip() for k, v in (lab.get("slots") or {}).items()})
            for name, lab in sorted(labels.items())]
    return recs, contexts[0], noise


def subset(recs: Sequence[Recording], n: int | None) -> list[Recording]:
    """``n`` recordings spread evenly over the sorted list (all of them for None)."""
    if n is None or n >= len(recs):
        return list(recs)
    step = len(recs) / n
    return [recs[int(i * step)] for i in range(n)]


def code_version(context: Path) -> str:
    from banker.config import load_config

    asr = json.dumps(load_config().get("asr") or {}, sort_keys=True, default=str)
    return decode_cache.version(decode_cache.modules(*CODE), context.read_text(encoding="utf-8"),
                                asr)


def cache_dir() -> Path:
    return user_cache_dir() / "real"


def audio_for(rec: Recording, condition: str, noise: F64) -> Pcm:
    pcm = read_wav(rec.path)
    if condition == "clean":
        return pcm
    snr = float(condition.split(":")[1])
    rng = np.random.default_rng(zlib.crc32(f"{rec.name}:{condition}".encode()))
    return mix(pcm.astype(np.float64) / 32768, noise, snr, rng)


_WORKER: dict[str, Any] = {}


def _init(context: str, noise: F64) -> None:
    from banker.nlu.context import load_context
    from banker.tools.transcribe import ContextEar

    _WORKER.update(ear=ContextEar(load_context(Path(context))), noise=noise)


def _decode(job: tuple[str, Recording, str]) -> tuple[str, dict[str, Any]]:
    key, rec, cond = job
    v = _WORKER["ear"].hear(audio_for(rec, cond, _WORKER["noise"]))
    return key, {"text": v.text, "intent": v.intent, "slots": v.slots,
                 "confidence": v.confidence, "decision": v.decision}


def decode_all(recs: Sequence[Recording], conditions: Sequence[str], context: Path,
               noise: F64, jobs: int, cache: Path, progress: TextIO
               ) -> dict[tuple[str, str], dict[str, Any]]:
    """Every (recording, condition) decoded, from the cache where the same audio and code
    were decoded before."""
    kept = decode_cache.DecodeCache(cache, code_version(context))
    results: dict[tuple[str, str], dict[str, Any]] = {}
    todo: dict[str, tuple[Recording, str, bytes]] = {}
    for rec in recs:
        for cond in conditions:
            raw = audio_for(rec, cond, noise).tobytes()
            hit = kept.get(raw)
            if hit is not None:
                results[(rec.name, cond)] = hit
            else:
                todo[kept.path(raw).stem] = (rec, cond, raw)
    print(f"real speech: {len(recs)} recordings x {len(conditions)} conditions = "
          f"{len(recs) * len(conditions)} decodes, {len(todo)} not cached", file=progress, flush=True)
    t0, done = time.monotonic(), 0
    if todo:
        with ProcessPoolExecutor(jobs, initializer=_init, initargs=(str(context), noise)) as pool:
            for key, res in pool.map(_decode, [(k, r, c) for k, (r, c, _a) in todo.items()]):
                rec, cond, raw = todo[key]
                kept.put(raw, res)
                results[(rec.name, cond)] = res
                done += 1
                if done % 20 == 0 or done == len(todo):
                    print(f"  {done}/{len(todo)} decoded ({time.monotonic() - t0:.0f} s)",
                          file=progress, flush=True)
    return results


def score(recs: Sequence[Recording], conditions: Sequence[str],
          results: dict[tuple[str, str], dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per condition: n, exact (heard, intent and every slot right), at_once (exact and
    acted on without a question), wrong (acted on at once with a wrong intent or slot)."""
    out: dict[str, dict[str, int]] = {}
    for cond in conditions:
        c = {"n": 0, "exact": 0, "at_once": 0, "wrong": 0}
        for rec in recs:
            r = results[(rec.name, cond)]
            right = r["intent"] == rec.intent and r["slots"] == rec.slots
            c["n"] += 1
            c["exact"] += int(right and r["decision"] != "reject")
            c["at_once"] += int(right and r["decision"] == "accept")
            c["wrong"] += int(not right and r["decision"] == "accept")
        out[cond] = c
    return out


def published(folder: Path) -> list[str]:
    """The "Published results" table rows of the set's README (header included)."""
    try:
        text = (folder / "README.md").read_text(encoding="utf-8")
    except OSError:
        return []
    rows: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = "published" in line.lower()
            continue
        if inside and line.startswith("|"):
            rows.append(line)
    return rows


def ears() -> str:
    """How the settings hear: "pocketsphinx", or "pocketsphinx + moonshine"."""
    from banker.config import load_config

    second = str((load_config().get("asr") or {}).get("second_ear") or "none")
    return "pocketsphinx" + ("" if second == "none" else f" + {second}")


def table(folder: Path, scores: dict[str, dict[str, int]]) -> str:
    rows = published(folder)
    ours = [f"banker ({ears()})", "kitchen"]
    for snr in SNRS:
        c = scores.get(f"kitchen:{snr}")
        ours.append(f"{c['exact'] / c['n']:.2f} ({c['exact']}/{c['n']})" if c else "-")
    rows.append("| " + " | ".join(ours) + " |")
    lines = ["Command acceptance (intent and every slot exact), real speech:", *rows]
    for cond, c in scores.items():
        lines.append(f"  {cond:>10}: exact {c['exact']}/{c['n']} ({100 * c['exact'] / c['n']:.1f}%),"
                     f" at once {c['at_once']}/{c['n']} ({100 * c['at_once'] / c['n']:.1f}%),"
                     f" wrong acted on {c['wrong']}/{c['n']}")
    return "\n".join(lines)


def run_real(folder: Path, full: bool = False, files: int | None = None,
             conditions: Sequence[str] = CONDITIONS, jobs: int = 2, out: Path | None = None,
             stream: TextIO | None = None, cache: Path | None = None) -> int:
    stream = stream or sys.stdout
    try:
        recs, context, noise = load_set(folder)
    except RealSetError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2
    chosen = subset(recs, None if full else (files or DEFAULT_FILES))
    results = decode_all(chosen, conditions, context, noise, jobs, cache or cache_dir(), stream)
    scores = score(chosen, conditions, results)
    print(table(folder, scores), file=stream, flush=True)
    if out is not None:
        out.write_text(json.dumps({"recordings": len(chosen), "of": len(recs), "scores": scores,
                                   "results": {f"{n}|{c}": r for (n, c), r in results.items()}},
                                  indent=1), encoding="utf-8")
    return 0
