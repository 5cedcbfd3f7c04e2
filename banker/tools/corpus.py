"""A dev corpus of many voices, grouped into families, for fitting and scoring the hearing.

Every English voice this machine can render, grouped into FAMILIES (a family is left out
whole when the hearing is scored, so a fit never sees the voice it is judged on):
piper's joe at several length and noise scales, and espeak-ng's accents with its male,
female, Klatt and character variants. Each clip is perturbed the way rooms and mouths differ
(``perturb``: pitch, tempo, reverberation, a microphone's colouring, distance), by sox, from
a seed of its own. The lines are Voice Banking commands sampled from the grammar, table
chatter, near-commands ("the dog is winning"), bare street names and answers said with no
question asked (the truth for all of those: nothing to do).

Each line is decoded in each condition by both ears on their own (pocketsphinx, and
Moonshine always, with its free text and its grammar-held reading), and by the two ears and
hearing policy as ``play`` combines them (``main``: the rules this corpus is scored against).
Records are JSON lines under ``~/.cache/banker/corpus`` (``BANKER_CACHE`` moves it), kept by
the code version, so a second run decodes nothing again. Test data only: nothing here ships.

    python -m banker.tools.corpus [--per-family 80] [--chatter 40] [--conditions clean,babble:10]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from banker.tools import bench, clips, decode_cache
from banker.tools.clips import Voice

CONDITIONS = ("clean", "babble:10", "pink:10")
_ACCENTS = ("en-us", "en-us-nyc", "en-gb", "en-gb-x-rp", "en-gb-scotland", "en-gb-x-gbclan",
            "en-gb-x-gbcwmd", "en-029")


def _espeak(accents: Sequence[str], variants: Sequence[str]) -> tuple[Voice, ...]:
    return tuple(Voice("espeak", a + v, s, p) for a in accents for v in variants
                 for s, p in ((130, 40), (160, 55), (185, 70)))


# voice families: whole synthesisers or styles, never split between fit and score
FAMILIES: dict[str, tuple[Voice, ...]] = {
    "piper": tuple(Voice("piper", "joe", ls, noise=ns) for ls in (0.8, 1.0, 1.25)
                   for ns in (0.3, 0.667, 1.0)),
    "espeak-american": _espeak(_ACCENTS[:2], ("+m1", "+m2", "+m4", "+m6", "+m7")),
    "espeak-british": _espeak(_ACCENTS[2:5], ("+m1", "+m2", "+m4", "+m6", "+m7")),
    "espeak-regional": _espeak(_ACCENTS[5:], ("", "+m3", "+m5", "+m8")),
    "espeak-female": _espeak(_ACCENTS, ("+f1", "+f2", "+f3", "+f4", "+f5")),
    "espeak-character": _espeak(_ACCENTS, ("+klatt", "+klatt3", "+grandma", "+grandpa",
                                           "+Andy", "+annie", "+Storm", "+michel")),
}
# heard as talk with no question open: nothing is to be done about any of them
NEAR_COMMANDS = (
    "the dog is winning", "I always land on Boardwalk", "who's the banker",
    "Park Place is so expensive", "I never buy the railroads", "the cat has all the money",
    "pay attention please", "I bought a house last year", "don't go to jail again",
    "my rent is due on friday", "the hat looks silly", "auction night at the school",
    "Baltic Avenue is the cheapest", "I'd never trade with you", "collect the cards please",
)
OUT_OF_CONTEXT = ("yes", "no thanks", "forty", "two hundred", "the dog", "the racecar", "none",
                  "fifty dollars", "sure", "okay")
PITCH_CENTS, TEMPO = (-300, 300), (0.85, 1.15)
COLOURS = ("", "highpass 300 lowpass 3400", "bass +8", "treble -10", "equalizer 2000 1q +8")


@dataclass(frozen=True)
class Line:
    """One corpus utterance: its truth (``intent`` none: nothing to do), voice and sound."""

    family: str
    n: int
    text: str
    intent: str
    slots: tuple[tuple[str, Any], ...]
    voice: Voice
    effects: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.family}/{self.n}"


@dataclass(frozen=True)
class Truth:
    """What a record's line was (kept in the record: the lines ``lines`` samples change with
    the grammar, the readings kept for them don't)."""

    key: str
    family: str
    text: str
    intent: str
    slots: tuple[tuple[str, Any], ...]
    voice: str
    effects: tuple[str, ...]


def truth_of(line: Line) -> Truth:
    return Truth(line.key, line.family, line.text, line.intent, line.slots, line.voice.key,
                 line.effects)


