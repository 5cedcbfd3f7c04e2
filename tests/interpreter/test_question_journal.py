"""An open question is on disk whenever Mr. Monopoly speaks, so a kill at any word resumes
with "the last question was interrupted" (a kill-loop seed found a wrong answer to a question
that never lapses closing it in the journal until it was asked again)."""

from __future__ import annotations

from pathlib import Path

from banker.editions import load_edition
from banker.editions.loader import editions_dir
from banker.interpreter.session import Session, VirtualClock
from banker.journal import GameFile
from banker.journal.sqlite import Header

VB = load_edition("voice-banking")


def test_a_wrong_answer_to_a_question_that_never_lapses_leaves_it_open_on_disk(
        tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    gf = GameFile(path)
    gf.create(Header(VB.id, (editions_dir() / "voice-banking.yaml").read_text(),
                     ["racecar", "dog"], {}, 1))
    on_disk: list[tuple[str, str | None]] = []  # each line said, with the journal's open dialogue

    def said(text: str) -> None:
        on_disk.append((text, GameFile(path).peek().open_dialogue))

    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), journal=gf, on_say=said)
    for player, line in [("racecar", "buy Baltic Avenue"), ("dog", "buy Park Place"),
                         ("racecar", "pay 1439"), ("racecar", "pay rent on Park Place")]:
        s.hear(player, line)
    assert "give up" in on_disk[-1][0] and on_disk[-1][1] == "ask_give_up"
    asked = len(on_disk)
    s.hear("racecar", "New York Avenue")  # not racecar's: refused, and asked again
    after = on_disk[asked:]
    assert len(after) >= 2 and "give up" in after[-1][0], after
    assert all(dialogue == "ask_give_up" for _text, dialogue in after), after
    assert s.state.owner("Baltic Avenue") == "racecar"
    gf.close()


def test_a_question_stays_open_on_disk_while_another_player_commits(tmp_path: Path) -> None:
    """Another player's transaction leaves the asked player's question open (dialogues.md),
    so the journal must still call it open after that transaction (the kill loop, seed
    207744988: "Which street?" to T-Rex, then the dog's Chance card, then a kill)."""
    path = tmp_path / "game.sqlite"
    gf = GameFile(path)
    gf.create(Header(VB.id, (editions_dir() / "voice-banking.yaml").read_text(),
                     ["racecar", "dog"], {}, 1))
    s = Session(VB, ["racecar", "dog"], clock=VirtualClock(), journal=gf)
    s.hear("racecar", "buy please")
    assert s.pending is not None and GameFile(path).peek().open_dialogue
    s.hear("dog", "buy Park Place")
    assert s.state.owner("Park Place") == "dog" and s.pending is not None
    assert GameFile(path).peek().open_dialogue, "the racecar's question is still open"
    s.hear("racecar", "Baltic Avenue")  # the answer: its transaction closes the question
    assert s.state.owner("Baltic Avenue") == "racecar"
    assert GameFile(path).peek().open_dialogue is None
    gf.close()


def _game(tmp_path: Path, edition: str) -> tuple[Path, GameFile]:
    path = tmp_path / "game.sqlite"
    gf = GameFile(path)
    gf.create(Header(edition, (editions_dir() / f"{edition}.yaml").read_text(),
                     ["hat", "dog"], {}, 1))
    return path, gf


def test_a_betting_round_opened_over_a_question_is_open_on_disk(tmp_path: Path) -> None:
    """The kill loop, seed 1001463031: "auction" → "Which street?", then "chance" opens a
    betting round; the question's "closed" note was written after the round's "open", so a
    kill then resumed with nothing interrupted."""
    path, gf = _game(tmp_path, "jackpot")
    s = Session(load_edition("jackpot"), ["hat", "dog"], clock=VirtualClock(), journal=gf)
    s.hear("dog", "auction")
    assert s.pending is not None and GameFile(path).peek().open_dialogue
    s.hear("dog", "chance")
    assert s.hold is not None, "a betting round is open"
    assert GameFile(path).peek().open_dialogue == s.hold.kind
    gf.close()


def test_an_unsold_auction_is_closed_on_disk_before_it_is_said(tmp_path: Path) -> None:
    """A kill just after "nobody bid" must not resume with "the auction was interrupted"."""
    path, gf = _game(tmp_path, "voice-banking")
    on_disk: list[tuple[str, str | None]] = []
    clock = VirtualClock()
    s = Session(VB, ["hat", "dog"], clock=clock, journal=gf,
                on_say=lambda text: on_disk.append((text, GameFile(path).peek().open_dialogue)))
    s.hear("dog", "auction Baltic Avenue")
    assert on_disk[-1][1] == "auction:Baltic Avenue"
    for _ in range(60):
        s.advance(1.0)
    assert s.auction is None and s.state.owner("Baltic Avenue") is None
    unsold = [d for text, d in on_disk if "Baltic Avenue" in text][-1]
    assert unsold is None, on_disk
    gf.close()


def test_an_undo_of_a_debt_takes_its_question_with_it_on_disk(tmp_path: Path) -> None:
    """The shortfall is a transaction of its own (the debt opens); undoing it closes the debt
    and its question, and the journal says so: a kill then resumes with nothing asked. The
    undo before it takes back "pay 1439", and the debt question is not asked any more."""
    path, gf = _game(tmp_path, "voice-banking")
    s = Session(VB, ["hat", "dog"], clock=VirtualClock(), journal=gf)
    for player, line in [("hat", "buy Baltic Avenue"), ("dog", "buy Park Place"),
                         ("hat", "pay 1439"), ("hat", "pay rent on Park Place")]:
        s.hear(player, line)
    assert s.pending is not None and GameFile(path).peek().open_dialogue == "ask_give_up"
    assert GameFile(path).peek().dialogue_state is not None
    s.hear("hat", "undo that")  # takes back the debt: nothing is owed, nothing asked
    assert s.state.debts == [] and s.pending is None and s.state.cash("hat") == 1
    assert GameFile(path).peek().open_dialogue is None
    assert GameFile(path).peek().dialogue_state is None
    gf.close()
