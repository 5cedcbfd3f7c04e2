"""The Moonshine second ear: a real decode of a piper clip, the snap onto the grammar, and
the gate that asks it only when pocketsphinx is unsure (real pocketsphinx, real Moonshine)."""

from __future__ import annotations

from typing import Any

import pytest

from banker.speech import guided
from banker.speech.grammar import SpeechGrammar
from banker.speech.meanings import by_a_name, by_an_amount, has_amount, matcher_meaning
from banker.speech.moonshine_asr import (
    EOS,
    MoonshineRecognizer,
    model_dir,
    once,
    read_tokenizer,
    snap,
    spoken_words,
)
from banker.speech.two_ears import Room, SecondEar
from banker.tools import clips


@pytest.fixture(scope="module")
def unfloored(vb_grammar: SpeechGrammar) -> Any:
    """Pocketsphinx as it read espeak-ng's digital silence before the noise floor
    (``Tuning.floor``). The rules below need the first ear's unsure or wrong
    readings of these clips, which the floor mended; the rules are the same either way."""
    from banker.speech.pocketsphinx_asr import PocketsphinxRecognizer, Tuning

    return PocketsphinxRecognizer(vb_grammar, Tuning(floor=0.0))


def _unfloored(ears: Any) -> Any:
    """``ears`` with the first ear as ``unfloored`` reads (see there)."""
    from dataclasses import replace

    ears.first.tuning = replace(ears.first.tuning, floor=0.0)
    return ears


@pytest.fixture(scope="module")
def moonshine(vb_grammar: SpeechGrammar) -> MoonshineRecognizer:
    return MoonshineRecognizer(vb_grammar)


def _both_ears_on(dev_line: int, text: str, intent: str, voice: tuple[str, int, int, float],
                  condition: str = "clean") -> tuple[Any, Any]:
    """The voice-banking recogniser ``play`` builds with both ears, and a dev-set line's
    audio as the bench hears it (``voice``: an espeak-ng voice, speed, pitch and noise)."""
    from banker.tools import bench
    from banker.tools.clips import Voice

    item = bench.Item(text, intent, (), Voice("espeak", *voice), "any")
    return _two_ears(), bench.line_audio(dev_line, item, condition)


def _two_ears(edition: str = "voice-banking") -> Any:
    """The recogniser ``play`` builds for ``edition`` with both ears (the settings' own,
    the second ear on)."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.engine import make_engine

    ed = load_edition(edition)
    config = load_config()
    return make_engine({**config, "asr": {**config["asr"], "second_ear": "moonshine"}}, ed,
                       grammar=SpeechGrammar(ed))


def test_free_text_becomes_the_grammar_words() -> None:
    assert spoken_words("Pay $200 to the dog.") == ["pay", "two", "hundred", "to", "the", "dog"]
    assert spoken_words("A light-roast coffee, please!") == ["a", "light", "roast", "coffee",
                                                             "please"]


def test_snap_finds_the_nearest_command_and_keeps_chatter_far(vb_grammar: SpeechGrammar
                                                              ) -> None:
    fsa = vb_grammar.fsa("any")
    near = snap(spoken_words("Pay rent on Park Plays."), fsa)
    assert matcher_meaning(vb_grammar)(near.text) == ("pay_rent", (("property", "Park Place"),))
    assert 0 < near.distance < 0.1
    far = snap(spoken_words("my sister is moving to leeds next month"), fsa)
    assert far.distance > 0.35  # MoonshineRecognizer's default: no command at all


def test_a_decoding_loop_is_said_once_and_amounts_stay_whole(
        vb_grammar: SpeechGrammar, moonshine: MoonshineRecognizer) -> None:
    """Moonshine's greedy loop in noise (saved babble and pink records) comes back as one
    copy, so it snaps onto the command; a stammer keeps what follows it; "eighty eight" and
    "sixty six" are amounts, not a loop cut short."""
    fsa, sound = vb_grammar.fsa("any"), moonshine.sound
    moonshine.prepare("any")
    looped = spoken_words("Can solve that. Can solve that. Can solve")
    assert once(looped) == ["can", "solve", "that"]
    assert snap(looped, fsa, sound).distance > 0.35  # as it came, no command at all
    near = snap(once(looped), fsa, sound)
    assert matcher_meaning(vb_grammar)(near.text)[0] == "cancel" and near.distance <= 0.2
    assert once(spoken_words("canzo canzo canzo canzo can")) == ["canzo"]
    assert once(spoken_words("forget it forget it forget it forget")) == ["forget", "it"]
    assert once(spoken_words("I would like to, I would like to buy Boardwalk")) == \
        spoken_words("I would like to buy Boardwalk")
    for whole in ("pay eighty eight", "eighty eight", "sixty six hundred", "pay two hundred"):
        assert once(spoken_words(whole)) == spoken_words(whole)


def test_tokenizer_of_the_wheel() -> None:
    tokens = read_tokenizer(model_dir() / "tokenizer.bin")
    assert len(tokens) == 32000
    assert tokens[EOS] == b"</s>"


def test_moonshine_hears_a_piper_command(moonshine: MoonshineRecognizer,
                                         vb_grammar: SpeechGrammar) -> None:
    pcm = clips.pad(clips.speech("pay rent on Park Place"))
    heard = moonshine.recognize(pcm, "any")
    assert "park" in moonshine.last_transcript.lower()
    assert matcher_meaning(vb_grammar)(heard.text) == ("pay_rent", (("property", "Park Place"),))
    assert heard.confidence > 0.8


def test_second_ear_only_when_unsure_and_agreement_raises(
        recognizer: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    pcm = clips.pad(clips.speech("buy Baltic Avenue"))
    first = recognizer.recognize(pcm, "any")
    assert first.text
    never = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), unsure=(0.0, 0.0))
    alone = never.recognize(pcm, "any")
    assert "second_ear_agrees" not in alone.details
    assert alone.engine == "pocketsphinx"  # the first ear's own result, untouched
    assert alone.confidence < 0.97
    always = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), unsure=(0.0, 1.01))
    both = always.recognize(pcm, "any")
    assert both.details["second_ear_agrees"] == 1.0
    assert both.text == first.text  # the second ear never changes the words
    assert both.confidence >= 0.97
    assert both.engine == "pocketsphinx+moonshine"


def test_settings_put_the_second_ear_behind_pocketsphinx(vb_grammar: SpeechGrammar) -> None:
    from banker.speech.engine import make_engine

    said: list[str] = []
    plain = make_engine({"asr": {}}, vb_grammar.edition, said.append, vb_grammar)
    both = make_engine({"asr": {"second_ear": "moonshine"}}, vb_grammar.edition, said.append,
                       vb_grammar)
    assert not isinstance(plain, SecondEar) and isinstance(both, SecondEar)
    assert said == []


def test_a_command_the_first_ear_took_for_nothing_is_asked_about(
        recognizer: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    """espeak-ng's "help" is explained better by a string of phones than by any command
    (measured: pocketsphinx hears nothing); Moonshine writes "help", so it is asked about
    ("doubted": never acted on at once by itself). Chatter stays nothing."""
    from banker.speech.ear_rules import DOUBTED, EMPTY_BELOW

    ear = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), empty_below=EMPTY_BELOW)
    pcm = clips.pad(clips.speech("help", clips.ESPEAK))
    assert recognizer.recognize(pcm, "any").text == ""
    heard = ear.recognize(pcm, "any")
    assert heard.text == "help" and heard.confidence == DOUBTED
    assert heard.details["second_ear_alone"] == 1.0
    chatter = clips.pad(clips.speech("my sister is moving to leeds next month"))
    first = recognizer.recognize(chatter, "any")
    assert ear.recognize(chatter, "any").text == first.text  # Moonshine's words are far off
    off = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar))
    assert off.recognize(pcm, "any").text == ""  # without empty_below: as before


def test_one_word_the_first_ear_took_for_nothing_may_be_snapped_further(
        recognizer: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    """espeak-ng's (en-us+f2) "help": pocketsphinx hears nothing (its garbage path wins, as
    for every dev-set "help"); Moonshine writes "Held,", 0.25 from "help". One word may be
    snapped as far as ``EMPTY_BELOW`` (0.25; 0.1 left it unheard), two
    words or more as far as a rescue (``RESCUE_WITHIN``): "i do not agree" for "I don't
    bloom" (I'm broke) stays unheard."""
    from banker.speech.ear_rules import DOUBTED, EMPTY_BELOW, RESCUE_UNDER, RESCUE_WITHIN, nothing_within
    from banker.tools.clips import Voice

    assert nothing_within(EMPTY_BELOW, (RESCUE_UNDER, RESCUE_WITHIN), 1) == EMPTY_BELOW
    assert nothing_within(EMPTY_BELOW, (RESCUE_UNDER, RESCUE_WITHIN), 3) == RESCUE_WITHIN < 0.25
    pcm = clips.pad(clips.speech("help", Voice("espeak", "en-us+f2", 175, 50)))
    assert recognizer.recognize(pcm, "any").text == ""
    snapped = moonshine.recognize(pcm, "any")
    assert snapped.text == "help" and 0.1 < snapped.details["snap_distance"] <= EMPTY_BELOW
    ear = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), empty_below=EMPTY_BELOW,
                    rescue=(RESCUE_UNDER, RESCUE_WITHIN))
    heard = ear.recognize(pcm, "any")
    assert (heard.text, heard.confidence) == ("help", DOUBTED)
    before = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), empty_below=0.1,
                       rescue=(RESCUE_UNDER, RESCUE_WITHIN))
    assert before.recognize(pcm, "any").text == ""


