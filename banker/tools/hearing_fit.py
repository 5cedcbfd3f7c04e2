"""Fit the hearing model (``speech.judge``) on the voice corpus, and score it on families
left out of the fit against the rules it replaces.

From each corpus record (``tools.corpus``: both ears' readings of one line in one
condition) come the candidate commands its readings mean, each with the judge's features and
whether it is the line's truth. ``fit`` is a logistic regression by Newton's method with a
small ridge (deterministic: the same features give the same weights to the last digit).
``bench`` fits on all families but one and scores the one left out, for each family in
turn, and prints per family and per condition: right (acted on or asked about), at once,
wrong money acted on, chatter acted on, with counts, for main's rules (``main`` in the
records) and for the model; then the model's calibration on the held-out readings.

    python -m banker.tools.hearing_fit bench [--records FILE]
    python -m banker.tools.hearing_fit save [--records FILE]     # fit on all, write the model
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from banker.speech.judge import FEATURES, MODEL_PATH, Candidate, Ear, Model, decide, features, runner_up
from banker.tools import bench, clips, corpus

FEATURES_PATH = Path(__file__).with_name("hearing_features.csv.gz")
RIDGE = 0.1
# answers with no question open are talk, not candidates ("Sorry?" in ``play``)
ANSWERS = frozenset({"answer", "yes", "no"})
SIZE = (30, 15)  # the corpus the saved model is fitted on: commands and talk lines a family


@dataclass(frozen=True)
class Row:
    """One candidate reading of one record: its family, condition, line, features, truth."""

    family: str
    cond: str
    key: str
    risk: str
    talk: bool  # the line is talk (nothing to do)
    x: tuple[float, ...]
    right: bool


class Readings:
    """Candidates from records, judged in a new game as ``transcribe`` does."""

    def __init__(self) -> None:
        from banker.editions import load_edition
        from banker.speech.grammar import SpeechGrammar
        from banker.tools.transcribe import NewGameJudge

        ed = load_edition(bench.EDITION)
        self.grammar = SpeechGrammar(ed)
        self.judge = NewGameJudge(ed)

    def candidates(self, first: Ear, second: Ear) -> list[Candidate]:
        from banker.interpreter.hearing import lacks_slot, stake
        from banker.nlu.matcher import Recognized

        found: dict[tuple[str, tuple[tuple[str, str], ...]], Candidate] = {}
        for ear, text in ((1, first.text), (2, second.text), (3, second.held)):
            if not text:
                continue
            m = self.judge.matcher.match(self.grammar.to_written(text))
            if not isinstance(m, Recognized) or m.intent in ANSWERS:
                continue  # no command, or an answer with nothing asked: talk
            slots = tuple(sorted(m.slots.items()))
            key = (m.intent, _plain(slots))
            old = found.get(key)
            if ear == 3:  # the held reading is evidence for a reading, never one of its own
                if old is not None:
                    found[key] = replace(old, from_held=True)
                continue
            risk = self.judge.risk(m.intent)
            if risk == "money" and lacks_slot(m.slots, self.judge.session.policy.requires(m.intent)):
                risk = "opens"
            player = self.judge.speaker(text)
            legal = self.judge.session.legal(player, m.intent, m.slots)
            risk = stake(m.intent, risk, legal)
            found[key] = Candidate(m.intent, slots, (old is not None and old.from_first) or ear == 1,
                                   (old is not None and old.from_second) or ear == 2,
                                   max(m.score / 100, old.match if old else 0.0),
                                   max(m.margin, old.match_margin if old else 0.0), risk, legal,
                                   len(text.split()))
        return list(found.values())


def _plain(slots: Any) -> tuple[tuple[str, str], ...]:
    """Slots as comparable text: (name, value) pairs, sorted."""
    items = slots.items() if isinstance(slots, dict) else slots
    return tuple(sorted((str(k), str(v)) for k, v in items))


def _ear(d: dict[str, Any], second: bool = False) -> Ear:
    """A kept reading (``speech.base.Heard`` as a dict) as the judge takes it: for the second
    ear, with the reading it held and did not take (``_held``)."""
    return Ear(d["text"], float(d["confidence"] or 0.0), dict(d["details"]),
               _held(d.get("alternatives")) if second else "")


def _held(alternatives: Any) -> str:
    """Moonshine's held reading not taken: its one alternative (pocketsphinx's n-best
    alternatives, off by default, are not asked for)."""
    return str(alternatives[0][0]) if alternatives else ""


def rows_of(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth]) -> list[Row]:
    """Every candidate of every record, with its features and truth."""
    readings = Readings()
    out: list[Row] = []
    for r in records:
        ln = truth[r["key"]]
        want = (ln.intent, _plain(ln.slots))
        first, second = _ear(r["first"]), _ear(r["second"], second=True)
        for c in readings.candidates(first, second):
            out.append(Row(ln.family, r["cond"], ln.key, c.risk, ln.intent == "none",
                           tuple(features(first, second, c)), (c.intent, _plain(c.slots)) == want))
    return out


def fit(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], ridge: float = RIDGE) -> np.ndarray[Any, Any]:
    """Logistic regression weights by Newton's method (the bias not penalised)."""
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], ridge)
    pen[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + pen * w
        hess = (x.T * (p * (1 - p))) @ x + np.diag(pen) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return w


def features_hash(rows: Sequence[Row]) -> str:
    return hashlib.sha256(_csv(rows).encode()).hexdigest()[:16]


def _csv(rows: Sequence[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["family", "cond", "key", "risk", "talk", "right", *FEATURES])
    for r in rows:
        w.writerow([r.family, r.cond, r.key, r.risk, int(r.talk), int(r.right),
                    *(f"{v:.6g}" for v in r.x)])
    return buf.getvalue()


def save_rows(rows: Sequence[Row], path: Path = FEATURES_PATH) -> None:
    path.write_bytes(gzip.compress(_csv(rows).encode(), mtime=0))


def load_rows(path: Path = FEATURES_PATH) -> list[Row]:
    text = gzip.decompress(path.read_bytes()).decode()
    reader = csv.reader(io.StringIO(text))
    head = next(reader)
    if tuple(head[6:]) != FEATURES:
        raise ValueError(f"{path} holds other features; make it again")
    return [Row(f, c, k, risk, talk == "1", tuple(float(v) for v in xs), right == "1")
            for f, c, k, risk, talk, right, *xs in reader]


def model_of(rows: Sequence[Row]) -> Model:
    x = np.array([r.x for r in rows])
    y = np.array([float(r.right) for r in rows])
    return Model(tuple(float(v) for v in fit(x, y)), FEATURES, features_hash(rows))


def held_out(rows: Sequence[Row]) -> list[tuple[Row, float]]:
    """Each family's rows scored by a model fitted on the other families."""
    out: list[tuple[Row, float]] = []
    for fam in sorted({r.family for r in rows}):
        others = [r for r in rows if r.family != fam]
        if not others:
            continue  # one family: nothing to fit on
        model = model_of(others)
        out.extend((r, model.probability(r.x)) for r in rows if r.family == fam)
    return out


def calibration(scored: Sequence[tuple[Row, float]], least: int = 30
                ) -> list[tuple[float, float, float, int]]:
    """Per decile of probability: (from, mean probability, share right, readings)."""
    out = []
    for k in range(10):
        lo, hi = k / 10, (k + 1) / 10
        inside = [(r, p) for r, p in scored if lo <= p < hi or (k == 9 and p == 1.0)]
        if inside:
            out.append((lo, float(np.mean([p for _, p in inside])),
                        float(np.mean([r.right for r, _ in inside])), len(inside)))
    return [c for c in out if c[3] >= least] if least else out


class ModelJudge:
    """``banker transcribe`` with ``asr.hearing: model``: both ears' readings of a file,
    judged by the fitted model and the cost table instead of the rules."""

    def __init__(self, model: Model | None = None) -> None:
        self.readings = Readings()
        self.model = model or Model.load()

    def verdict(self, first: Any, second: Any) -> Any:
        from banker.interpreter.policy import plain
        from banker.tools.transcribe import Verdict

        e1 = Ear(first.text, float(first.confidence or 0.0), dict(first.details))
        e2 = Ear(second.text, float(second.confidence or 0.0), dict(second.details),
                 _held(getattr(second, "alternatives", ())))
        scored = [(c, self.model.probability(features(e1, e2, c)))
                  for c in self.readings.candidates(e1, e2)]
        act, c, p = decide(scored)
        if c is None:
            return Verdict(first.text or second.text, "none", {}, round(p, 3), "reject")
        text = first.text if c.from_first else second.text
        return Verdict(text, c.intent, plain(dict(c.slots)), round(p, 3),
                       "accept" if act == "act" else "confirm")


# --- scoring ------------------------------------------------------------------------------------
Counts = dict[str, int]


def _tally(counts: Counts, talk: bool, right: bool, act: str, risk: str) -> None:
    counts["talk" if talk else "commands"] += 1
    acted = act == "act"
    if talk:
        counts["talk_acted"] += int(acted and risk != "opens")  # "Which street?" moves nothing
    else:
        counts["right"] += int(right and act in ("act", "ask"))
        counts["at_once"] += int(right and acted)
        counts["wrong"] += int(acted and not right)
    counts["wrong_money"] += int(acted and not right and risk == "money")


def _new() -> Counts:
    return dict.fromkeys(("commands", "right", "at_once", "wrong", "talk", "talk_acted",
                          "wrong_money"), 0)


def score_model(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth],
                scored: Sequence[tuple[Row, float]]) -> dict[tuple[str, str], Counts]:
    """The model's decisions per (family, condition): each line's candidates by ``decide``."""
    by: dict[tuple[str, str], list[tuple[Row, float]]] = {}
    for r, p in scored:
        by.setdefault((r.key, r.cond), []).append((r, p))
    out: dict[tuple[str, str], Counts] = {}
    for rec in records:
        ln = truth[rec["key"]]
        scored = by.get((rec["key"], rec["cond"]), [])
        act, chosen, _p = decide(scored)
        other = runner_up(scored) if act == "choose" else None
        right = any(c is not None and c.right for c in (chosen, other))
        counts = out.setdefault((ln.family, rec["cond"]), _new())
        _tally(counts, ln.intent == "none", right, "ask" if act == "choose" else act,
               chosen.risk if chosen is not None else "harmless")
    return out


def score_main(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth]
               ) -> dict[tuple[str, str], Counts]:
    """Main's rules as kept in the records (``main``: the two ears and hearing policy)."""
    from banker.interpreter.hearing import lacks_slot, stake

    readings = Readings()
    out: dict[tuple[str, str], Counts] = {}
    for rec in records:
        ln, m = truth[rec["key"]], rec["main"]
        want = (ln.intent, _plain(ln.slots))
        said = [(m["intent"], m["slots"]), *((i, s) for i, s in m["choices"])]
        right = m["decision"] != "reject" and any((i, _plain(s)) == want for i, s in said)
        risk = readings.judge.risk(m["intent"]) if m["intent"] != "none" else "harmless"
        if risk == "money" and lacks_slot(m["slots"], readings.judge.session.policy.requires(m["intent"])):
            risk = "opens"
        if m["intent"] != "none":
            player = readings.judge.speaker(m["text"])
            risk = stake(m["intent"], risk, readings.judge.session.legal(player, m["intent"], m["slots"]))
        act = {"accept": "act", "reject": "sorry"}.get(m["decision"], "ask")
        if m["intent"] in ANSWERS and not m["choices"]:
            act = "sorry"  # an answer with nothing asked: "Sorry?" in ``play``
        _tally(out.setdefault((ln.family, rec["cond"]), _new()), ln.intent == "none", right, act,
               risk)
    return out


