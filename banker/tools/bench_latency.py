"""``banker bench``'s latency part: the live loop timed as configured and with pocketsphinx alone.

The latency, start and memory goals (reply p95 <= 250 ms, cold start <= 2 s,
peak RSS <= 400 MB) hold for pocketsphinx alone; a second engine may cost more if it is
reported (memory <= 1 GB). So the same clips go through the real voice loop twice in the
same run: as configured (both ears, by default) and with ``asr.second_ear: none``; the
second run is the baseline the second ear's cost is a ratio of.
"""

from __future__ import annotations

import resource
import time
from typing import Any

import numpy as np

from banker.tools import clips

# the baseline: the first ear alone (the settings ``banker play --option`` would take)
ALONE = {"asr.second_ear": "none"}
# the goals for pocketsphinx alone, and the memory a second engine may take
KEEP = {"release_p95": 250.0, "cold_start_s": 2.0, "rss_mb": 400.0}
SECOND_EAR_RSS_MB = 1000.0


def run(quick: bool) -> dict[str, Any]:
    """Both runs' tables and reports (``configured``'s at the top level, as before the
    baseline was added; ``alone`` beside it), or an ``error`` when the rig can't run."""
    try:
        from banker.frontends.voice import latency
    except ImportError:
        return {"error": "banker.frontends.voice.latency is not available"}
    out: dict[str, Any] = {}
    for key, overrides in (("configured", None), ("alone", ALONE)):
        try:
            rep = latency.measure(clips.latency_commands(quick), quick=quick, overrides=overrides)
        except Exception as exc:  # the latency rig needs the voice loop; report, don't crash
            return {**out, "error": f"{key}: {type(exc).__name__}: {exc}"}
        part = {"table": rep.table(), "report": rep.to_json()}
        if key == "configured":
            out.update(part)
        else:
            out[key] = part
    return out


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