def test_the_second_ears_settings_and_the_table_never_waits_for_it(
        vb_grammar: SpeechGrammar) -> None:
    from banker.config import load_config
    from banker.speech.ear_rules import EMPTY_BELOW
    from banker.speech.engine import make_engine
    from banker.speech.moonshine_asr import BackgroundModel

    config = load_config()
    assert config["asr"]["second_ear"] == "moonshine"  # the default: both ears
    asked = {**config, "asr": {**config["asr"], "second_ear": "moonshine"}}
    ear = make_engine(asked, vb_grammar.edition, None, vb_grammar)
    assert isinstance(ear, SecondEar) and ear.empty_below == EMPTY_BELOW and ear.veto
    pcm = clips.pad(clips.speech("pay rent on Park Place"))
    live = BackgroundModel(print, wait=False)
    assert live.transcribe(pcm) == ""  # still loading (seconds): the turn does not wait
    assert live.loaded(120)
    assert "park" in live.transcribe(pcm).lower()
    offline = BackgroundModel(print)  # offline files wait: the same words on every start
    assert "park" in offline.transcribe(pcm).lower()


def test_table_talk_moonshine_writes_down_is_doubted_twice_in_a_quiet_room(
        recognizer: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    """Piper's "my sister is moving to leeds next month" fits "buy St. Charles Place please"
    well enough for pocketsphinx to ask about it; Moonshine writes the sentence down, which is
    no command: in a quiet room the doubt doubles. In babble the veto is off."""
    from banker.speech.ear_rules import VETO_FACTOR

    pcm = clips.pad(clips.speech("my sister is moving to leeds next month"))
    first = recognizer.recognize(pcm, "any")
    assert first.text and 0.1 <= first.confidence < 0.85  # measured: asked about
    ear = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), veto=True)
    heard = ear.recognize(pcm, "any")
    assert heard.details.get("second_ear_vetoed") == 1.0
    assert heard.confidence == pytest.approx(first.confidence * VETO_FACTOR)
    assert heard.text == first.text  # the words stay; only the doubt grows
    command = clips.pad(clips.speech("buy St. Charles Place please"))
    assert "second_ear_vetoed" not in ear.recognize(command, "any").details
    import numpy as np

    noisy = clips.mix(pcm, "babble", 10.0, np.random.default_rng(3))
    assert "second_ear_vetoed" not in ear.recognize(noisy, "any").details


def test_below_the_band_two_ears_word_for_word_act_and_a_quiet_room_acts_on_money(
        recognizer: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    """espeak-ng's (en-gb+m5, fast, high) "I am bankrupt" is read right by pocketsphinx with
    almost no confidence (measured 0.10, below the band); Moonshine writes "I am bankrupt."
    word for word: two ears stand behind it. In this quiet room that is ``HEARD_CLEARLY``,
    acted on at once (in a new game: refused with its reason, as the rules say, instead of
    "Did you say…?"); the same two readings through 10 dB babble are only ``TWICE``: a
    low-risk command is done at once, a money command asked about. Without
    ``word_for_word`` the first ear's doubt stays."""
    import numpy as np

    from banker.interpreter.hearing import ACCEPT_LOW, ACCEPT_MONEY
    from banker.speech.ear_rules import BAND, HEARD_CLEARLY, TWICE, twice
    from banker.tools.clips import Voice
    from banker.tools.transcribe import NewGameJudge

    assert ACCEPT_LOW <= TWICE < ACCEPT_MONEY <= HEARD_CLEARLY
    pcm = clips.pad(clips.speech("i am bankrupt", Voice("espeak", "en-gb+m5", 175, 65)))
    first = recognizer.recognize(pcm, "any")
    assert first.text == "i am bankrupt" and first.confidence < BAND[0], first
    ear = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar), word_for_word=True)
    heard = ear.recognize(pcm, "any")
    assert heard.confidence == HEARD_CLEARLY and heard.details["second_ear_word_for_word"] == 1.0
    judge = NewGameJudge(vb_grammar.edition, matcher=vb_grammar.matcher)
    assert judge.verdict(heard).decision == "accept"
    noisy = clips.mix(pcm, "babble", 10.0, np.random.default_rng(3))
    assert twice(0.0, "i am bankrupt", 0.69, Room(noisy, None)) == TWICE
    assert twice(0.0, "i am bankrupt", 0.69, Room(pcm, None)) == HEARD_CLEARLY
    assert twice(0.05, "i am bankrupt", 0.69, Room(pcm, None)) == 0.69  # not word for word
    plain = SecondEar(recognizer, moonshine, matcher_meaning(vb_grammar))
    assert plain.recognize(pcm, "any").confidence == first.confidence


def test_the_same_command_from_both_ears_is_asked_about_however_unsure_the_first(
        unfloored: Any, moonshine: MoonshineRecognizer, vb_grammar: SpeechGrammar) -> None:
    """espeak-ng (en-gb+m1, fast, high) "the bank pays me thirty five hundred": pocketsphinx
    reads it right at 0.08 (below the band), Moonshine writes it nearly so (a snap of about
    0.24): two ears heard the same command, so it is asked about (``DOUBTED``), not "Sorry?".
    Without ``loose`` only a word-for-word reading counted there."""
    from banker.speech.ear_rules import BAND, DOUBTED, LOOSE_AGREED
    from banker.tools.clips import Voice
    from banker.tools.transcribe import NewGameJudge

    voice = Voice("espeak", "en-gb+m1", 175, 65)
    pcm = clips.pad(clips.speech("the bank pays me thirty five hundred", voice))
    first = unfloored.recognize(pcm, "any")
    assert first.text == "the bank pays me thirty five hundred" and first.confidence < BAND[0]
    meaning = matcher_meaning(vb_grammar)
    second = moonshine.recognize(pcm, "any")
    assert meaning(second.text) == meaning(first.text), second
    assert second.details["snap_distance"] > 0.0
    ear = SecondEar(unfloored, moonshine, meaning, word_for_word=True, loose=LOOSE_AGREED)
    heard = ear.recognize(pcm, "any")
    assert heard.confidence == DOUBTED and heard.details["second_ear_loosely_agrees"] == 1.0
    judge = NewGameJudge(vb_grammar.edition, matcher=vb_grammar.matcher)
    assert judge.verdict(heard).decision == "confirm"
    plain = SecondEar(unfloored, moonshine, meaning, word_for_word=True)
    assert plain.recognize(pcm, "any").confidence == first.confidence


