"""Measure the second ear: pocketsphinx alone vs pocketsphinx + a Moonshine second opinion.

Two sets, the same clips for both ways of hearing, decoded once in this process:
- real people: recordings of the Picovoice speech-to-intent benchmark (a folder with
  ``clean/*.wav``, ``labels.json``, the Rhino context ``*.yaml`` and ``kitchen.wav``), clean
  and mixed with the kitchen noise the benchmark's way (loudest 2048-sample frame of speech
  against the loudest of the noise, the mix scaled to half of full scale);
- the Monopoly dev set of ``banker bench`` (synthesised commands and chatter, clean and with
  babble / pink noise).
Every clip is decoded by pocketsphinx and by Moonshine, so each policy can be scored from the
same records: pocketsphinx alone, and Moonshine asked only when pocketsphinx's confidence
falls in the unsure band (its latency counted only then). Decisions come from the project's
hearing policy (``banker.interpreter.hearing.judge``): coffee orders count as money commands.

    python -m banker.tools.second_ear --real DIR [--n-real 60] [--n-dev 60] [--out FILE]
    python -m banker.tools.second_ear --rescore FILE... [--band 0.1 0.9]
    python -m banker.tools.second_ear --resources [--second]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

import numpy as np

from banker.speech.base import Pcm, read_wav
from banker.speech.grammar import SpeechGrammar
from banker.tools import clips
from banker.tools.second_ear_score import (
    ContextGrammar,
    Judges,
    Policy,
    Record,
    load_records,
    score,
    table,
)

REAL_CONDITIONS = ("clean", "kitchen:12", "kitchen:6")
DEV_CONDITIONS = ("clean", "babble:10", "pink:10")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def benchmark_mix(speech: Pcm, noise: np.ndarray[Any, Any], snr_db: float,
                  rng: np.random.Generator) -> Pcm:
    """The benchmark's ``src/mix.py``: noise scaled against the loudest 2048-sample frames,
    a random stretch of the noise, the mix scaled to half of full scale."""
    x = speech.astype(np.float64) / 32768.0
    start = int(rng.integers(0, max(1, len(noise) - len(x))))
    seg = np.resize(noise[start:start + len(x)], len(x))

    def loudest(a: np.ndarray[Any, Any]) -> float:
        k = max(1, len(a) // 2048)
        frames = np.resize(a, k * 2048).reshape(k, 2048)
        return float(np.max(np.sum(frames ** 2, axis=1))) or 1e-12

    y = x + seg * np.sqrt(loudest(x) / (loudest(seg) * 10 ** (snr_db / 10)))
    y = y / (np.max(np.abs(y)) or 1.0) * 0.5
    return np.asarray(np.round(y * 32767), dtype=np.int16)


# --- clips --------------------------------------------------------------------------------
def real_clips(folder: Path, n: int, seed: int = 10) -> list[tuple[str, Pcm, str, list[tuple[str, str]]]]:
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    names = sorted(labels)
    random.Random(seed).shuffle(names)
    out = []
    for name in sorted(names[:n]):
        lab = labels[name]
        slots = sorted((k, _norm(v)) for k, v in lab["slots"].items())
        out.append((name, read_wav(folder / "clean" / name), lab["intent"], slots))
    return out


def decode_real(folder: Path, n: int, log: Any,
                conditions: Sequence[str] = REAL_CONDITIONS) -> list[Record]:
    from banker.speech.moonshine_asr import MoonshineRecognizer
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

    ctx = ContextGrammar(next(folder.glob("*.yaml")))
    ps = PocketsphinxRecognizer(cast(SpeechGrammar, ctx))
    ms = MoonshineRecognizer(ctx)
    noise = read_wav(folder / "kitchen.wav").astype(np.float64) / 32768.0
    items = real_clips(folder, n)
    out: list[Record] = []
    for cond in conditions:
        for k, (name, pcm, intent, slots) in enumerate(items):
            if cond != "clean":
                pcm = benchmark_mix(pcm, noise, float(cond.split(":")[1]),
                                    np.random.default_rng(1000 + k))
            out.append(_both(ps, ms, "real", cond, name, pcm, intent, slots))
            log(out[-1])
    return out


def dev_items(n: int, seed: int = 2026) -> list[Any]:
    """The first ``n`` of the bench's dev set (``seed``: the bench's own by default; another
    for records held out from the ones a rule was chosen on): three quarters commands, a
    quarter chatter."""
    from banker.tools.bench import dev_set

    n_chat = n // 4
    return dev_set(n - n_chat, n_chat, 0, seed=seed)


def decode_dev(n: int, log: Any, conditions: Sequence[str] = DEV_CONDITIONS,
               seed: int = 2026) -> list[Record]:
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine
    from banker.speech.moonshine_asr import MoonshineRecognizer
    from banker.tools.bench import EDITION, line_audio

    ed = load_edition(EDITION)
    grammar = SpeechGrammar(ed)
    ps = make_engine(_first_ear_only(load_config()), ed, grammar=grammar)
    ms = MoonshineRecognizer(grammar)
    out: list[Record] = []
    items = dev_items(n, seed)
    for cond in conditions:
        for i, it in enumerate(items):
            pcm = line_audio(i, it, cond)
            slots = sorted((k, str(v)) for k, v in it.slots)
            out.append(_both(ps, ms, "dev", cond, it.text, pcm, it.intent, slots))
            log(out[-1])
    return out


def _both(ps: Any, ms: Any, set_: str, cond: str, name: str, pcm: Pcm, intent: str,
          slots: list[tuple[str, str]]) -> Record:
    t0 = time.process_time()
    a = ps.recognize(pcm, "any")
    t1 = time.process_time()
    b = ms.recognize(pcm, "any")
    t2 = time.process_time()
    return Record(set_, cond, name, intent, slots, a.text, a.confidence, a.seconds, b.text,
                  b.confidence, b.seconds, ms.last_transcript, b.details.get("snap_distance", 1.0),
                  round(t1 - t0, 4), round(t2 - t1, 4), a.details.get("filtered_db", 0.0))


def _first_ear_only(config: dict[str, Any]) -> dict[str, Any]:
    """The settings with the second ear off: this tool asks Moonshine itself, on every clip."""
    return {**config, "asr": {**(config.get("asr") or {}), "second_ear": "none"}}


# --- resources ----------------------------------------------------------------------------
def resources(second: bool) -> dict[str, Any]:
    """Cold start (load + first decode) and peak RSS of this fresh process: the Monopoly
    recogniser alone, or with the second ear loaded and asked."""
    t0, c0 = time.perf_counter(), time.process_time()
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine
    from banker.tools.bench import EDITION, audio_for

    ed = load_edition(EDITION)
    grammar = SpeechGrammar(ed)
    ps = make_engine(_first_ear_only(load_config()), ed, grammar=grammar)
    item = dev_items(1)[0]
    pcm = audio_for(item, "clean", 0)
    ps.recognize(pcm, "any")
    out: dict[str, Any] = {"ps_cold_s": round(time.perf_counter() - t0, 2),
                           "ps_cold_cpu_s": round(time.process_time() - c0, 2)}
    if second:
        from banker.speech.moonshine_asr import MoonshineRecognizer

        t1, c1 = time.perf_counter(), time.process_time()
        ms = MoonshineRecognizer(grammar)
        heard = ms.recognize(pcm, "any")
        out["ms_cold_s"] = round(time.perf_counter() - t1, 2)
        out["ms_cold_cpu_s"] = round(time.process_time() - c1, 2)
        out["ms_heard"] = heard.text
        c2 = time.process_time()
        times = [ms.recognize(pcm, "any").seconds for _ in range(3)]
        out["ms_warm_s"] = round(min(times), 3)
        out["ms_warm_cpu_s"] = round((time.process_time() - c2) / 3, 3)
    out["clip_s"] = round(len(pcm) / clips.RATE, 2)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


# --- the command --------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banker.tools.second_ear")
    ap.add_argument("--real", type=Path, help="folder of the speech-to-intent benchmark half")
    ap.add_argument("--n-real", type=int, default=60)
    ap.add_argument("--n-dev", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2026, help="the dev set's seed (the bench's)")
    ap.add_argument("--out", type=Path, default=clips.cache_dir() / "second_ear.jsonl")
    ap.add_argument("--rescore", type=Path, nargs="+", help="score saved records again")
    ap.add_argument("--band", type=float, nargs=2, default=(0.1, 0.9))
    ap.add_argument("--agreed", type=float, default=0.97)
    ap.add_argument("--swap", type=float, default=None,
                    help="on disagreement take Moonshine's reading when its snap distance <= this")
    ap.add_argument("--swap-under", type=float, default=1.0,
                    help="with --swap: only when pocketsphinx's confidence is below this")
    ap.add_argument("--rescue", type=float, nargs=2, default=None, metavar=("UNDER", "WITHIN"),
                    help="with --swap: a pocketsphinx reading below UNDER gives way to "
                         "Moonshine's when its snap distance <= WITHIN")
    ap.add_argument("--clean-only", action="store_true", help="clean clips only (latency)")
    ap.add_argument("--doubt", action="store_true", help="on disagreement ask, never act")
    ap.add_argument("--empty", type=float, default=None,
                    help="when pocketsphinx heard nothing, ask Moonshine and take its reading "
                         "(asked about) when its snap distance <= this")
    ap.add_argument("--agree-within", type=float, default=1.0,
                    help="agreement only when Moonshine's snap distance <= this")
    ap.add_argument("--loose", type=float, default=None,
                    help="the same command from both ears beyond --agree-within: confidence "
                         "at least this")
    ap.add_argument("--veto", type=float, default=None,
                    help="Moonshine's free words veto (the doubt doubled) when its snap could "
                         "bring them no nearer than this to a command")
    ap.add_argument("--resources", action="store_true")
    ap.add_argument("--second", action="store_true", help="with --resources: load Moonshine too")
    args = ap.parse_args(argv)
    if args.resources:
        print(json.dumps(resources(args.second)))
        return 0
    if args.rescore:
        records, context = load_records(args.rescore)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        context = next(args.real.glob("*.yaml")) if args.real else None
        with args.out.open("w", encoding="utf-8") as f:
            f.write(json.dumps({"context": str(context) if context else None}) + "\n")

            def log(r: Record) -> None:  # one JSON line per clip, as it is decoded
                f.write(json.dumps(asdict(r)) + "\n")
                f.flush()
                print(f"{r.set} {r.cond} ps={r.ps_text!r} {r.ps_conf:.2f} ms={r.ms_free!r} "
                      f"-> {r.ms_text!r} {r.ms_distance:.2f}", file=sys.stderr, flush=True)

            dev_c, real_c = (("clean",), ("clean",)) if args.clean_only else (
                DEV_CONDITIONS, REAL_CONDITIONS)
            records = decode_dev(args.n_dev, log, dev_c, args.seed) if args.n_dev else []
            if args.real and args.n_real:
                records += decode_real(args.real, args.n_real, log, real_c)
    policy = Policy(tuple(args.band), args.agreed, args.swap, args.doubt, args.empty,
                    args.agree_within, args.swap_under,
                    tuple(args.rescue) if args.rescue else None, args.loose, args.veto)
    print(f"policy: second ear when {args.band[0]} <= pocketsphinx confidence < "
          f"{args.band[1]}; agreement -> confidence {args.agreed}; disagreement -> "
          + ("the first ear's reading" if args.swap is None else
             f"Moonshine's reading, asked, if its snap distance <= {args.swap} and "
             f"pocketsphinx's confidence < {args.swap_under}")
          + ("; disagreement is never acted on at once" if args.doubt else ""))
    print(table(score(records, policy, Judges(context))))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
