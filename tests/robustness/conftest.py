"""Fixtures for the robustness tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    """A scratch folder in RAM (``/dev/shm``) when there is one, else ``tmp_path``.

    The torn-journal tests open and repair hundreds of game files; each commit fsyncs, which
    costs milliseconds on a disk and nothing on tmpfs. The journal's behaviour doesn't depend
    on the file system (the damage is made by hand), so this only saves time.
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="banker-robust-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
