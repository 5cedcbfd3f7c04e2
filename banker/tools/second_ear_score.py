"""Scoring the second ear from saved records (``python -m banker.tools.second_ear``): a clip
heard both ways (``Record``), the benchmark's context as a word automaton, and each policy's
outcome by the live rules of ``speech.ear_rules`` (each rule one function both call), so a
changed rule is measured on the same records without decoding again."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from banker.nlu.context import parse_context
from banker.nlu.matcher import Recognized
from banker.speech.context_grammar import ContextSpeechGrammar
from banker.speech.ear_rules import (
    DOUBTED,
    VETO_FACTOR,
    agreed_confidence,
    never_asked,
    nothing_within,
    steady,
    takes_second,
    vetoes,
)
from banker.speech.grammar import SpeechGrammar
from banker.speech.meanings import intent_of
from banker.speech.moonshine_asr import once, spoken_words


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
    ps_filtered_db: float = 0.0  # the room after the first ear's noise filter (0: unfiltered)



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
    # no nearer than this to a command, in a clean clip or steady noise (``ear_rules.steady``;
    # the live rule asks for a quiet room or steady noise):
    # the doubt doubled; None: no veto
    veto: float | None = None


class Judges:
    """Meaning and decision for each set, built once per scoring."""

    def __init__(self, context: Path | None) -> None:
        from banker.editions import load_edition
        from banker.speech.meanings import matcher_meaning
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
            return h.decision, right, self.dev.moves_money(h)
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

    def swaps(below_band: bool) -> bool:  # the live rule (speech.ear_rules.takes_second)
        never = (never_asked("any", intent_of(judges.meaning(r, r.ps_text)))  # a bid: "Sorry?"
                 and not never_asked("any", intent_of(judges.meaning(r, r.ms_text))))
        return takes_second(0.0 if never else r.ps_conf, r.ms_distance, words, below_band,
                            policy.swap_below, policy.swap_under, policy.rescue)

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
                lambda: r.cond == "clean" or steady(r.ps_filtered_db), policy.veto):
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


