"""Transactions ↔ journal rows: the JSON bodies, their checksums and the game's header.

Pure (no files, no SQLite), so the same rules decide what an entry means whether it was read
from a healthy file, a live game or a rebuilt image of a damaged one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from banker.journal.errors import JournalError
from banker.ledger import Transaction
from banker.rules.events import event_from_json

FORMAT = "banker-journal-2"  # 2: the header carries its own checksum (``header_crc``)
FORMATS = ("banker-journal-1", FORMAT)  # both are read; new and repaired files are written as 2
HEADER_KEYS = ("format", "edition", "edition_yaml", "players", "options", "seed")
KINDS = ("tx", "undo", "note")
VOICE_NOTE = "voice:"  # a note "voice:<token>": that player's speech start values (opaque text)
Row = tuple[int, str, str, str, float]  # seq, kind, body, crc, at


@dataclass
class Header:
    edition: str
    edition_yaml: str
    players: list[str]
    options: dict[str, str]
    seed: int


@dataclass
class Loaded:
    header: Header
    transactions: list[Transaction]
    open_dialogue: str | None = None
    dropped: int = 0  # entries read but unusable (bad checksum, unknown kind, bad events)
    repaired_from: Path | None = None  # the original, kept as ``….damaged``, after a repair
    notes: list[str] = field(default_factory=list)  # what the damage was, for the curious
    kept: int = 0  # journal entries (transactions and undos) kept
    undone_last: Transaction | None = None  # the last entry was an undo of this transaction
    damaged: bool = False  # ``peek`` found damage it did not repair
    voices: dict[str, str] = field(default_factory=dict)  # token -> last stored voice values
    dialogue_state: str | None = None  # every dialogue open at the stop, as the session noted it

    def kept_upto(self) -> int:
        """The N of "kept everything up to transaction N" after damage: the transactions the
        game goes on with (undone ones left out). ``banker state`` on the damaged file and the
        resume that repairs it both say this number, so they always agree."""
        return len(self.transactions)


@dataclass
class Entry:
    """One journalled transaction, when it was written, and whether a later entry undid it."""

    tx: Transaction
    at: float
    undone: bool = False


def crc(body: str) -> str:
    """An entry's checksum: a damaged body is told from a good one entry by entry."""
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def encode(body: dict[str, Any]) -> tuple[str, str]:
    """An entry's stored text and its checksum."""
    text = json.dumps(body, sort_keys=True)
    return text, crc(text)


def tx_body(tx: Transaction) -> dict[str, Any]:
    """A transaction as the JSON object stored in its row (``seq`` is the row's key)."""
    return {"player": tx.player, "intent": tx.intent, "slots": tx.slots,
            "events": [e.to_json() for e in tx.events], "said": tx.said,
            "participants": tx.participants}


def undo_body(target: int, player: str | None) -> dict[str, Any]:
    return {"target": target, "player": player}


def note_body(kind: str, text: str) -> dict[str, Any]:
    return {"kind": kind, "text": text}


def meta_items(header: Header, extra: dict[str, str]) -> list[tuple[str, str]]:
    """The header as the ``meta`` table's key/value rows (``extra``: when created or repaired)."""
    items = {"format": FORMAT, "edition": header.edition, "edition_yaml": header.edition_yaml,
             "players": json.dumps(header.players), "options": json.dumps(header.options),
             "seed": str(header.seed)}
    return [*items.items(), ("header_crc", _header_crc(items)), *extra.items()]


def _header_crc(meta: dict[str, str]) -> str:
    """The header's checksum: a flipped bit in the edition's rules or the players is damage."""
    return crc(json.dumps([meta.get(k) for k in HEADER_KEYS]))


def header_from_meta(meta: dict[str, str], path: Path) -> Header:
    """The game's header from its ``meta`` rows; a file that isn't a banker game is said so.

    A damaged header can't be repaired (nothing else says which game it is): the file is
    refused, untouched. Format 1 files have no header checksum and are read as they are.
    """
    if meta.get("format") not in FORMATS:
        raise JournalError(f"The file {path} is not a banker game.")
    if meta["format"] != FORMATS[0] and meta.get("header_crc") != _header_crc(meta):
        raise JournalError(f"The game file {path} is damaged where it says which game it is "
                           "(edition, players, seed), so it can't be read.")
    try:
        players = json.loads(meta["players"])
        options = json.loads(meta["options"])
        if not isinstance(players, list) or not isinstance(options, dict):
            raise ValueError
        return Header(meta["edition"], meta["edition_yaml"], [str(p) for p in players],
                      {str(k): str(v) for k, v in options.items()}, int(meta["seed"]))
    except (KeyError, ValueError, TypeError):
        raise JournalError(f"The file {path} is not a readable banker game.") from None


