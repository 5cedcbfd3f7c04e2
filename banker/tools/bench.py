"""``banker bench``: speech accuracy on a generated dev set, then latency and resources.

Accuracy: Voice Banking commands sampled from the grammar (``SpeechGrammar.sample``) and table
chatter, said by the piper voice and espeak-ng voices of several accents, speeds and pitches,
clean and mixed with babble and pink noise at 20/10/5 dB. Each clip goes through the real
recogniser and the real hearing policy (a new game, every token seated, nothing owned), and
is counted as *exact* (intent and slots right, not ignored), *misbanked* (a wrong money command
acted on without a question) or, for chatter, *accepted* (acted on). A naive pocketsphinx
decode (the literal JSGF, default settings, whatever it outputs is acted on) is measured on a
subset of the same clips as the baseline. Clips are cached under ``~/.cache/banker/clips-2``,
decodes (by audio and code version) under ``~/.cache/banker/bench/decodes``.

Latency, cold start and memory come from ``banker.frontends.voice.latency.measure`` when present,
as configured and with pocketsphinx alone (``bench_latency``).
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from banker.tools import bench_classic, bench_latency, clips, decode_cache
from banker.tools.clips import Voice

EDITION = "voice-banking"
CONDITIONS = ("clean", "babble:20", "babble:10", "babble:5", "pink:20", "pink:10", "pink:5")
QUICK_CONDITIONS = ("clean", "babble:10", "pink:10")
TARGETS = {"exact_clean": 98.0, "exact_babble_10": 85.0, "misbanked_max": 0.5,
           "chatter_accepted_max": 2.0}

# Voices: piper (speed and variability) and espeak-ng accents x variants x speed x pitch.
PIPER_VOICES = tuple(Voice("piper", "joe", ls, noise=ns) for ls in (0.85, 1.0, 1.2)
                     for ns in (0.5, 0.8))
ESPEAK_ACCENTS = ("en-us", "en-us-nyc", "en-gb", "en-gb-x-rp")
ESPEAK_VARIANTS = ("", "+m1", "+m3", "+m5", "+f2", "+f5")

CHATTER = (
    "order a pizza", "did you see the game last night", "pass me the dice please",
    "whose turn is it anyway", "I need more snacks", "that was a great roll",
    "can you get me a drink", "I think I left the oven on", "you always win this game",
    "my phone is almost dead", "let's play cards after this", "hurry up and roll",
    "I can't believe you landed there again", "who wants some popcorn",
    "the dog is barking outside", "we should go to bed soon", "stop cheating",
    "where did the other die go", "this is taking forever", "I love this board",
    "what time is it", "turn the music down", "somebody knocked over my hotel",
    "it is your turn now", "I'm never going to win", "give me a second",
    "that's not fair at all", "she always buys the expensive ones", "my brother owes me money",
    "let's take a break", "I'll get you next time", "are we having dinner soon",
    "the cat jumped on the table", "how was school today", "my feet are cold",
    "please stop singing", "do you want to trade later", "I was thinking about the park",
    "don't touch my money", "the bank is always right", "roll the dice already",
    "I rolled a seven", "move your piece three spaces", "is it my go yet",
    "who had the blue one", "can we play again tomorrow", "grandma is calling",
    "pass the salt", "I want a pony", "open the window it's hot in here",
    "where are the car keys", "this tea is cold", "let's watch a film later",
    "my team lost again", "you owe me a biscuit", "I'm going to the shop",
    "put the kettle on", "did anyone feed the fish", "that's my seat",
    "I can't find my glasses", "we need more chairs", "tell me a joke",
    "how many spaces was that", "I'll be right back", "don't look at my cards",
    "what's for pudding", "turn off the telly", "the baby is asleep",
    "check the oven please", "it's raining again", "you're on my square",
    "I hate going to jail", "the board is upside down", "who is keeping score",
    "my dice are lucky", "I miss the old version", "can I have a cushion",
    "it's getting late", "did you hear that noise", "my arm hurts",
    "who ate all the crisps", "can you read the rules", "we forgot the instructions",
    "let me think about it", "I'm so bored", "that's a lot of money",
    "you're cheating again", "whose phone is ringing", "I need the toilet",
    "look at the time", "hand me that card", "nobody move",
    "I'll pay you back later maybe", "buy me a drink", "the park was lovely today",
    "we went to boardwalk last summer", "book a train to york", "chance would be a fine thing",
    "what a lovely avenue", "my uncle lives on baltic street", "call the bank tomorrow",
    "the rent is too high these days", "I passed my driving test", "go and get the dog",
)


@dataclass(frozen=True)
class Item:
    """One dev-set utterance with its truth (``intent`` none for chatter)."""

    text: str
    intent: str
    slots: tuple[tuple[str, Any], ...]
    voice: Voice
    focus: str = "any"
    edition: str = EDITION  # decoded by this edition's recogniser, judged in its game


def espeak_voices(rng: random.Random) -> Voice:
    return Voice("espeak", rng.choice(ESPEAK_ACCENTS) + rng.choice(ESPEAK_VARIANTS),
                 rng.choice((135, 155, 175)), rng.choice((35, 50, 65)))


def pick_voice(rng: random.Random) -> Voice:
    return rng.choice(PIPER_VOICES) if rng.random() < 1 / 3 else espeak_voices(rng)


def family(v: Voice) -> str:
    if v.engine == "piper":
        return "piper"
    return "espeak " + ("US" if v.name.startswith("en-us") else "UK")


def dev_set(n_commands: int, n_chatter: int, n_focus: int, seed: int = 2026,
            n_classic: int = 0) -> list[Item]:
    """Commands (every intent of the edition, sampled templates and values, mostly this board's
    streets), chatter lines, and answers to narrowed questions; then ``n_classic`` commands of
    the classic box and its chatter (``bench_classic``). Deterministic for a seed."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Recognized
    from banker.speech.grammar import SpeechGrammar

    ed = load_edition(EDITION)
    g = SpeechGrammar(ed)
    rng = random.Random(seed)
    intents = [s.name for s in g.intents() if s.name not in ("answer", "yes", "no")]
    board = set(ed.street_names)
    items: list[Item] = []
    while len(items) < n_commands:
        s = g.sample(rng, intents=[rng.choice(intents)])
        names = [v for k, v in s.slots if k in ("property", "give", "get")]
        if any(n not in board for n in names) and rng.random() < 0.8:
            continue  # other boards' streets: kept rare
        r = g.matcher.match(g.to_written(s.text))
        if not (isinstance(r, Recognized) and r.intent == s.intent and dict(r.slots) == dict(s.slots)):
            continue  # the text itself is ambiguous: not a test of hearing
        items.append(Item(s.text, s.intent, s.slots, pick_voice(rng)))
    lines = list(CHATTER)
    rng.shuffle(lines)
    for i in range(n_chatter):
        items.append(Item(lines[i % len(lines)], "none", (), pick_voice(rng)))
    foci = ("street", "yes_no", "bid", "number")
    for i in range(n_focus):
        focus = foci[i % len(foci)]
        intents_f = {"street": ["answer"], "yes_no": ["yes", "no"], "bid": ["bid"],
                     "number": ["answer"]}[focus]
        for _ in range(50):
            s = g.sample(rng, focus=focus, intents=intents_f)
            if focus in ("street", "number") and not s.slots:
                continue
            r = g.matcher.match(g.to_written(s.text))
            if isinstance(r, Recognized) and r.intent == s.intent and dict(r.slots) == dict(s.slots):
                items.append(Item(s.text, s.intent, s.slots, pick_voice(rng), focus))
                break
    return items + bench_classic.items(n_classic, seed, pick_voice, Item) if n_classic else items


