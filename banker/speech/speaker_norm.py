"""Per-player acoustic normalisation: each button is one person, so learn that voice.

A player's *start values* are the cepstral mean (13 numbers, pocketsphinx's comma-separated
form) their next turn is normalised with. Without them an utterance is normalised by its own
mean (batch CMN: every offline file stands alone, as before). With them the engine normalises
the whole turn by the player's mean instead (live CMN started from it) and reports, in
``Heard.details`` (``cmn0`` … ``cmn12``), the mean after that turn: pocketsphinx's own running
average (the start weighted as 500 frames, the turn by its frames), or for a first turn the
turn's own mean. ``Voices.learn`` keeps that value only for turns the game acted on or the
player confirmed, so chatter, noise and misheard turns never pull a voice astray.

Pure data: no engine, no I/O; the journal stores ``Voices.as_dict()`` with the game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from banker.speech.base import background_db
from banker.speech.protocols import Heard, Pcm

DIMS = 13  # cepstra per frame in pocketsphinx's en-us model
KEYS = tuple(f"cmn{i}" for i in range(DIMS))
# A voice is learnt and used only when the speech stands this far above the room
# (``base.background_db``): in noise a turn's mean is the room's as much as the voice's, and
# carried values lost at 10 dB babble and pink on the bench. Dev clips: clean 29-77 dB
# (5th percentile 42), 10 dB babble/pink 12-26, 20 dB babble 21-36.
QUIET_DB = 28.0


def quiet(pcm: Pcm, raw: Pcm | None = None) -> bool:
    """Whether ``pcm`` is quiet enough around the speech for a player's voice to count.
    ``raw``: the audio as heard when ``pcm`` has been through the noise filter already,
    which would make any room look quiet."""
    return background_db(pcm if raw is None else raw) >= QUIET_DB


class BadVoice(ValueError):
    """Start values that are not 13 finite numbers (one plain sentence)."""


def parse(text: str) -> tuple[float, ...]:
    """``"41.2,-5.3,…"`` as 13 floats; ``BadVoice`` for anything else."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise BadVoice(f"{text!r} is not a list of numbers.") from None
    if len(values) != DIMS or not all(math.isfinite(v) for v in values):
        raise BadVoice(f"Voice start values need {DIMS} finite numbers, not {text!r}.")
    return values


def fmt(values: tuple[float, ...]) -> str:
    """13 floats in pocketsphinx's form (``set_cmn`` reads it)."""
    return ",".join(f"{v:.4g}" for v in values)


def to_details(cmn: str) -> dict[str, float]:
    """The mean after a turn as ``Heard.details`` entries ({} when it does not parse)."""
    try:
        return dict(zip(KEYS, parse(cmn), strict=True))
    except BadVoice:
        return {}


def from_details(details: Mapping[str, float]) -> str:
    """The mean an engine reported after a turn ("" when it reported none)."""
    if not all(k in details for k in KEYS):
        return ""
    try:
        return fmt(parse(",".join(repr(float(details[k])) for k in KEYS)))
    except BadVoice:
        return ""


class Voices:
    """Start values per player token; only confirmed turns change them."""

    def __init__(self, starts: Mapping[str, str] | None = None) -> None:
        self._starts: dict[str, str] = {}
        for player, text in (starts or {}).items():
            try:
                self._starts[str(player)] = fmt(parse(str(text)))
            except BadVoice:
                continue  # a damaged value: that player starts afresh

    def start(self, player: str | None) -> str:
        """What ``player``'s next turn is normalised with ("" = the turn on its own)."""
        return self._starts.get(player or "", "")

    def learn(self, player: str | None, heard: Heard) -> bool:
        """Keep the mean after ``heard`` for ``player``: call it only for a turn the game
        acted on or the player confirmed. True when the player's values changed."""
        new = from_details(heard.details)
        if not player or not new or self._starts.get(player) == new:
            return False
        self._starts[player] = new
        return True

    def as_dict(self) -> dict[str, str]:
        return dict(sorted(self._starts.items()))

    def __len__(self) -> int:
        return len(self._starts)
