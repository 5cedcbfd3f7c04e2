"""How fast Mr. Monopoly answers: the stopwatch parts of the latency bench, below the front end.

``banker.frontends.voice.latency.measure()`` runs the real voice loop on recorded commands
played in real time into ``ClipMic`` (a stand-in microphone) and out through ``TimedOut`` (a
stand-in speaker); this module holds those stand-ins, the report, and the cold start. It times

- **end of speech -> first sample of the spoken reply** (not the beep, not a sound effect),
  for both ends of turn: *release* (hold-to-talk: the button is let go the moment the speech
  ends) and *vad* (voice activity detection, which first waits its hang-over);
- the **VAD hang-over** separately: from the true end of speech (the last voiced sample of
  the clip) to the moment the detector ended the turn;
- **cold start**: a fresh process until the table is ready (voice loaded and warm,
  recogniser loaded), and its peak **RSS**.

"First sample" is when the reply's first audio is handed to the output device; the
device's own buffer (``Player.latency``, ~50 ms on PulseAudio) comes on top and is reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banker.speech.stand_ins import FedMic

Pcm = npt.NDArray[np.int16]
RATE = 16000
FRAME = 480

# Commands for a two-player Voice Banking game (racecar, dog), in an order that makes sense:
# whole commands, commands that could go on ("buy", the two-step form's first half, then its
# answer; "pay two hundred"), and commands said with a pause inside ("|": 300 ms of silence
# between those words, "|150": 150 ms; ``tools.pauses``).
DEFAULT_COMMANDS = (
    "buy Baltic Avenue", "what is my balance", "pay rent on Baltic Avenue", "pass go",
    "who owns Baltic Avenue", "buy Park Place", "pay rent on Park Place", "how much money do I have",
    "buy Oriental Avenue", "who is winning", "pay rent on Oriental Avenue", "repeat",
    "buy", "Vermont Avenue", "pay two hundred", "pay rent on | Vermont Avenue",
    "what is | my balance", "buy |250 Connecticut Avenue", "pay two hundred | fifty",
    "who owns |150 Park Place", "pass go", "who is winning", "how much money |200 do I have",
    "repeat",
)
QUICK = 4


def commands(quick: bool = False) -> tuple[str, ...]:
    """The latency bench's commands: ``DEFAULT_COMMANDS``, or the first ``QUICK`` of them."""
    return DEFAULT_COMMANDS[:QUICK] if quick else DEFAULT_COMMANDS


@dataclass
class Turn:
    text: str
    mode: str  # release | vad
    heard: str
    end_of_speech: float  # monotonic: the last voiced sample left the player's mouth
    end_of_turn: float  # the listener decided the utterance was over
    decoded: float
    first_audio: float | None

    @property
    def cut(self) -> bool:
        """The turn ended before the player's speech did (a pause taken for the end)."""
        return self.end_of_turn < self.end_of_speech

    @property
    def latency_ms(self) -> float | None:
        return None if self.first_audio is None else (self.first_audio - self.end_of_speech) * 1000

    @property
    def after_turn_ms(self) -> float | None:
        return None if self.first_audio is None else (self.first_audio - self.end_of_turn) * 1000


@dataclass
class LatencyReport:
    """Milliseconds unless named otherwise; ``n_*`` are the counts behind each percentile."""

    release_p50: float
    release_p95: float
    n_release: int
    vad_p50: float  # first reply sample after the VAD ended the turn
    vad_p95: float
    vad_total_p50: float  # the same from the true end of speech (hang-over included)
    vad_total_p95: float
    n_vad: int
    hangover_ms: int  # configured
    hangover_measured_p50: float
    recognise_p50: float  # end of turn -> text (part of the latency)
    output_buffer_ms: float
    cold_start_s: float | None = None
    rss_mb: float | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)
    n_cut: int = 0  # turns ended by voice before the speech was over

    def table(self) -> str:
        rows = [
            ("end of speech -> reply, button release", f"p50 {self.release_p50:.0f} ms, "
             f"p95 {self.release_p95:.0f} ms (n={self.n_release})"),
            ("end of turn (VAD) -> reply", f"p50 {self.vad_p50:.0f} ms, p95 {self.vad_p95:.0f} ms "
             f"(n={self.n_vad})"),
            ("end of speech -> reply, VAD incl. hang-over", f"p50 {self.vad_total_p50:.0f} ms, "
             f"p95 {self.vad_total_p95:.0f} ms"),
            ("VAD hang-over", f"{self.hangover_ms} ms configured, {self.hangover_measured_p50:.0f} ms "
             "measured (p50)"),
            ("recognition after end of turn", f"p50 {self.recognise_p50:.0f} ms"),
            ("output device buffer (not included)", f"{self.output_buffer_ms:.0f} ms"),
        ]
        if self.n_vad:
            rows.append(("cut off (turn ended before the speech)", f"{self.n_cut} of {self.n_vad}"))
        if self.cold_start_s is not None:
            rows.append(("cold start to ready", f"{self.cold_start_s:.2f} s"))
        if self.rss_mb is not None:
            rows.append(("peak memory (RSS)", f"{self.rss_mb:.0f} MB"))
        w = max(len(r[0]) for r in rows)
        return "\n".join(f"{a.ljust(w)}  {b}" for a, b in rows)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), p))


