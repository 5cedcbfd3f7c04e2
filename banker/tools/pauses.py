"""Commands said with a pause inside, and whether the end of turn waits for the rest.

A rendered command is cut between two of its words where the first ear places them (its
word times on the whole clip), and silence is put in: "pay rent on … Vermont Avenue". The
latency bench says such clips in its live loop; ``cut_offs`` plays dev-set commands with a
pause through the end-of-speech detector and the end-of-turn rules frame by frame, with
the first ear's reading of each pause known the moment the pause is long enough to read it
(the live listener's reading comes later: this is the harder case for not cutting), and
counts the turns that ended before the speech did.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from banker.speech.base import speech_span
from banker.speech.endpoint import GUESS_AFTER_FRAMES, wait_for
from banker.speech.protocols import Heard, Recognizer
from banker.speech.vad import EndOfSpeech, VadSettings, frames_of, speech_only
from banker.tools.clips import RATE, Pcm


def word_gaps(pcm: Pcm, recognizer: Recognizer, text: str) -> list[float] | None:
    """Seconds into ``pcm`` between each two words of ``text`` (None when the first ear's
    reading of the clip is not ``text``, so its word times can't be trusted)."""
    heard = recognizer.recognize(pcm, "any")
    if [w.word for w in heard.words] != text.lower().split():
        return None
    lo = speech_span(pcm)[0] / RATE  # the first ear's times count from the speech it kept
    return [lo + (a.end + b.start) / 2 for a, b in zip(heard.words, heard.words[1:], strict=False)]


def with_pause(pcm: Pcm, at: float, ms: int) -> Pcm:
    """``pcm`` with ``ms`` of silence put in at ``at`` seconds."""
    i = int(at * RATE)
    return np.concatenate([pcm[:i], np.zeros(RATE * ms // 1000, dtype=np.int16), pcm[i:]])


def first_ear() -> Recognizer:
    """Pocketsphinx for Voice Banking, as the table's first ear decodes (word times)."""
    from banker.editions import load_edition
    from banker.speech.grammar import SpeechGrammar
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer

    return PocketsphinxRecognizer(SpeechGrammar(load_edition("voice-banking")))


def _parts(line: str) -> tuple[str, str, int]:
    """A bench line's words before and after its bar, and the pause's milliseconds."""
    head, _, rest = line.partition("|")
    first = rest.split(" ", 1)[0]
    ms = int(first) if first.isdigit() else 300
    tail = rest.split(" ", 1)[1] if first.isdigit() else rest
    return head.strip(), tail.strip(), ms


def said(line: str) -> str:
    """A bench line's words ("pay rent on | Vermont Avenue" -> "pay rent on Vermont Avenue")."""
    if "|" not in line:
        return line
    head, tail, _ = _parts(line)
    return f"{head} {tail}"


def paused(line: str, pcm: Pcm, recognizer: Recognizer) -> tuple[str, Pcm]:
    """A bench line ("pay rent on | Vermont Avenue") and its words rendered (``pcm``): the
    words, said with 300 ms of silence where the bar is (``|250`` sets another length); the
    clip unchanged when it has no bar or its words can't be placed."""
    if "|" not in line:
        return line, pcm
    head, _, ms = _parts(line)
    gaps = word_gaps(pcm, recognizer, said(line))
    if not gaps:
        return said(line), pcm
    return said(line), with_pause(pcm, gaps[len(head.split()) - 1], ms)


@dataclass
class CutOffs:
    """How many commands with a pause inside were heard whole (``cut`` lists the others:
    the text and the first ear's reading of the pause that ended the turn)."""

    heard_whole: int = 0
    unplaced: int = 0  # the first ear misheard the whole clip: no word times to cut at
    cut: list[tuple[str, str]] = field(default_factory=list)
    # of ``cut``, the readings that mean what the whole command means ("whose is
    # connecticut" for "... avenue", a last "please" left out): ended early, nothing lost
    same_meaning: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"heard_whole": self.heard_whole, "cut": len(self.cut),
                "cut_same_meaning": self.same_meaning,
                "unplaced": self.unplaced, "cut_examples": self.cut[:10]}


def ends_early(pcm: Pcm, recognizer: Recognizer, speech_end: float,
               settings: VadSettings | None = None) -> Heard | None:
    """The reading of the pause that ended the turn before ``speech_end`` (seconds), or None
    when the turn lasted until the speech was over."""
    det = EndOfSpeech(settings or VadSettings())
    reading: Heard | None = None
    for frame in frames_of(pcm):
        if det.feed(frame) is not None:
            break
        if det.in_speech and det.quiet_frames == GUESS_AFTER_FRAMES:
            reading = recognizer.recognize(speech_only(det.utterance(), fill=True), "any")
        elif det.quiet_frames == 0:
            reading = None  # speaking again: the pause's reading is stale
        if det.wait(wait_for(reading)) is not None:
            break
    if det.reason == "vad" and det.seconds < speech_end:
        return reading or Heard("", 0.0)
    return None


def cut_offs(commands: Sequence[tuple[str, Pcm]], recognizer: Recognizer,
             rng: random.Random) -> CutOffs:
    """Each command with one pause of 150-300 ms at a word boundary drawn by ``rng``."""
    out = CutOffs()
    quiet = np.zeros(RATE // 4, dtype=np.int16)
    for text, said in commands:
        # a quarter second of quiet around the words, as the microphone hears before and after
        # them: a clip cut at its first sample often decodes as nothing, word times and all
        pcm = np.concatenate([quiet, said, quiet])
        gaps = word_gaps(pcm, recognizer, text) if len(text.split()) > 1 else None
        if not gaps:
            out.unplaced += 1
            continue
        clip = with_pause(pcm, rng.choice(gaps), rng.randint(150, 300))
        clip = np.concatenate([np.zeros(RATE // 4, dtype=np.int16), clip,
                               np.zeros(RATE * 2, dtype=np.int16)])
        loud = np.nonzero(np.abs(clip.astype(np.int32)) > 600)[0]
        end = (int(loud[-1]) + 1) / RATE if len(loud) else 0.0
        early = ends_early(clip, recognizer, end)
        if early is None:
            out.heard_whole += 1
        else:
            out.cut.append((text, early.text))
            meant = _meaning(text)
            out.same_meaning += meant is not None and meant == _meaning(early.text)
    return out


def _meaning(text: str) -> tuple[str, str] | None:
    """What a Voice Banking game understands ``text`` as (None: no one command)."""
    from banker.editions import load_edition
    from banker.nlu.matcher import Matcher, Recognized

    m = Matcher.for_edition(load_edition("voice-banking")).match(text)
    return (m.intent, repr(sorted(m.slots.items()))) if isinstance(m, Recognized) else None