def test_the_ears_differing_by_a_name_make_a_choice_question() -> None:
    """espeak-ng's "…from the hat…": pocketsphinx hears "the cat", unsure; Moonshine writes
    "the hat". Moonshine's reading becomes a second reading, and Mr. Monopoly asks which one
    instead of "Did you say … the cat?". Readings that differ by an amount never do."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.interpreter.session import Session
    from banker.speech.engine import make_engine
    from banker.tools.clips import ESPEAK

    sv = load_edition("secret-vault")
    grammar = SpeechGrammar(sv)
    ears = make_engine(load_config(), sv, grammar=grammar)
    heard = ears.recognize(clips.pad(clips.speech("buy Park Place from the hat for five hundred",
                                                  ESPEAK)))
    # the two readings, whichever leads (Moonshine held to the grammar reads "the hat" near
    # word for word, and so it is the one swapped in, "the cat" the other)
    assert heard.confidence < 0.9 and len(heard.alternatives) == 1, heard
    assert {heard.text, heard.alternatives[0][0]} == {
        "buy park place from the cat for five hundred",
        "buy park place from the hat for five hundred"}, heard
    s = Session(sv, ["cat", "hat", "dog"], matcher=grammar.matcher)
    hearing = s.understand(heard, "dog")
    assert hearing.choose and {c.slots["player"] for c in hearing.candidates} == {"cat", "hat"}
    meaning = matcher_meaning(grammar)
    assert not by_a_name(meaning("sell Baltic Avenue to the cat for three hundred"),
                          meaning("sell Baltic Avenue to the hat for four hundred"))
    assert not by_a_name(meaning("mortgage Baltic Avenue"), meaning("unmortgage Baltic Avenue"))


def test_a_name_too_unsure_to_ask_about_is_asked_between_when_both_ears_heard_the_command(
        ) -> None:
    """espeak-ng's "unlock Ventnor Avenue" (a README phrasing): pocketsphinx hears it right
    but at 0.19, below the floor (it was "Sorry?"); Moonshine writes "unlock the oriental
    avenue", 0.33 from its command (beyond the agreement's 0.2, within its own 0.35). Both
    ears heard "unlock", so he asks which street at ``NAMED`` (in the band, asked about on its
    own, a second reading this far adds nothing: only near ones, within ``AGREE_WITHIN``)."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.interpreter.session import Session
    from banker.speech.ear_rules import AGREE_WITHIN, NAMED, NAMED_WITHIN, RESCUE_UNDER
    from banker.speech.engine import make_engine
    from banker.tools.clips import ESPEAK

    sv = load_edition("secret-vault")
    grammar = SpeechGrammar(sv)
    ears = _unfloored(make_engine(load_config(), sv, grammar=grammar))
    pcm = clips.pad(clips.speech("unlock Ventnor Avenue", ESPEAK))
    first = ears.first.recognize(pcm, "any")
    assert first.text == "unlock ventnor avenue" and first.confidence < RESCUE_UNDER, first
    second = ears.second.recognize(pcm, "any")
    assert AGREE_WITHIN < second.details["snap_distance"] <= NAMED_WITHIN, second
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_by_a_name") == 1.0, heard
    assert heard.confidence == NAMED and heard.alternatives == ((second.text, NAMED),), heard
    hearing = Session(sv, ["cat", "hat", "dog"], matcher=grammar.matcher).understand(heard, "cat")
    assert hearing.choose and {c.slots["property"] for c in hearing.candidates} == {
        "Ventnor Avenue", "Oriental Avenue"}, hearing


