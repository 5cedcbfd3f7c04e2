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
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import yaml

from banker.nlu.context import parse_context
from banker.nlu.matcher import Recognized
from banker.speech.base import Pcm, read_wav
from banker.speech.context_grammar import ContextSpeechGrammar
from banker.speech.grammar import SpeechGrammar
from banker.speech.moonshine_asr import once, spoken_words
from banker.speech.two_ears import (
    DOUBTED,
    VETO_FACTOR,
    agreed_confidence,
    nothing_within,
    takes_second,
    vetoes,
)
from banker.tools import clips

REAL_CONDITIONS = ("clean", "kitchen:12", "kitchen:6")
DEV_CONDITIONS = ("clean", "babble:10", "pink:10")


# --- the benchmark's context as a word automaton -------------------------------------------
class ContextGrammar(ContextSpeechGrammar):
    """A Picovoice Rhino context compiled by the project's own compiler (``nlu.context``,
    ``speech.context_grammar``), with the meaning the measurement scores: its slots."""

    def __init__(self, path: Path) -> None:
        super().__init__(parse_context(yaml.safe_load(path.read_text(encoding="utf-8")), path.name))
        self.intent = next(iter(self.context.intents))

    def meaning(self, text: str) -> tuple[tuple[str, str], ...]:
        """Slots of a sentence (empty when it is no sentence of the context)."""
        m = self.context.understand(text)
        return tuple(sorted((k, str(v)) for k, v in m.slots.items())) if isinstance(m, Recognized) else ()


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
@dataclass
class Record:
    """One clip heard both ways."""

    set: str
    cond: str
    name: str
    truth_intent: str
    truth_slots: list[tuple[str, str]]
    ps_text: str
    ps_conf: float
    ps_s: float
    ms_text: str
    ms_conf: float
    ms_s: float
    ms_free: str
    ms_distance: float
    ps_cpu: float = 0.0  # CPU seconds (what the wall time would be on an idle machine)
    ms_cpu: float = 0.0


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
    from banker.tools.bench import EDITION, audio_for

    ed = load_edition(EDITION)
    grammar = SpeechGrammar(ed)
    ps = make_engine(_first_ear_only(load_config()), ed, grammar=grammar)
    ms = MoonshineRecognizer(grammar)
    out: list[Record] = []
    items = dev_items(n, seed)
    for cond in conditions:
        for i, it in enumerate(items):
            pcm = audio_for(it, cond, i * 7919 + len(cond))  # the bench's own seeds
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
                  round(t1 - t0, 4), round(t2 - t1, 4))


def _first_ear_only(config: dict[str, Any]) -> dict[str, Any]:
    """The settings with the second ear off: this tool asks Moonshine itself, on every clip."""
    return {**config, "asr": {**(config.get("asr") or {}), "second_ear": "none"}}


# --- scoring ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Policy:
    """When the second ear is asked (pocketsphinx confidence in ``band``) and what agreement
    is worth; ``band`` None: pocketsphinx alone."""

    band: tuple[float, float] | None = (0.1, 0.9)
    agreed: float = 0.97
    # when the ears disagree and Moonshine's snap moved its words at most this far, and
    # pocketsphinx's confidence is below ``swap_under``: take its reading instead, asked about
    # (confidence DOUBTED); below the band, when its words needed no snap; None: never
    swap_below: float | None = None
    doubt: bool = False  # on disagreement, never act at once (confidence capped at DOUBTED)
    # when pocketsphinx heard nothing: ask Moonshine, and take its reading, asked about
    # (confidence DOUBTED), when its snap moved its words at most this far; None: never
    empty_below: float | None = None
    agree_within: float = 1.0  # agreement only when Moonshine's snap distance <= this
    swap_under: float = 1.0
    # (under, within): a pocketsphinx reading below ``under`` gives way to Moonshine's
    # different one when its snap is at most ``within`` (asked about); None: never
    rescue: tuple[float, float] | None = None
    # both ears mean the same command, Moonshine's snap beyond ``agree_within``: the
    # confidence is at least this (asked about); None: such an agreement counts for nothing
    loose: float | None = None
    # a disagreement where Moonshine wrote VETO_WORDS words or more that its snap could bring
    # no nearer than this to a command, in a clean clip (the live rule asks for a quiet room):
    # the doubt doubled; None: no veto
    veto: float | None = None


