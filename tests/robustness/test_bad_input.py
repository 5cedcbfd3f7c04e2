"""Bad input gets one plain sentence (or a clean exit 2) and changes nothing.

Fuzzed with hypothesis: what players type or say (``Session.hear``, ``Matcher.match``, whole
keyboard lines), transcript files (``load_transcript`` / ``banker replay``) and edition files
(``parse_edition`` / ``banker play --edition FILE``): garbage, random Unicode, very long lines,
empty input, numbers out of range, tokens and streets that don't exist, YAML bombs, deep
nesting, self-reference and wrong types. Never a traceback, never a hang.
"""

from __future__ import annotations

import io
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from banker.editions import EditionError, available_editions
from banker.editions.loader import editions_dir, parse_edition
from banker.frontends.keyboard import handle_line
from banker.frontends.replay import replay_files
from banker.frontends.transcript import Malformed, load_transcript
from banker.interpreter.session import Session, VirtualClock
from banker.nlu.matcher import Ambiguous, NotRecognized, Recognized
from banker.rules.invariants import check

from .support import Actor, RandomChooser, assert_one_sentence, clean_env, edition, matcher_for, run_banker

EDITIONS = available_editions()
ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted(p for p in (ROOT / "tests" / "transcripts").rglob("*.yaml")
                     if "malformed" not in p.parts)
def fast(examples: int) -> settings:
    """Hypothesis settings for these tests (no deadline: the first example builds a matcher)."""
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _n(slow: bool, default: int) -> int:
    return default * 10 if slow else default


# --- what players say ----------------------------------------------------------------------------

def _midgame(edition_id: str) -> Session:
    """A game a few moves in: some streets owned, money moved."""
    ed = edition(edition_id)
    players = list(ed.token_ids[:3])
    s = Session(ed, players, seed=5, clock=VirtualClock(), matcher=matcher_for(ed))
    actor = Actor(ed)
    rng = random.Random(1)
    for name in ed.street_names[:3]:
        s.hear(players[0], f"buy {name}")
    for _ in range(12):
        a = actor.next(RandomChooser(rng), s)
        if a.kind == "line":
            handle_line(a.text, s, io.StringIO())
    s.pending, s.auction, s.auction_queue = None, None, []
    s.hold = None
    return s


_SESSIONS: dict[str, Session] = {}
_REUSE: dict[str, Session] = {}


def _fresh(edition_id: str) -> Session:
    """A mid-game session in the same state every time (rebuilt from its history only when
    the last example changed something: building a session costs more than most examples)."""
    if edition_id not in _SESSIONS:
        _SESSIONS[edition_id] = _midgame(edition_id)
    base = _SESSIONS[edition_id]
    last = _REUSE.get(edition_id)
    if last is not None and last.state == base.state and last.pending is None and \
            last.auction is None and last.hold is None and not last.auction_queue:
        last.on_say = lambda _t: None
        return last
    ed = base.edition
    _REUSE[edition_id] = Session(ed, list(base.state.order), seed=5, clock=VirtualClock(),
                                 matcher=matcher_for(ed), history=list(base.history))
    return _REUSE[edition_id]


def _sentences_ok(lines: list[str]) -> None:
    for line in lines:
        assert isinstance(line, str) and line.strip(), lines
        assert "\n" not in line and "Traceback" not in line, line
        assert not re.search(r"\{[a-z_]+\}", line), f"unfilled template: {line!r}"


VOCAB = ["buy", "pay", "rent", "on", "the", "auction", "bid", "chance", "pass", "go", "undo",
         "yes", "no", "a", "billion", "hundred", "minus", "-", "5", "999999999999", "avenue",
         "street", "place", "boardwalk", "dog", "cat", "zebra", "what's", "my", "balance",
         "trade", "for", "build", "hotel", "house", "cancel", "spin", "bet", "guess", "vault",
         "!!", "’", "€", "🙂", "\t", "\x00", "ß", "İ", "ﬁ"]
