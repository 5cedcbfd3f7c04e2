"""Each button is one person: the players' voices, learnt turn by turn and kept with the game.

The game phase asks ``start(token)`` for the values a press's utterance is decoded with, and
calls ``after`` once the session has taken the turn. A turn teaches only when the game acted
on it (a command carried out or a question answered, not refused) or, for a "Did you say…?",
once the player confirmed it: a misheard or refused turn, chatter and noise teach nothing.
Learnt values are written to the game file (``GameFile.save_voice``), so ``--resume`` starts
every voice where it was; a game without a file (tests, transcripts) keeps them in memory.
They are learnt just after the reply is queued, so they are not committed then (an fsync on the
reply's way): they go with the journal's next write, or ``flush`` once the next turn is being
listened to; a kill loses at most the latest turn's values.
"""

from __future__ import annotations

from banker.interpreter.session import Session, Step
from banker.journal import GameFile
from banker.speech.protocols import Heard
from banker.speech.speaker_norm import Voices


class PlayerVoices:
    """The table's voices for one game."""

    def __init__(self, session: Session) -> None:
        self.session = session
        journal = session.journal
        self._file = journal if isinstance(journal, GameFile) else None
        self.voices = Voices(self._file.voice_starts if self._file is not None else {})
        self._unconfirmed: dict[str, Heard] = {}  # asked "Did you say…?" about this turn

    def start(self, voice: str) -> str:
        """The start values of ``voice``: a token (its button, the table's microphone), or
        ``voice_of`` a token on a phone (each phone's microphone is learnt on its own)."""
        return self.voices.start(voice)

    def after(self, token: str, heard: Heard | None, step: Step, voice: str | None = None) -> None:
        """The session took ``token``'s turn (``heard``: None for a bare press), heard as
        ``voice`` (default: the token's own)."""
        voice = voice or token
        asked = self._unconfirmed.pop(token, None)
        acted = step.intent not in ("none", "no") and not step.refused
        if heard is not None and acted and token in self.session.asked_players():
            self._unconfirmed[token] = heard  # the question about it waits for an answer
            return
        if not acted:
            return
        # a confirmed command teaches rather than the short "yes" that confirmed it
        turn = asked if asked is not None else heard
        if turn is not None and self.voices.learn(voice, turn) and self._file is not None:
            self._file.save_voice(voice, self.voices.start(voice))

    def flush(self) -> None:
        """Put the learnt values on disk now: a moment when nobody waits for the banker."""
        if self._file is not None:
            self._file.flush_voices()