def truths(records: Sequence[dict[str, Any]], items: Sequence[Line] = ()) -> dict[str, Truth]:
    """Each record's line by its key: the one kept in the record, else the one in ``items``."""
    out = {ln.key: truth_of(ln) for ln in items}
    for r in records:
        t = r.get("line")
        if t is not None:
            out[r["key"]] = Truth(r["key"], t["family"], t["text"], t["intent"],
                                  tuple((str(k), v) for k, v in t["slots"]), t["voice"],
                                  tuple(t["effects"]))
    return out


def perturb_effects(rng: random.Random) -> tuple[str, ...]:
    """sox effects for one clip: a pitch shift, a tempo change, maybe a microphone's colour,
    maybe a room (reverberation), maybe distance (quieter, duller, more room)."""
    fx = [f"pitch {rng.randint(*PITCH_CENTS)}", f"tempo {rng.uniform(*TEMPO):.3f}"]
    colour = rng.choice(COLOURS)
    if colour:
        fx.append(colour)
    room = rng.random()
    if room < 0.3:
        fx.append(f"reverb {rng.randint(20, 60)}")
    elif room < 0.5:  # across the table: quieter, the highs lost, the room heard
        fx.extend([f"lowpass {rng.randint(2500, 4000)}", f"reverb {rng.randint(40, 80)}",
                   f"gain -{rng.randint(6, 14)}"])
    return tuple(fx)


