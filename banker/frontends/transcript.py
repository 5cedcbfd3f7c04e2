"""Transcript files (``transcripts.md`` v1): parsed and validated, with file and line numbers.

Parsing walks PyYAML's node tree, not the constructed objects, so that ``dog: yes`` stays the
text "yes" and ``duck: 4`` the text "4", and so that every step knows its line. Anchors and
aliases are refused outright (no YAML bombs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from banker import safe_yaml
from banker.editions import EditionError, load_edition
from banker.editions.loader import for_game
from banker.editions.model import Edition
from banker.nlu.normalize import normalize

MAX_BYTES = 2_000_000
NEXT_KINDS = ("chance", "train_ride", "spin", "hot_house", "vault_code")
RESTART_MODES = ("save", "kill")
MAP_EXPECT = ("cash", "owner", "houses", "hotels", "vault")
EXPECT_KEYS = frozenset({"says", "cash", "owner", "houses", "hotels", "mortgaged", "in_jail",
                         "vault", "jackpot", "bank", "refused", "unchanged", "game_over", "winner"})


class Malformed(Exception):
    """A transcript that can't be run; the message names the file and line."""


@dataclass
class Utterance:
    text: str | None = None
    audio: Path | None = None


@dataclass
class TStep:
    index: int  # from 1
    line: int
    kind: str  # say | press | wait | next | restart
    player: str | None = None
    utterances: list[Utterance] = field(default_factory=list)
    presses: list[str] = field(default_factory=list)
    seconds: float = 0.0
    forced: dict[str, Any] = field(default_factory=dict)
    expect: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    mode: str = ""  # restart: save (as at Ctrl-D) or kill (stopped without a word)


@dataclass
class Transcript:
    path: Path
    edition: Edition
    players: list[str]
    seed: int | None
    options: dict[str, str]
    steps: list[TStep]


def canon(name: str) -> str:
    """Names compared ignoring case, punctuation and "St."/"Saint"."""
    return normalize(name).replace("saint ", "").replace(" ", "")


