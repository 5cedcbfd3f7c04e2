"""Load and validate ``config/editions/<id>.yaml``.

Every problem is collected with its key path (``streets[3].price: …``) and raised at once in
one ``EditionError``, so a user fixing a file sees all of it in one go (beancount's habit).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from banker import safe_yaml
from banker.editions.model import AuctionSpec, ChanceCard, Edition, OptionSpec, Street, Token
from banker.editions.needs import Needs
from banker.editions.registry import REGISTRY
from banker.paths import config_dir

TOP_KEYS = ("id", "name", "rules", "currency", "start_cash", "players", "money", "tokens",
            "fees", "auction", "stock", "streets", "chance", "options", "extra")
STREET_KEYS = ("name", "group", "price", "rent", "house_cost", "mortgage", "unmortgage",
               "locked")
#: an unknown rules module: only that is reported, plus what every module would refuse
NO_NEEDS = Needs(rent=(), fees=(), stock=(),
                 effects=frozenset().union(*(e.needs.effects for e in REGISTRY.values())))


class EditionError(Exception):
    """An edition file that can't be used. ``errors`` lists every problem with its key path."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = errors
        super().__init__(f"{source}: " + "; ".join(errors))

    def sentence(self) -> str:
        text = f"The edition file {self.source} is broken: " + "; ".join(self.errors) + "."
        # one line, whatever the file's keys hold (a key may be "\n" or a control code)
        return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def editions_dir() -> Path:
    return config_dir() / "editions"


def available_editions() -> list[str]:
    return sorted(
        p.stem for p in editions_dir().glob("*.yaml") if p.stem != "classic-streets"
    )


def load_edition(edition: str | Path) -> Edition:
    """Load an edition by id (``voice-banking``) or by path to a YAML file."""
    path = Path(edition)
    if not (path.suffix in (".yaml", ".yml") and path.exists()):
        path = editions_dir() / f"{edition}.yaml"
        if not path.exists():
            known = ", ".join(available_editions())
            raise EditionError(str(edition), [f"there is no edition called {edition!r} (known: {known})"])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EditionError(str(path), [f"can't be read ({exc.__class__.__name__})"]) from None
    return parse_edition(text, str(path))


def _classic_names() -> tuple[str, ...]:
    path = editions_dir() / "classic-streets.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return ()
    return tuple(str(k) for k in data) if isinstance(data, dict) else ()


