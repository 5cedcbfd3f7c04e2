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


@pytest.fixture(autouse=True)
def private_data_home(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Game files and ``banker.log`` of in-process sessions go to a private folder, and an
    internal error caught at the table ("Sorry, something went wrong") fails the test: the
    robustness tests must not hide one behind the polite sentence."""
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    yield home
    log = home / "banker" / "banker.log"
    assert not log.exists(), f"internal error logged:\n{log.read_text()[-4000:]}"