def load_transcript(path: Path) -> Transcript:
    path = Path(path)
    where = str(path)
    try:
        raw = path.read_bytes()
    except OSError:
        raise Malformed(f"{where}: can't be read") from None
    if len(raw) > MAX_BYTES:
        raise Malformed(f"{where}: too large for a transcript")
    try:
        text = raw.decode("utf-8")
        root = safe_yaml.compose(text)  # refuses deep nesting and self-reference
    except UnicodeDecodeError:
        raise Malformed(f"{where}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise Malformed(f"{where}:{line} not valid YAML") from None
    if root is None or not isinstance(root, yaml.MappingNode):
        raise Malformed(f"{where}: a transcript is a mapping with edition, players and steps")
    _no_aliases(root, where)
    top = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}

    def at(node: yaml.Node) -> str:
        return f"{where} line {node.start_mark.line + 1}"

    for key, node in top.items():
        if key not in ("edition", "players", "seed", "options", "steps", "title", "description"):
            raise Malformed(f"{at(node)}: unknown key {key!r}")
    ed_node = top.get("edition")
    ed_id = _scalar(ed_node, at, "edition") if ed_node is not None else "voice-banking"
    try:
        edition = load_edition(ed_id)
    except EditionError as exc:
        raise Malformed(f"{at(ed_node) if ed_node is not None else where}: {'; '.join(exc.errors)}") from None
    p_node = top.get("players")
    if not isinstance(p_node, yaml.SequenceNode):
        raise Malformed(f"{at(p_node) if p_node is not None else where}: players must be a list of tokens")
    players = [_token_id(_scalar(n, at, "player"), edition) for n in p_node.value]
    for n, t in zip(p_node.value, players, strict=True):
        if t not in edition.token_ids:
            raise Malformed(f"{at(n)}: unknown token {t!r} (tokens: {', '.join(edition.token_ids)})")
    if len(set(players)) != len(players):
        raise Malformed(f"{at(p_node)}: a token is listed twice")
    if not edition.min_players <= len(players) <= edition.max_players:
        raise Malformed(f"{at(p_node)}: {edition.name} takes {edition.min_players}-{edition.max_players} players")
    seed = None
    if "seed" in top:
        s = _scalar(top["seed"], at, "seed")
        try:
            seed = int(s)
        except ValueError:
            raise Malformed(f"{at(top['seed'])}: seed must be a whole number") from None
    options: dict[str, str] = {}
    o_node = top.get("options")
    if o_node is not None and not (isinstance(o_node, yaml.ScalarNode) and o_node.value in ("", "null", "~")):
        if not isinstance(o_node, yaml.MappingNode):
            raise Malformed(f"{at(o_node)}: options must be a mapping")
        specs = {o.name: o for o in edition.options}
        for k, v in o_node.value:
            key, val = _scalar(k, at, "option"), _scalar(v, at, "option value")
            if key not in specs:
                raise Malformed(f"{at(k)}: unknown option {key!r} for {edition.id}")
            if specs[key].choices and val not in specs[key].choices:
                raise Malformed(f"{at(v)}: option {key} must be one of {', '.join(specs[key].choices)}")
            options[key] = val
    try:
        edition = for_game(edition, options)
    except EditionError as exc:
        raise Malformed(f"{at(o_node) if o_node is not None else where}: {exc.errors[0]}") from None
    s_node = top.get("steps")
    if not isinstance(s_node, yaml.SequenceNode):
        raise Malformed(f"{at(s_node) if s_node is not None else where}: steps must be a list")
    lines = text.splitlines()
    steps = [_step(i, n, edition, players, options, path, at, lines)
             for i, n in enumerate(s_node.value, start=1)]
    return Transcript(path, edition, players, seed, options, steps)


def _no_aliases(node: yaml.Node, where: str, depth: int = 0, seen: set[int] | None = None) -> None:
    seen = seen if seen is not None else set()
    if depth > 50:
        raise Malformed(f"{where}: nested too deeply")
    if id(node) in seen:
        raise Malformed(f"{where} line {node.start_mark.line + 1}: anchors and aliases are not allowed")
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _no_aliases(k, where, depth + 1, seen)
            _no_aliases(v, where, depth + 1, seen)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            _no_aliases(v, where, depth + 1, seen)