class _Checker:
    """Reads typed values out of nested YAML, recording an error for each bad one."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def err(self, path: str, msg: str) -> None:
        self.errors.append(f"{path}: {msg}")

    def unknown(self, data: Mapping[str, Any], path: str, known: tuple[str, ...]) -> None:
        """A key nobody reads is a typo: name it with its path and the keys that are known."""
        for key in data:
            if key not in known:
                full = f"{path}.{key}" if path else str(key)
                self.err(full, f"unknown key (known: {', '.join(known) or 'none'})")

    def get(self, data: Mapping[str, Any], key: str, path: str, kind: type | tuple[type, ...],
            default: Any = ..., check: Callable[[Any], str | None] | None = None) -> Any:
        full = f"{path}.{key}" if path else key
        if key not in data:
            if default is ...:
                self.err(full, "is missing")
                return None
            return default
        value = data[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            self.err(full, f"must be a whole number, not {value!r}")
            return None
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            self.err(full, f"must be a {names}, not {type(value).__name__}")
            return None
        if check is not None:
            problem = check(value)
            if problem:
                self.err(full, problem)
                return None
        return value


def _positive(v: Any) -> str | None:
    return None if v > 0 else "must be more than 0"


def _not_negative(v: Any) -> str | None:
    return None if v >= 0 else "must not be negative"


def parse_edition(text: str, source: str = "<edition>") -> Edition:
    """Parse and check one edition file: every problem, with its key path, in one error.
    The same text gives the same (frozen) edition without reading it again: a game resumed
    in the same process (a transcript's ``restart:``) parses its journalled YAML once."""
    return _parse_once(text, source)


@functools.lru_cache(maxsize=16)
def _parse_once(text: str, source: str) -> Edition:
    try:
        data = safe_yaml.safe_load(text)  # refuses YAML bombs and deep nesting
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise EditionError(source, [f"{where}: not valid YAML"]) from None
    if not isinstance(data, dict):
        raise EditionError(source, ["the file must be a mapping of keys to values"])
    c = _Checker()
    c.unknown(data, "", TOP_KEYS)
    ed_id = c.get(data, "id", "", str, check=lambda v: None if v.strip() else "must not be empty")
    name = c.get(data, "name", "", str, default=ed_id or "")
    rules = c.get(data, "rules", "", str)
    entry = REGISTRY.get(rules or "")
    if rules is not None and entry is None:
        c.err("rules", f"unknown rules module {rules!r} (known: {', '.join(REGISTRY)})")
    needs = entry.needs if entry is not None else NO_NEEDS
    currency = c.get(data, "currency", "", str, default="M")
    start_cash = c.get(data, "start_cash", "", int, check=_positive)
    players = c.get(data, "players", "", dict, default={"min": 2, "max": 4}) or {}
    pmin = c.get(players, "min", "players", int, default=2, check=_positive)
    pmax = c.get(players, "max", "players", int, default=4, check=_positive)
    money = c.get(data, "money", "", dict, default={}) or {}
    finite = c.get(money, "finite", "money", bool, default=False)
    total = c.get(money, "total", "money", int, default=None, check=_positive) if finite else None
    if finite and "total" not in money:
        c.err("money.total", "is missing (a finite bank needs its total)")
    tokens = _tokens(c, data, pmax)
    fees = _int_map(c, data, "fees", needs.fees, needs.optional_fees)
    stock = _int_map(c, data, "stock", needs.stock, ())
    auction = _auction(c, data)
    streets = _streets(c, data, needs)
    cards = _chance(c, data, needs, [s.name for s in streets])
    options = _options(c, data)
    extra = _extra(c, data, needs)
    if c.errors:
        raise EditionError(source, c.errors)
    snames = {s.name for s in streets}
    assert ed_id and rules and start_cash and pmin and pmax and auction
    return Edition(
        id=ed_id, name=name or ed_id, rules=rules, currency=currency or "M",
        start_cash=start_cash, min_players=pmin, max_players=pmax, tokens=tuple(tokens),
        streets=tuple(streets), chance=tuple(cards), fees=fees, stock=stock, auction=auction,
        money_total=total, options=tuple(options), extra=extra,
        foreign_streets=tuple(n for n in _classic_names() if n not in snames),
    )


def _tokens(c: _Checker, data: Mapping[str, Any], pmax: int | None) -> list[Token]:
    tokens: list[Token] = []
    for i, t in enumerate(c.get(data, "tokens", "", list) or []):
        p = f"tokens[{i}]"
        if not isinstance(t, dict):
            c.err(p, "must be a mapping with id and name")
            continue
        c.unknown(t, p, ("id", "name", "aliases"))
        tid = c.get(t, "id", p, str)
        tname = c.get(t, "name", p, str, default=tid or "")
        aliases = c.get(t, "aliases", p, list, default=[]) or []
        if tid:
            tokens.append(Token(tid, tname or tid, tuple(str(a) for a in aliases)))
    ids = [t.id for t in tokens]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        c.err("tokens", f"token id {dup!r} appears twice")
    if pmax and tokens and pmax > len(tokens):
        c.err("players.max", f"is {pmax} but there are only {len(tokens)} tokens")
    return tokens


def _auction(c: _Checker, data: Mapping[str, Any]) -> AuctionSpec | None:
    raw = c.get(data, "auction", "", dict) or {}
    c.unknown(raw, "auction", ("open", "step", "quiet_seconds", "final_seconds", "bid_unit"))
    a_open = c.get(raw, "open", "auction", int, check=_positive)
    a_step = c.get(raw, "step", "auction", int, check=_positive)
    a_quiet = c.get(raw, "quiet_seconds", "auction", (int, float), default=3)
    a_final = c.get(raw, "final_seconds", "auction", (int, float), default=3)
    a_unit = c.get(raw, "bid_unit", "auction", int, default=0, check=_not_negative)
    if not (a_open and a_step):
        return None
    return AuctionSpec(a_open, a_step, float(a_quiet or 3), float(a_final or 3), a_unit or 0)


def _streets(c: _Checker, data: Mapping[str, Any], needs: Needs) -> list[Street]:
    streets: list[Street] = []
    for i, s in enumerate(c.get(data, "streets", "", list) or []):
        p = f"streets[{i}]"
        if not isinstance(s, dict):
            c.err(p, "must be a mapping")
            continue
        c.unknown(s, p, STREET_KEYS)
        sname = c.get(s, "name", p, str)
        group = c.get(s, "group", p, str)
        price = c.get(s, "price", p, int, check=_positive)
        rent = c.get(s, "rent", p, dict)
        rent_map: dict[str, int] = {}
        if isinstance(rent, dict):
            if needs.rent:
                c.unknown(rent, f"{p}.rent", needs.rent)
            # a module that names no rent keys reads whatever the file gives (classic: the
            # streets' table; railroads and utilities rent by number owned, from ``extra``)
            for key in needs.rent or tuple(str(k) for k in rent):
                v = c.get(rent, key, f"{p}.rent", int, check=_not_negative)
                if v is not None:
                    rent_map[key] = v
        house_cost = c.get(s, "house_cost", p, int, default=0, check=_not_negative)
        mortgage = c.get(s, "mortgage", p, int, default=0, check=_not_negative)
        unmortgage = c.get(s, "unmortgage", p, int, default=0, check=_not_negative)
        locked = c.get(s, "locked", p, bool, default=False)
        if sname and group and price:
            streets.append(Street(sname, group, price, rent_map, house_cost or 0,
                                  mortgage or 0, unmortgage or 0, bool(locked)))
    snames = [s.name for s in streets]
    for dup in sorted({n for n in snames if snames.count(n) > 1}):
        c.err("streets", f"street {dup!r} appears twice")
    return streets


def _chance(c: _Checker, data: Mapping[str, Any], needs: Needs,
            snames: list[str]) -> list[ChanceCard]:
    cards: list[ChanceCard] = []
    for i, cd in enumerate(c.get(data, "chance", "", list, default=[]) or []):
        p = f"chance[{i}]"
        if not isinstance(cd, dict):
            c.err(p, "must be a mapping with id, title and effect")
            continue
        c.unknown(cd, p, ("id", "title", "effect"))
        cid = c.get(cd, "id", p, str)
        title = c.get(cd, "title", p, str, default=cid or "")
        effect = c.get(cd, "effect", p, dict)
        if isinstance(effect, dict):
            unknown = set(effect) - needs.effects
            if unknown:
                c.err(f"{p}.effect", f"unknown effect {sorted(unknown)[0]!r}")
            adv = effect.get("advance")
            if adv is not None and adv not in snames:
                c.err(f"{p}.effect.advance", f"{adv!r} is not a street of this edition")
        if cid and isinstance(effect, dict):
            cards.append(ChanceCard(cid, title or cid, dict(effect)))
    cids = [cd.id for cd in cards]
    for dup in sorted({n for n in cids if cids.count(n) > 1}):
        c.err("chance", f"card id {dup!r} appears twice")
    return cards


def _options(c: _Checker, data: Mapping[str, Any]) -> list[OptionSpec]:
    options: list[OptionSpec] = []
    for key, spec in (c.get(data, "options", "", dict, default={}) or {}).items():
        p = f"options.{key}"
        if not isinstance(spec, dict):
            c.err(p, "must be a mapping with default and choices")
            continue
        c.unknown(spec, p, ("default", "choices", "doc"))
        choices = c.get(spec, "choices", p, list) or []
        default = c.get(spec, "default", p, str)
        if default is not None and choices and default not in choices:
            c.err(f"{p}.default", f"{default!r} is not one of the choices")
        options.append(OptionSpec(str(key), default or "", tuple(str(x) for x in choices),
                                  str(spec.get("doc", ""))))
    return options


def _extra(c: _Checker, data: Mapping[str, Any], needs: Needs) -> dict[str, Any]:
    """``extra:`` as the rules module reads it: only its keys, each checked, defaults filled."""
    raw = c.get(data, "extra", "", dict, default={}) or {}
    if needs is NO_NEEDS:
        return dict(raw)
    c.unknown(raw, "extra", tuple(needs.extra))
    out: dict[str, Any] = {}
    for key, spec in needs.extra.items():
        if key in raw:
            before = len(c.errors)
            spec.check(raw[key], f"extra.{key}", c.err)
            if len(c.errors) == before:
                out[key] = raw[key]
        elif spec.required:
            c.err(f"extra.{key}", "is missing")
        elif spec.default is not None:
            out[key] = spec.default
    if len(c.errors) == 0:
        for cross in needs.cross:
            cross(out, c.err)
    return out


def _int_map(c: _Checker, data: Mapping[str, Any], key: str, required: tuple[str, ...],
             optional: tuple[str, ...]) -> dict[str, int]:
    """Whole numbers under ``key``: the ``required`` ones, and ``optional`` ones if given. With
    no needs known (an unknown rules module) any key is read, so the other errors still show."""
    raw = c.get(data, key, "", dict, default={}) or {}
    if required or optional:
        c.unknown(raw, key, (*required, *optional))
    out: dict[str, int] = {}
    for k in required:
        v = c.get(raw, k, key, int, check=_not_negative)
        if v is not None:
            out[k] = v
    for k, v in raw.items():
        if k not in out and (k in optional or not (required or optional)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                c.err(f"{key}.{k}", f"must be a whole number of at least 0, not {v!r}")
            else:
                out[str(k)] = v
    return out


def for_game(edition: Edition, options: Mapping[str, str]) -> Edition:
    """The edition as a game with ``options`` plays it: the board chosen by ``board`` (its
    names and money sign, from ``extra.boards``: the same numbers under other names) and the
    starting cash from ``start``. Every other board's names become foreign streets, answered
    "that street isn't on this board". A bad ``start`` is an ``EditionError``."""
    import dataclasses

    boards: Mapping[str, Any] = edition.extra.get("boards") or {}
    chosen = boards.get(str(options.get("board", "")), {})
    names: Mapping[str, str] = chosen.get("names", {})
    currency = str(chosen.get("currency", edition.currency))
    start = str(options.get("start", "")).replace(",", "").strip()
    if start and not (start.isdigit() and 0 < int(start) <= 1_000_000):
        raise EditionError(edition.id, [f"option start must be a whole number of money, not {start!r}"])

    def text(t: str) -> str:
        for old, new in names.items():
            t = t.replace(old, new)
        return t.replace(edition.currency, currency) if currency != edition.currency else t

    def cards(deck: Any) -> tuple[ChanceCard, ...]:
        return tuple(ChanceCard(c.id, text(c.title),
                                {k: names.get(v, v) if k == "advance" else v
                                 for k, v in c.effect.items()}) for c in deck)

    streets = tuple(dataclasses.replace(s, name=names.get(s.name, s.name)) for s in edition.streets)
    every = {*edition.street_names, *edition.foreign_streets,
             *(n for b in boards.values() for n in b.get("names", {}).values())}
    mine = {s.name for s in streets}
    extra = dict(edition.extra)
    extra["board_words"] = dict(chosen.get("words", {}))  # its words where the grammar has both
    if "community_chest" in extra:
        chest = [ChanceCard(c["id"], c["title"], c["effect"]) for c in extra["community_chest"]]
        extra["community_chest"] = [{"id": c.id, "title": c.title, "effect": dict(c.effect)}
                                    for c in cards(chest)]
    return dataclasses.replace(
        edition, streets=streets, chance=cards(edition.chance), currency=currency, extra=extra,
        start_cash=int(start) if start else edition.start_cash,
        foreign_streets=tuple(sorted(every - mine)))