def entry_ok(kind: str, body: str, checksum: str) -> bool:
    """A known kind, an intact body and (for a transaction) events that parse."""
    if kind not in KINDS or crc(body) != checksum:
        return False
    try:
        data = json.loads(body)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    if kind == "tx":
        try:
            events = data["events"]
            if not isinstance(events, list):
                return False
            for e in events:
                event_from_json(e)
        except (KeyError, ValueError, TypeError, AttributeError):
            return False
    if kind == "undo":
        return isinstance(data.get("target"), int)
    return True


def valid_prefix(rows: list[Row]) -> tuple[list[Row], int]:
    """The entries up to the first bad one, and how many were read but can't be used.

    Entries are numbered 1, 2, 3… without gaps (nothing is ever deleted; a repair keeps a
    prefix), so a number out of step is damage the body's checksum can't see: a flipped bit
    in the row's key.
    """
    for i, (seq, kind, body, checksum, _at) in enumerate(rows):
        if seq != i + 1 or not entry_ok(kind, body, checksum):
            return rows[:i], len(rows) - i
    return rows, 0


def from_rows(header: Header, rows: list[Row]) -> Loaded:
    """The live transactions (undone ones left out) and the dialogue a crash interrupted."""
    txs: list[Transaction] = []
    undone: set[int] = set()
    open_dialogue: str | None = None
    kept = 0
    undone_last: Transaction | None = None
    voices: dict[str, str] = {}
    state: str | None = None
    for seq, kind, body, _crc, _at in rows:
        data = json.loads(body)
        if kind in ("tx", "undo"):
            state = None  # a transaction or an undo closes every dialogue noted before it
        if kind == "tx":
            txs.append(_transaction(seq, data))
            open_dialogue = None
            kept += 1
            undone_last = None
        elif kind == "undo":
            undone.add(int(data["target"]))
            open_dialogue = None
            kept += 1
            undone_last = next((t for t in txs if t.seq == int(data["target"])), None)
        elif kind == "note":
            if data.get("kind") == "dialogue_open":
                open_dialogue = str(data.get("text", ""))
            elif data.get("kind") == "dialogue_closed":
                open_dialogue = None
            elif data.get("kind") == "dialogue_state":
                state = str(data.get("text", "")) or None
            elif str(data.get("kind", "")).startswith(VOICE_NOTE):  # the latest one counts
                voices[str(data["kind"])[len(VOICE_NOTE):]] = str(data.get("text", ""))
    return Loaded(header, [t for t in txs if t.seq not in undone], open_dialogue, kept=kept,
                  undone_last=undone_last, voices=voices, dialogue_state=state)


def _transaction(seq: int, data: Any) -> Transaction:
    """A ``tx`` row's decoded body as the transaction it stores (``tx_body`` read back)."""
    events = [event_from_json(e) for e in data["events"]]
    return Transaction(data.get("player"), data.get("intent", ""), data.get("slots", {}),
                       events, list(data.get("said", [])), list(data.get("participants", [])), seq)


def add_entries(entries: list[Entry], rows: Iterable[Row]) -> bool:
    """Every transaction in order, undone ones kept and marked: the rows that follow
    ``entries`` are added to them, and an undo marks its target there. True if a row was a
    transaction or an undo.

    For a reader beside a live game (the table screen): a damaged row is passed over, not
    repaired (the next resume's repair deals with it), and dialogue notes change nothing.
    """
    changed = False
    for seq, kind, body, _crc, at in rows:
        try:
            data = json.loads(body)
            if kind == "tx":
                entries.append(Entry(_transaction(seq, data), at))
                changed = True
            elif kind == "undo":
                target = int(data["target"])
                for e in entries:
                    if e.tx.seq == target:
                        e.undone = True
                changed = True
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return changed