def audio_for(item: Item, condition: str, seed: int) -> clips.Pcm:
    pcm = clips.pad(clips.speech(item.text, item.voice))
    if condition == "clean":
        return pcm
    kind, snr = condition.split(":")
    return clips.mix(pcm, kind, float(snr), np.random.default_rng(seed))


def line_audio(i: int, item: Item, condition: str) -> clips.Pcm:
    """Line ``i`` of the dev set as the bench hears it in ``condition`` (its own noise seed,
    the same in every tool that replays the bench's lines)."""
    return audio_for(item, condition, i * 7919 + len(condition))


# --- decoding in worker processes -------------------------------------------------------------
# what a kept decode holds: text, confidence, seconds and the other readings (the second ear's
# near ones, n-best), so the bench weighs them as ``play`` does (choices, offered readings)
DECODE_FORMAT = "text-conf-seconds-alternatives"
Result = tuple[int, str, str, float | None, float, tuple[tuple[str, float], ...]]
_ENGINES: dict[str, Any] = {}  # edition -> this worker's recogniser, made when first needed
_KIND = "ours"
_CACHE: decode_cache.DecodeCache | None = None


def decode_version(kind: str) -> str:
    """What decides a decode besides its audio: the speech, grammar and edition code, the
    grammar and edition files, the recogniser settings and the engine kind. A change to any of
    them starts the cache afresh."""
    from banker.config import load_config
    from banker.paths import config_dir, grammars_dir

    files = [*decode_cache.modules("speech", "nlu", "editions"), *grammars_dir().glob("*.yaml"),
             config_dir() / "editions" / f"{EDITION}.yaml",
             config_dir() / "editions" / f"{bench_classic.EDITION}.yaml",
             config_dir() / "editions" / "classic-streets.yaml"]
    return decode_cache.version(files, kind, json.dumps(load_config().get("asr") or {},
                                                        sort_keys=True, default=str),
                                DECODE_FORMAT)