def _scalar(node: yaml.Node | None, at: Any, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise Malformed(f"{at(node) if node is not None else '?'}: {what} must be a single value")
    return str(node.value)


def _number(node: yaml.Node, at: Any, what: str) -> float:
    try:
        v = float(_scalar(node, at, what))
    except ValueError:
        raise Malformed(f"{at(node)}: {what} must be a number") from None
    if not 0 <= v <= 86_400:
        raise Malformed(f"{at(node)}: {what} is out of range")
    return v


def _step(index: int, node: yaml.Node, ed: Edition, players: list[str], options: dict[str, str],
          path: Path, at: Any, lines: list[str]) -> TStep:
    if not isinstance(node, yaml.MappingNode):
        example = players[0] if players else "dog"  # a token of this game, not any token
        raise Malformed(f"{at(node)}: step {index} must be a mapping like `{example}: buy Boardwalk`")
    line = node.start_mark.line + 1
    step = TStep(index, line, "", source=lines[line - 1].strip() if line - 1 < len(lines) else "")
    for k, v in node.value:
        key = _scalar(k, at, "step key")
        low = key.lower()
        if low == "expect":
            step.expect = _expect(v, ed, players, at)
            continue
        if step.kind:
            raise Malformed(f"{at(k)}: step {index} has two actions ({step.kind} and {key})")
        if low == "press":
            step.kind = "press"
            items = v.value if isinstance(v, yaml.SequenceNode) else [v]
            for item in items:
                tok = _scalar(item, at, "press").lower()
                step.presses.append(_token(tok, players, at(item), ed))
        elif low == "wait":
            step.kind, step.seconds = "wait", _number(v, at, "wait")
        elif low == "restart":
            step.kind, step.mode = "restart", _scalar(v, at, "restart").lower()
            if step.mode not in RESTART_MODES:
                raise Malformed(f"{at(v)}: restart is save or kill")
        elif low == "next":
            step.kind = "next"
            step.forced = _next(v, ed, options, at)
        else:
            step.kind = "say"
            step.player = _token(low, players, at(k), ed)
            step.utterances = _utterances(v, path, at)
    if not step.kind:
        raise Malformed(f"{at(node)}: step {index} has no action")
    return step


def _token(value: str, players: list[str], where: str, ed: Edition) -> str:
    """A seat number, or a token named by its id or its name ignoring case and punctuation
    ("T-Rex" is ``trex``), as the format matches names in expectations."""
    if value.isdecimal() and 1 <= int(value) <= len(players):
        return players[int(value) - 1]
    value = _token_id(value, ed)
    if value not in players:
        raise Malformed(f"{where}: unknown token or step kind {value!r}")
    return value


def _token_id(value: str, ed: Edition) -> str:
    """The token id ``value`` names (by id or name, see ``canon``); else ``value`` lower-cased."""
    for t in ed.tokens:
        if canon(value) in (canon(t.id), canon(t.name)):
            return t.id
    return value.lower()


def _utterances(v: yaml.Node, path: Path, at: Any) -> list[Utterance]:
    items = v.value if isinstance(v, yaml.SequenceNode) else [v]
    out: list[Utterance] = []
    for item in items:
        if isinstance(item, yaml.MappingNode):
            d = {_scalar(a, at, "key"): b for a, b in item.value}
            if set(d) != {"audio"}:
                raise Malformed(f"{at(item)}: an utterance is text or {{audio: PATH}}")
            wav = (path.parent / _scalar(d["audio"], at, "audio")).resolve()
            if not wav.is_file():
                raise Malformed(f"{at(item)}: audio file {wav} not found")
            out.append(Utterance(audio=wav))
        elif isinstance(item, yaml.ScalarNode):
            value = item.value
            if value in ("", "~", "null") and item.tag.endswith("null"):
                value = ""
            out.append(Utterance(text=value))
        else:
            raise Malformed(f"{at(item)}: an utterance is text or {{audio: PATH}}")
    return out


def _next(v: yaml.Node, ed: Edition, options: dict[str, str], at: Any) -> dict[str, Any]:
    if not isinstance(v, yaml.MappingNode):
        raise Malformed(f"{at(v)}: next must be a mapping like {{chance: dividend}}")
    out: dict[str, Any] = {}
    for k, val in v.value:
        kind = _scalar(k, at, "next kind")
        value = _scalar(val, at, kind)
        if kind not in NEXT_KINDS:
            raise Malformed(f"{at(k)}: unknown draw {kind!r} (one of {', '.join(NEXT_KINDS)})")
        if kind == "chance":
            ids = {c.id: c.id for c in ed.chance}
            ids.update({canon(c.title): c.id for c in ed.chance})
            if value not in ids and canon(value) not in ids:
                raise Malformed(f"{at(val)}: {value!r} is not a Chance card of {ed.id}")
            out[kind] = ids.get(value) or ids[canon(value)]
        elif kind in ("train_ride", "hot_house"):
            if kind == "hot_house" and value.lower() == "none":
                out[kind] = "none"
                continue
            out[kind] = _street(value, ed, at(val))
        elif kind == "spin":
            outcomes = [str(o) for o in ed.extra.get("spinner_outcomes", [])]
            match = [o for o in outcomes if canon(o) == canon(value)]
            if not match:
                raise Malformed(f"{at(val)}: {value!r} is not a spinner outcome of {ed.id}")
            out[kind] = match[0]
        else:  # vault_code
            if "vault" not in {o.name for o in ed.options}:
                raise Malformed(f"{at(k)}: {ed.id} has no vault")
            if options.get("vault", ed.option_defaults().get("vault")) == "physical":
                raise Malformed(f"{at(k)}: vault_code can't be forced with a physical vault")
            if value not in ("1", "2", "3", "4", "5", "6"):
                raise Malformed(f"{at(val)}: vault_code must be 1-6")
            out[kind] = int(value)
    return out


def _street(value: str, ed: Edition, where: str) -> str:
    for n in ed.street_names:
        if canon(n) == canon(value):
            return n
    raise Malformed(f"{where}: {value!r} is not a street of {ed.id}")


def _int(node: yaml.Node, at: Any, what: str) -> int:
    s = _scalar(node, at, what).replace(",", "").lstrip("M$")
    try:
        return int(s)
    except ValueError:
        raise Malformed(f"{at(node)}: {what} must be a whole number") from None


def _bool(node: yaml.Node, at: Any, what: str) -> bool:
    s = _scalar(node, at, what).lower()
    if s in ("true", "yes", "on"):
        return True
    if s in ("false", "no", "off"):
        return False
    raise Malformed(f"{at(node)}: {what} must be true or false")


def _expect(node: yaml.Node, ed: Edition, players: list[str], at: Any) -> dict[str, Any]:
    if not isinstance(node, yaml.MappingNode):
        raise Malformed(f"{at(node)}: expect must be a mapping")
    out: dict[str, Any] = {}
    for k, v in node.value:
        key = _scalar(k, at, "expectation")
        if key not in EXPECT_KEYS:
            raise Malformed(f"{at(k)}: unknown expectation {key!r}")
        if key == "says":
            items = v.value if isinstance(v, yaml.SequenceNode) else [v]
            out[key] = [_scalar(i, at, "says") for i in items]
        elif key in ("refused", "unchanged", "game_over"):
            out[key] = _bool(v, at, key)
        elif key in ("jackpot", "bank"):
            out[key] = _int(v, at, key)
        elif key == "winner":
            items = v.value if isinstance(v, yaml.SequenceNode) else [v]
            out[key] = sorted(_token(_scalar(i, at, "winner").lower(), players, at(i), ed) for i in items)
        elif key in ("mortgaged", "in_jail"):
            if not isinstance(v, yaml.SequenceNode):
                raise Malformed(f"{at(v)}: {key} must be a list")
            if key == "mortgaged":
                out[key] = sorted(_street(_scalar(i, at, key), ed, at(i)) for i in v.value)
            else:
                out[key] = sorted(_token(_scalar(i, at, key).lower(), players, at(i), ed) for i in v.value)
        else:  # maps
            if not isinstance(v, yaml.MappingNode):
                raise Malformed(f"{at(v)}: {key} must be a mapping")
            m: dict[str, Any] = {}
            for a, b in v.value:
                name = _scalar(a, at, key)
                if key == "cash":
                    m[_token(name.lower(), players, at(a), ed)] = _int(b, at, f"cash of {name}")
                elif key == "owner":
                    owner = _scalar(b, at, "owner").lower() if isinstance(b, yaml.ScalarNode) else ""
                    if owner in ("", "null", "~", "bank", "none"):
                        m[_street(name, ed, at(a))] = None
                    else:
                        m[_street(name, ed, at(a))] = _token(owner, players, at(b), ed)
                elif key == "vault":
                    if name not in ("cash", "keys", "hotels"):
                        raise Malformed(f"{at(a)}: vault has cash, keys and hotels")
                    m[name] = _int(b, at, f"vault {name}")
                else:
                    m[_street(name, ed, at(a))] = _int(b, at, f"{key} on {name}")
            out[key] = m
    return out