words_soup = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=12).map(" ".join)
long_text = st.integers(1001, 20_000).map(lambda n: ("buy baltic avenue " * (n // 18 + 1))[:n])
any_text = st.one_of(st.text(max_size=200), words_soup, long_text,
                     st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FFF),
                             max_size=80))


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_anything_heard_is_one_sentence_and_garbage_changes_nothing(edition_id: str,
                                                                    slow: bool) -> None:
    @fast(_n(slow, 100))
    @given(text=any_text, who=st.integers(0, 2))
    def run(text: str, who: int) -> None:
        s = _fresh(edition_id)
        player = s.state.order[who % len(s.state.order)]
        before = s.state.clone()
        started = time.monotonic()
        s.begin_step()
        s.hear(player, text)
        step = s.finish_step()
        assert time.monotonic() - started < 2.0, f"took too long on {text[:80]!r}"
        _sentences_ok(step.said)
        assert step.said, "every utterance gets an answer"
        assert not check(s.state, s.total)
        if step.intent == "none" or step.refused:
            assert s.state == before, f"{text!r} ({step.intent}) changed the game"
        if step.intent == "none":
            assert len(step.said) == 1, step.said

    run()


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_any_typed_line_is_answered_plainly(edition_id: str, slow: bool) -> None:
    """Whole keyboard lines, prefix and all (``zebra: …``, ``99: …``, ``press``, ``::``)."""
    prefixes = st.sampled_from(["", "cat: ", "zebra: ", "99: ", "0: ", "-1: ", "press ", ":",
                                "1: ", "2:", "press 7", "PRESS 1", "Dog:"])

    @fast(_n(slow, 80))
    @given(prefix=prefixes, text=any_text)
    def run(prefix: str, text: str) -> None:
        s = _fresh(edition_id)
        before = s.state.clone()
        out = io.StringIO()
        said: list[str] = []
        s.on_say = said.append
        handle_line(prefix + text, s, out)
        printed = [ln for ln in out.getvalue().splitlines() if ln.strip()]
        _sentences_ok(said + printed)
        if printed:  # the front end's own hint: nothing reached the game
            assert len(printed) == 1 and not said and s.state == before
        assert not check(s.state, s.total)

    run()


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_matcher_returns_a_value_for_any_text(edition_id: str, slow: bool) -> None:
    ed = edition(edition_id)
    m = matcher_for(ed)
    names = set(ed.street_names) | set(ed.foreign_streets)
    intents = {i.name for i in m.intents()}

    @fast(_n(slow, 200))
    @given(text=any_text)
    def run(text: str) -> None:
        started = time.monotonic()
        r = m.match(text)
        assert time.monotonic() - started < 2.0
        assert isinstance(r, (Recognized, Ambiguous, NotRecognized))
        for rec in (r.candidates if isinstance(r, Ambiguous) else (r,) if isinstance(r, Recognized) else ()):
            assert rec.intent in intents
            for slot in ("property", "give", "get"):
                if slot in rec.slots:
                    assert rec.slots[slot] in names or rec.slots[slot] == "none"
            if "player" in rec.slots:
                assert rec.slots["player"] in ed.token_ids or rec.slots["player"] == "none"
            if "amount" in rec.slots:
                assert isinstance(rec.slots["amount"], int)

    run()


def _table(edition_id: str) -> list[tuple[str, str]]:
    """(typed line, what must be in the one sentence answering it)."""
    ed = edition(edition_id)
    p0 = ed.token_ids[0]
    foreign = ed.foreign_streets[0] if ed.foreign_streets else "Nowhere Street"
    return [
        (f"{p0}: pay a billion", ""),
        (f"{p0}: pay {'9' * 400}", ""),
        (f"{p0}: collect {'9' * 5000}", ""),
        (f"{p0}: pay -5", ""),
        (f"{p0}: collect 12.5", ""),
        (f"{p0}: pay 1e400", ""),
        (f"{p0}: pay {' '.join(['hundred'] * 300)}", ""),
        (f"{p0}: buy {foreign}", "isn't on this board" if ed.foreign_streets else ""),
        (f"{p0}: buy Nowhere Street", ""),
        (f"{p0}: buy Nowhere Street Avenue Place", ""),
        (f"zebra: buy {ed.street_names[0]}", "token"),
        (f"99: buy {ed.street_names[0]}", "token"),
        ("press zebra", "zebra"),
        ("press 99", "99"),
        ("::::", "token"),
        ("\x00\x01\x02", "token"),
        (f"{p0}: " + "\u202e" * 50, ""),
        (f"{p0}: " + "x" * 100_000, ""),
    ]


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_out_of_range_numbers_and_unknown_names(edition_id: str) -> None:
    for line, want in _table(edition_id):
        s = _fresh(edition_id)
        before = s.state.clone()
        out = io.StringIO()
        said: list[str] = []
        s.on_say = said.append
        started = time.monotonic()
        handle_line(line, s, out)
        assert time.monotonic() - started < 2.0, line[:60]
        printed = [ln for ln in out.getvalue().splitlines() if ln.strip()]
        answer = said + printed
        _sentences_ok(answer)
        assert len(answer) == 1, (line[:60], answer)
        assert want.lower() in answer[0].lower(), (line[:60], answer)
        assert len(answer[0]) < 1500, answer[0][:300]  # (a 400-digit amount is echoed)
        assert s.state == before, f"{line[:60]!r} changed the game"


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_bid_a_billion_and_other_bad_bids_leave_the_auction_alone(edition_id: str) -> None:
    s = _fresh(edition_id)
    ed = s.edition
    street = next(n for n in ed.street_names if s.state.owner(n) is None
                  and not ed.street(n).locked)
    p0, p1 = s.state.seated[:2]
    s.hear(p0, f"auction {street}")
    assert s.auction is not None and s.auction.street == street
    s.press(p1)
    bid = (s.auction.bidder, s.auction.amount)
    for text in ("bid a billion", f"bid {'9' * 200}", "bid -100", "bid 0", "bid 1",
                 f"bid {s.auction.amount}", "bid one two three", "bid " + "x" * 5000):
        before = s.state.clone()
        s.begin_step()
        s.hear(p0, text)
        step = s.finish_step()
        _sentences_ok(step.said)
        assert len(step.said) == 1, (text[:40], step.said)
        assert (s.auction.bidder, s.auction.amount) == bid, f"{text[:40]!r} changed the bid"
        assert s.state == before


# --- transcripts ---------------------------------------------------------------------------------

def _write(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def _loads_or_malformed(path: Path) -> Any:
    started = time.monotonic()
    try:
        t = load_transcript(path)
    except Malformed as exc:
        msg = str(exc)
        assert msg and "\n" not in msg and "Traceback" not in msg, msg
        t = None
    assert time.monotonic() - started < 5.0
    return t


yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                         st.text(max_size=30))
yaml_values = st.recursive(
    yaml_scalars,
    lambda kids: st.one_of(st.lists(kids, max_size=5),
                           st.dictionaries(st.text(max_size=10), kids, max_size=5)),
    max_leaves=30)


def _mutate(data: Any, path: list[int], value: Any) -> Any:
    """Replace the node at ``path`` (indices into mapping items / list entries) by ``value``."""
    if not path:
        return value
    i, rest = path[0], path[1:]
    if isinstance(data, dict) and data:
        keys = list(data)
        k = keys[i % len(keys)]
        return {**data, k: _mutate(data[k], rest, value)}
    if isinstance(data, list) and data:
        j = i % len(data)
        return [*data[:j], _mutate(data[j], rest, value), *data[j + 1:]]
    return value


def test_random_transcript_documents(tmp_path: Path, slow: bool) -> None:
    base = [yaml.safe_load(p.read_text()) for p in TRANSCRIPTS[:12]]

    @fast(_n(slow, 100))
    @given(which=st.integers(0, len(base) - 1), path=st.lists(st.integers(0, 50), max_size=5),
           value=yaml_values, raw=st.one_of(st.none(), st.text(max_size=300), st.binary(max_size=300)))
    def run(which: int, path: list[int], value: Any, raw: str | bytes | None) -> None:
        if raw is not None:
            f = _write(tmp_path, "t.yaml", raw)
        else:
            doc = _mutate(base[which], path, value)
            f = _write(tmp_path, "t.yaml", yaml.safe_dump(doc, allow_unicode=True))
        t = _loads_or_malformed(f)
        if t is not None:  # a valid transcript: it runs to a verdict, never crashes
            code = replay_files([f], out=io.StringIO())
            assert code in (0, 1, 2)

    run()


BILLION_LAUGHS = "lol0: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"lol{i + 1}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9))

