"""Where the data folders (grammars/, config/, audio/) are, installed or in a checkout."""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_root() -> Path:
    """The folder holding grammars/, config/ and audio/.

    An installed wheel carries them in ``banker/_data``; a source checkout has them one
    level above the package. ``BANKER_DATA`` overrides both (tests, custom boxes).
    """
    env = os.environ.get("BANKER_DATA")
    if env:
        return Path(env)
    packaged = _PKG / "_data"
    if (packaged / "config").is_dir():
        return packaged
    return _PKG.parent


def config_dir() -> Path:
    return data_root() / "config"


def grammars_dir() -> Path:
    return data_root() / "grammars"


def audio_dir() -> Path:
    return data_root() / "audio"


def user_data_dir() -> Path:
    """Per-user folder for game files (XDG data home)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "banker"


def user_cache_dir() -> Path:
    """Per-user folder for things made once and kept (XDG cache home): prepared models."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "banker"
