"""The text matcher against a YAML table of sentences (hassil's habit)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from banker.editions import EditionError, load_edition
from banker.nlu.matcher import Ambiguous, Matcher, NotRecognized, Recognized

TABLE = yaml.safe_load((Path(__file__).parent / "matcher_table.yaml").read_text())


@cache
def matcher(edition: str) -> Matcher:
    return Matcher.for_edition(load_edition(edition))


@pytest.mark.parametrize("row", TABLE, ids=[r["text"] or "<empty>" for r in TABLE])
def test_sentence(row: dict[str, Any]) -> None:
    edition = row.get("edition", "voice-banking")
    try:
        m = matcher(edition)
    except EditionError:
        pytest.fail(f"edition {edition} is not available yet")
    result = m.match(row["text"])
    if "ambiguous" in row:
        assert isinstance(result, Ambiguous), result
        names = {str(v) for c in result.candidates for v in c.slots.values()}
        assert set(row["ambiguous"]) <= names
        return
    if row["intent"] == "none":
        assert isinstance(result, NotRecognized), result
        return
    assert isinstance(result, Recognized), result
    assert result.intent == row["intent"]
    assert dict(result.slots) == row.get("slots", {})


def test_names_of_another_edition_are_kept_exact_not_snapped() -> None:
    r = matcher("voice-banking").match("pay rent on Ventnor Avenue")
    assert isinstance(r, Recognized) and r.slots["property"] == "Ventnor Avenue"