def test_a_command_moonshine_wrote_word_for_word_is_asked_instead_of_an_unsure_other() -> None:
    """espeak-ng's "unmortgage Baltic Avenue": pocketsphinx hears "mortgage Baltic Avenue",
    not sure enough to act (below ``SWAP_UNDER``); Moonshine writes "An mortgage-baltic
    avenue", a snap of at most ``SWAP_WITHIN`` from "unmortgage Baltic Avenue". Mr. Monopoly
    asks about Moonshine's reading, never acting on it at once. Without the swap the first
    ear's reading stays."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.ear_rules import DOUBTED, SWAP_UNDER, SWAP_WITHIN
    from banker.speech.engine import make_engine
    from banker.tools.clips import ESPEAK

    sv = load_edition("secret-vault")
    grammar = SpeechGrammar(sv)
    ears = _unfloored(make_engine(load_config(), sv, grammar=grammar))
    assert isinstance(ears, SecondEar) and ears.swap_below == SWAP_WITHIN
    pcm = clips.pad(clips.speech("unmortgage Baltic Avenue", ESPEAK))
    first = ears.first.recognize(pcm, "any")
    assert first.text == "mortgage baltic avenue" and first.confidence < SWAP_UNDER, first
    heard = ears.recognize(pcm, "any")
    assert heard.text == "unmortgage baltic avenue" and heard.confidence == DOUBTED, heard
    assert heard.details["second_ear_swapped"] == 1.0
    plain = SecondEar(ears.first, ears.second, matcher_meaning(grammar))
    assert plain.recognize(pcm, "any").text == "mortgage baltic avenue"


def test_a_reading_too_unsure_to_ask_about_gives_way_to_a_near_second_one(
        unfloored: Any, vb_grammar: SpeechGrammar, moonshine: MoonshineRecognizer) -> None:
    """espeak-ng's "rent on ventnor": pocketsphinx hears "rent on atlantic" below the confirm
    floor ("Sorry?"); Moonshine writes "Rent on mentor.", snapped onto "rent on ventnor"
    beyond ``SWAP_WITHIN`` (no swap would take it) and within ``RESCUE_WITHIN``. With
    ``rescue``, Moonshine's reading is asked about, the first ear's kept as the other reading
    of a choice (they differ by a name); without it, the first ear's reading stays as it
    was."""
    from banker.speech.ear_rules import DOUBTED, RESCUE_UNDER, RESCUE_WITHIN, SWAP_WITHIN

    pcm = clips.pad(clips.speech("rent on ventnor", clips.ESPEAK))
    meaning = matcher_meaning(vb_grammar)
    first = unfloored.recognize(pcm, "any")
    assert first.text and first.confidence < RESCUE_UNDER, first
    second = moonshine.recognize(pcm, "any")
    assert second.text == "rent on ventnor", second
    assert SWAP_WITHIN < second.details["snap_distance"] <= RESCUE_WITHIN, second
    assert by_a_name(meaning(first.text), meaning(second.text)), (first, second)
    ear = SecondEar(unfloored, moonshine, meaning, swap_below=SWAP_WITHIN,
                    rescue=(RESCUE_UNDER, RESCUE_WITHIN))
    heard = ear.recognize(pcm, "any")
    assert heard.text == "rent on ventnor" and heard.confidence == DOUBTED, heard
    assert heard.details["second_ear_swapped"] == 1.0
    assert [t for t, _c in heard.alternatives][:1] == [first.text]
    plain = SecondEar(unfloored, moonshine, meaning, swap_below=SWAP_WITHIN)
    kept = plain.recognize(pcm, "any")
    assert (kept.text, kept.confidence) == (first.text, first.confidence), kept


def test_a_loose_agreement_is_asked_about_instead_of_sorry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's "what's in the jackpot": pocketsphinx hears the words right but unsure
    (below ``ACCEPT_SAFE``: a query that unsure gets "Sorry?"); Moonshine writes "Wertz in
    the jackpot", the same command after a snap beyond ``AGREE_WITHIN``. With ``loose`` the
    two ears' agreement makes the reading at least ``LOOSE_AGREED`` (a query is answered,
    money asked about, never acted on at once), ``TWICE`` for a reading of two words or more
    (a low-risk command is done too); without it the first ear's doubt stays."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.interpreter.hearing import ACCEPT_MONEY, ACCEPT_SAFE
    from banker.speech.ear_rules import AGREE_WITHIN, LOOSE_AGREED, TWICE
    from banker.speech.engine import make_engine

    jp = load_edition("jackpot")
    grammar = SpeechGrammar(jp)
    ears = make_engine(load_config(), jp, grammar=grammar)
    assert isinstance(ears, SecondEar) and ears.loose == LOOSE_AGREED < ACCEPT_MONEY
    pcm = clips.pad(clips.speech("what's in the jackpot", clips.ESPEAK))
    first = ears.first.recognize(pcm, "any")
    assert first.text == "what is in the jackpot" and first.confidence < ACCEPT_SAFE, first
    # held to the grammar, Moonshine confirms the command, trusted: a close
    # agreement in a quiet room, answered at once
    confirmed = ears.second.recognize(pcm, "any")  # the snap's own command, confirmed
    assert confirmed.text == first.text, confirmed
    assert confirmed.details["snap_distance"] == guided.REPORTED_NEAR, confirmed
    assert confirmed.details["guided_score"] >= guided.TRUSTED_ABOVE
    held = ears.recognize(pcm, "any")
    assert held.text == first.text and held.confidence == ears.agreed, held
    monkeypatch.setattr(guided, "TRUSTED_ABOVE", 0.0)  # the loose rule, that line out of reach
    second = ears.second.recognize(pcm, "any")
    assert second.details["snap_distance"] > AGREE_WITHIN and second.text, second
    heard = ears.recognize(pcm, "any")
    assert heard.text == first.text and heard.confidence == TWICE < ACCEPT_MONEY, heard
    assert heard.details["second_ear_loosely_agrees"] == 1.0
    plain = SecondEar(ears.first, ears.second, matcher_meaning(grammar), veto=True)
    assert plain.recognize(pcm, "any").confidence < ACCEPT_SAFE <= LOOSE_AGREED


def test_a_word_for_word_second_reading_is_asked_about_over_a_sure_first_one() -> None:
    """A real recording (the speech-to-intent benchmark: "may I have a double shot iced
    coffee with sweetener") was heard by pocketsphinx as "… house coffee …" at 0.87, sure
    enough to act on money, and by Moonshine word for word as "… iced coffee …". Within the
    whole band the second ear is asked in (below 0.9), such a reading is the one asked about:
    a wrong order is not acted on at once. A close snap only, and never one word."""
    from banker.speech.ear_rules import BAND, SWAP_UNDER, SWAP_WITHIN, takes_second

    assert BAND[1] == SWAP_UNDER
    assert takes_second(0.87, 0.0, 9, False, SWAP_WITHIN, SWAP_UNDER)
    # "Add like a triple shot large iced coffee with sweetener": 0.05 from "i'd like a
    # triple shot …", over pocketsphinx's "double shot" at 0.88 (a real recording)
    assert takes_second(0.88, 0.05, 10, False, SWAP_WITHIN, SWAP_UNDER)
    assert not takes_second(0.87, 0.1, 9, False, SWAP_WITHIN, SWAP_UNDER)
    assert not takes_second(0.87, 0.0, 1, False, SWAP_WITHIN, SWAP_UNDER)


def test_one_word_rescues_a_first_reading_too_unsure_to_ask_about() -> None:
    """espeak-ng's "spin" (Jackpot): pocketsphinx "pay boot two" at 0.22 would get "Sorry?";
    Moonshine's "Stay in." snapped 0.2 onto "spin" is asked about instead. Over a first
    reading that would itself be asked about, one word still never stands in (piper's "buy",
    heard right at 0.79, that Moonshine wrote "Right?")."""
    from banker.speech.ear_rules import RESCUE_UNDER, RESCUE_WITHIN, SWAP_UNDER, SWAP_WITHIN, takes_second

    rescue = (RESCUE_UNDER, RESCUE_WITHIN)
    assert takes_second(0.22, 0.2, 1, True, SWAP_WITHIN, SWAP_UNDER, rescue)
    assert not takes_second(0.22, 0.25, 1, True, SWAP_WITHIN, SWAP_UNDER, rescue)
    assert not takes_second(0.79, 0.0, 1, False, SWAP_WITHIN, SWAP_UNDER, rescue)


def test_a_bid_heard_with_no_auction_open_gives_way_to_a_near_second_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's "spin" (Jackpot, nothing asked: the focus "any"): pocketsphinx hears "bid
    eight", over the confirm floor, but a bid with no auction open is never asked about
    ("Sorry?"); Moonshine's "Stay in." snapped onto "spin" within ``RESCUE_WITHIN`` is asked
    about instead (``never_asked``). With no command counted as never asked, the bid stays,
    and the line is rejected."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.interpreter.hearing import CONFIRM_FLOOR
    from banker.speech import ear_rules
    from banker.speech.ear_rules import DOUBTED, RESCUE_UNDER, RESCUE_WITHIN
    from banker.speech.engine import make_engine
    from banker.tools.transcribe import NewGameJudge

    jp = load_edition("jackpot")
    grammar = SpeechGrammar(jp)
    ears = make_engine(load_config(), jp, grammar=grammar)
    judge = NewGameJudge(jp, matcher=grammar.matcher)
    pcm = clips.pad(clips.speech("spin", clips.ESPEAK))
    first = ears.first.recognize(pcm, "any")
    assert first.text.startswith("bid") and first.confidence >= RESCUE_UNDER, first
    assert judge.hear(first.text, first.confidence).decision == "reject"
    second = ears.second.recognize(pcm, "any")
    assert second.text == "spin" and second.details["snap_distance"] <= RESCUE_WITHIN, second
    heard = ears.recognize(pcm, "any")
    assert (heard.text, heard.confidence) == ("spin", DOUBTED), heard
    v = judge.verdict(heard)
    assert (v.intent, v.decision) == ("spin", "confirm") and v.confidence >= CONFIRM_FLOOR, v
    monkeypatch.setattr(ear_rules, "REFUSED_IN_ANY", frozenset())
    kept = ears.recognize(pcm, "any")
    assert kept.text == first.text and judge.verdict(kept).decision == "reject", kept


def test_a_command_the_first_ear_missed_is_asked_about_within_the_rescue_distance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's (en-gb-x-rp+f2) "put a hotel": pocketsphinx hears nothing; Moonshine
    writes "Brought a hotel.", 0.2 from "buy a hotel" (the same command). Within
    ``RESCUE_WITHIN`` (0.20; 0.15 left it unheard) it is asked about, never
    acted on at once. The guided search reads it word for word ("put a
    hotel"), asked about all the same; the rescue is measured with that search's line out of
    reach."""
    from banker.config import load_config
    from banker.editions import load_edition
    from banker.speech.ear_rules import DOUBTED, EMPTY_BELOW, RESCUE_UNDER, RESCUE_WITHIN
    from banker.speech.engine import make_engine
    from banker.tools.clips import Voice

    vb = load_edition("voice-banking")
    grammar = SpeechGrammar(vb)
    ears = make_engine(load_config(), vb, grammar=grammar)
    assert isinstance(ears, SecondEar) and ears.rescue == (RESCUE_UNDER, RESCUE_WITHIN)
    pcm = clips.pad(clips.speech("put a hotel", Voice("espeak", "en-gb-x-rp+f2", 135, 65)))
    assert ears.first.recognize(pcm, "any").text == ""
    held = ears.recognize(pcm, "any")
    assert (held.text, held.confidence) == ("put a hotel", DOUBTED), held
    monkeypatch.setattr(guided, "TRUSTED_ABOVE", 0.0)
    second = ears.second.recognize(pcm, "any")
    assert 0.15 < second.details["snap_distance"] <= RESCUE_WITHIN, second
    heard = ears.recognize(pcm, "any")
    assert (heard.text, heard.confidence) == ("buy a hotel", DOUBTED), heard
    tighter = SecondEar(ears.first, ears.second, matcher_meaning(grammar),
                        empty_below=EMPTY_BELOW, rescue=(RESCUE_UNDER, 0.15))
    assert tighter.recognize(pcm, "any").text == ""


def test_table_talk_written_down_through_steady_noise_vetoes_an_unsure_reading() -> None:
    """espeak-ng's (en-gb-x-rp) "I miss the old version" in pink noise at 10 dB: pocketsphinx
    forces it onto a bid ("i raise to twelve hundred seven", at 0.51), Moonshine
    writes the words down. The room is not quiet, but the first ear's filter took the noise
    out (``filtered_db`` at least ``STEADY_DB``): steady noise is not talk, so the veto holds
    and the line is ignored. In babble the filter leaves the other talkers, and no veto."""
    import numpy as np

    from banker.config import load_config
    from banker.editions import load_edition
    from banker.interpreter.hearing import CONFIRM_FLOOR
    from banker.speech import speaker_norm
    from banker.speech.ear_rules import STEADY_DB, VETO_BELOW, VETO_FACTOR
    from banker.speech.engine import make_engine
    from banker.tools.clips import Voice
    from banker.tools.transcribe import NewGameJudge

    vb = load_edition("voice-banking")
    ears = make_engine(load_config(), vb, grammar=SpeechGrammar(vb))
    judge = NewGameJudge(vb)
    clip = clips.pad(clips.speech("I miss the old version", Voice("espeak", "en-gb-x-rp", 135, 35)))
    pcm = clips.mix(clip, "pink", 10.0, np.random.default_rng(1))
    assert not speaker_norm.quiet(pcm)
    first = ears.first.recognize(pcm, "any")
    assert first.details["filtered_db"] >= STEADY_DB, first.details
    # unsure enough for the veto, sure enough to be asked about were it a command that makes
    # sense now (a bid with no auction open is "Sorry?" by itself since the bid rule)
    assert CONFIRM_FLOOR <= first.confidence < VETO_BELOW, first
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_vetoed") == 1.0, heard
    assert heard.confidence == pytest.approx(first.confidence * VETO_FACTOR), heard
    assert judge.hear(heard.text, heard.confidence).decision == "reject", heard
    talk = clips.mix(clip, "babble", 10.0, np.random.default_rng(1))
    assert ears.first.recognize(talk, "any").details.get("filtered_db", 0.0) < STEADY_DB


def test_the_rescore_tool_hears_a_record_by_the_live_rules() -> None:
    """``tools.second_ear_score`` scores saved records with the same rule functions the live
    ``SecondEar`` calls: agreement, veto and rescue decide the same way on given numbers.
    The rescued "buy a hotel" names no street: it opens "Which street?" at once (a money
    command without its slot needs a query's certainty), where it used to be
    "Did you say buy a hotel?"; the tighter rescue still leaves it unheard."""
    from banker.speech.ear_rules import RESCUE_UNDER, RESCUE_WITHIN, agreed_confidence, vetoes
    from banker.tools.second_ear_score import Judges, Policy, Record, outcome

    assert agreed_confidence(0.5, True, 0.1, 0.97, 0.69) == 0.97
    assert agreed_confidence(0.5, True, 0.3, 0.97, 0.69) == 0.69
    assert agreed_confidence(0.5, True, 0.3, 0.97, None) is None
    assert agreed_confidence(0.5, False, 0.0, 0.97, 0.69) is None
    assert vetoes(0.5, "", 4, 0.5, lambda: True)
    assert not vetoes(0.5, "", 4, 0.5, lambda: True, far=0.6)
    assert not vetoes(0.5, "buy a hotel", 4, 0.1, lambda: True)
    assert not vetoes(0.5, "", 4, 0.5, lambda: False)
    assert not vetoes(0.5, "", 2, 0.5, lambda: True)
    record = Record("dev", "babble:10", "rescue", "build_hotel", [], "go to jail", 0.2, 0.1,
                    "buy a hotel", 0.82, 0.5, "Brought a hotel.", 0.18)
    judges = Judges(None)
    live = Policy(swap_below=0.05, rescue=(RESCUE_UNDER, RESCUE_WITHIN))
    assert outcome(record, live, judges)["decision"] == "accept"
    assert outcome(record, live, judges)["right"]
    tighter = Policy(swap_below=0.05, rescue=(RESCUE_UNDER, 0.15))
    assert outcome(record, tighter, judges)["decision"] == "reject"


def test_the_live_path_judges_the_room_as_heard_not_as_the_filter_left_it() -> None:
    """At the table the listener filters the noise as the player talks (``LiveCleaner``) and
    hands the ears clean audio. Talk at 10 dB babble looks quiet after the filter, so judged
    on that audio alone the veto would hold in babble live, where on a file (the first ear
    filters it itself) it never does. The listener passes the audio as heard (``raw``) too:
    espeak-ng's (en-us+m3, 155 words a minute) "pass me the dice please" in 10 dB babble
    (seed 7), which pocketsphinx forces onto "purchase the illinois please" (0.3-0.85: in the
    veto's reach, asked about), is not vetoed live; given the filter's output alone it is,
    and ignored.
    Talk in pink noise (en-gb-x-rp's "I miss the old version", 10 dB) is vetoed live as on a
    file: the filter took the steady noise out (``STEADY_DB``). The second ear
    hears the audio as heard, as it does on a file (Moonshine through the filter: 11 of 50
    dev commands right at 10 dB babble, as heard 24)."""
    import numpy as np

    from banker.config import load_config
    from banker.editions import load_edition
    from banker.frontends.voice.listener import decodable
    from banker.interpreter.hearing import CONFIRM_FLOOR
    from banker.speech import speaker_norm
    from banker.speech.denoise import Denoiser, LiveCleaner
    from banker.speech.ear_rules import STEADY_DB, VETO_BELOW
    from banker.speech.engine import make_engine
    from banker.speech.vad import Utterance
    from banker.tools.clips import Voice

    vb = load_edition("voice-banking")
    ears = make_engine(load_config(), vb, grammar=SpeechGrammar(vb))
    denoiser = Denoiser()

    def live(pcm: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        clean = LiveCleaner(denoiser)
        for i in range(0, len(pcm), 480):  # 30 ms frames, as the microphone delivers them
            clean.feed(pcm[i:i + 480].tobytes())
        return decodable(Utterance(pcm, "silence", None, None), clean, True)

    clip = clips.pad(clips.speech("pass me the dice please", Voice("espeak", "en-us+m3", 155, 50)))
    talk = clips.mix(clip, "babble", 10.0, np.random.default_rng(7))
    audio, raw = live(talk)
    assert raw is not None and not speaker_norm.quiet(raw)
    assert speaker_norm.quiet(audio)  # the filter's output alone would pass for a quiet room
    assert not Room(audio, raw)() and Room(audio, None)()  # money word for word: as heard
    given: list[np.ndarray] = []
    second = ears.second

    class Heard:  # the real Moonshine, noting what it was given
        engine = second.engine

        def recognize(self, pcm: np.ndarray, focus: str = "any", *a: object) -> object:
            given.append(np.asarray(pcm))
            return second.recognize(pcm, focus)

    ears.second = Heard()
    heard = ears.recognize(audio, "any", "", raw)
    ears.second = second
    assert len(given) == 1 and np.array_equal(given[0], raw) and not np.array_equal(raw, audio)
    assert heard.details["filtered_db"] < STEADY_DB, heard.details
    # talk forced onto a command, unsure enough for the veto: kept as heard in babble
    assert heard.text and CONFIRM_FLOOR <= heard.confidence < VETO_BELOW, heard
    assert "second_ear_vetoed" not in heard.details, heard
    left = ears.recognize(audio, "any")  # judged on the filter's output alone: a quiet room
    assert left.details.get("second_ear_vetoed") == 1.0, left
    assert left.text == heard.text and left.confidence < CONFIRM_FLOOR, left
    hum = clips.mix(clips.pad(clips.speech("I miss the old version", Voice("espeak", "en-gb-x-rp", 135, 35))),
                    "pink", 10.0, np.random.default_rng(1))
    audio, raw = live(hum)
    heard = ears.recognize(audio, "any", "", raw)
    assert heard.details["filtered_db"] >= STEADY_DB and heard.details.get("second_ear_vetoed") == 1.0, heard


def test_words_like_the_first_reading_are_that_command_said_unclearly_not_talk() -> None:
    """The measure behind the veto's exceptions (``ear_rules.toward``, ``unclear``):
    Moonshine's words within ``VETO_NEAR`` of the first ear's own reading may be that command
    said unclearly; talk that only happens to be near some command is not. Words that make no
    command spare only a first reading sure enough to answer a query; words a far snap made a
    command of (``VETO_FAR``) veto only an unsure first reading they are not like."""
    from banker.speech.ear_rules import VETO_NEAR, VETO_NEAR_ABOVE, toward, unclear
    from banker.speech.protocols import Heard, WordScore

    def said(text: str, command: str = "", conf: float = 1.0) -> Heard:
        return Heard(command, conf, tuple(WordScore(w, 0.0) for w in spoken_words(text)))

    vault = said("what is in the vault", "what is in the vault", VETO_NEAR_ABOVE)
    assert toward(said("Works in the mild,"), vault, VETO_NEAR)
    assert not toward(said("I'm never going to win"), said("never mind", "never mind"), VETO_NEAR)
    assert not toward(said("Works in the mild,"), vault, 0.0)  # 0: never near enough
    assert unclear(vault, said("Works in the mild,"))
    unsure = said("what is in the vault", "what is in the vault", VETO_NEAR_ABOVE - 0.01)
    assert not unclear(unsure, said("Works in the mild,"))
    dice = said("pay car three hundred please", "pay car three hundred please", 0.48)
    far_command = said("Pulse me the nice leaves,", "purchase the atlantic please")
    assert not unclear(dice, far_command)  # talk: vetoed
    assert unclear(said("say that again", "say that again", 0.8),
                   said("Say, not on gun.", "pay rent on illinois"))  # sure: kept
    assert unclear(unsure, said("Works in the mild,", "raise the bid"))  # like it: kept
    # the same command by another name (espeak-ng's "unlock Ventnor Avenue", 0.53, written
    # "Unlock men to the ravine, who,?" and snapped to Oriental Avenue): a command, kept
    ventnor = said("unlock ventnor avenue", "unlock ventnor avenue", 0.53)
    oriental = said("Unlock men to the ravine, who,?", "unlock the oriental avenue")
    assert not unclear(ventnor, oriental)
    assert unclear(ventnor, oriental, same_command=True)


def test_talk_a_far_snap_made_a_command_of_vetoes_an_unsure_first_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's (en-us-nyc, 135 words a minute, pitch 65) "check the oven please", a quiet
    room: pocketsphinx forces it onto "can i pay the dog one please" (0.3-0.6: it would be
    asked about); Moonshine writes "Chuck, little man, please.", which only a far snap makes a
    command of ("purchase states please", at least ``VETO_FAR``, within its own limit; held
    to the grammar it scores over ``DISOWNED``, so the command is not dropped), nothing like
    the first reading: vetoed, and the line is ignored. With ``VETO_FAR`` out of reach the
    first reading stays as it was, asked about."""
    from banker.interpreter.hearing import CONFIRM_FLOOR
    from banker.speech import ear_rules
    from banker.speech.ear_rules import DISOWNED, VETO_FACTOR, VETO_FAR
    from banker.tools.clips import Voice

    ears = _two_ears()
    pcm = clips.pad(clips.speech("check the oven please", Voice("espeak", "en-us-nyc", 135, 65)))
    first = ears.first.recognize(pcm, "any")
    assert first.text and CONFIRM_FLOOR <= first.confidence < 2 * CONFIRM_FLOOR, first
    second = ears.second.recognize(pcm, "any")
    assert second.text and second.details["snap_distance"] >= VETO_FAR, second
    assert second.details.get("held_score", 0.0) >= DISOWNED, second  # a command, not disowned
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_vetoed") == 1.0, heard
    assert heard.confidence == pytest.approx(first.confidence * VETO_FACTOR)
    assert heard.confidence < CONFIRM_FLOOR
    monkeypatch.setattr(ear_rules, "VETO_FAR", 1.01)  # no snap is that far: the rule off
    kept = ears.recognize(pcm, "any")
    assert "second_ear_vetoed" not in kept.details, kept
    assert (kept.text, kept.confidence) == (first.text, first.confidence), kept


def test_three_words_of_talk_veto_and_the_first_readings_words_held_to_the_grammar_do_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Held-out dev set (seed 7). espeak-ng's (en-gb-x-rp+f2) "please stop singing", line
    245, clean: pocketsphinx forces it onto "the car is leaving" (it would be asked about);
    Moonshine writes the three words down, no command: vetoed (``VETO_WORDS`` is 3).
    espeak-ng's (en-us-nyc+m5) "say that again", line 116, at 10 dB pink noise: pocketsphinx
    hears it right (0.80), Moonshine writes "So they're talking", three words no command is
    near; but held to the grammar its decoder reads "say that again", the first reading word
    for word (under the trusted line, over ``HELD_ABOVE``): no veto, the command is done at
    once. With that line out of reach the veto comes back and the command is lost."""
    from banker.editions import load_edition
    from banker.interpreter.hearing import CONFIRM_FLOOR
    from banker.speech import ear_rules
    from banker.tools.transcribe import NewGameJudge

    ears, pcm = _both_ears_on(245, "please stop singing", "none",
                              ("en-gb-x-rp+f2", 175, 35, 0.667))
    first = ears.first.recognize(pcm, "any")
    assert first.text and CONFIRM_FLOOR <= first.confidence < 2 * CONFIRM_FLOOR, first
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_vetoed") == 1.0, heard
    assert heard.confidence < CONFIRM_FLOOR
    ears, pcm = _both_ears_on(116, "say that again", "repeat",
                              ("en-us-nyc+m5", 175, 50, 0.667), "pink:10")
    heard = ears.recognize(pcm, "any")
    second = ears.second.recognize(pcm, "any")
    assert not second.text and second.alternatives == (("say that again", 0.0),), second
    assert second.details["held_score"] >= ear_rules.HELD_ABOVE, second
    assert "second_ear_vetoed" not in heard.details, heard
    judge = NewGameJudge(load_edition("voice-banking"))
    h = judge.hear(heard.text, heard.confidence, heard.alternatives)
    assert (h.intent, h.decision) == ("repeat", "accept"), (heard, h)
    monkeypatch.setattr(ear_rules, "HELD_ABOVE", 0.0)
    vetoed = ears.recognize(pcm, "any")
    assert vetoed.details.get("second_ear_vetoed") == 1.0, vetoed
    assert judge.hear(vetoed.text, vetoed.confidence).decision == "reject"


def test_a_sure_first_reading_is_not_vetoed_by_its_own_words_said_unclearly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's (en-us+m3) "what's in the vault", a README phrasing:
    pocketsphinx hears it right, sure enough to answer at once (at least ``VETO_NEAR_ABOVE``);
    Moonshine writes "Works in the mild," four words no command is near enough, which in a
    quiet room vetoed the reading (halved: "Sorry?"). Those words are within ``VETO_NEAR`` of
    the first reading: no veto, and the vault is answered. With the exception off, the veto
    comes back: the rule, not the clip, is what changed."""
    from banker.editions import load_edition
    from banker.speech import ear_rules
    from banker.tools.clips import ESPEAK
    from banker.tools.transcribe import NewGameJudge

    sv = load_edition("secret-vault")
    grammar = SpeechGrammar(sv)
    ears = _two_ears("secret-vault")
    pcm = clips.pad(clips.speech("what's in the vault", ESPEAK))
    first = ears.first.recognize(pcm, "any")
    assert first.text == "what is in the vault", first
    assert ear_rules.VETO_NEAR_ABOVE <= first.confidence < ear_rules.VETO_BELOW, first
    heard = ears.recognize(pcm, "any")
    assert "second_ear_vetoed" not in heard.details, heard
    assert heard.confidence == pytest.approx(first.confidence)
    h = NewGameJudge(sv, matcher=grammar.matcher).hear(heard.text, heard.confidence)
    assert (h.intent, h.decision) == ("status", "accept"), h
    monkeypatch.setattr(ear_rules, "VETO_NEAR", 0.0)
    # held to the grammar, Moonshine's decoder reads the first reading's words too
    # (``HELD_ABOVE``): that alone keeps the reading from the veto as well
    kept = ears.recognize(pcm, "any")
    assert "second_ear_vetoed" not in kept.details, kept
    assert ears.second.recognize(pcm, "any").alternatives == (("what is in the vault", 0.0),)
    monkeypatch.setattr(ear_rules, "HELD_ABOVE", 0.0)
    vetoed = ears.recognize(pcm, "any")
    assert vetoed.details.get("second_ear_vetoed") == 1.0, vetoed


def test_a_unit_word_the_first_ear_added_after_a_ty_gives_way_to_the_second_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In steady noise pocketsphinx hears the hiss after a last "-ty" as one more word
    ("three hundred forty eight" for "three hundred forty"). When Moonshine, its snap
    within ``TAIL_WITHIN``, wrote the same command with the amount a unit shorter, its
    reading is the one asked about. The held-out dev set's line 11 (seed 7, espeak-ng en-gb,
    pink noise at 10 dB); with the rule off, the first ear's wrong amount is asked about."""
    from banker.speech import ear_rules, guided
    from banker.speech.meanings import a_unit_more
    from banker.tools import bench
    from banker.tools.clips import Voice

    assert a_unit_more(("bid", (("amount", "348"),)), ("bid", (("amount", "340"),)))
    assert a_unit_more(("pay", (("amount", "61"), ("player", "dog"))),
                                ("pay", (("amount", "60"), ("player", "dog"))))
    assert not a_unit_more(("bid", (("amount", "340"),)), ("bid", (("amount", "348"),)))
    assert not a_unit_more(("bid", (("amount", "318"),)), ("bid", (("amount", "310"),)))
    assert not a_unit_more(("bid", (("amount", "358"),)), ("pay", (("amount", "350"),)))
    assert not a_unit_more(("pay", (("amount", "61"), ("player", "cat"))),
                                    ("pay", (("amount", "60"), ("player", "dog"))))
    ears = _two_ears()
    item = bench.Item("i bid three hundred forty", "bid", (("amount", 340),),
                      Voice("espeak", "en-gb", 155, 50, 0.667), "any")
    pcm = bench.line_audio(11, item, "pink:10")
    first = ears.first.recognize(pcm, "any")
    assert first.text == "i bid three hundred forty eight", first
    # the guided search reads the amount right, and that reading is asked about;
    # the rule is for Moonshine's free text, with the search's line out of reach
    held = ears.recognize(pcm, "any")
    assert (held.text, held.confidence) == ("i bid three hundred forty", ear_rules.DOUBTED)
    monkeypatch.setattr(guided, "TRUSTED_ABOVE", 0.0)
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_unit_less") == 1.0, heard
    assert (heard.text, heard.confidence) == ("i bid three hundred and forty", ear_rules.DOUBTED)
    monkeypatch.setattr(ear_rules, "TAIL_WITHIN", -1.0)
    assert ears.recognize(pcm, "any").text == "i bid three hundred forty eight"


def test_one_word_written_word_for_word_is_offered_where_the_first_would_be_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """espeak-ng's (en-gb-x-rp+m3) "cancel" in pink noise at 10 dB, the held-out dev set's
    line 42 (seed 7): pocketsphinx reads "that is all", too unsure to be asked about;
    Moonshine writes "Cancel", word for word. That one word is offered to the interpreter,
    which takes it where it would have said "Sorry?" to the first reading (one word that
    needed any snap is not offered: fewer than ``SWAP_WORDS``). With offers off
    (``OFFER_WITHIN`` below 0), "that is all" is refused."""
    from banker.editions import load_edition
    from banker.speech import ear_rules
    from banker.tools.transcribe import NewGameJudge

    ears, pcm = _both_ears_on(42, "cancel", "cancel", ("en-gb-x-rp+m3", 155, 35, 0.667),
                              "pink:10")
    judge = NewGameJudge(load_edition("voice-banking"))
    heard = ears.recognize(pcm, "any")
    assert heard.text == "that is all" and heard.details.get("second_ear_offered") == 1.0, heard
    assert ("cancel", ear_rules.OFFER) in heard.alternatives, heard
    h = judge.hear(heard.text, heard.confidence, heard.alternatives)
    assert (h.intent, h.decision) == ("cancel", "accept"), h
    monkeypatch.setattr(ear_rules, "OFFER_WITHIN", -1.0)
    alone = ears.recognize(pcm, "any")
    h = judge.hear(alone.text, alone.confidence, alone.alternatives)
    assert h.decision == "reject", h


def test_a_sure_amount_the_second_ear_hears_otherwise_is_asked_about_in_noise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Held-out dev set (seed 7), line 28: piper's "pay sixty six in the jackpot" at 10 dB
    pink noise. Pocketsphinx hears it sure enough to pay at once (0.9 or more), so the second
    ear would not be asked; but it moves an amount in a room the noise filter ran in
    (``ear_rules.CHECK_AMOUNTS``): Moonshine hears "eight hundred and sixty six", the same
    command with another amount, so it is asked about, not paid (a 12-game table paid M102
    for "one hundred" this way). Here the first ear was right: the rule's price is one
    question. The same line clean is not checked (no filter ran), and with the rule off it
    is paid at once."""
    from banker.editions import load_edition
    from banker.speech import ear_rules
    from banker.tools import bench
    from banker.tools.clips import Voice
    from banker.tools.transcribe import NewGameJudge

    vb = load_edition("voice-banking")
    ears = _two_ears()
    item = bench.Item("pay sixty six in the jackpot", "pay", (("amount", 66),),
                      Voice("piper", "joe", 1.2, 50, 0.5), "any")
    judge = NewGameJudge(vb)
    noisy = bench.line_audio(28, item, "pink:10")
    first = ears.first.recognize(noisy, "any")
    assert first.text == "pay sixty six in the jackpot" and first.confidence >= 0.9, first
    assert "filtered_db" in first.details
    heard = ears.recognize(noisy, "any")
    assert heard.details.get("second_ear_other_amount") == 1.0, heard
    assert heard.text == first.text and heard.confidence == ear_rules.DOUBTED
    h = judge.hear(heard.text, heard.confidence, heard.alternatives)
    assert (h.intent, dict(h.slots), h.decision) == ("pay", {"amount": 66}, "confirm"), h
    monkeypatch.setattr(ear_rules, "CHECK_AMOUNTS", 0.0)
    paid = ears.recognize(noisy, "any")
    assert "second_ear_seconds" not in paid.details, paid
    assert judge.hear(paid.text, paid.confidence).decision == "accept"
    monkeypatch.setattr(ear_rules, "CHECK_AMOUNTS", 1.0)
    clean = ears.recognize(bench.line_audio(28, item, "clean"), "any")
    assert clean.text == first.text and clean.confidence >= 0.9, clean  # sure, quiet room:
    assert "filtered_db" not in clean.details and "second_ear_seconds" not in clean.details


def test_meanings_apart_by_an_amount_and_not_by_a_name() -> None:
    pay = ("pay", (("amount", "100"), ("player", "racecar")))
    more = ("pay", (("amount", "102"), ("player", "racecar")))
    dog = ("pay", (("amount", "100"), ("player", "dog")))
    assert has_amount(pay) and not has_amount(("buy", (("property", "Park Place"),)))
    assert not has_amount(("text", "my sister is moving"))
    assert by_an_amount(pay, more) and not by_a_name(pay, more)
    assert by_a_name(pay, dog) and not by_an_amount(pay, dog)
    assert not by_an_amount(pay, pay) and not by_an_amount(pay, ("collect", pay[1]))


def test_another_amount_from_the_second_ear_is_asked_about_in_the_band_too(
        vb_grammar: SpeechGrammar) -> None:
    """The table's third try at "pay one hundred to the racecar": pocketsphinx "…one hundred
    two…" at 0.88, under the band's top (so the second ear is asked anyway) but over the money
    line; Moonshine writes "Hey 100 to the race car." (snapped through the real snap): the
    same command with another amount, so it is asked about, not paid (written word for word,
    Moonshine's reading is swapped in and asked about: the rule before this one). Moonshine's
    words with the same amount leave the first reading as the ears' other rules make it."""
    import numpy as np

    from banker.speech import ear_rules
    from banker.speech.protocols import Heard
    from banker.speech.two_ears import second_ear_over
    from banker.tools.ear_records import _Kept, _KeptText
    from banker.tools.transcribe import NewGameJudge

    first, free = _Kept("pocketsphinx"), _KeptText()
    ears = second_ear_over(first, MoonshineRecognizer(vb_grammar, model=free),
                           matcher_meaning(vb_grammar))
    first.now = Heard("pay one hundred two to race car", 0.88, (), "pocketsphinx", "any", 0.1,
                      {"filtered_db": 60.0})
    judge = NewGameJudge(vb_grammar.edition)
    assert judge.hear(first.now.text, first.now.confidence).decision == "accept"
    pcm = np.zeros(16000, np.int16)
    free.now = "Hey 100 to the race car."  # near, not word for word
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_other_amount") == 1.0, heard
    assert heard.text == first.now.text and heard.confidence == ear_rules.DOUBTED
    assert judge.hear(heard.text, heard.confidence).decision == "confirm"
    free.now = "Pay 100 to the race car."  # word for word: its reading is the one asked about
    heard = ears.recognize(pcm, "any")
    assert heard.details.get("second_ear_swapped") == 1.0, heard
    assert judge.hear(heard.text, heard.confidence).decision == "confirm"
    free.now = "Pay 102 to the race car."
    same = ears.recognize(pcm, "any")
    assert "second_ear_other_amount" not in same.details and same.confidence >= 0.88, same


def test_a_command_the_held_decoder_does_not_find_is_talk_not_that_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Dev set (seed 2026), line 233: espeak-ng's (en-us-nyc) "I hate going to jail", clean.
    Pocketsphinx forces it onto a payment, too unsure to ask about; Moonshine writes it word
    for word, which snaps to "i am going to jail" (a different command, near enough to be
    asked about). Held to the grammar its decoder finds no command anywhere near (far under
    ``DISOWNED`` a token): the words are talk, and talk in a quiet room is vetoed: "Sorry?",
    nothing asked. With the line out of reach it was "Did you say I'm going to jail?"."""
    from banker.editions import load_edition
    from banker.speech import ear_rules
    from banker.tools.transcribe import NewGameJudge

    ears, pcm = _both_ears_on(233, "I hate going to jail", "none",
                              ("en-us-nyc", 175, 65, 0.667))
    judge = NewGameJudge(load_edition("voice-banking"))
    second = ears.second.recognize(pcm, "any")
    assert second.text == "i am going to jail" and second.details["held_score"] < ear_rules.DISOWNED
    heard = ears.recognize(pcm, "any")
    assert judge.hear(heard.text, heard.confidence, heard.alternatives).decision == "reject", heard
    monkeypatch.setattr(ear_rules, "DISOWNED", -99.0)
    asked = ears.recognize(pcm, "any")
    h = judge.hear(asked.text, asked.confidence, asked.alternatives)
    assert (h.intent, h.decision) == ("go_to_jail", "confirm"), (asked, h)


def test_an_answer_written_word_for_word_is_taken_over_a_first_reading_that_answers_nothing(
        vb_grammar: SpeechGrammar, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Did you say …?" answered "no" in 10 dB babble (espeak-ng en-us+m1, a probe of 20
    dev-set voices): pocketsphinx "passed go" at 0.58, Moonshine "No." word for word. The
    question asked for that answer: Moonshine's "no" is the reading (asked-about
    confidence, so a "yes" this way still needs a second try). Not over a first reading that
    is itself an answer ("yes"), not with no question open (one word is too little to swap
    on), and not with the rule off."""
    import numpy as np

    from banker.speech import ear_rules
    from banker.speech.protocols import Heard
    from banker.speech.two_ears import second_ear_over
    from banker.tools.ear_records import _Kept, _KeptText

    first, free = _Kept("pocketsphinx"), _KeptText()
    ears = second_ear_over(first, MoonshineRecognizer(vb_grammar, model=free),
                           matcher_meaning(vb_grammar))
    pcm = np.zeros(16000, np.int16)
    first.now = Heard("passed go", 0.58, (), "pocketsphinx", "yes_no", 0.1, {})
    free.now = "No."
    heard = ears.recognize(pcm, "yes_no")
    assert (heard.text, heard.confidence) == ("no", ear_rules.DOUBTED), heard
    assert heard.details.get("second_ear_swapped") == 1.0
    assert ears.recognize(pcm, "any").text == "passed go"  # no question open
    first.now = Heard("yes", 0.6, (), "pocketsphinx", "yes_no", 0.1, {})
    assert ears.recognize(pcm, "yes_no").text == "yes"  # the first is an answer itself
    first.now = Heard("passed go", 0.58, (), "pocketsphinx", "yes_no", 0.1, {})
    monkeypatch.setattr(ear_rules, "ANSWER_ALONE", 0.0)
    assert ears.recognize(pcm, "yes_no").text == "passed go"
