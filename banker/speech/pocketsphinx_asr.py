"""Pocketsphinx adapter: grammar-constrained decoding with the English model in the wheel.

Receives 16 kHz mono int16 audio and a focus; returns ``Heard`` (text, confidence).
One decoder holds one JSGF search per focus (compiled from ``SpeechGrammar``
or a context's ``ContextSpeechGrammar``), a pronunciation
dictionary cut down to the grammar's words (bundled cmudict + ``grammars/pronunciations.yaml``),
and a phone-loop search used only to score: how much better free phones explain the audio than
the grammar's best sentence tells whether the words were really said (out-of-grammar chatter
fits the phone loop far better than any command).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import yaml

from banker.paths import grammars_dir
from banker.speech import denoise, speaker_norm
from banker.speech.automata import Fsa
from banker.speech.base import RATE, Heard, Pcm, WordScore, background_db, speech_span
from banker.speech.denoise import BELOW_DB, wanted
from banker.speech.endpoint import DETAIL, STATES, reading_state
from banker.speech.phone_loop import PhoneLoop, PhoneLoopUnavailable

FRAME_S = 0.01
PHONES = ("AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
          "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T",
          "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH")
GARBAGE = tuple(f"_{p.lower()}" for p in PHONES)  # one pseudo-word per phone
FILLERS = frozenset({"<s>", "</s>", "<sil>", "[NOISE]", "[SPEECH]", "(NULL)"})


class PronunciationError(Exception):
    """Grammar words that neither dictionary can say (one plain sentence)."""


def model_dir() -> Path:
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us"


@lru_cache(maxsize=8)
def _cmudict(words: frozenset[str]) -> dict[str, list[str]]:
    """The bundled dictionary's entries for ``words`` only: the whole of it as a dict took
    0.4 s and ~25 MB of the recogniser's start, for the few hundred words a grammar has."""
    out: dict[str, list[str]] = {}
    text = (model_dir() / "cmudict-en-us.dict").read_text(encoding="utf-8")
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        word = parts[0].split("(")[0]
        if word in words:
            out.setdefault(word, []).append(" ".join(parts[1].split()))
    return out


def extra_pronunciations(path: Path | None = None) -> dict[str, list[str]]:
    """``grammars/pronunciations.yaml``: word -> pronunciations (ARPAbet strings)."""
    path = path or grammars_dir() / "pronunciations.yaml"
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out: dict[str, list[str]] = {}
    for word, prons in data.items():
        items = prons if isinstance(prons, list) else [prons]
        out[str(word).lower()] = [" ".join(str(p).upper().split()) for p in items]
    return out


VOWELS = frozenset({"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW",
                    "OY", "UH", "UW"})


def accent_variants(pron: str) -> list[str]:
    """Pronunciations other English accents use for the same word: non-rhotic (no R after a
    vowel unless a vowel follows: "park" P AA K) and the broad "bath" A (AE -> AA before
    S, F, TH, N S, N T: "chance", "pass"). cmudict is General American only."""
    ph = pron.split()
    out: list[str] = []
    nonrhotic = [p for i, p in enumerate(ph) if not (
        p == "R" and i > 0 and ph[i - 1] in VOWELS and (i + 1 == len(ph) or ph[i + 1] not in VOWELS))]
    bath = list(ph)
    for i, p in enumerate(ph):
        nxt = ph[i + 1:i + 3]
        if p == "AE" and nxt and (nxt[0] in ("S", "F", "TH") or nxt[:2] in (["N", "S"], ["N", "T"])):
            bath[i] = "AA"
    for v in (nonrhotic, bath, [("AA" if p == "AE" else p) for p in nonrhotic] if bath != ph else []):
        text = " ".join(v)
        if v and text != pron and text not in out:
            out.append(text)
    return out