def _pc(k: int, n: int) -> str:
    return f"{100 * k / n:5.1f}% ({k}/{n})" if n else "-"


def table(results: dict[tuple[str, str], Counts], by: int) -> str:
    """Rows per family (``by`` 0) or per condition (1)."""
    groups: dict[str, Counts] = {}
    for key, c in sorted(results.items()):
        g = groups.setdefault(key[by], _new())
        for k, v in c.items():
            g[k] += v
    head = (f"{'':18} {'right':>16} {'at once':>16} {'wrong acted':>14} {'wrong money':>14}"
            f" {'chatter acted':>14}")
    rows = [head]
    for name, c in groups.items():
        n = c["commands"] + c["talk"]
        rows.append(f"{name:18} {_pc(c['right'], c['commands']):>16} {_pc(c['at_once'], c['commands']):>16}"
                    f" {_pc(c['wrong'], c['commands']):>14} {_pc(c['wrong_money'], n):>14}"
                    f" {_pc(c['talk_acted'], c['talk']):>14}")
    return "\n".join(rows)


def newest_records() -> Path | None:
    path = corpus.records_path(corpus.lines(*SIZE))
    return path if path.is_file() else None


def stale(rows: Sequence[Row], path: Path = MODEL_PATH) -> bool:
    """Whether the saved model was fitted on other features than ``rows``."""
    try:
        return Model.load(path).fitted_on != features_hash(rows)
    except (OSError, ValueError, KeyError):
        return True