def _init_worker(kind: str, cache: decode_cache.DecodeCache | None = None) -> None:
    global _KIND, _CACHE
    _KIND, _CACHE = kind, cache
    _engine(EDITION)


def _engine(edition: str) -> Any:
    if edition not in _ENGINES:
        from banker.editions import load_edition
        from banker.speech.grammar import SpeechGrammar

        ed = load_edition(edition)
        if _KIND == "naive":
            _ENGINES[edition] = NaiveDecoder(SpeechGrammar(ed))
        else:
            from banker.config import load_config
            from banker.speech.engine import make_engine

            _ENGINES[edition] = make_engine(load_config(), ed)
    return _ENGINES[edition]


def _decode(job: tuple[int, Item, str]
            ) -> tuple[int, str, str, float | None, float, tuple[tuple[str, float], ...], bool]:
    """One decode, from the cache when the same audio was decoded by the same code before
    (the last field says so; the seconds are the first decode's)."""
    i, item, cond = job
    pcm = line_audio(i, item, cond)
    audio = pcm.tobytes()
    kept = _CACHE.get(audio, item.focus) if _CACHE is not None else None
    if kept is not None:
        text, conf, secs, alts = kept
        return i, cond, text, conf, secs, tuple((t, c) for t, c in alts), True
    heard = _engine(item.edition).recognize(pcm, item.focus)
    alts = tuple((t, c) for t, c in getattr(heard, "alternatives", ()))
    if _CACHE is not None:
        _CACHE.put(audio, [heard.text, heard.confidence, heard.seconds, alts], item.focus)
    return i, cond, heard.text, heard.confidence, heard.seconds, alts, False


