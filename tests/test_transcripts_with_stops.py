"""Every transcript still passes with the banker stopped after every step, as checks kept
outside the project replay them: a ``restart: save`` and a ``restart: kill`` after each step
(mid-dialogue included), each resumed from the game file, and the game ends exactly as it
does without stops."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from banker.frontends.replay import FileResult, run_transcript
from banker.frontends.transcript import Transcript, TStep, load_transcript

TRANSCRIPTS = Path(__file__).parent / "transcripts"
FILES = sorted(p for p in TRANSCRIPTS.rglob("*.yaml")
               if "malformed" not in p.parts and not any(
                   u.audio for s in load_transcript(p).steps for u in s.utterances))


def with_stops(t: Transcript, modes: tuple[str, ...]) -> Transcript:
    """``t`` with a stop of each of ``modes`` after every step but the last."""
    steps: list[TStep] = []
    for i, step in enumerate(t.steps):
        steps.append(step)
        if i < len(t.steps) - 1:
            steps += [TStep(0, step.line, "restart", mode=m, source=f"restart: {m}")
                      for m in modes]
    return dataclasses.replace(t, steps=steps)


def _final(r: FileResult) -> dict[str, object]:
    assert r.session is not None
    return r.session.state.view()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(TRANSCRIPTS)) for p in FILES])
def test_a_stop_after_every_step_changes_nothing(path: Path) -> None:
    t = load_transcript(path)
    plain = run_transcript(t)
    stopped = run_transcript(with_stops(t, ("save", "kill")))
    assert stopped.ok, "\n".join(stopped.failures) or stopped.error
    assert _final(stopped) == _final(plain)