def true_end(pcm: Pcm, threshold: int = 600) -> float:
    """Seconds from the clip's start to just after its last voiced sample."""
    loud = np.nonzero(np.abs(pcm.astype(np.int32)) > threshold)[0]
    return 0.0 if not len(loud) else (int(loud[-1]) + 1) / RATE


# ------------------------------------------------------------------------------------------
# stand-ins for the two physical ends (everything between them is the real code)

class ClipMic(FedMic):
    """A microphone that hears one clip, in real time, from when listening starts.

    ``end_of_speech`` is when the clip's last voiced sample was "heard"; ``on_speech_end``
    fires at that moment (hold-to-talk: the player lets go of the button).
    """

    def __init__(self) -> None:
        super().__init__()
        self.clip: Pcm = np.zeros(0, dtype=np.int16)
        self.end_of_speech = 0.0
        self.on_speech_end: Callable[[], None] | None = None

    def _feeder(self, stop: threading.Event) -> Callable[[], None]:
        return partial(self._feed, stop)

    def _feed(self, stop: threading.Event) -> None:
        pcm = self.clip
        end = true_end(pcm)
        t0 = time.monotonic()
        self.end_of_speech = t0 + end  # known now: a turn ended before it is a cut-off
        fired = False
        for i in range(0, len(pcm) - FRAME + 1, FRAME):
            if stop.is_set():
                return
            due = t0 + (i + FRAME) / RATE  # a frame exists once its last sample was spoken
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._q.put(pcm[i:i + FRAME].tobytes())
            if not fired and (i + FRAME) / RATE >= end:
                fired = True
                if self.on_speech_end is not None:
                    self.on_speech_end()
        silence = bytes(FRAME * 2)
        while not stop.is_set():  # then the room is quiet
            time.sleep(FRAME / RATE)
            self._q.put(silence)


class TimedOut:
    """An output device that takes every sample at once and notes when (the loudspeaker's
    own buffer is reported separately)."""

    def __init__(self, rate: int, latency: float = 0.0) -> None:
        self.rate = rate
        self.latency = latency
        self._until = 0.0
        self._lock = threading.Lock()

    def play(self, pcm: Pcm, on_start: Callable[[float], None] | None = None) -> None:
        now = time.monotonic()
        with self._lock:
            start = max(now, self._until)
            self._until = start + len(pcm) / self.rate
        if on_start is not None:
            on_start(start)

    def stop(self) -> None:
        with self._lock:
            self._until = time.monotonic()

    def busy(self) -> bool:
        with self._lock:
            return time.monotonic() < self._until

    def sounding_until(self) -> float:
        with self._lock:
            return self._until

    def close(self) -> None:
        pass


def report(turns: list[Turn], config: dict[str, Any]) -> LatencyReport:
    rel = [t for t in turns if t.mode == "release" and t.latency_ms is not None]
    vad = [t for t in turns if t.mode == "vad" and t.latency_ms is not None]
    hang = int((config.get("audio") or {}).get("vad_hangover_ms", 300))
    rl = [t.latency_ms for t in rel if t.latency_ms is not None]
    va = [t.after_turn_ms for t in vad if t.after_turn_ms is not None]
    vt = [t.latency_ms for t in vad if t.latency_ms is not None]
    hm = [(t.end_of_turn - t.end_of_speech) * 1000 for t in vad]
    rec = [(t.decoded - t.end_of_turn) * 1000 for t in rel + vad]
    out_buf = 0.0
    return LatencyReport(
        percentile(rl, 50), percentile(rl, 95), len(rl),
        percentile(va, 50), percentile(va, 95), percentile(vt, 50), percentile(vt, 95), len(va),
        hang, percentile(hm, 50), percentile(rec, 50), out_buf,
        turns=[dict(asdict(t), latency_ms=t.latency_ms, after_turn_ms=t.after_turn_ms, cut=t.cut)
               for t in turns],
        n_cut=sum(t.cut for t in vad))


