"""``banker replay --report`` names intents as intents.md does (spec audit): a Secret Vault
deal that mixes cash, streets, hotels or the card is a ``trade``, ``sell`` or ``buy_from``."""

from __future__ import annotations

import io
import json
from pathlib import Path

from banker.cli import main
from banker.nlu.canonical import spec_slots
from banker.tools.transcribe import Verdict, print_verdict

DEALS = """\
edition: secret-vault
players: [duck, dog]
steps:
  - duck: buy Baltic Avenue
  - dog: buy Park Place
  - duck: trade Baltic Avenue and 200 for Park Place with the dog
  - dog: 'no'
  - duck: trade Baltic Avenue for Park Place and 200
  - dog: 'no'
  - next: {chance: jail-free}
  - duck: chance
  - duck: sell Baltic Avenue and my get out of jail free card to the dog for 300
  - dog: 'no'
  - duck: sell my get out of jail free card to the dog for 50
  - dog: 'no'
  - dog: buy the get out of jail free card from the duck for 50
  - duck: 'no'
"""


def _reported_steps(tmp_path: Path, transcript: str) -> list[dict]:  # type: ignore[type-arg]
    """The steps of ``banker replay --report`` for one transcript (which must pass)."""
    t = tmp_path / "t.yaml"
    t.write_text(transcript)
    report = tmp_path / "r.json"
    assert main(["replay", str(t), "--report", str(report)]) == 0
    return json.loads(report.read_text())["files"][0]["steps"]  # type: ignore[no-any-return]


def test_deal_shapes_are_reported_by_their_spec_names(tmp_path: Path) -> None:
    steps = _reported_steps(tmp_path, DEALS)
    said = {s["heard"][0]: s["intent"] for s in steps if s["heard"]}
    assert said["trade Baltic Avenue and 200 for Park Place with the dog"] == "trade"
    assert said["trade Baltic Avenue for Park Place and 200"] == "trade"
    assert said["sell Baltic Avenue and my get out of jail free card to the dog for 300"] == "sell"
    assert said["sell my get out of jail free card to the dog for 50"] == "sell"
    assert said["buy the get out of jail free card from the duck for 50"] == "buy_from"
    assert said["buy Baltic Avenue"] == "buy" and said["no"] == "no"
    slots = next(s["slots"] for s in steps if s["heard"] == ["trade Baltic Avenue for Park Place and 200"])
    assert slots.get("give") == "Baltic Avenue" and slots.get("get") == "Park Place", slots


CANCELS = """\
edition: jackpot
players: [car, dog]
steps:
  - dog: buy Park Place
  - car: chance
  - next: {spin: steal house, hot_house: none}
  - car: spin
  - car: cancel
  - dog: undo
  - car: cancel
"""


def test_a_cancel_that_answers_a_question_is_reported_as_cancel(tmp_path: Path) -> None:
    """"cancel" to Jackpot's steal question, and to the undo question, is intent ``cancel``."""
    steps = _reported_steps(tmp_path, CANCELS)
    assert [s["intent"] for s in steps if s["heard"] == ["cancel"]] == ["cancel", "cancel"], steps


STREETS = """\
edition: secret-vault
players: [dog, hat]
steps:
  - dog: buy Baltic Avenue
  - dog: buy Oriental Avenue
  - hat: buy Park Place
  - dog: trade Baltic Avenue and Oriental Avenue for Park Place with the hat
  - hat: 'no'
  - hat: buy Baltic Avenue and Oriental Avenue from the dog for 500
  - dog: 'no'
  - dog: trade Baltic Avenue for Park Place with the hat
  - hat: 'no'
"""


def test_a_side_with_two_streets_is_reported_as_a_list(tmp_path: Path) -> None:
    """intents.md: trade's give and get are "properties"; two on a side are a list of two
    names (the matcher's own second slot, ``give2``, is not reported), one stays a name."""
    steps = {s["heard"][0]: s for s in _reported_steps(tmp_path, STREETS) if s["heard"]}
    two = steps["trade Baltic Avenue and Oriental Avenue for Park Place with the hat"]
    assert two["intent"] == "trade"
    assert two["slots"] == {"give": ["Baltic Avenue", "Oriental Avenue"], "get": "Park Place",
                            "player": "hat"}
    bought = steps["buy Baltic Avenue and Oriental Avenue from the dog for 500"]
    assert bought["intent"] == "buy_from"
    assert bought["slots"]["property"] == ["Baltic Avenue", "Oriental Avenue"]
    one = steps["trade Baltic Avenue for Park Place with the hat"]
    assert one["slots"]["give"] == "Baltic Avenue" and one["slots"]["get"] == "Park Place"


def test_transcribe_reports_two_streets_as_a_list(tmp_path: Path) -> None:
    """``banker transcribe`` names slots as ``replay --report`` does (JSON and text)."""
    v = Verdict("sell baltic avenue and oriental avenue to the hat for three hundred", "sell",
                {"property": "Baltic Avenue", "property2": "Oriental Avenue", "player": "hat",
                 "amount": 300}, 0.9, "accept")
    out = io.StringIO()
    print_verdict(tmp_path / "a.wav", v, True, out)
    line = json.loads(out.getvalue())
    assert line["intent"] == "sell"
    assert line["slots"] == {"property": ["Baltic Avenue", "Oriental Avenue"], "player": "hat",
                             "amount": 300}
    out = io.StringIO()
    print_verdict(tmp_path / "a.wav", v, False, out)
    assert "property=Baltic Avenue, Oriental Avenue player=hat amount=300" in out.getvalue()


def test_three_streets_on_a_side_are_one_list() -> None:
    assert spec_slots({"get": "Boardwalk", "give": "Baltic Avenue", "give2": "Oriental Avenue",
                       "give3": "Vermont Avenue"}) == {
        "get": "Boardwalk", "give": ["Baltic Avenue", "Oriental Avenue", "Vermont Avenue"]}
