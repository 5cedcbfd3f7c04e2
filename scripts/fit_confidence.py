"""Refit pocketsphinx's confidence model (``Tuning.bias`` / ``w_margin`` / ``w_path``) on a
generated dev set, and show what the hearing policy does with it.

    python scripts/fit_confidence.py decode --seed 11 --commands 500 --chatter 100 out.jsonl
    python scripts/fit_confidence.py fit out.jsonl [--shift -1.0]

``decode`` says every item of ``banker.tools.bench.dev_set`` (its own seed: the bench's seed
2026 stays held out) clean, in 10 dB babble and in 10 dB pink noise, decodes it with the real
recogniser and writes its features (``Heard.details``) one JSON line each. ``fit`` labels a
reading right when the matcher gives the item's intent and slots, fits a logistic regression
by Newton's method on the readings that have words, two-fold by item (even items fit, odd ones
scored, and back), and prints the weights and, per condition, what ``judge`` decides with the
old and the new confidence: commands exact / acted on at once, wrong money commands acted on,
chatter acted on / asked about. ``--shift`` moves the fitted bias (a negative shift trades
commands acted on at once for fewer wrong ones).

Check a candidate on real voices before adopting it (``banker bench --real``): the dev set is
synthetic, two thirds espeak-ng, and a refit on it alone moved real speech the wrong way
(docs/decisions.md, "Confidence refit measured, not adopted").
"""

from __future__ import annotations

import argparse
import json
import math
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

FEATURES = ("margin", "path")
CONDITIONS = ("clean", "babble:10", "pink:10")
_ENGINE: Any = None


def _init() -> None:
    global _ENGINE
    from banker.editions import load_edition
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

    _ENGINE = PocketsphinxRecognizer(SpeechGrammar(load_edition("voice-banking")))


def _decode(job: tuple[int, Any, str]) -> dict[str, Any]:
    from banker.tools import bench

    i, item, cond = job
    heard = _ENGINE.recognize(bench.audio_for(item, cond, i * 7919 + len(cond)), item.focus)
    return {"i": i, "cond": cond, "text": item.text, "intent": item.intent,
            "slots": list(item.slots), "voice": bench.family(item.voice), "heard": heard.text,
            "conf": heard.confidence, "details": dict(heard.details)}


def decode(seed: int, commands: int, chatter: int, out: Path) -> None:
    from banker.tools.bench import dev_set

    items = dev_set(commands, chatter, 0, seed=seed)
    jobs = [(i, it, c) for c in CONDITIONS for i, it in enumerate(items)]
    with out.open("w", encoding="utf-8") as f, ProcessPoolExecutor(2, initializer=_init) as ex:
        for row in ex.map(_decode, jobs, chunksize=4):
            f.write(json.dumps(row) + "\n")


@lru_cache(maxsize=1)
def _judge() -> Any:
    """The bench's judge: a new Voice Banking game, every token seated (made once)."""
    from banker.editions import load_edition
    from banker.tools.transcribe import NewGameJudge

    return NewGameJudge(load_edition("voice-banking"))


def _rows(path: Path) -> list[dict[str, Any]]:
    from banker.nlu.matcher import Recognized

    judge = _judge()
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        m = judge.matcher.match(r["heard"]) if r["heard"] else None
        r["right"] = (r["intent"] != "none" and isinstance(m, Recognized) and m.intent == r["intent"]
                      and dict(m.slots) == dict(map(tuple, r["slots"])))
        rows.append(r)
    return rows


def _x(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([[1.0, *(float(r["details"].get(f, 0.0)) for f in FEATURES)] for r in rows])


def logistic_fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    w = np.zeros(x.shape[1])
    for _ in range(60):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, x.T @ (p - y) + l2 * w)
    return w


def _score(rows: list[dict[str, Any]], confs: list[float]) -> dict[str, dict[str, int]]:
    judge = _judge()
    out: dict[str, dict[str, int]] = {}
    for r, c in zip(rows, confs, strict=True):
        h = judge.hear(r["heard"], c if r["heard"] else 0.0)
        right = h.intent == r["intent"] and dict(h.slots) == dict(map(tuple, r["slots"]))
        e = out.setdefault(r["cond"], dict.fromkeys(
            ("commands", "exact", "at_once", "wrong_money", "chatter", "chatter_acted",
             "chatter_asked"), 0))
        if r["intent"] == "none":
            e["chatter"] += 1
            e["chatter_acted"] += h.decision == "accept"
            e["chatter_asked"] += h.decision == "confirm"
        else:
            e["commands"] += 1
            e["exact"] += right and h.decision != "reject"
            e["at_once"] += right and h.decision == "accept"
        e["wrong_money"] += h.decision == "accept" and judge.risk(h.intent) == "money" and not right
    return out


def fit(path: Path, shift: float) -> None:
    rows = [r for r in _rows(path) if "phones" in r["details"] or not r["heard"]]
    sums: dict[str, dict[str, dict[str, int]]] = {"old": {}, "new": {}}
    for fold in (0, 1):
        train = [r for r in rows if r["heard"] and r["i"] % 2 != fold]
        test = [r for r in rows if r["i"] % 2 == fold]
        w = logistic_fit(_x(train), np.array([float(r["right"]) for r in train]))
        z = _x(test) @ w + shift
        new = [1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, v)))) for v in z]
        for name, confs in (("old", [float(r["conf"] or 0.0) for r in test]), ("new", new)):
            for cond, e in _score(test, confs).items():
                acc = sums[name].setdefault(cond, dict.fromkeys(e, 0))
                for k, v in e.items():
                    acc[k] += v
    heard = [r for r in rows if r["heard"]]
    w = logistic_fit(_x(heard), np.array([float(r["right"]) for r in heard]))
    print(f"weights on all {len(heard)} readings ({sum(r['right'] for r in heard)} right): "
          f"bias {w[0] + shift:.3f} " + " ".join(f"{f} {v:.3f}" for f, v in zip(FEATURES, w[1:], strict=True)))
    for name, by in sums.items():
        for cond, e in sorted(by.items()):
            print(f"{name} {cond:10s} " + " ".join(f"{k} {v}" for k, v in e.items()))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("decode")
    d.add_argument("--seed", type=int, default=11)
    d.add_argument("--commands", type=int, default=500)
    d.add_argument("--chatter", type=int, default=100)
    d.add_argument("out", type=Path)
    f = sub.add_parser("fit")
    f.add_argument("rows", type=Path)
    f.add_argument("--shift", type=float, default=0.0)
    a = p.parse_args()
    if a.cmd == "decode":
        decode(a.seed, a.commands, a.chatter, a.out)
    else:
        fit(a.rows, a.shift)


if __name__ == "__main__":
    main()
