"""The corpus readings acted on wrongly, listed, and the rules replayed on kept readings.

``rules`` hands each record's two kept readings to the two ears and hearing policy as
``play`` builds them (``two_ears.second_ear_over``, ``transcribe.NewGameJudge``), with the
record's own audio (its kept clip, its noise mixed again from the same seed: the two ears
weigh how quiet the room is), so a change to ``interpreter.hearing`` or ``speech.ear_rules``
is measured on the same readings without decoding again. ``cases`` lists every wrong command
and every talk line acted on, by the rules and by the model fitted on the other families.

    python -m banker.tools.hearing_cases --records FILE
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from banker.tools import corpus


class Rules:
    """The two ears and the hearing policy over kept readings."""

    def __init__(self) -> None:
        from banker.editions import load_edition
        from banker.speech.grammar import SpeechGrammar
        from banker.speech.meanings import matcher_meaning
        from banker.speech.two_ears import second_ear_over
        from banker.tools import bench
        from banker.tools.ear_records import _Kept
        from banker.tools.transcribe import NewGameJudge

        ed = load_edition(bench.EDITION)
        self.kept = (_Kept("pocketsphinx"), _Kept("moonshine"))
        self.ears = second_ear_over(self.kept[0], self.kept[1], matcher_meaning(SpeechGrammar(ed)))
        self.judge = NewGameJudge(ed)

    def verdict(self, rec: Mapping[str, Any], truth: corpus.Truth) -> dict[str, Any]:
        """What the rules make of the record's readings: a ``main`` entry of a record."""
        from banker.tools.ear_records import heard

        self.kept[0].now, self.kept[1].now = heard(rec["first"]), heard(rec["second"])
        v = self.judge.verdict(self.ears.recognize(corpus.audio(truth, rec["cond"]), "any"))
        return {"text": v.text, "intent": v.intent, "slots": dict(v.slots),
                "confidence": v.confidence, "decision": v.decision,
                "choices": [[i, dict(s)] for i, s in v.choices]}


def replayed(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth]
             ) -> list[dict[str, Any]]:
    """``records`` with ``main`` made again by the rules as they are now."""
    rules = Rules()
    return [{**r, "main": rules.verdict(r, truth[r["key"]])} for r in records]


def _said(rec: Mapping[str, Any]) -> str:
    return f"1st {rec['first']['text']!r} {rec['first']['confidence'] or 0:.2f} | " \
           f"2nd {rec['second']['text']!r} {rec['second']['confidence'] or 0:.2f}"


def rule_cases(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth]) -> list[str]:
    """Every record the rules acted on wrongly (a command misheard, or talk)."""
    from banker.tools.hearing_fit import ANSWERS, _plain

    out = []
    for r in records:
        t, m = truth[r["key"]], r["main"]
        if m["decision"] != "accept" or (m["intent"] in ANSWERS and not m["choices"]):
            continue  # an answer with nothing asked is "Sorry?" in ``play``, as the bench counts
        if (m["intent"], _plain(m["slots"])) == (t.intent, _plain(t.slots)):
            continue
        out.append(f"{r['key']:22} {r['cond']:10} said {t.text!r} -> {m['intent']} "
                   f"{dict(m['slots'])} at {m['confidence']:.2f}  [{_said(r)}]")
    return out


def model_cases(records: Sequence[dict[str, Any]], truth: Mapping[str, corpus.Truth]) -> list[str]:
    """Every record the model (fitted on the other families) acted on wrongly."""
    from banker.speech.judge import decide
    from banker.tools.hearing_fit import held_out, rows_of

    recs = {(r["key"], r["cond"]): r for r in records}
    by: dict[tuple[str, str], list[Any]] = {}
    for r, p in held_out(rows_of(records, truth)):
        by.setdefault((r.key, r.cond), []).append((r, p))
    out = []
    for key, scored in sorted(by.items()):
        act, row, p = decide(scored)
        if act != "act" or row is None or row.right:
            continue
        t = truth[key[0]]
        out.append(f"{key[0]:22} {key[1]:10} said {t.text!r} -> risk {row.risk} at {p:.2f}"
                   f"  [{_said(recs[key])}]")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banker.tools.hearing_cases", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=Path, required=True)
    a = ap.parse_args(argv)
    records = [json.loads(t) for t in a.records.read_text(encoding="utf-8").splitlines()]
    truth = corpus.truths(records)
    print("== the rules as kept in the records")
    print("\n".join(rule_cases(records, truth)))
    print("== the rules as they are now")
    print("\n".join(rule_cases(replayed(records, truth), truth)))
    print("== the model, each family left out")
    print("\n".join(model_cases(records, truth)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