def pronunciations(words: Iterable[str], accents: bool = True
                   ) -> tuple[dict[str, list[str]], list[str]]:
    """Pronunciations for ``words`` and the words that have none."""
    wanted = frozenset(words)
    cmu, extra = _cmudict(wanted), extra_pronunciations()
    found: dict[str, list[str]] = {}
    missing: list[str] = []
    for w in sorted(wanted):
        prons = list(extra.get(w) or cmu.get(w) or [])
        if not prons:
            missing.append(w)
            continue
        if accents:
            for p in list(prons):
                prons.extend(v for v in accent_variants(p) if v not in prons)
        found[w] = prons
    return found, missing


FLOOR_RUN = RATE // 100  # 10 ms of exact zeros: digital silence (``Tuning.floor``)


@dataclass(frozen=True)
class Tuning:
    """Decoder settings and the confidence model (tuned on the bench's dev set: wide beams and
    more Gaussians per frame cost little with the small automaton and recover many accented
    or fast utterances; a low silence probability stops short words being eaten as pauses)."""

    beam: float = 1e-60
    wbeam: float = 1e-40
    pbeam: float = 1e-60
    topn: int = 8
    bestpath: bool = False
    cmn: str = "batch"
    remove_noise: bool = False
    fillprob: float = 1e-8
    silprob: float = 1e-4
    lw: float = 6.5
    wip: float = 0.65
    phone_loop: bool = True
    # a garbage path beside the commands: any string of phones, each costing garbage_phone;
    # out-of-grammar speech is explained by it more cheaply than by any command
    garbage: float = 1e-4  # probability of entering the garbage path (0: none)
    garbage_phone: float = 1e-8  # probability of each further phone (swept on the dev set)
    # an answer to a question (a narrowed focus) may have talk around it: a string of phones
    # before and after it, entered with probability ``pad``, each further phone ``pad_phone``
    # (0: none). In babble pocketsphinx otherwise explains the other talkers as a long
    # command around a short "no deal" (docs/decisions.md, "Talk around an answer")
    pad: float = 1e-4
    pad_phone: float = 1e-12
    # audio with stretches of digital silence (exact zeros for at least ``FLOOR_RUN``
    # samples: synthesised speech, a file padded with zeros; never a microphone, never a
    # noisy room) is decoded over a faint white noise floor of this standard deviation
    # (sample units; 30 is about 38 dB under speech at the bench's level): the acoustic
    # model never heard digital silence, and between words it threw the features off:
    # espeak-ng's "forty eight" was read "forty nine", "pay eight" nothing at all. Saved
    # records, 200 clean commands, exact 174 -> 188 (seed 2026) and 175 -> 186 (seed 7);
    # noise conditions unchanged (their audio has no digital silence). 0 turns it off
    floor: float = 30.0
    word_loop: bool = False  # a free pass: any sequence of the grammar's words
    loop_penalty: float = 0.05  # probability of each next word in the free pass
    accents: bool = True
    # noise suppression (banker.speech.denoise) before decoding: "auto" when the speech stands
    # less than denoise_below_db above the background, "on" always, "off" never
    denoise: str = "auto"
    denoise_below_db: float = BELOW_DB
    trim: bool = True  # decode only the loudest stretch of speech (see base.speech_span)
    # confidence = logistic(bias + w_margin * margin + w_path * path), where path is the
    # grammar path's score per speech frame relative to the best senone in each frame, and
    # margin is that minus the phone loop's (both x1000, pocketsphinx's scaled log units)
    bias: float = 4.70  # logistic regression on 720 dev utterances (clean, 10 dB babble/pink)
    w_margin: float = 0.357
    w_path: float = 0.749
    # n-best: when the winner is unsure (confidence below nbest_below), up to ``nbest`` other
    # written readings from the search's lattice go into ``Heard.alternatives`` (the
    # interpreter weighs them with the game). Building the lattice costs 0.2-3.7 s per unsure
    # clip on 2 loaded cores (1.5 times a plain decode; the first pass's lattice is used, no
    # second decode) and bought 1-2 of 105 commands on the dev set, so it is off
    # (0) by default; a sure hearing never pays it. An alternative's confidence is the
    # winner's times (its n-best score / the winner's) ** nbest_sharpness.
    nbest: int = 0
    nbest_below: float = 0.85
    nbest_sharpness: float = 20.0


