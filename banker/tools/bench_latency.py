"""``banker bench``'s latency part: the live loop timed as configured and with pocketsphinx alone.

The latency, start and memory goals (reply p95 <= 250 ms, cold start <= 2 s,
peak RSS <= 400 MB) hold for pocketsphinx alone; a second engine may cost more if it is
reported (memory <= 1 GB). So the same clips go through the real voice loop twice in the
same run: as configured (both ears, by default) and with ``asr.second_ear: none``; the
second run is the baseline the second ear's cost is a ratio of.

The end of turn by the grammar (``speech.endpoint``) is measured against the end of turn by
silence alone (``audio.end_of_turn: silence``, the plain hang-over) in the same run, for both
ears and for pocketsphinx alone; turns ended by voice are timed from the last word to the
first reply sample, and the turns cut off (ended before the speech did) are counted, in the
live loop and over dev-set commands said with a pause inside (``tools.pauses``).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from banker.tools import clips

# the baseline: the first ear alone (the settings ``banker play --option`` would take)
ALONE = {"asr.second_ear": "none"}
SILENCE = {"audio.end_of_turn": "silence"}  # the end of turn before the grammar's rules
# the runs of one bench: key, settings over the user's, the ends of turn timed
RUNS: tuple[tuple[str, dict[str, str] | None, tuple[str, ...]], ...] = (
    ("configured", None, ("release", "vad")),
    ("alone", ALONE, ("release", "vad")),
    ("silence", SILENCE, ("vad",)),
    ("alone_silence", {**ALONE, **SILENCE}, ("vad",)),
)
# the end of turn's goals (both ears, turn ended by voice, from the last word; milliseconds)
VOICE_GOALS = {"vad_total_p50": 250.0, "vad_total_p95": 400.0}
ENDPOINT_GOALS = {"rss_mb": 700.0, "cold_start_s": 1.0}
# the voice-ended turns again on one core (the banker and its recogniser process pinned)
ONE_CORE_RUNS: tuple[tuple[str, dict[str, str] | None], ...] = (
    ("one_core", None), ("one_core_alone", ALONE))
DEV_PAUSED = (60, 12)  # dev-set commands said with a pause inside (full, quick)
# the goals for pocketsphinx alone, and the memory a second engine may take
KEEP = {"release_p95": 250.0, "cold_start_s": 2.0, "rss_mb": 400.0}
SECOND_EAR_RSS_MB = 1000.0


def run(quick: bool, dev_pauses: bool = True) -> dict[str, Any]:
    """Both runs' tables and reports (``configured``'s at the top level, as before the
    baseline was added; ``alone`` beside it), or an ``error`` when the rig can't run."""
    try:
        from banker.frontends.voice import latency
    except ImportError:
        return {"error": "banker.frontends.voice.latency is not available"}
    out: dict[str, Any] = {}
    said = clips.latency_commands(quick)
    for key, overrides, modes in RUNS:
        try:
            rep = latency.measure(said, quick=quick, overrides=overrides, modes=modes,
                                  cold="silence" not in key)
        except Exception as exc:  # the latency rig needs the voice loop; report, don't crash
            return {**out, "error": f"{key}: {type(exc).__name__}: {exc}"}
        part = {"table": rep.table(), "report": rep.to_json()}
        if key == "configured":
            out.update(part)
        else:
            out[key] = part
    if dev_pauses:
        out["paused"] = paused_dev_set(DEV_PAUSED[1] if quick else DEV_PAUSED[0])
    out.update(one_core(quick))
    return out


def pinned_runs(quick: bool) -> dict[str, Any]:
    """``ONE_CORE_RUNS``' turns ended by voice (run in the pinned child of ``one_core``)."""
    from banker.frontends.voice import latency

    said = clips.latency_commands(quick)
    return {key: latency.measure(said, quick=quick, overrides=overrides, modes=("vad",),
                                 cold=False).to_json()
            for key, overrides in ONE_CORE_RUNS}


def one_core(quick: bool) -> dict[str, Any]:
    """The voice-ended turns on one core: a child process pinned to one CPU (the recogniser
    process it starts inherits the pin), as ``taskset -c N`` would run the banker."""
    cpu = min(os.sched_getaffinity(0))
    code = ("import json; from banker.tools import bench_latency as b; "
            f"print('\\n' + json.dumps(b.pinned_runs({quick!r})))")
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=3600, preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        reports = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        return {"one_core": {"error": f"{type(exc).__name__}: {exc}"}}
    return {key: {"report": rep} for key, rep in reports.items()}


def paused_dev_set(n: int) -> dict[str, Any]:
    """The first ``n`` dev-set commands of more than one word, each with one pause of
    150-300 ms between two words, through the end-of-turn rules (``pauses.cut_offs``)."""
    from banker.tools import pauses
    from banker.tools.bench import dev_set

    items = [it for it in dev_set(4 * n, 0, 0) if len(it.text.split()) > 1][:n]
    said = [(it.text, clips.speech(it.text, it.voice)) for it in items]
    return pauses.cut_offs(said, pauses.first_ear(), random.Random(2026)).to_json()