def lines(per_family: int, chatter: int, seed: int = 39) -> list[Line]:
    """Each family's lines: commands sampled from the grammar (this board's streets) and
    ``chatter`` lines of talk, near-commands, bare street names and answers out of context.
    Deterministic for a seed."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Recognized
    from banker.speech.grammar import SpeechGrammar

    ed = load_edition(bench.EDITION)
    g = SpeechGrammar(ed)
    intents = [s.name for s in g.intents() if s.name not in ("answer", "yes", "no")]
    board = set(ed.street_names)
    talk = [*bench.CHATTER, *NEAR_COMMANDS, *OUT_OF_CONTEXT, *sorted(board)]
    out: list[Line] = []
    for f_i, (family, voices) in enumerate(FAMILIES.items()):
        rng = random.Random(seed * 1000 + f_i)
        n = 0
        while n < per_family:
            s = g.sample(rng, intents=[rng.choice(intents)])
            names = [v for k, v in s.slots if k in ("property", "give", "get")]
            r = g.matcher.match(g.to_written(s.text))
            if any(x not in board for x in names) or not (
                    isinstance(r, Recognized) and r.intent == s.intent
                    and dict(r.slots) == dict(s.slots)):
                continue  # another board's street, or text that is itself ambiguous
            out.append(Line(family, n, s.text, s.intent, s.slots, rng.choice(voices),
                            perturb_effects(rng)))
            n += 1
        for k, text in enumerate(rng.sample(talk, min(chatter, len(talk)))):
            out.append(Line(family, per_family + k, text, "none", (), rng.choice(voices),
                            perturb_effects(rng)))
    return out


def corpus_dir() -> Path:
    return clips.cache_dir() / "corpus"


def clip_path(t: Truth) -> Path:
    digest = hashlib.sha1(f"{t.voice}|{t.text}|{t.effects}".encode()).hexdigest()[:12]
    return corpus_dir() / "clips" / t.family / f"{digest}.wav"


def clip(line: Line) -> clips.Pcm:
    """The line said by its voice, perturbed, padded (cached as a WAV)."""
    path = clip_path(truth_of(line))
    if not path.exists():
        raw = clips.speech(line.text, line.voice)
        proc = subprocess.run(["sox", "-R", "-t", "raw", "-r", str(clips.RATE), "-e", "signed",
                               "-b", "16", "-c", "1", "-", "-t", "raw", "-", *" ".join(
                                   line.effects).split(), "rate", str(clips.RATE)],
                              input=raw.tobytes(), capture_output=True, check=False)
        if proc.returncode != 0:
            raise clips.ClipError(f"sox could not perturb a clip: {proc.stderr.decode()[:200]}")
        pcm = np.frombuffer(proc.stdout, dtype=np.int16).copy()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        clips.write_wav(tmp, pcm)
        tmp.replace(path)
    return clips.pad(clips.read_pcm(path))


def audio(line: Line | Truth, condition: str) -> clips.Pcm:
    """The line's clip in ``condition`` (noise mixed from a seed of the line and condition);
    a ``Truth`` is read from its kept clip."""
    pcm = clip(line) if isinstance(line, Line) else clips.pad(clips.read_pcm(clip_path(line)))
    if condition == "clean":
        return pcm
    kind, snr = condition.split(":")
    seed = int(hashlib.sha1(f"{line.key}|{condition}".encode()).hexdigest()[:8], 16)
    return clips.mix(pcm, kind, float(snr), np.random.default_rng(seed))


# --- decoding ---------------------------------------------------------------------------------
_EARS: Any = None
_MAIN: Any = None
_JUDGE: Any = None


def _init() -> None:
    global _EARS, _MAIN, _JUDGE
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.meanings import matcher_meaning
    from banker.speech.two_ears import second_ear_over
    from banker.tools.ear_records import _Kept
    from banker.tools.transcribe import NewGameJudge

    config = load_config()
    ed = load_edition(bench.EDITION)
    _EARS = make_engine({**config, "asr": {**(config.get("asr") or {}), "second_ear": "moonshine"}},
                        ed)
    kept = (_Kept("pocketsphinx"), _Kept("moonshine"))
    _MAIN = (kept, second_ear_over(kept[0], kept[1], matcher_meaning(SpeechGrammar(ed))))
    _JUDGE = NewGameJudge(ed)


def _decode(job: tuple[Line, str]) -> dict[str, Any]:
    """Both ears on their own, then the two ears and the hearing policy as ``play`` has them
    (the same two readings handed to ``SecondEar``: what main's rules make of them)."""
    line, cond = job
    pcm = audio(line, cond)
    first = _EARS.first.recognize(pcm, "any")
    second = _EARS.second.recognize(pcm, "any")
    (k1, k2), ears = _MAIN
    k1.now, k2.now = first, second
    v = _JUDGE.verdict(ears.recognize(pcm, "any"))
    t = truth_of(line)
    return {"key": line.key, "cond": cond, "line": {
                "family": t.family, "text": t.text, "intent": t.intent,
                "slots": [list(kv) for kv in t.slots], "voice": t.voice, "effects": list(t.effects)},
            "first": asdict(first), "second": asdict(second),
            "free": _EARS.second.last_transcript, "guided": _EARS.second.last_guided,
            "main": {"text": v.text, "intent": v.intent, "slots": dict(v.slots),
                     "confidence": v.confidence, "decision": v.decision,
                     "choices": [[i, dict(s)] for i, s in v.choices]}}


def records_path(items: Sequence[Line]) -> Path:
    """Where the readings of ``items`` are kept: by the lines themselves and the code that
    decides a reading (the ears, the matcher, the editions, main's hearing policy; not the
    fitted judge, which reads them)."""
    from banker.paths import grammars_dir

    files = [p for p in decode_cache.modules("speech", "nlu", "editions", "interpreter")
             if p.name != "judge.py"]
    said = repr([(ln.key, ln.text, ln.voice.key, ln.effects) for ln in items])
    version = decode_cache.version([*files, *grammars_dir().glob("*.yaml")], said)
    return corpus_dir() / f"records-{len(items)}-{version}.jsonl"


def decode(items: Sequence[Line], conditions: Sequence[str], out: Path, workers: int = 2,
           log: Any = None) -> list[dict[str, Any]]:
    """Every line in every condition, appended to ``out`` as it is decoded; the lines
    already there are not decoded again."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if out.exists():
        for text in out.read_text(encoding="utf-8").splitlines():
            r = json.loads(text)
            done[(r["key"], r["cond"])] = r
    # condition by condition, the families taken in turn line by line, talk spread among the
    # commands: a decode cut short still holds every family, commands and talk
    order = sorted(items, key=lambda ln: (_rank(ln, items), ln.family))
    jobs = [(ln, c) for c in conditions for ln in order if (ln.key, c) not in done]
    out.parent.mkdir(parents=True, exist_ok=True)
    if jobs:
        with out.open("a", encoding="utf-8") as f, ProcessPoolExecutor(workers, initializer=_init) as ex:
            for n, rec in enumerate(ex.map(_decode, jobs, chunksize=4)):
                f.write(json.dumps(rec) + "\n")
                f.flush()
                done[(rec["key"], rec["cond"])] = rec
                if log is not None and n % 50 == 0:
                    print(f"  {n}/{len(jobs)} decoded", file=log, flush=True)
    return [done[(ln.key, c)] for c in conditions for ln in items]


def _rank(line: Line, items: Sequence[Line]) -> float:
    """Where a line falls in its family's commands (or talk), 0-1."""
    mine = [ln for ln in items if ln.family == line.family and (ln.intent == "none") == (line.intent == "none")]
    return (sorted(ln.n for ln in mine).index(line.n) + 0.5) / len(mine)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banker.tools.corpus", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-family", type=int, default=80, help="commands a family")
    ap.add_argument("--chatter", type=int, default=40, help="talk lines a family")
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    items = lines(a.per_family, a.chatter)
    out = records_path(items)
    try:
        recs = decode(items, a.conditions.split(","), out, a.workers, sys.stderr)
    except clips.ClipError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2
    print(f"{len(recs)} readings of {len(items)} lines ({len(FAMILIES)} families) in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