def _config(dict_path: str, tuning: Tuning, extra: Mapping[str, Any] | None = None) -> Any:
    import pocketsphinx

    kwargs: dict[str, Any] = dict(
        hmm=str(model_dir() / "en-us"), dict=dict_path, lm=None, loglevel="FATAL",
        samprate=RATE, beam=tuning.beam, wbeam=tuning.wbeam, pbeam=tuning.pbeam,
        bestpath=tuning.bestpath, cmn=tuning.cmn, topn=tuning.topn, remove_noise=tuning.remove_noise,
        fillprob=tuning.fillprob, silprob=tuning.silprob, lw=tuning.lw, wip=tuning.wip)
    kwargs.update(extra or {})
    return pocketsphinx.Config(**kwargs)


class DecodingGrammar(Protocol):
    """What the decoder needs of a grammar (``SpeechGrammar`` for an edition,
    ``ContextSpeechGrammar`` for a Rhino context)."""

    @property
    def words(self) -> frozenset[str]: ...
    def fsa(self, focus: str = "any") -> Fsa: ...
    def to_written(self, text: str) -> str: ...


class PocketsphinxRecognizer:
    """Grammar-constrained pocketsphinx for one edition. Load once; ``recognize`` per utterance."""

    engine = "pocketsphinx"

    def __init__(self, grammar: DecodingGrammar, tuning: Tuning | None = None,
                 extra_config: Mapping[str, Any] | None = None) -> None:
        import pocketsphinx

        self.grammar = grammar
        self.tuning = tuning or Tuning()
        prons, missing = pronunciations(grammar.words, self.tuning.accents)
        if missing:
            raise PronunciationError(
                "No pronunciation for " + ", ".join(missing)
                + "; add them to grammars/pronunciations.yaml.")
        fd, path = tempfile.mkstemp(prefix="banker-", suffix=".dict")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                for g, ph in zip(GARBAGE, PHONES, strict=True):
                    f.write(f"{g} {ph}\n")
                for word, plist in prons.items():
                    for i, p in enumerate(plist):
                        f.write(f"{word}{'' if i == 0 else f'({i + 1})'} {p}\n")
            self.decoder = pocketsphinx.Decoder(_config(path, self.tuning, extra_config))
        finally:
            os.unlink(path)
        self._searches: set[str] = set()
        self._cmn0 = self.decoder.get_cmn()
        self._start = ""  # the speaker's cepstral mean for this turn ("" = the turn alone)
        self.denoiser = denoise.load(self.tuning.denoise)
        if self.tuning.word_loop:
            words = sorted(grammar.words)
            stay = self.tuning.loop_penalty
            loop: list[tuple[Any, ...]] = [(0, 1, 1.0 / len(words), w) for w in words]
            loop += [(1, 0, stay), (1, 2, 1.0 - stay)]
            self.decoder.add_fsg("_words", self.decoder.create_fsg("_words", 0, 2, loop))
        self.phones: PhoneLoop | None = None  # the phone loop beside the grammar's search
        if self.tuning.phone_loop:
            phone_lm = model_dir() / "en-us-phone.lm.bin"
            self.decoder.add_allphone_file("_phones", str(phone_lm))
            with contextlib.suppress(PhoneLoopUnavailable):  # else decoded in turn, as before
                self.phones = PhoneLoop(self.decoder.config.dumps(), phone_lm,
                                        f"{GARBAGE[0]} {PHONES[0]}")

    def prepare(self, focus: str) -> None:
        """Compile ``focus``'s search now (its first use would otherwise wait for it)."""
        self._activate(focus)

    def _activate(self, focus: str) -> None:
        if focus not in self._searches:
            fsa = self.grammar.fsa(focus)
            final = fsa.n
            trans: list[tuple[Any, ...]] = [(s, d, p, w) if w else (s, d, p)
                                            for s, w, d, p in fsa.arcs]
            trans += [(s, final, p) for s, p in fsa.stop.items()]
            if self.tuning.garbage > 0 and focus == "any":
                # only against unprompted talk: an answer to a question is short and
                # expected, and a short word is what a phone string imitates best
                g0, g1, start = final + 1, final + 2, final + 3
                gp, pp = self.tuning.garbage, self.tuning.garbage_phone
                trans = [(start, fsa.start, 1.0 - gp), (start, g0, gp), *trans]
                trans += [(g0, g1, 1.0 / len(GARBAGE), w) for w in GARBAGE]
                trans += [(g1, g0, pp), (g1, final, 1.0 - pp)]
                fsg = self.decoder.create_fsg(focus, start, final, trans)
                self.decoder.add_fsg(focus, fsg)
                self._searches.add(focus)
                self.decoder.activate_search(focus)
                return
            start = fsa.start
            if self.tuning.pad > 0 and focus != "any":
                start, final, trans = _padded(fsa.start, final, trans, self.tuning.pad,
                                              self.tuning.pad_phone)
            fsg = self.decoder.create_fsg(focus, start, final, trans)
            self.decoder.add_fsg(focus, fsg)
            self._searches.add(focus)
        self.decoder.activate_search(focus)

    def _norm(self) -> tuple[str, str]:
        """The cepstral normalisation of this turn: a speaker's start values, live CMN from
        them (the whole short turn is normalised by that player's mean); none, the
        configured mode (batch: the turn's own mean) from the model's values."""
        return ("live" if self._start else self.tuning.cmn), (self._start or self._cmn0)

    def _decode(self, pcm: Pcm) -> None:
        # each utterance (and each pass over it) on its own: the feature pipeline restarted
        # (0.2 ms) and the cepstral mean set back, so nothing carries over from the last one;
        # set_cmn alone left state behind: the same clip decoded three times scored three ways
        mode, cmn = self._norm()
        if self.decoder.config["cmn"] != mode:
            self.decoder.config["cmn"] = mode
        self.decoder.reinit_feat()
        self.decoder.set_cmn(cmn)
        self.decoder.start_utt()
        self.decoder.process_raw(pcm.tobytes(), no_search=False, full_utt=True)
        self.decoder.end_utt()

    def _prepared(self, pcm: Pcm, raw: Pcm | None) -> tuple[Pcm, dict[str, float]]:
        """The audio as it is decoded: filtered (unless the listener did), trimmed to the
        speech, over the noise floor where it came with digital silence; and the room's
        loudness after the filter (``filtered_db``) when one ran."""
        filtered: dict[str, float] = {}
        came = pcm if raw is None else np.asarray(raw, dtype=np.int16)  # before any filter
        if raw is not None:  # filtered by the listener: the same report as our own filter's
            filtered["filtered_db"] = background_db(pcm)
        elif self.denoiser is not None and wanted(pcm, self.tuning.denoise,
                                                   self.tuning.denoise_below_db):
            pcm = self.denoiser.process(pcm)
            # how quiet the room is once the filter took its steady noise out (babble stays)
            filtered["filtered_db"] = background_db(pcm)
        lo, hi = speech_span(pcm) if self.tuning.trim else (0, len(pcm))
        # digital silence in the audio as it came: a noise filter's output has some of its own
        if self.tuning.floor > 0 and digital_silence(came[lo:hi] if len(came) == len(pcm)
                                                     else came):
            return with_floor(pcm[lo:hi], self.tuning.floor), filtered
        return pcm[lo:hi], filtered

    def recognize(self, pcm: Pcm, focus: str = "any", speaker: str = "",
                  raw: Pcm | None = None) -> Heard:
        """``speaker``: that player's start values (``speaker_norm``); "" for an utterance
        on its own (offline files, a player not heard yet). ``raw``: the audio before the
        listener's noise filter (None: ``pcm`` is unfiltered; this engine may filter it)."""
        t0 = time.perf_counter()
        pcm = np.asarray(pcm, dtype=np.int16)
        quiet = speaker_norm.quiet(pcm, raw)  # a voice is learnt and used in a quiet room only
        self._start = speaker_norm.fmt(speaker_norm.parse(speaker)) if speaker and quiet else ""
        if len(pcm) < RATE // 10:
            return Heard("", 0.0, engine=self.engine, focus=focus)
        pcm, filtered = self._prepared(pcm, raw)
        if self.phones is not None:  # on the second core while the grammar's search runs
            self.phones.start(pcm, *self._norm())
        self._activate(focus)
        self._decode(pcm)
        hyp = self.decoder.hyp()
        text = hyp.hypstr.strip() if hyp is not None else ""
        segs = [(s.word, s.start_frame, s.end_frame, s.ascore, s.prob) for s in self.decoder.seg() or ()]
        words = [s for s in segs if s[0] not in FILLERS]
        details: dict[str, float] = {"frames": float(self.decoder.n_frames()), **filtered}
        garbage = sum(1 for s in words if s[0] in GARBAGE)
        if garbage and focus != "any":  # talk around an answer: not words of it
            words = [s for s in words if s[0] not in GARBAGE]
            details["padding"] = float(garbage)
        elif garbage:  # the garbage path won: not a command
            details["garbage"] = float(garbage)
            return Heard("", 0.0, engine=self.engine, focus=focus,
                         seconds=time.perf_counter() - t0, details=details)
        if not text or not words:
            return Heard("", 0.0, engine=self.engine, focus=focus,
                         seconds=time.perf_counter() - t0, details=details)
        details[DETAIL] = float(STATES.index(reading_state(self.grammar.fsa(focus),
                                                           [_word(w[0]) for w in words])))
        lo, hi = words[0][1], words[-1][2] + 1
        speech_frames = max(1, hi - lo)
        path = sum(_ln(s[3]) for s in segs if lo <= s[1] and s[2] < hi)
        details["path"] = 1000 * path / speech_frames
        details["worst"] = 1000 * min(_ln(w[3]) / max(1, w[2] - w[1] + 1) for w in words)
        details["fill"] = sum(s[2] - s[1] + 1 for s in segs
                              if s[0] in ("[SPEECH]", "[NOISE]")) / speech_frames
        conf = 1.0
        if self.tuning.word_loop:
            self.decoder.activate_search("_words")
            self._decode(pcm)
            loop = [(s.word, s.start_frame, s.end_frame, s.ascore)
                    for s in self.decoder.seg() or ()]
            free_words = [_word(s[0]) for s in loop if s[0] not in FILLERS]
            gram_words = [_word(w[0]) for w in words]
            details["loop"] = 1000 * sum(_ln(p[3]) * _overlap(p[1], p[2], lo, hi)
                                         for p in loop) / speech_frames
            details["loop_margin"] = details["path"] - details["loop"]
            details["loop_wer"] = _edits(gram_words, free_words) / len(gram_words)
        if self.tuning.phone_loop:
            phones = self._phone_segments(pcm)
            free = sum(_ln(p[3]) * _overlap(p[1], p[2], lo, hi) for p in phones)
            details["phones"] = 1000 * free / speech_frames
            details["margin"] = details["path"] - details["phones"]
            t = self.tuning
            z = t.bias + t.w_margin * details["margin"] + t.w_path * details["path"]
            conf = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        if self.tuning.bestpath:
            post = min(s[4] for s in words)
            details["posterior"] = post
        if quiet:  # the mean after this turn, for the player's next one
            details.update(speaker_norm.to_details(self.decoder.get_cmn(False)))
        word_scores = tuple(WordScore(_word(w[0]), conf, w[1] * FRAME_S, (w[2] + 1) * FRAME_S)
                            for w in words)
        text = self.grammar.to_written(" ".join(_word(w[0]) for w in words))
        alts = self._alternatives(focus, text, conf) if conf < self.tuning.nbest_below else ()
        return Heard(text, conf, word_scores, self.engine, focus, time.perf_counter() - t0, details,
                     alts)

    def _phone_segments(self, pcm: Pcm) -> list[tuple[str, int, int, float]]:
        """The phone loop's segments of this turn: from its own decoder (started with the
        grammar's search), or decoded now on this one."""
        if self.phones is not None:
            with contextlib.suppress(RuntimeError):  # its decode failed: decoded here instead
                return self.phones.segments()
        self.decoder.activate_search("_phones")
        self._decode(pcm)
        return [(s.word, s.start_frame, s.end_frame, s.ascore) for s in self.decoder.seg() or ()]

    def _alternatives(self, focus: str, text: str, conf: float) -> tuple[tuple[str, float], ...]:
        """Other written readings of the same audio in the focus's search, best first.

        From the first pass's lattice: each search keeps its last utterance (the FSG search's
        history) until it decodes again, and the phone loop decoded with its own search, so
        the focus's search is made current again and asked, with no second decode."""
        if self.tuning.nbest <= 0:
            return ()
        self.decoder.activate_search(focus)
        best: float | None = None
        out: dict[str, float] = {}
        for i, hyp in enumerate(self.decoder.nbest()):
            if i >= 10 * self.tuning.nbest or len(out) >= self.tuning.nbest:
                break
            if hyp is None:
                continue
            said = [_word(w) for w in hyp.hypstr.split() if w not in FILLERS]
            if not said or any(w in GARBAGE for w in said):
                continue
            best = hyp.score if best is None else best
            written = self.grammar.to_written(" ".join(said))
            if written != text and written not in out and best > 0 and hyp.score > 0:
                out[written] = conf * min(1.0, hyp.score / best) ** self.tuning.nbest_sharpness
        return tuple(out.items())


