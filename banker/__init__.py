"""banker: Mr. Monopoly, an offline voice banker for Monopoly board games.

Layout (speech in -> intent -> interpreter -> ledger -> speech out):
- ``banker.editions``: edition data (YAML) loaded into frozen dataclasses, validated.
- ``banker.rules``: the pure, event-sourced rules core (no I/O).
- ``banker.nlu``: text -> intent (templates in ``grammars/``, rapidfuzz matching).
- ``banker.interpreter``: the table session (dialogues, auctions, undo, replies).
- ``banker.journal``: the SQLite journal (persistence at the edge).
- ``banker.frontends``: keyboard play and transcript replay.
- ``banker.speech``: recognisers, the voice, audio and buttons.
"""

__version__ = "0.1.0"
