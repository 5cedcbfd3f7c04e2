"""Both ears' readings of the dev set, kept, and replayed through the live two-ear rules.

Tuning a rule of ``speech.ear_rules`` by running ``banker bench`` again costs ten minutes a
try. Here every dev-set line (focus "any") is decoded once by each ear on its own (Moonshine
always, not only when pocketsphinx is unsure) and kept as JSON lines; a replay hands those
readings to the real ``SecondEar`` (``two_ears.second_ear_over``, as ``play`` builds it, with
any of the module's values changed) and scores the result with ``bench.score``: the same
figures as ``banker bench`` to the item, in seconds. Moonshine's free text is kept too and
snapped again on replay, so a change to ``speech.snap`` is measured the same way. A second
seed gives a held-out set, for checking that a change is not fitted to the first.

    python -m banker.tools.ear_records decode OUT.jsonl [--seed 2026] [--commands 200 --chatter 60]
    python -m banker.tools.ear_records replay OUT.jsonl [--seed 2026] [--set TWICE=0.69 ...]

The seed and sizes of a replay must be those of its decode (the lines are found by index).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from banker.speech.base import Heard, Pcm
from banker.speech.protocols import WordScore
from banker.tools import bench

CONDITIONS = bench.QUICK_CONDITIONS
_EARS: Any = None


def _init() -> None:
    global _EARS
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine

    config = load_config()
    _EARS = make_engine({**config, "asr": {**(config.get("asr") or {}), "second_ear": "moonshine"}},
                        load_edition(bench.EDITION))


def _both(job: tuple[int, bench.Item, str]) -> dict[str, Any]:
    i, item, cond = job
    pcm = bench.line_audio(i, item, cond)
    first = asdict(_EARS.first.recognize(pcm, item.focus))
    second = asdict(_EARS.second.recognize(pcm, item.focus))
    return {"i": i, "cond": cond, "first": first, "second": second,
            "free": _EARS.second.last_transcript, "guided": _EARS.second.last_guided}


def decode(items: Sequence[bench.Item], out: Path, conditions: Sequence[str] = CONDITIONS,
           workers: int = 2) -> int:
    """Each ear's reading of every line (focus "any") in every condition, one JSON line each."""
    jobs = [(i, it, c) for c in conditions for i, it in enumerate(items) if it.focus == "any"]
    with out.open("w", encoding="utf-8") as f, ProcessPoolExecutor(workers, initializer=_init) as ex:
        for rec in ex.map(_both, jobs, chunksize=4):
            f.write(json.dumps(rec) + "\n")
    return len(jobs)


def heard(d: dict[str, Any]) -> Heard:
    """A kept reading as the ``Heard`` it was."""
    return Heard(**{**d, "words": tuple(WordScore(*w) if isinstance(w, list) else WordScore(**w)
                                        for w in d["words"]),
                    "alternatives": tuple((t, c) for t, c in d["alternatives"])})


class _KeptText:
    """Moonshine's model as a transcriber that gives back the free text it is handed, and
    the guided search's reading (None: it was not asked, or found no command)."""

    def __init__(self) -> None:
        self.now = ""
        self.held: tuple[str, float] | None = None

    def transcribe(self, pcm: Pcm) -> str:
        return self.now

    def guided(self, pcm: Pcm, fsa: Any) -> tuple[str, float] | None:
        return self.held


class _Kept:
    """A recogniser that gives back the reading it is handed (``now``)."""

    def __init__(self, engine: str) -> None:
        self.engine, self.now = engine, Heard("", 0.0)

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        return self.now


@contextmanager
def values(changes: dict[str, float]) -> Iterator[None]:
    """``speech.ear_rules`` with some of its values changed for a while."""
    from banker.speech import ear_rules

    old = {k: getattr(ear_rules, k) for k in changes}
    for k, v in changes.items():
        setattr(ear_rules, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(ear_rules, k, v)


def replay(items: Sequence[bench.Item], records: Sequence[dict[str, Any]]
           ) -> list[tuple[int, str, str, float, float, tuple[tuple[str, float], ...]]]:
    """The kept readings through the live ``SecondEar``: results as ``bench.score`` takes
    them. The audio is mixed again only for the rules that judge the room (the veto)."""
    from banker.editions import load_edition
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.meanings import matcher_meaning
    from banker.speech.moonshine_asr import MoonshineRecognizer
    from banker.speech.two_ears import second_ear_over

    grammar = SpeechGrammar(load_edition(bench.EDITION))
    first, second, free = _Kept("pocketsphinx"), _Kept("moonshine"), _KeptText()
    snapped = MoonshineRecognizer(grammar, model=free)
    ears = second_ear_over(first, second, matcher_meaning(grammar))
    out = []
    for r in records:
        item = items[r["i"]]
        pcm = bench.line_audio(r["i"], item, r["cond"])
        first.now, second.now = heard(r["first"]), heard(r["second"])
        if "free" in r:  # Moonshine's own words, snapped again by the snap as it is now
            free.now = r["free"]
            held = r.get("guided")
            free.held = None if held is None else (held[0], held[1])
            second.now = replace(snapped.recognize(pcm, item.focus),
                                 seconds=second.now.seconds)  # the model's time, as kept
        h = ears.recognize(pcm, item.focus)
        out.append((r["i"], r["cond"], h.text, h.confidence, h.seconds, h.alternatives))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banker.tools.ear_records", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("decode", "replay"))
    ap.add_argument("records", type=Path, help="the JSON-lines file of kept readings")
    ap.add_argument("--seed", type=int, default=2026, help="the dev set's seed (2026: bench's)")
    ap.add_argument("--commands", type=int, default=bench.DEFAULT_SIZE[0])
    ap.add_argument("--chatter", type=int, default=bench.DEFAULT_SIZE[1])
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="replay with a value of speech.ear_rules changed (e.g. TWICE=0.69)")
    a = ap.parse_args(argv)
    items = bench.dev_set(a.commands, a.chatter, 0, seed=a.seed)
    if a.what == "decode":
        n = decode(items, a.records)
        print(f"{n} lines decoded by both ears into {a.records}")
        return 0
    from banker.speech import ear_rules

    changes: dict[str, float] = {}
    for s in a.set:
        name, _, value = s.partition("=")
        if not hasattr(ear_rules, name) or not name.isupper():
            print(f"banker: speech.ear_rules has no value called {name!r}.", file=sys.stderr)
            return 2
        try:
            changes[name] = float(value)
        except ValueError:
            print(f"banker: {name}={value!r} is not a number.", file=sys.stderr)
            return 2
    try:
        records = [json.loads(line) for line in a.records.read_text(encoding="utf-8").splitlines()]
    except (OSError, ValueError) as exc:
        print(f"banker: can't read the records {a.records}: {exc}", file=sys.stderr)
        return 2
    if any(r["i"] >= len(items) for r in records):
        print("banker: these records are of a bigger dev set (give its --commands and --chatter).",
              file=sys.stderr)
        return 2
    with values(changes):
        report = bench.score(items, replay(items, records))
    print("\n".join(line for line in bench.table({"ours": report}).splitlines()
                    if not line.endswith(": ")))  # no narrowed answers are kept
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