def digital_silence(pcm: Pcm, run: int = FLOOR_RUN) -> bool:
    """Whether ``pcm`` holds ``run`` exact zeros in a row (no microphone gives that)."""
    zero = np.concatenate(([False], np.asarray(pcm) == 0, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(zero))
    return bool(len(edges)) and int((edges[1::2] - edges[::2]).max()) >= run


def with_floor(pcm: Pcm, sigma: float) -> Pcm:
    """``pcm`` over a faint noise floor (white, ``sigma`` in sample units), the same for
    the same audio on every start (a fixed seed)."""
    noise = np.random.default_rng(0).normal(0.0, sigma, len(pcm))
    return np.clip(np.rint(pcm + noise), -32768, 32767).astype(np.int16)


def _padded(start: int, final: int, trans: list[tuple[Any, ...]], pad: float,
            phone: float) -> tuple[int, int, list[tuple[Any, ...]]]:
    """``trans`` (``start`` to ``final``) with an optional string of phones before and after
    it: the new (start, final, transitions). The grammar's words stay required between."""
    s0, b0, b1, a0, a1, end = range(final + 1, final + 7)
    out = [(s0, start, 1.0 - pad), (s0, b0, pad), *trans]
    for lo, hi, to in ((b0, b1, start), (a0, a1, end)):
        out += [(lo, hi, 1.0 / len(GARBAGE), w) for w in GARBAGE]
        out += [(hi, lo, phone), (hi, to, 1.0 - phone)]
    out += [(final, end, 1.0 - pad), (final, a0, pad)]
    return s0, end, out


def _edits(a: list[str], b: list[str]) -> int:
    """Word edit distance."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _word(w: str) -> str:
    return w.split("(")[0]


def _ln(p: float) -> float:
    """Natural log of a pocketsphinx segment score (0.0 = underflow: very poor)."""
    return math.log(p) if p > 0 else -745.0


def _overlap(s: int, e: int, lo: int, hi: int) -> float:
    """Fraction of frames s..e (inclusive) inside lo..hi-1."""
    n = e - s + 1
    if n <= 0:
        return 0.0
    return max(0, min(e + 1, hi) - max(s, lo)) / n