def text(lat: dict[str, Any]) -> str:
    """The latency section of the bench's printout: both tables, the second ear's cost as
    ratios of the baseline, and the goals beside what pocketsphinx alone measured."""
    if "alone" not in lat:  # a run failed: what was measured, then why the rest was not
        failed = f"latency not measured: {lat.get('error')}"
        return f"{lat['table']}\n{failed}" if lat.get("table") else failed
    both, alone = lat["report"], lat["alone"]["report"]
    lines = ["as configured (the second ear on, by default):", lat["table"],
             "pocketsphinx alone (asr.second_ear: none), the baseline:", lat["alone"]["table"],
             "as configured / alone: " + ", ".join(
                 f"{name} x{_ratio(both.get(k), alone.get(k))}"
                 for name, k in (("release p50", "release_p50"), ("release p95", "release_p95"),
                                 ("cold start", "cold_start_s"), ("peak memory", "rss_mb")))]
    goals = [f"{name} {_f(alone.get(k))} {unit} (goal <= {KEEP[k]:g})"
             for name, k, unit in (("release p95", "release_p95", "ms"),
                                   ("cold start", "cold_start_s", "s"),
                                   ("peak memory", "rss_mb", "MB"))]
    lines.append("goals, pocketsphinx alone: " + ", ".join(goals)
                 + f"; peak memory as configured {_f(both.get('rss_mb'))} MB "
                   f"(goal <= {SECOND_EAR_RSS_MB:g})")
    if "silence" in lat or "alone_silence" in lat or "paused" in lat:
        lines.append(endpoint_text(lat))
    return "\n".join(lines)


def endpoint_text(lat: dict[str, Any]) -> str:
    """The end of turn by the grammar against the end by silence, as ratios and milliseconds
    beside the goals, and the cut-offs counted."""
    both, alone = lat["report"], lat["alone"]["report"]
    lines = ["end of turn by the grammar / by silence (same run), turn ended by voice, "
             "last word -> first reply sample:"]
    for name, new, old in (("both ears", both, lat.get("silence", {}).get("report")),
                           ("pocketsphinx alone", alone,
                            lat.get("alone_silence", {}).get("report"))):
        if old is None:
            continue
        lines.append(
            f"  {name}: p50 {_f(new['vad_total_p50'])} ms vs {_f(old['vad_total_p50'])} ms "
            f"(x{_ratio(new['vad_total_p50'], old['vad_total_p50'])}), p95 "
            f"{_f(new['vad_total_p95'])} ms vs {_f(old['vad_total_p95'])} ms "
            f"(x{_ratio(new['vad_total_p95'], old['vad_total_p95'])}); cut off "
            f"{new.get('n_cut', 0)} of {new['n_vad']} vs {old.get('n_cut', 0)} of {old['n_vad']}")
    for name, key in (("both ears", "one_core"), ("pocketsphinx alone", "one_core_alone")):
        rep = lat.get(key, {}).get("report")
        if rep is not None:
            lines.append(f"  on one core, {name}: p50 {_f(rep['vad_total_p50'])} ms, p95 "
                         f"{_f(rep['vad_total_p95'])} ms; cut off {rep.get('n_cut', 0)} of "
                         f"{rep['n_vad']}")
        elif key in lat:
            lines.append(f"  on one core: not measured: {lat[key].get('error')}")
    goals = [f"{k.replace('vad_total_', '')} {_f(both.get(k))} ms (goal <= {v:g})"
             for k, v in VOICE_GOALS.items()]
    goals += [f"{name} {_f(both.get(k))} (goal <= {ENDPOINT_GOALS[k]:g})"
              for name, k in (("peak memory MB", "rss_mb"), ("cold start s", "cold_start_s"))]
    lines.append("goals, both ears: " + ", ".join(goals))
    paused = lat.get("paused")
    if paused:
        lines.append(f"dev-set commands with a 150-300 ms pause inside: {paused['heard_whole']} "
                     f"heard whole, {paused['cut']} cut off (goal 0; "
                     f"{paused.get('cut_same_meaning', 0)} of them meaning the same command), "
                     f"{paused['unplaced']} not placed (first ear misheard the clip); "
                     f"cut: {paused['cut_examples']}")
    return "\n".join(lines)


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}"


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}" if x >= 10 else f"{x:.2f}"


def recogniser_resources(edition: str) -> dict[str, Any]:
    """Loading the configured recogniser and its first decode: seconds and peak memory."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine

    t0 = time.perf_counter()
    eng = make_engine(load_config(), load_edition(edition))
    eng.recognize(clips.pad(np.zeros(4000, np.int16)), "any")
    return {"engine": eng.engine, "load_and_first_decode_s": round(time.perf_counter() - t0, 2),
            "peak_rss_mb_bench_process": round(
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: Sequence[str]) -> int:
    """The latency part alone: ``python -m banker.tools.bench_latency [--quick] [--json]
    [--no-dev-pauses]`` (the last: the live loop only, as on a second machine setting)."""
    lat = run("--quick" in argv, "--no-dev-pauses" not in argv)
    print(text(lat))
    if "--json" in argv:
        print(json.dumps(lat, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
