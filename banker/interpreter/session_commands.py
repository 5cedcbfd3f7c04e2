"""The commands about the session itself rather than the game: repeat, help, undo, cancel
(and a "yes", "no" or answer when nothing is asked of the speaker). Kept apart from
``session`` so that module stays the turn's flow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from banker.interpreter import undo
from banker.rules import Command, Who

if TYPE_CHECKING:
    from banker.interpreter.session import Session


def run(session: Session, cmd: Command) -> None:
    """Carry out ``cmd``, one of ``policy.SESSION_INTENTS`` (nothing is journalled here but
    an undo's own question)."""
    name = cmd.name
    if name == "repeat":
        previous = list(session.repeat_buffer)
        if not previous:
            session.say("nothing_to_repeat")
            return
        session.announce(previous)
        return
    if name == "help":
        session.say("help", other=Who(session.example_token(cmd.player)))
        return
    if name == "undo":
        undo.ask_undo(session, cmd.player)
        return
    if name == "cancel":
        if session.betting.cancel(cmd.player):
            return
        if session.hold is not None and session.pending is None:
            session.refuse("hold_owner_only", player=Who(session.hold.owner))
            return
        if session.pending is not None and session.pending.cancelled_by(cmd.player):
            session.pending = None  # another player's question is theirs to cancel
        session.say("cancelled")
        return
    # yes / no / answer with nothing asked of this player
    session.say("sorry")