class NaiveDecoder:
    """The baseline: the literal JSGF of the full grammar, pocketsphinx's default settings
    (full dictionary; the lattice pass off, as it takes seconds), and no confidence at all."""

    engine = "naive-pocketsphinx"

    def __init__(self, grammar: Any) -> None:
        import pocketsphinx

        from banker.speech.base import Heard
        from banker.speech.pocketsphinx_asr import model_dir, pronunciations

        self._heard = Heard
        self.grammar = grammar
        self.decoder = pocketsphinx.Decoder(hmm=str(model_dir() / "en-us"), lm=None,
                                            dict=str(model_dir() / "cmudict-en-us.dict"),
                                            loglevel="FATAL", bestpath=False)
        prons, _missing = pronunciations(grammar.words, accents=False)
        for word, plist in prons.items():
            if self.decoder.lookup_word(word) is None:
                self.decoder.add_word(word, plist[0], False)
        self.decoder.add_jsgf_string("any", grammar.jsgf("any"))
        self.decoder.activate_search("any")

    def recognize(self, pcm: Any, focus: str = "any") -> Any:
        t0 = time.perf_counter()
        self.decoder.start_utt()
        self.decoder.process_raw(pcm.tobytes(), full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        text = self.grammar.to_written(hyp.hypstr) if hyp is not None else ""
        return self._heard(text, 1.0, engine=self.engine, seconds=time.perf_counter() - t0)


def decode_all(items: Sequence[Item], conditions: Sequence[str], kind: str,
               progress: Callable[[int], None], workers: int = 2,
               cache: Path | None = None, cached: list[int] | None = None
               ) -> list[Result]:
    """Every item in every condition, decoded in worker processes (``cache``: a folder of
    earlier decodes by audio and code version; ``cached`` gets how many came from it)."""
    jobs = [(i, it, c) for c in conditions for i, it in enumerate(items)]
    out = []
    hits = 0
    kept = decode_cache.DecodeCache(cache, decode_version(kind)) if cache is not None else None
    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(kind, kept)) as ex:
        for i, cond, text, conf, secs, alts, hit in ex.map(_decode, jobs, chunksize=4):
            out.append((i, cond, text, conf, secs, alts))
            hits += hit
            progress(1)
    if cached is not None:
        cached.append(hits)
    return out