class Judges:
    """Meaning and decision for each set, built once per scoring."""

    def __init__(self, context: Path | None) -> None:
        from banker.editions import load_edition
        from banker.speech.two_ears import matcher_meaning
        from banker.tools.bench import EDITION
        from banker.tools.transcribe import NewGameJudge

        self.dev = NewGameJudge(load_edition(EDITION))
        self.dev_meaning = matcher_meaning(SpeechGrammar(self.dev.session.edition,
                                                         matcher=self.dev.matcher))
        self.ctx = ContextGrammar(context) if context is not None else None

    def meaning(self, r: Record, text: str) -> Any:
        if r.set == "dev":
            return self.dev_meaning(text)
        assert self.ctx is not None
        return self.ctx.meaning(text)

    def hear(self, r: Record, text: str, conf: float) -> tuple[str, bool, bool]:
        """(decision, right, money) for ``text`` heard with ``conf``."""
        from banker.interpreter.hearing import judge
        from banker.nlu.matcher import NotRecognized, Recognized

        if r.set == "dev":
            h = self.dev.hear(text, conf)
            right = h.intent == r.truth_intent and sorted(
                (k, str(v)) for k, v in h.slots.items()) == [tuple(x) for x in r.truth_slots]
            return h.decision, right, self.dev.risk(h.intent) == "money"
        assert self.ctx is not None
        slots = self.ctx.meaning(text)
        match = Recognized(self.ctx.intent, dict(slots), 100.0, 100.0, text) if slots else \
            NotRecognized(text)
        h = judge(match, conf, lambda _i: "money", lambda _i, _s: True)
        right = h.intent == r.truth_intent and list(slots) == [tuple(x) for x in r.truth_slots]
        return h.decision, right, True


def outcome(r: Record, policy: Policy, judges: Judges) -> dict[str, Any]:
    """What happens to one clip under ``policy``: decision, rightness, seconds, whether the
    second ear was asked and agreed."""
    conf, secs, cpu, asked, agree = r.ps_conf, r.ps_s, r.ps_cpu, False, False
    text = r.ps_text
    band = policy.band
    words = len(r.ms_text.split())

    def swaps(below_band: bool) -> bool:  # the live rule (speech.two_ears.takes_second)
        return takes_second(r.ps_conf, r.ms_distance, words, below_band, policy.swap_below,
                            policy.swap_under, policy.rescue)

    if band is not None and r.ps_text and band[0] <= r.ps_conf < band[1]:
        asked, secs, cpu = True, r.ps_s + r.ms_s, r.ps_cpu + r.ms_cpu
        same = bool(r.ms_text) and judges.meaning(r, r.ms_text) == judges.meaning(r, r.ps_text)
        agree = same and r.ms_distance <= policy.agree_within
        raised = agreed_confidence(conf, same, r.ms_distance, policy.agreed, policy.loose,
                                   policy.agree_within)
        if raised is not None:
            conf = raised
        elif policy.veto is not None and vetoes(
                conf, r.ms_text, len(once(spoken_words(r.ms_free))), r.ms_distance,
                lambda: r.cond == "clean", policy.veto):
            conf *= VETO_FACTOR
        else:
            if swaps(False):
                text, conf = r.ms_text, DOUBTED
            if policy.doubt:
                conf = min(conf, DOUBTED)
    elif band is not None and r.ps_text and r.ps_conf < band[0] and swaps(True) and (
            judges.meaning(r, r.ms_text) != judges.meaning(r, r.ps_text)):
        asked, secs, cpu = True, r.ps_s + r.ms_s, r.ps_cpu + r.ms_cpu
        text, conf = r.ms_text, DOUBTED  # below the band: Moonshine's reading, asked
    elif policy.empty_below is not None and not r.ps_text:
        asked, secs, cpu = True, r.ps_s + r.ms_s, r.ps_cpu + r.ms_cpu
        if r.ms_text and r.ms_distance <= nothing_within(policy.empty_below, policy.rescue,
                                                         words):
            text, conf = r.ms_text, DOUBTED
    decision, right, money = judges.hear(r, text, conf)
    return {"decision": decision, "right": right, "money": money, "secs": secs, "cpu": cpu,
            "asked": asked, "agree": agree}


