"""How the journal says a game file can't be used: one plain sentence, never a traceback."""


class JournalError(Exception):
    """A game file that can't be used: the message is one plain sentence."""


class JournalLocked(JournalError):
    """Another banker has this game open (the lock file is held)."""