# --- scoring -------------------------------------------------------------------------------
def score(items: Sequence[Item], results: Iterable[Sequence[Any]],
          naive: bool = False) -> dict[str, Any]:
    """Per condition: counts and percentages for commands, chatter and narrowed answers.
    A result is (item, condition, text, confidence, seconds[, other readings]); with other
    readings the line is weighed as ``play`` weighs it: a command made a choice between two
    names ("Park Place or Boardwalk?") is neither exact nor asked about but counted on its
    own (it takes a spoken answer, not one press), right when the meant command is one of the
    two; chatter made a choice is asked about."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Recognized
    from banker.tools.transcribe import NewGameJudge

    # a bid is only ever said in an auction: the dev set's bids are judged with one open (a
    # bid with none open is "Sorry?" when unsure, ``Session.legal``); every other line, and
    # all chatter, between turns in a new game of the item's edition
    judges: dict[tuple[str, bool], NewGameJudge] = {}
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for i, cond, text, conf, secs, *rest in results:
        item = items[i]
        for key in ((item.edition, False), (item.edition, True)):
            if key not in judges:
                judges[key] = NewGameJudge(load_edition(key[0]))
                if key[1]:
                    judges[key].session.hear(judges[key].player, "auction off Baltic Avenue")
        judge, bidding = judges[(item.edition, False)], judges[(item.edition, True)]
        if item.focus != "any":
            m = judge.matcher.match(text)
            ok = isinstance(m, Recognized) and m.intent == item.intent and \
                dict(m.slots) == dict(item.slots)
            rows.setdefault(cond, {}).setdefault("focus", []).append(
                {"ok": ok, "secs": secs, "family": family(item.voice)})
            continue
        h = (bidding if item.intent == "bid" else judge).hear(
            text, None if naive else conf, tuple(rest[0]) if rest and not naive else ())
        right = h.intent == item.intent and dict(h.slots) == dict(item.slots)
        among = any(c.intent == item.intent and dict(c.slots) == dict(item.slots)
                    for c in h.candidates)
        kind = "chatter" if item.intent == "none" else "commands"
        decision, money = judge.counted(h, kind == "chatter"), judge.moves_money(h)
        rows.setdefault(cond, {}).setdefault(kind, []).append({
            "exact": right and decision in ("accept", "confirm"), "decision": decision,
            "choice_right": h.choose and among,
            "misbanked": h.decision == "accept" and money and not right,
            "secs": secs, "family": family(item.voice), "text": item.text, "heard": text})
    report: dict[str, Any] = {}
    for cond, kinds in rows.items():
        c, ch, fo = kinds.get("commands", []), kinds.get("chatter", []), kinds.get("focus", [])
        times: list[float] = [r["secs"] for r in c + ch + fo]
        entry: dict[str, Any] = {
            "commands": len(c), "chatter": len(ch), "focus_answers": len(fo),
            "exact_pct": _pct(sum(r["exact"] for r in c), len(c)),
            "accepted_right_pct": _pct(sum(r["exact"] and r["decision"] == "accept" for r in c),
                                       len(c)),
            "confirmed_pct": _pct(sum(r["decision"] == "confirm" for r in c), len(c)),
            "rejected_pct": _pct(sum(r["decision"] == "reject" for r in c), len(c)),
            "misbanked_pct": _pct(sum(r["misbanked"] for r in c + ch), len(c) + len(ch)),
            "misbanked": sum(r["misbanked"] for r in c + ch),
            "chatter_accepted_pct": _pct(sum(r["decision"] == "accept" for r in ch), len(ch)),
            # chatter asked about: read back, or made a choice between two names
            "chatter_confirmed_pct": _pct(sum(r["decision"] in ("confirm", "choice")
                                              for r in ch), len(ch)),
            "choices": sum(r["decision"] == "choice" for r in c),
            "choices_right": sum(r["choice_right"] for r in c),
            "chatter_choices": sum(r["decision"] == "choice" for r in ch),
            "focus_exact_pct": _pct(sum(r["ok"] for r in fo), len(fo)),
            "decode_s_mean": round(float(np.mean(times)), 3) if times else None,
            "decode_s_p95": round(float(np.percentile(times, 95)), 3) if times else None,
            "by_voice": {f: {"n": len(v), "exact_pct": _pct(sum(r["exact"] for r in v), len(v))}
                         for f in sorted({r["family"] for r in c})
                         for v in [[r for r in c if r["family"] == f]]},
        }
        report[cond] = entry
    return report


def _pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 2) if d else None


# --- the command ---------------------------------------------------------------------------
class Progress:
    def __init__(self, total: int, out: TextIO) -> None:
        self.total, self.done, self.out, self.t0 = max(1, total), 0, out, time.monotonic()

    def __call__(self, n: int) -> None:
        self.done += n
        if self.done % 5 and self.done != self.total:
            return
        frac = self.done / self.total
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        print(f"\r[{bar}] {100 * frac:5.1f}% ({self.done}/{self.total}, "
              f"{time.monotonic() - self.t0:.0f} s)", end="", file=self.out, flush=True)
        if self.done >= self.total:
            print(file=self.out, flush=True)


def table(report: dict[str, Any]) -> str:
    lines = []
    head = (f"{'condition':<11} {'cmds':>5} {'exact%':>7} {'acc-ok%':>7} {'conf%':>6} "
            f"{'rej%':>6} {'misbank%':>8} {'chat':>5} {'chat-acc%':>9} {'chat-conf%':>10} "
            f"{'s/utt':>6}")
    for name in ("ours", "baseline"):
        if not report.get(name):
            continue
        lines.append(f"{name}:")
        lines.append(head)
        for cond, e in report[name].items():
            lines.append(
                f"{cond:<11} {e['commands']:>5} {_f(e['exact_pct']):>7} "
                f"{_f(e['accepted_right_pct']):>7} {_f(e['confirmed_pct']):>6} "
                f"{_f(e['rejected_pct']):>6} {_f(e['misbanked_pct']):>8} {e['chatter']:>5} "
                f"{_f(e['chatter_accepted_pct']):>9} {_f(e['chatter_confirmed_pct']):>10} "
                f"{_f(e['decode_s_mean']):>6}")
    ours = report.get("ours", {})
    if ours:
        lines.append("narrowed grammars (street / yes-no / bid / guess answers): " + ", ".join(
            f"{c} {_f(e['focus_exact_pct'])}% of {e['focus_answers']}"
            for c, e in ours.items() if e["focus_answers"]))
        lines.append("choices between two names (a spoken answer; not in exact%): " + ", ".join(
            f"{c} {e.get('choices', 0)} of {e['commands']} commands ({e.get('choices_right', 0)}"
            f" with the meant one), {e.get('chatter_choices', 0)} of {e['chatter']} chatter"
            for c, e in ours.items()))
        clean = ours.get("clean", {})
        lines.append("clean by voice: " + ", ".join(
            f"{f} {_f(v['exact_pct'])}% of {v['n']}" for f, v in clean.get("by_voice", {}).items()))
    return "\n".join(lines)


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


# Dev-set sizes (commands, chatter lines, narrowed answers) and conditions: the default run
# takes about 15 minutes on 2 cores (840 decodes, the noisy ones through the noise filter, and
# a naive baseline on 320); --full is the whole set, seven conditions (hours).
QUICK_SIZE, DEFAULT_SIZE, FULL_SIZE = (40, 15, 8), (200, 60, 20), (1000, 300, 60)
CLASSIC_SIZE = {"quick": 9, "default": 45, "full": 150}  # classic commands (+ a third as chatter)


def run_bench(quick: bool, out: Path | None, stream: TextIO | None = None,
              size: tuple[int | None, int | None] = (None, None), full: bool = False) -> int:
    stream = stream or sys.stdout
    if not clips.have_espeak():
        print("banker: bench needs espeak-ng and sox (apt-get install espeak-ng sox).",
              file=sys.stderr)
        return 2
    n_cmd, n_chat, n_focus = QUICK_SIZE if quick else FULL_SIZE if full else DEFAULT_SIZE
    n_cmd, n_chat = size[0] or n_cmd, size[1] or n_chat  # --commands / --chatter
    conditions = CONDITIONS if full else QUICK_CONDITIONS
    items = dev_set(n_cmd, n_chat, n_focus, n_classic=CLASSIC_SIZE[
        "quick" if quick else "full" if full else "default"])
    base_items = [it for it in items if it.focus == "any" and it.edition == EDITION]
    base_items = base_items[: (12 if quick else 120)] + [
        it for it in items if it.intent == "none"][: (4 if quick else 40)]
    base_conditions = ("clean",) if quick else ("clean", "babble:10")
    print(f"banker bench: {n_cmd} commands, {n_chat} chatter, {n_focus} narrowed answers, "
          f"{len(conditions)} conditions ({', '.join(conditions)})", file=stream)
    print(f"rendering clips (cached in {clips.clips_dir()})...", file=stream, flush=True)
    prog = Progress(len(items), stream)
    for it in items:
        clips.speech(it.text, it.voice)
        prog(1)
    clips.babble_bed()
    total = len(items) * len(conditions) + len(base_items) * len(base_conditions)
    prog = Progress(total, stream)
    t0 = time.monotonic()
    cache, hits = clips.cache_dir() / "bench" / "decodes", list[int]()
    ours = score(items, decode_all(items, conditions, "ours", prog, cache=cache, cached=hits))
    baseline = score(base_items, decode_all(base_items, base_conditions, "naive", prog,
                                            cache=cache, cached=hits), naive=True)
    print(f"{total} decodes, {sum(hits)} from the cache ({cache})", file=stream, flush=True)
    report: dict[str, Any] = {
        "dev_set": {"edition": EDITION, "commands": n_cmd, "chatter": n_chat,
                    "narrowed_answers": n_focus, "conditions": list(conditions),
                    "voices": {"piper": [asdict(v) for v in PIPER_VOICES],
                               "espeak_accents": list(ESPEAK_ACCENTS),
                               "espeak_variants": list(ESPEAK_VARIANTS)},
                    "baseline_subset": {"commands": sum(it.intent != "none" for it in base_items),
                                        "chatter": sum(it.intent == "none" for it in base_items),
                                        "conditions": list(base_conditions)}},
        "ours": ours, "baseline": baseline, "targets": TARGETS,
        "accuracy_seconds": round(time.monotonic() - t0, 1),
        "recogniser": bench_latency.recogniser_resources(EDITION),
    }
    print(table(report), file=stream)
    rec = report["recogniser"]
    print(f"recogniser: {rec['engine']}, load + first decode {rec['load_and_first_decode_s']} s",
          file=stream)
    print("latency (banker.frontends.voice.latency)...", file=stream, flush=True)
    report["latency"] = bench_latency.run(quick)
    print(bench_latency.text(report["latency"]), file=stream)
    out = out or clips.cache_dir() / "bench" / ("report-quick.json" if quick else "report.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    print(f"report: {out}", file=stream)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run_bench("--quick" in sys.argv, None))