def run_bench(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth], out: Any) -> int:
    rows = rows_of(records, truth)
    scored = held_out(rows)
    from banker.tools.hearing_cases import replayed

    before = score_main(replayed(records, truth), truth)
    after = score_model(records, truth, scored)
    for name, res in (("the rules (two ears and hearing policy, replayed)", before),
                      ("the fitted model, families left out", after)):
        print(f"\n== {name}: per family", file=out)
        print(table(res, 0), file=out)
        print(f"== {name}: per condition", file=out)
        print(table(res, 1), file=out)
    print("\n== calibration on held-out families (deciles with 30 readings or more)", file=out)
    for lo, mean_p, share, n in calibration(scored, least=0):
        flag = "" if n < 30 else ("  ok" if abs(mean_p - share) <= 0.05 else "  OFF")
        print(f"  {lo:.1f}-{lo + 0.1:.1f}: predicted {mean_p:.3f}, right {share:.3f} ({n}){flag}",
              file=out)
    if stale(rows):
        print("\nThe saved hearing model is stale: it was not fitted on these features "
              "(python -m banker.tools.hearing_fit save).", file=out)
    return 0


def run_hearing(out: Any = None) -> int:
    """``banker bench --hearing``: the corpus decoded (what is not kept yet), then the bench."""
    out = out or sys.stdout
    lines = corpus.lines(*SIZE)
    try:
        records = corpus.decode(lines, corpus.CONDITIONS, corpus.records_path(lines), log=sys.stderr)
    except clips.ClipError as exc:
        print(f"banker: {exc}", file=sys.stderr)
        return 2
    return run_bench(records, corpus.truths(records, lines), out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banker.tools.hearing_fit", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("bench", "save"))
    ap.add_argument("--records", type=Path, default=None)
    a = ap.parse_args(argv)
    path = a.records or newest_records()
    if path is None or not path.is_file():
        print("banker: no corpus records (python -m banker.tools.corpus first).", file=sys.stderr)
        return 2
    import json

    records = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines()]
    truth = corpus.truths(records, corpus.lines(*SIZE))
    if a.what == "bench":
        return run_bench(records, truth, sys.stdout)
    rows = rows_of(records, truth)
    save_rows(rows)
    model = model_of(load_rows())
    model.save(about={"records": len(records), "readings": len(rows), "ridge": RIDGE})
    print(f"model fitted on {len(rows)} readings of {len(records)} records: {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
