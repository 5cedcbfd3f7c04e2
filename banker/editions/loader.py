"""Load and validate ``config/editions/<id>.yaml``.

Every problem is collected with its key path (``streets[3].price: …``) and raised at once in
one ``EditionError``, so a user fixing a file sees all of it in one go (beancount's habit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from banker import safe_yaml
from banker.editions.model import AuctionSpec, ChanceCard, Edition, OptionSpec, Street, Token
from banker.paths import config_dir

# What each rules module needs from its data. Kept here (not in the rules package) so that
# loading data never imports rule code.
RULE_NEEDS: dict[str, dict[str, tuple[str, ...]]] = {
    "voice_banking": {
        "rent": ("base", "house", "hotel"),
        "fees": ("pass_go", "bail", "trade"),
        "stock": ("houses", "hotels"),
    },
    "secret_vault": {
        "rent": ("base", "set", "hotel1", "hotel2"),
        "fees": ("pass_go", "pass_go_vault", "tax", "bail", "pay_to_guess", "vault_start",
                 "vault_refill"),
        "stock": ("keys", "hotels"),
    },
    "jackpot": {
        "rent": ("base", "pair"),
        "fees": ("pass_go", "bail"),
        "stock": ("houses_per_player",),
    },
}

CHANCE_EFFECTS = {
    "collect", "pay", "collect_each", "pay_each", "repairs", "advance_go", "advance", "jail",
    "jail_free", "pay_vault", "vault_guess",
}


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
    try:
        data = safe_yaml.safe_load(text)  # refuses YAML bombs and deep nesting
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise EditionError(source, [f"{where}: not valid YAML"]) from None
    if not isinstance(data, dict):
        raise EditionError(source, ["the file must be a mapping of keys to values"])
    c = _Checker()
    ed_id = c.get(data, "id", "", str, check=lambda v: None if v.strip() else "must not be empty")
    name = c.get(data, "name", "", str, default=ed_id or "")
    rules = c.get(data, "rules", "", str)
    needs = RULE_NEEDS.get(rules or "", {})
    if rules is not None and rules not in RULE_NEEDS:
        c.err("rules", f"unknown rules module {rules!r} (known: {', '.join(RULE_NEEDS)})")
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

    tokens: list[Token] = []
    raw_tokens = c.get(data, "tokens", "", list)
    for i, t in enumerate(raw_tokens or []):
        p = f"tokens[{i}]"
        if not isinstance(t, dict):
            c.err(p, "must be a mapping with id and name")
            continue
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

    fees = _int_map(c, data, "fees", needs.get("fees", ()))
    stock = _int_map(c, data, "stock", needs.get("stock", ()))

    auction_raw = c.get(data, "auction", "", dict) or {}
    a_open = c.get(auction_raw, "open", "auction", int, check=_positive)
    a_step = c.get(auction_raw, "step", "auction", int, check=_positive)
    a_quiet = c.get(auction_raw, "quiet_seconds", "auction", (int, float), default=3)
    a_final = c.get(auction_raw, "final_seconds", "auction", (int, float), default=3)

    streets: list[Street] = []
    for i, s in enumerate(c.get(data, "streets", "", list) or []):
        p = f"streets[{i}]"
        if not isinstance(s, dict):
            c.err(p, "must be a mapping")
            continue
        sname = c.get(s, "name", p, str)
        group = c.get(s, "group", p, str)
        price = c.get(s, "price", p, int, check=_positive)
        rent = c.get(s, "rent", p, dict)
        rent_map: dict[str, int] = {}
        if isinstance(rent, dict):
            for key in needs.get("rent", ()):
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

    cards: list[ChanceCard] = []
    for i, cd in enumerate(c.get(data, "chance", "", list, default=[]) or []):
        p = f"chance[{i}]"
        if not isinstance(cd, dict):
            c.err(p, "must be a mapping with id, title and effect")
            continue
        cid = c.get(cd, "id", p, str)
        title = c.get(cd, "title", p, str, default=cid or "")
        effect = c.get(cd, "effect", p, dict)
        if isinstance(effect, dict):
            unknown = set(effect) - CHANCE_EFFECTS
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

    options: list[OptionSpec] = []
    for key, spec in (c.get(data, "options", "", dict, default={}) or {}).items():
        p = f"options.{key}"
        if not isinstance(spec, dict):
            c.err(p, "must be a mapping with default and choices")
            continue
        choices = c.get(spec, "choices", p, list) or []
        default = c.get(spec, "default", p, str)
        if default is not None and choices and default not in choices:
            c.err(f"{p}.default", f"{default!r} is not one of the choices")
        options.append(OptionSpec(str(key), default or "", tuple(str(x) for x in choices),
                                  str(spec.get("doc", ""))))

    extra = c.get(data, "extra", "", dict, default={}) or {}
    if c.errors:
        raise EditionError(source, c.errors)
    classic = _classic_names()
    assert ed_id and rules and start_cash and pmin and pmax and a_open and a_step
    return Edition(
        id=ed_id, name=name or ed_id, rules=rules, currency=currency or "M",
        start_cash=start_cash, min_players=pmin, max_players=pmax, tokens=tuple(tokens),
        streets=tuple(streets), chance=tuple(cards), fees=fees, stock=stock,
        auction=AuctionSpec(a_open, a_step, float(a_quiet), float(a_final)),
        money_total=total, options=tuple(options), extra=extra,
        foreign_streets=tuple(n for n in classic if n not in snames),
    )


def _int_map(c: _Checker, data: Mapping[str, Any], key: str, required: tuple[str, ...]) -> dict[str, int]:
    raw = c.get(data, key, "", dict, default={}) or {}
    out: dict[str, int] = {}
    for k in required:
        v = c.get(raw, k, key, int, check=_not_negative)
        if v is not None:
            out[k] = v
    for k, v in raw.items():
        if k not in out:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                c.err(f"{key}.{k}", f"must be a whole number of at least 0, not {v!r}")
            else:
                out[str(k)] = v
    return out
