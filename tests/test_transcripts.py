"""Every transcript under tests/transcripts/ passes, and the invariants hold after every event."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from banker.frontends.replay import replay_files, run_transcript
from banker.frontends.transcript import load_transcript
from banker.rules.events import apply_in_place
from banker.rules.invariants import check

TRANSCRIPTS = Path(__file__).parent / "transcripts"
FILES = sorted(p for p in TRANSCRIPTS.rglob("*.yaml") if "malformed" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(TRANSCRIPTS)) for p in FILES])
def test_transcript_passes(path: Path) -> None:
    out = io.StringIO()
    code = replay_files([path], out=out)
    assert code == 0, out.getvalue()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(TRANSCRIPTS)) for p in FILES])
def test_invariants_after_every_event(path: Path) -> None:
    t = load_transcript(path)
    recognize = None
    if any(u.audio for s in t.steps for u in s.utterances):
        from banker.frontends.audio_steps import make_recognizer

        recognize = make_recognizer()
    result = run_transcript(t, recognize)
    session = result.session
    assert session is not None
    state = session.base.clone()
    total = state.total_money() if t.edition.money_total is not None else None
    assert check(state, total) == []
    for tx in session.history:
        for event in tx.events:
            apply_in_place(state, event)
            problems = check(state, total)
            assert problems == [], f"after {event} in {tx.intent}: {problems}"
    assert state.view() == session.state.view()
