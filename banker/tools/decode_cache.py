"""The benches' decode cache: a decode is kept by its audio and the version of everything
else that decides it, so a rerun of the same code on the same clips decodes nothing again.

One JSON file per decode, named by a hash of the audio, a salt (the focus, say) and the code
version; a change to any file in the version starts afresh (old files are simply not found).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent  # banker/


def version(files: Iterable[Path], *extra: str) -> str:
    """A short hash of ``files`` (name and content; a missing one counts as empty) and
    ``extra`` (settings, an engine kind)."""
    h = hashlib.sha256()
    for text in extra:
        h.update(text.encode())
    for path in sorted(files):
        h.update(path.name.encode() + (path.read_bytes() if path.is_file() else b""))
    return h.hexdigest()[:16]


def modules(*names: str) -> list[Path]:
    """banker's own files by relative name ("speech/base.py") or folder ("nlu": every module)."""
    out: list[Path] = []
    for name in names:
        path = PACKAGE / name
        out.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return out


class DecodeCache:
    """Decodes in ``folder`` for one code ``version``."""

    def __init__(self, folder: Path, version: str) -> None:
        self.folder, self.version = folder, version

    def path(self, audio: bytes, salt: str = "") -> Path:
        key = hashlib.sha256(audio + salt.encode() + self.version.encode()).hexdigest()[:24]
        return self.folder / f"{key}.json"

    def get(self, audio: bytes, salt: str = "") -> Any | None:
        """The kept decode (as stored), or None."""
        hit = self.path(audio, salt)
        return json.loads(hit.read_text(encoding="utf-8")) if hit.is_file() else None

    def put(self, audio: bytes, value: Any, salt: str = "") -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path(audio, salt).write_text(json.dumps(value), encoding="utf-8")
