"""transcripts.md: "After an audio step that led to "Did you say …?", the next step answers it
only if it is that player's yes, no or press; otherwise the question lapses as "no"." The
runner's rule, with the real interpreter and ledger; the recogniser is the runner's own seam
(``Recognize``), here a fixed reading of the clip at a confidence that asks "Did you say…?"."""

from __future__ import annotations

from pathlib import Path

from banker.frontends.replay import run_transcript
from banker.frontends.transcript import load_transcript
from banker.interpreter.session import Session

CLIPS = Path(__file__).resolve().parents[1] / "transcripts" / "voice-banking" / "clips"
UNSURE = 0.7  # between reject and accept for a money command: "Did you say…?"


def unsure_reading(session: Session, path: Path) -> tuple[str, float | None]:
    return path.stem.replace("-", " "), UNSURE


def transcript(tmp_path: Path, steps: str) -> Path:
    (tmp_path / "clips").symlink_to(CLIPS)
    t = tmp_path / "t.yaml"
    t.write_text("edition: voice-banking\nplayers: [racecar, dog]\nsteps:\n" + steps)
    return t


def test_another_players_step_lets_the_question_lapse_as_no(tmp_path: Path) -> None:
    t = transcript(tmp_path, "  - racecar: {audio: clips/buy-baltic-avenue.wav}\n"
                             "  - dog: buy Park Place\n"
                             "  - racecar: 'yes'\n")
    r = run_transcript(load_transcript(t), unsure_reading)
    assert r.error is None, r.failures
    assert "Did you say buy Baltic Avenue?" in r.steps[0]["said"]
    assert r.session is not None and r.session.state.owner("Baltic Avenue") is None
    assert r.session.state.owner("Park Place") == "dog"


def test_that_players_yes_or_press_answers_it(tmp_path: Path) -> None:
    t = transcript(tmp_path, "  - racecar: buy Park Place\n"
                             "  - racecar: {audio: clips/buy-baltic-avenue.wav}\n"
                             "  - press: racecar\n"
                             "  - dog: {audio: clips/pay-rent-on-park-place.wav}\n"
                             "  - wait: 1\n"
                             "  - press: dog\n")
    r = run_transcript(load_transcript(t), unsure_reading)
    assert r.session is not None
    assert r.session.state.owner("Baltic Avenue") == "racecar"
    assert "Did you say" in r.steps[3]["said"]
    assert r.session.state.cash("dog") == 1500  # the wait let it lapse: no rent was paid
    assert r.session.state.cash("racecar") == 1500 - 350 - 60
