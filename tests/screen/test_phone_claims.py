"""The phones' rules without a browser: one phone per token, taps and holds, lost and gone."""

from __future__ import annotations

from typing import Any

import pytest

from banker.screen import phones as ph
from banker.screen.phones import Phones, parse_key, phone_key


class Sink:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def press(self, key: str, at: float, mic: bool) -> None:
        self.events.append(("press", key))

    def release(self, key: str, at: float) -> None:
        self.events.append(("release", key))

    def audio(self, key: str, pcm: bytes, at: float) -> None:
        self.events.append(("audio", key))


class Page:
    def __init__(self, table: Phones, phone_id: str) -> None:
        self.id = phone_id
        self.got: list[dict[str, Any]] = []
        self.send = self.got.append
        table.connect(phone_id, self.send)

    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.got) if m["type"] == kind)


@pytest.fixture
def table() -> tuple[Phones, Sink]:
    sink = Sink()
    return Phones({"dog": "Dog", "cat": "Cat"}, sink=sink), sink


def test_a_token_is_one_phones_until_that_phone_has_gone(table: tuple[Phones, Sink],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    phones, _ = table
    a, b = Page(phones, "a"), Page(phones, "b")
    phones.claim("a", "dog")
    assert a.last("phone")["mine"] == "dog" and b.last("phone")["taken"] == ["dog"]
    phones.claim("b", "dog")
    assert b.last("refused")["text"] == ph.TAKEN and b.last("phone")["mine"] is None
    phones.claim("b", "horse")
    assert b.last("refused")["text"] == ph.NO_SUCH
    phones.disconnect("a", False, a.send)  # lost, not left: the token waits for it
    phones.claim("b", "dog")
    assert b.last("refused")["text"] == ph.TAKEN
    back = Page(phones, "a")  # the same phone comes back
    assert back.last("phone")["mine"] == "dog"
    phones.disconnect("a", False, back.send)
    monkeypatch.setattr(ph, "GONE_AFTER", 0.0)
    phones.claim("b", "dog")
    assert b.last("phone")["mine"] == "dog"


def test_a_page_that_left_frees_its_token_at_once(table: tuple[Phones, Sink]) -> None:
    phones, _ = table
    a, b = Page(phones, "a"), Page(phones, "b")
    phones.claim("a", "cat")
    phones.disconnect("a", True, a.send)
    phones.claim("b", "cat")
    assert b.last("phone")["mine"] == "cat"


def test_a_tap_goes_on_a_hold_ends_at_release_and_a_lost_phone_lets_go(
        table: tuple[Phones, Sink], monkeypatch: pytest.MonkeyPatch) -> None:
    phones, sink = table
    a = Page(phones, "a")
    phones.claim("a", "dog")
    phones.mic("a", "on")
    key = phone_key("dog", "a")
    assert parse_key(key) == ("dog", "a") and parse_key("1") is None
    phones.press("a")
    phones.release("a")  # at once: a tap, the turn goes on
    assert sink.events == [("press", key)]
    phones.audio("a", b"\0\0")
    assert sink.events[-1] == ("audio", key)
    phones.press("a")  # a second tap ends the turn
    assert sink.events[-1] == ("release", key)
    phones.listening(key, False)
    monkeypatch.setattr(ph, "TAP", 0.0)
    phones.press("a")
    phones.release("a")  # a hold: letting go ends the turn
    assert sink.events[-2:] == [("press", key), ("release", key)]
    phones.listening(key, False)
    phones.press("a")
    phones.disconnect("a", False, a.send)  # lost in the middle of a turn: it ends as let go
    assert sink.events[-2:] == [("press", key), ("release", key)]


def test_lines_go_to_the_players_they_name_ask_or_answer(table: tuple[Phones, Sink]) -> None:
    phones, _ = table
    a, b = Page(phones, "a"), Page(phones, "b")
    phones.claim("a", "dog")
    phones.claim("b", "cat")
    phones.said("Sold! Baltic Avenue is yours, Dog. M1,440 left.")
    assert a.last("phone")["said"].startswith("Sold!") and b.last("phone")["said"] == ""
    phones.said("Do you want to buy it?", asked=("cat",))
    assert b.last("phone")["said"] == "Do you want to buy it?"
    assert a.last("phone")["said"].startswith("Sold!")


def test_a_press_that_waits_for_the_last_turn_keeps_its_sound(table: tuple[Phones, Sink],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    phones, sink = table
    Page(phones, "a")
    phones.claim("a", "dog")
    phones.mic("a", "on")
    key = phone_key("dog", "a")
    monkeypatch.setattr(ph, "TAP", 0.0)
    phones.press("a")
    phones.listening(key, True)
    phones.release("a")  # the turn is being decoded...
    assert not phones.streaming(key)
    phones.press("a")  # ...and the player presses again: the new turn waits for it
    phones.listening(key, False)
    assert phones.streaming(key)
    phones.audio("a", b"\0\0")
    assert sink.events[-1] == ("audio", key)


def test_each_phone_learns_its_own_voice() -> None:
    from banker.frontends.voice.playing import voice_of

    assert voice_of("dog", "1") == "dog"  # the table's microphone
    assert voice_of("dog", phone_key("dog", "a")) == "dog@phone:a"
    assert voice_of("dog", phone_key("dog", "b")) != voice_of("dog", phone_key("dog", "a"))