# ------------------------------------------------------------------------------------------
# cold start and memory, in a fresh process

def cold_start(timeout: float = 60.0, overrides: Mapping[str, str] | None = None
               ) -> tuple[float, float]:
    """(seconds from process start to ready, peak RSS in MB after one spoken reply, the
    recogniser's process included). ``overrides``: settings as dotted keys over the user's
    (``{"asr.second_ear": "none"}``: pocketsphinx alone), as ``banker play --option`` takes."""
    t0 = time.monotonic()
    extra = [f"{k}={v}" for k, v in (overrides or {}).items()]
    p = subprocess.run([sys.executable, "-m", "banker.speech.latency", "--ready-probe", *extra],
                       capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, BANKER_TRACE=""))
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "probe failed")
    elapsed = time.monotonic() - t0
    data = json.loads(p.stdout.strip().splitlines()[-1])
    # the child times itself from its first line of code; what came before (the interpreter,
    # imports) is the part of our wall time it didn't see
    after_ready = float(data["total_s"]) - float(data["ready_s"])
    return elapsed - after_ready, float(data["rss_mb"])


def _probe(overrides: Mapping[str, str]) -> int:
    """The start-up of ``banker play`` (as ``VoiceIO`` does it): the recogniser's process,
    the voice (loaded and warmed) and the noise filter (here, on the audio as it comes in;
    the recogniser's process gets it off) in parallel, then one utterance filtered and
    recognised and one reply rendered."""
    t_start = time.monotonic()
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.asr_process import ProcessRecognizer
    from banker.speech.tts import load_tts

    config = load_config(overrides=overrides)
    asr = dict(config.get("asr") or {})
    mode = str(asr.get("denoise", "auto"))
    filtering = mode != "off" and asr.get("engine", "pocketsphinx") == "pocketsphinx"
    child = dict(config, asr=dict(asr, denoise="off")) if filtering else config
    # the utterance after "ready" waits for the second ear's load (in the background, so it
    # is not in the time to ready): the peak memory is then that of a table with both ears
    child = dict(child, asr=dict(child.get("asr") or {}, second_ear_wait=True))
    rec = ProcessRecognizer(child, load_edition("voice-banking"))  # starts loading at once
    filt: list[Any] = []
    loader = threading.Thread(target=lambda: filt.append(_load_denoiser(mode if filtering else "off")))
    loader.start()
    voice = load_tts(config)
    voice.warm([])
    rec.ready()
    loader.join()
    ready = time.monotonic() - t_start
    pcm = np.random.default_rng(0).integers(-2000, 2000, RATE).astype(np.int16)
    denoiser = filt[0] if filt else None  # None: off, or it could not load (play goes on)
    if denoiser is not None:  # as the listener does: frame by frame while the player talks
        from banker.speech.denoise import LiveCleaner

        clean = LiveCleaner(denoiser, mode)
        for i in range(0, len(pcm), FRAME):
            clean.feed(pcm[i:i + FRAME].tobytes())
        if clean.wanted(pcm):
            pcm = clean.finish(len(pcm))
    rec.recognize(pcm, "any")
    voice.speak_all("Racecar pays M22 rent on Park Place to Dog. You have M1,478 left.")
    family = _family(rec.proc.pid) if rec.proc.pid else []
    rss = _peak_rss_mb() + sum((_peak_rss_mb(p) for p in family), 0.0)
    rec.close()
    voice.close()
    print(json.dumps({"ready_s": ready, "rss_mb": rss, "total_s": time.monotonic() - t_start}))
    return 0


def _load_denoiser(mode: str) -> Any:
    from banker.speech import denoise

    return denoise.load(mode)


def _family(pid: int) -> list[int]:
    """``pid`` and its descendants (whatever the recogniser starts counts too)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError, ValueError):
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
    return out


def _peak_rss_mb(pid: int | None = None) -> float:
    """Peak resident memory of this process (or ``pid``), in MB."""
    try:
        for line in Path(f"/proc/{pid or 'self'}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        if pid is not None:
            return 0.0
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def main(argv: Sequence[str]) -> int:
    if list(argv[:1]) == ["--ready-probe"]:
        return _probe({k: v for k, _, v in (a.partition("=") for a in argv[1:])})
    print("usage: python -m banker.speech.latency --ready-probe [KEY=VALUE ...] (the bench itself: "
          "python -m banker.frontends.voice.latency)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
