"""Every transcript under tests/transcripts/ passes under ``banker replay`` (in-process)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from banker.frontends.replay import replay_files

TRANSCRIPTS = Path(__file__).parent / "transcripts"
FILES = sorted(p for p in TRANSCRIPTS.rglob("*.yaml") if "malformed" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(TRANSCRIPTS)) for p in FILES])
def test_transcript_passes(path: Path) -> None:
    out = io.StringIO()
    code = replay_files([path], out=out)
    assert code == 0, out.getvalue()