BOMBS: dict[str, str | bytes] = {
    "billion-laughs": BILLION_LAUGHS,
    "billion-laughs-in-steps": "edition: voice-banking\nplayers: [dog, cat]\n" + BILLION_LAUGHS.replace(
        "lol0:", "x0:") + "steps: *j\n",
    "self-reference": "edition: voice-banking\nplayers: [dog, cat]\nsteps: &s [*s]\n",
    "deep-nesting": "edition: voice-banking\nplayers: [dog, cat]\nsteps: " + "[" * 20000 + "]" * 20000,
    "deep-mapping": "edition: voice-banking\nplayers: [dog, cat]\nsteps:\n" + "".join(
        " " * i + "- a:\n" for i in range(0, 3000, 1)),
    "python-tag": "edition: voice-banking\nplayers: [dog, cat]\nsteps:\n"
                  "  - dog: !!python/object/apply:os.system ['touch /tmp/banker-pwned']\n",
    "huge": "edition: voice-banking\nplayers: [dog, cat]\nsteps:\n" + "  - dog: pass go\n" * 200_000,
    "wrong-types": "edition: [1, 2]\nplayers: {a: b}\nsteps: 7\n",
    "steps-wrong": "edition: voice-banking\nplayers: [dog, cat]\nsteps:\n  - 5\n  - [dog]\n"
                   "  - {wait: forever}\n  - {wait: -1}\n  - {wait: 1e999}\n",
    "unknown-token": "edition: voice-banking\nplayers: [dog, zebra]\nsteps: []\n",
    "empty": "",
    "tabs": "edition:\tvoice-banking\n\tplayers: [dog]\n",
    "not-utf8": b"edition: voice-banking\nplayers: [dog, cat]\nsteps:\n  - dog: \xff\xfe\n",
    "nul-bytes": "edition: voice-banking\x00\nplayers: [dog, cat]\n",
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bad_transcripts_are_malformed_never_a_crash(tmp_path: Path, name: str) -> None:
    f = _write(tmp_path, f"{name}.yaml", BOMBS[name])
    t = _loads_or_malformed(f)
    if name == "python-tag":  # tags are ignored: the words are just text, nothing runs
        assert t is not None and t.steps[0].utterances[0].text == "touch /tmp/banker-pwned"
        assert replay_files([f], out=io.StringIO()) == 0
    else:
        assert t is None
    assert not Path("/tmp/banker-pwned").exists()


def test_banker_replay_on_bad_files_exits_2_without_traceback(tmp_path: Path) -> None:
    files = [_write(tmp_path, f"{n}.yaml", BOMBS[n]) for n in
             ("billion-laughs-in-steps", "self-reference", "deep-nesting", "not-utf8", "wrong-types")]
    good = TRANSCRIPTS[0]
    started = time.monotonic()
    r = run_banker(["replay", *map(str, files), str(good)], timeout=120)
    assert time.monotonic() - started < 60
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    for f in files:  # each bad file named on one line, the good one still run
        assert sum(f.name in ln for ln in (r.stdout + r.stderr).splitlines()) >= 1, f.name
    assert f"ok: {good}" in r.stdout


# --- edition files -------------------------------------------------------------------------------

VB_TEXT = (editions_dir() / "voice-banking.yaml").read_text()
VB_DATA = yaml.safe_load(VB_TEXT)


def _parse_or_error(text: str) -> Any:
    started = time.monotonic()
    try:
        ed = parse_edition(text, "test.yaml")
    except EditionError as exc:
        sentence = exc.sentence()
        assert "\n" not in sentence and "Traceback" not in sentence
        assert len(sentence) < 5000, sentence[:200]
        ed = None
    assert time.monotonic() - started < 5.0
    return ed


def test_random_edition_files(slow: bool) -> None:
    @fast(_n(slow, 80))
    @given(path=st.lists(st.integers(0, 60), min_size=1, max_size=4), value=yaml_values)
    def run(path: list[int], value: Any) -> None:
        doc = _mutate(VB_DATA, path, value)
        ed = _parse_or_error(yaml.safe_dump(doc, allow_unicode=True))
        if ed is not None:  # accepted: usable by the matcher and the rules without crashing
            from banker.rules import rules_for

            rules_for(ed).initial_state(list(ed.token_ids[:2]), {}, 1)

    run()


EDITION_BOMBS = {
    "fees": VB_TEXT.replace("fees:\n", "fees:\n  x: *i\n"),
    "aliases": VB_TEXT.replace("aliases: [t rex,", "aliases: [*i, t rex,"),
    "extra": VB_TEXT + "extra:\n  x: *i\n",
    "options": VB_TEXT.replace("options: {}", "options: {o: {default: a, choices: *i}}"),
    "self": VB_TEXT + "extra: &e {x: *e}\n",
    "deep": VB_TEXT + "extra: " + "[" * 10000 + "]" * 10000 + "\n",
}


@pytest.mark.parametrize("name", sorted(EDITION_BOMBS))
def test_edition_bombs_are_refused_quickly(name: str) -> None:
    text = EDITION_BOMBS[name] if name in ("self", "deep") else BILLION_LAUGHS + EDITION_BOMBS[name]
    assert _parse_or_error(text) is None


@pytest.mark.parametrize("what", ["bomb", "wrong-types", "not-yaml", "missing", "binary"])
def test_banker_play_with_a_bad_edition_file(tmp_path: Path, what: str) -> None:
    f = tmp_path / "ed.yaml"
    content: dict[str, str | bytes] = {
        "bomb": BILLION_LAUGHS + EDITION_BOMBS["fees"],
        "wrong-types": VB_TEXT.replace("start_cash: 1500", "start_cash: [lots]"),
        "not-yaml": "{{{{ nope",
        "binary": b"\x00\xff\xfe\x00" * 100,
    }
    if what != "missing":
        c = content[what]
        f.write_bytes(c) if isinstance(c, bytes) else f.write_text(c)
    r = run_banker(["play", "--keyboard", "--edition", str(f), "--players", "dog,cat",
                    "--game", str(tmp_path / "g.sqlite")], input="dog: pass go\n",
                   env=clean_env(XDG_DATA_HOME=str(tmp_path / "data")), timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert_one_sentence(r.stderr)
    assert not (tmp_path / "g.sqlite").exists() or (tmp_path / "g.sqlite").stat().st_size == 0


def test_a_game_started_from_an_edition_file_resumes_by_that_file(tmp_path: Path) -> None:
    """Found by these tests: the journal used to keep the shipped edition of the same id
    (or crash when there was none), so a resumed game changed its rules."""
    f = tmp_path / "house-rules.yaml"
    f.write_text(VB_TEXT.replace("id: voice-banking", "id: house-rules")
                 .replace("start_cash: 1500", "start_cash: 2500"))
    game = tmp_path / "g.sqlite"
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    r = run_banker(["play", "--keyboard", "--edition", str(f), "--players", "dog,cat", "--game",
                    str(game)], input="dog: pass go\n", env=env)
    assert r.returncode == 0, r.stderr
    assert "2,700" in r.stdout
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)],
                   input="cat: what's my balance\n", env=env)
    assert r.returncode == 0, r.stderr
    assert "2,500" in r.stdout.split("Welcome back")[-1]


def test_a_broken_edition_inside_a_game_file_is_one_sentence(tmp_path: Path) -> None:
    """A game file whose journalled edition no longer parses (edited by hand)."""
    import sqlite3

    game = tmp_path / "g.sqlite"
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    r = run_banker(["play", "--keyboard", "--players", "dog,cat", "--game", str(game)],
                   input="dog: pass go\n", env=env)
    assert r.returncode == 0
    db = sqlite3.connect(game)
    db.execute("UPDATE meta SET value = ? WHERE key = 'edition_yaml'", (BILLION_LAUGHS + "x: *i\n",))
    db.commit()
    db.close()
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)], env=env)
    assert r.returncode == 2
    assert_one_sentence(r.stderr)
