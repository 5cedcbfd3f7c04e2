"""A transcript's ``restart:`` step: the banker stops and the game is resumed from its file.

A transcript with stops is played on a real game file (in a folder of its own, removed
afterwards). ``save`` stops as at Ctrl-D (the journal closed in order); ``kill`` stops
without a word (nothing is written beyond what the journal had committed). Either way the
next step plays on a session built only from the file, by the code path of ``banker play
--resume`` (``app.start_game``), on the same virtual clock.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from banker.app import start_game
from banker.editions.loader import editions_dir
from banker.frontends.transcript import Transcript
from banker.interpreter.clock import VirtualClock
from banker.interpreter.session import Session
from banker.journal import GameFile
from banker.journal.sqlite import Header

# a throwaway game file in memory where there is one: every commit is an fsync, and a
# transcript with a stop after each step commits a note or two per step
_RAM = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@dataclass
class GameOnFile:
    """The folder a transcript with stops plays its game file in."""

    folder: tempfile.TemporaryDirectory[str] = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="banker-stops-", dir=_RAM))

    @property
    def path(self) -> Path:
        return Path(self.folder.name) / "game.sqlite"

    def start(self, t: Transcript, clock: VirtualClock) -> Session:
        """A new game on file, as ``banker play`` starts one (the transcript's seed)."""
        source = editions_dir() / f"{t.edition.id}.yaml"
        yaml_text = source.read_text(encoding="utf-8") if source.is_file() else ""
        gf = GameFile(self.path)
        gf.create(Header(t.edition.id, yaml_text, t.players, dict(t.options), t.seed or 0))
        return Session(t.edition, t.players, options=t.options, seed=t.seed or 0,
                       clock=clock, journal=gf)

    def restart(self, session: Session, mode: str, clock: VirtualClock) -> Session:
        """Stop ``session`` (``save`` or ``kill``) and resume the game from its file."""
        gf = session.journal
        assert isinstance(gf, GameFile)
        if mode == "save":
            session.notes.sync()  # what Ctrl-D does before the goodbye line
        else:
            gf._voices_due.clear()  # killed: nothing more reaches the disk
        gf.close()
        game = start_game(None, None, [], self.path, True, lambda _text: None,
                          _no_players, clock=clock, remember=False, matcher=session.matcher)
        return game.session

    def close(self, session: Session) -> None:
        if isinstance(session.journal, GameFile):
            session.journal.close()
        self.folder.cleanup()


def _no_players(_edition: object) -> str:
    return ""