def score(records: Sequence[Record], policy: Policy, judges: Judges) -> dict[str, Any]:
    """Per set and condition: counts (and percentages of commands or chatter)."""
    rows: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[Record]] = {}
    for r in records:
        groups.setdefault(f"{r.set} {r.cond}", []).append(r)
    alone = Policy(None)
    for key, recs in groups.items():
        base = [outcome(r, alone, judges) for r in recs]
        new = [outcome(r, policy, judges) for r in recs]
        cmd = [i for i, r in enumerate(recs) if r.truth_intent != "none"]
        chat = [i for i, r in enumerate(recs) if r.truth_intent == "none"]
        row: dict[str, Any] = {"commands": len(cmd), "chatter": len(chat)}
        for name, outs in (("alone", base), ("second", new)):
            row[name] = _counts(outs, cmd, chat)
        row["asked_to_acted"] = sum(base[i]["decision"] == "confirm" and new[i]["decision"] ==
                                    "accept" for i in range(len(recs)))
        row["asked_to_acted_wrong"] = sum(
            base[i]["decision"] != "accept" and new[i]["decision"] == "accept"
            and not (new[i]["right"] and recs[i].truth_intent != "none") for i in range(len(recs)))
        row["rejected_to_acted"] = sum(base[i]["decision"] == "reject" and new[i]["decision"] ==
                                       "accept" for i in range(len(recs)))
        withheld = [i for i in range(len(recs))
                    if base[i]["decision"] == "accept" and new[i]["decision"] != "accept"]
        row["acted_to_asked"] = len(withheld)
        row["acted_to_asked_wrong_avoided"] = sum(
            not (base[i]["right"] and recs[i].truth_intent != "none") for i in withheld)
        row["second_ear_asked"] = sum(o["asked"] for o in new)
        row["second_ear_agreed"] = sum(o["agree"] for o in new)
        row["ps_text_right"] = sum(judges.hear(recs[i], recs[i].ps_text, 1.0)[1] for i in cmd)
        row["ms_text_right"] = sum(judges.hear(recs[i], recs[i].ms_text, 1.0)[1] for i in cmd)
        rows[key] = row
    return rows


def _counts(outs: Sequence[Mapping[str, Any]], cmd: Sequence[int], chat: Sequence[int]
            ) -> dict[str, Any]:
    c = [outs[i] for i in cmd]
    ch = [outs[i] for i in chat]
    secs = [o["secs"] for o in outs]
    cpu = [o["cpu"] for o in outs]
    return {
        "exact": sum(o["right"] and o["decision"] != "reject" for o in c),
        "acted_right": sum(o["right"] and o["decision"] == "accept" for o in c),
        "asked": sum(o["decision"] == "confirm" for o in c),
        "rejected": sum(o["decision"] == "reject" for o in c),
        "acted_wrong": sum(o["decision"] == "accept" and not o["right"] for o in c),
        "acted_wrong_money": sum(o["decision"] == "accept" and not o["right"] and o["money"]
                                 for o in c),
        "chatter_acted": sum(o["decision"] == "accept" for o in ch),
        "chatter_asked": sum(o["decision"] == "confirm" for o in ch),
        "p50_s": round(float(np.percentile(secs, 50)), 3) if secs else None,
        "p95_s": round(float(np.percentile(secs, 95)), 3) if secs else None,
        "p50_cpu": round(float(np.percentile(cpu, 50)), 3) if any(cpu) else None,
        "p95_cpu": round(float(np.percentile(cpu, 95)), 3) if any(cpu) else None,
    }


def table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """One line per set and condition and way of hearing, counts with percentages."""
    head = (f"{'set cond':<16}{'ear':<7}{'exact':>11}{'acted ok':>11}{'asked':>10}"
            f"{'acted bad':>10}{'chat act':>9}{'chat ask':>9}{'p50 s':>7}{'p95 s':>7}"
            f"{'p50 cpu':>8}{'p95 cpu':>8}")
    lines = [head]
    for key, row in rows.items():
        n, nc = row["commands"], row["chatter"]
        for name in ("alone", "second"):
            c = row[name]
            lines.append(
                f"{key:<16}{('ps' if name == 'alone' else 'ps+ms'):<7}"
                f"{_pc(c['exact'], n):>11}{_pc(c['acted_right'], n):>11}{_pc(c['asked'], n):>10}"
                f"{c['acted_wrong']:>10}{_pc(c['chatter_acted'], nc):>9}"
                f"{_pc(c['chatter_asked'], nc):>9}{c['p50_s']:>7}{c['p95_s']:>7}"
                f"{c['p50_cpu'] or '-':>8}{c['p95_cpu'] or '-':>8}")
        lines.append(
            f"{'':<16}second ear asked on {row['second_ear_asked']}, agreed on "
            f"{row['second_ear_agreed']}; asked->acted {row['asked_to_acted']}, "
            f"rejected->acted {row['rejected_to_acted']}, of them wrong "
            f"{row['asked_to_acted_wrong']}; acted->asked {row['acted_to_asked']} (wrong acts "
            f"avoided {row['acted_to_asked_wrong_avoided']}); text right: ps {row['ps_text_right']}/{n}, "
            f"moonshine alone {row['ms_text_right']}/{n}")
    return "\n".join(lines)


def _pc(k: int, n: int) -> str:
    return f"{k} {100.0 * k / n:.0f}%" if n else "-"


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


def load_records(paths: Sequence[Path]) -> tuple[list[Record], Path | None]:
    """Records saved by earlier runs (JSON lines: a header with the context, then clips)."""
    records: list[Record] = []
    context: Path | None = None
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        head = json.loads(lines[0]) if lines else {}
        context = context or (Path(head["context"]) if head.get("context") else None)
        records += [Record(**json.loads(line)) for line in lines[1:] if line.strip()]
    return records, context


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
