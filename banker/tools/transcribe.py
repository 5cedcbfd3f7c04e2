"""``banker transcribe``: WAV files in, what the banker would hear and do out.

For each file: the configured engine's words, the intent and slots the matcher finds, the
confidence, and the decision ``play`` would take in a new game of the edition with every
token seated (the first one speaking) and nothing owned: accept, confirm or reject.
Models are loaded once for all files. A file that is missing or not a WAV: one sentence on
stderr, the other files are still decoded, and the exit status is 2.

``--context FILE.yaml``: a Picovoice Rhino context instead of an edition (``run_context``):
the same grammar compiler, recogniser, noise filter and hearing policy, nothing of Monopoly.
Every file is an independent utterance: the same audio gives the same line in any order.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from banker.editions import load_edition
from banker.editions.model import Edition
from banker.interpreter.hearing import Hearing, Said, judge, lacks_slot
from banker.interpreter.policy import plain
from banker.nlu.canonical import spec_intent, spec_slots
from banker.nlu.context import Context
from banker.nlu.matcher import Matcher, Recognized
from banker.speech.base import AudioFileError, Heard, Pcm, Recognizer, read_wav


@dataclass(frozen=True)
class Verdict:
    text: str
    intent: str
    slots: Mapping[str, Any]
    confidence: float
    decision: str
    # two readings that stay close ("Cat or Hat?"): what Mr. Monopoly asks between, the
    # first of them in ``intent``/``slots``; empty when he asks no such question
    choices: tuple[tuple[str, Mapping[str, Any]], ...] = ()


class NewGameJudge:
    """What ``play`` would decide about an utterance at the start of a game: every token of
    the edition seated, nothing owned, the first token speaking (the second when the words
    name the first), nothing asked."""

    def __init__(self, edition: Edition, options: Mapping[str, str] | None = None,
                 matcher: Matcher | None = None) -> None:
        from banker.interpreter.session import Session

        self.tokens = list(edition.token_ids)[: edition.max_players]
        self.session = Session(edition, self.tokens, options=dict(options or {}), matcher=matcher)
        self.player = self.tokens[0]
        self.matcher = self.session.matcher

    def risk(self, intent: str) -> str:
        return self.session.policy.risk(intent)

    def counted(self, h: Hearing, chatter: bool) -> str:
        """The decision a bench counts: "choice" for a question between two readings, and
        "confirm" for chatter heard as a command without a slot it needs ("let me auction
        please" only opens "Which street?": asked about, nothing changes yet)."""
        if h.choose:
            return "choice"
        opens = h.decision == "accept" and self._opens(h)
        return "confirm" if chatter and opens else h.decision

    def moves_money(self, h: Hearing) -> bool:
        """Whether acting on ``h`` moves money: a money command with every slot it needs
        ("buy" alone only asks "Which street?", and the street is judged as the whole)."""
        return self.risk(h.intent) == "money" and not self._opens(h)

    def _opens(self, h: Hearing) -> bool:
        return lacks_slot(h.slots, self.session.policy.requires(h.intent))

    def speaker(self, text: str) -> str:
        """Who pressed: the first token, or the second when the words name the first (a
        player doesn't pay or ask about themself: "pay the t rex fifty" by the T-Rex would be
        a name nobody can mean, ``interpreter.counterparts``)."""
        m = self.matcher.match(text)
        named = m.slots.get("player") if isinstance(m, Recognized) else None
        return self.tokens[1] if named == self.player and len(self.tokens) > 1 else self.player

    def hear(self, text: str, confidence: float | None,
             alternatives: tuple[tuple[str, float], ...] = ()) -> Hearing:
        return self.session.understand(Said(text, confidence, alternatives), self.speaker(text))

    def verdict(self, heard: Heard) -> Verdict:
        """As ``play`` weighs it: the recogniser's other readings too (``Heard.alternatives``),
        so a choice question is reported as one."""
        h = self.session.understand(heard, self.speaker(heard.text))
        slots = {} if h.decision == "reject" else plain(h.slots)
        choices = tuple((c.intent, plain(c.slots)) for c in h.candidates) if h.choose else ()
        return Verdict(heard.text, h.intent if h.decision != "reject" else "none", slots,
                       round(h.confidence, 3), h.decision, choices)


def _split_options(items: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """``KEY=VALUE`` items: dotted keys are settings (``asr.engine``), others edition options."""
    settings: dict[str, str] = {}
    options: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--option {item!r} must look like KEY=VALUE.")
        key, value = item.split("=", 1)
        (settings if "." in key else options)[key.strip()] = value.strip()
    return settings, options


def run_transcribe(edition_id: str, wavs: list[Path], as_json: bool,
                   option_items: Sequence[str] = (), out: TextIO | None = None,
                   err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        settings, options = _split_options(option_items)
    except ValueError as exc:
        print(f"banker: {exc}", file=err)
        return 2
    audio, bad = read_all(wavs, err)
    if not audio:
        return 2
    from banker.config import load_config
    from banker.speech.engine import EngineError, make_engine
    from banker.speech.pocketsphinx_asr import PronunciationError

    edition = load_edition(edition_id)
    config = load_config(overrides=settings)
    try:
        engine = make_engine(config, edition, notify=lambda t: print(f"banker: {t}", file=err))
    except (EngineError, PronunciationError) as exc:
        print(f"banker: {exc}", file=err)
        return 2
    if str((config.get("asr") or {}).get("hearing") or "rules") == "model":
        return _by_the_model(engine, audio, as_json, out, bad, err)
    judge_ = NewGameJudge(edition, options)
    for path, pcm in audio:
        print_verdict(path, judge_.verdict(engine.recognize(pcm, "any")), as_json, out)
    return 2 if bad else 0


def _by_the_model(engine: Any, audio: Sequence[tuple[Path, Pcm]], as_json: bool, out: TextIO,
                  bad: int, err: TextIO) -> int:
    """Each file heard by both ears and judged by the fitted hearing model (``asr.hearing:
    model``; ``speech.judge``): the Voice Banking new game the model was fitted in."""
    from banker.tools.hearing_fit import ModelJudge

    first, second = getattr(engine, "first", None), getattr(engine, "second", None)
    if first is None or second is None:
        print("banker: asr.hearing: model needs both ears (asr.second_ear: moonshine).", file=err)
        return 2
    try:
        judge_ = ModelJudge()
    except (OSError, ValueError) as exc:
        print(f"banker: the hearing model can't be read: {exc}", file=err)
        return 2
    for path, pcm in audio:
        print_verdict(path, judge_.verdict(first.recognize(pcm, "any"), second.recognize(pcm, "any")),
                      as_json, out)
    return 2 if bad else 0


def read_all(wavs: Sequence[Path], err: TextIO) -> tuple[list[tuple[Path, Pcm]], int]:
    """The readable files, and how many were not (each said in one sentence on ``err``)."""
    audio: list[tuple[Path, Pcm]] = []
    bad = 0
    for path in wavs:
        try:
            audio.append((path, read_wav(path)))
        except AudioFileError as exc:
            print(f"banker: {exc}", file=err, flush=True)
            bad += 1
    return audio, bad


def print_verdict(path: Path, v: Verdict, as_json: bool, out: TextIO) -> None:
    """One line for one file; the intent as intents.md names it (a combined Secret Vault
    deal is a ``trade``, ``sell`` or ``buy_from``, as ``replay --report`` says, and a side
    with two streets is a list of them)."""
    v = replace(v, intent=spec_intent(v.intent), slots=spec_slots(v.slots),
                choices=tuple((spec_intent(i), spec_slots(s)) for i, s in v.choices))
    if as_json:
        line: dict[str, Any] = {"file": str(path), "text": v.text, "intent": v.intent,
                                "slots": v.slots, "confidence": v.confidence,
                                "decision": v.decision}
        if v.choices:  # an extra key, only on a choice question
            line["choices"] = [{"intent": i, "slots": s} for i, s in v.choices]
        print(json.dumps(line), file=out, flush=True)
    else:
        asks = " or ".join(_slot_text(s) for _i, s in v.choices)
        print(f"{path}: \"{v.text}\" -> {v.intent}{' ' + _slot_text(v.slots) if v.slots else ''} "
              f"(confidence {v.confidence:.2f}, {v.decision}{': ' + asks + '?' if asks else ''})",
              file=out, flush=True)


def _slot_text(slots: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={', '.join(val) if isinstance(val, list) else val}"
                    for k, val in slots.items())


# --- a Rhino context instead of an edition -------------------------------------------------
CONTEXT_RISK = "low"  # a context command changes something, but moves no money of ours


class ContextJudge:
    """The hearing policy for a context: nothing is illegal, nothing needs a second step."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def verdict(self, heard: Heard) -> Verdict:
        h = judge(self.context.understand(heard.text), heard.confidence,
                  lambda _i: CONTEXT_RISK, lambda _i, _s: True)
        slots = {} if h.decision == "reject" else plain(h.slots)
        return Verdict(heard.text, h.intent if h.decision != "reject" else "none", slots,
                       round(h.confidence, 3), h.decision)


class ContextEar:
    """Recogniser and judge for one context, loaded once (the bench uses it too)."""

    def __init__(self, context: Context, asr: Mapping[str, Any] | None = None,
                 notify: Callable[[str], None] | None = None) -> None:
        from banker.config import load_config
        from banker.speech.context_grammar import ContextSpeechGrammar
        from banker.speech.engine import say_on_stderr
        from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning

        asr = asr if asr is not None else (load_config().get("asr") or {})
        grammar = ContextSpeechGrammar(context)
        first: Recognizer = PocketsphinxRecognizer(grammar, Tuning(denoise=str(asr.get(
            "denoise", "auto"))))
        if str(asr.get("second_ear") or "none") != "none":  # as banker play hears
            from banker.speech.meanings import meaning_of
            from banker.speech.two_ears import with_second_ear

            first = with_second_ear(first, grammar, asr, notify or say_on_stderr,
                                    meaning=meaning_of(context.understand))
        self.recognizer = first
        self.judge = ContextJudge(context)

    def hear(self, pcm: Pcm) -> Verdict:
        return self.judge.verdict(self.recognizer.recognize(pcm, "any"))


def run_context(context_path: Path, wavs: list[Path], as_json: bool,
                option_items: Sequence[str] = (), out: TextIO | None = None,
                err: TextIO | None = None) -> int:
    """``banker transcribe --context FILE.yaml [--json] WAV…``."""
    from banker.config import load_config
    from banker.nlu.context import ContextError, load_context
    from banker.speech.pocketsphinx_asr import PronunciationError

    out, err = out or sys.stdout, err or sys.stderr
    try:
        settings, _options = _split_options(option_items)
        context = load_context(context_path)
    except (ValueError, ContextError) as exc:
        print(f"banker: {exc}", file=err)
        return 2
    audio, bad = read_all(wavs, err)
    if not audio:
        return 2
    asr = load_config(overrides=settings).get("asr") or {}
    try:
        ear = ContextEar(context, asr, lambda t: print(f"banker: {t}", file=err))
    except PronunciationError as exc:
        print(f"banker: {exc}", file=err)
        return 2
    for path, pcm in audio:
        print_verdict(path, ear.hear(pcm), as_json, out)
    return 2 if bad else 0
