"""Write constraints.txt: the exact versions of banker's dependencies (and the test extra's),
with everything they pull in, as installed where the tests were checked.

    python scripts/freeze_constraints.py            # writes constraints.txt
    python scripts/freeze_constraints.py --check    # exit 1 if constraints.txt is stale

``pip freeze`` would list every package of the environment; this walks only what
``banker[test]`` needs (markers evaluated for this machine), so the file pins what a fresh
``pip install -c constraints.txt -e '.[test]'`` installs, and nothing else.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
HEADER = """\
# The versions banker's tests were checked with (banker's dependencies and its test extra,
# and what they pull in). Used by the README's install and test commands:
#   pip install -c constraints.txt .            pip install -c constraints.txt -e '.[test]'
# Regenerate after an upgrade, from an environment where the tests pass:
#   python scripts/freeze_constraints.py
"""


def top_level(extras: tuple[str, ...] = ("test",)) -> list[Requirement]:
    """pyproject's dependencies and the named extras' requirements."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    return [Requirement(r) for r in reqs]


def closure(roots: list[Requirement]) -> dict[str, str]:
    """Installed name -> version for every requirement reachable from ``roots`` on this machine."""
    pinned: dict[str, str] = {}
    todo = [(r, "") for r in roots]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            sys.exit(f"{req.name} is not installed here: install banker[test] first.")
        if dist.version not in req.specifier:
            sys.exit(f"{req.name} {dist.version} is installed here but {req} is required: "
                     "freeze from an environment where the tests pass.")
        name = canonicalize_name(dist.metadata["Name"])
        if name in pinned and not req.extras:
            continue
        pinned[name] = dist.version
        todo += [(Requirement(r), e) for r in dist.requires or [] for e in ("", *req.extras)]
    pinned.pop("banker", None)
    return pinned


def render(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{n}=={v}\n" for n, v in sorted(pins.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only say whether constraints.txt is current")
    args = ap.parse_args()
    text = render(closure(top_level()))
    target = ROOT / "constraints.txt"
    if args.check:
        current = target.read_text() if target.exists() else ""
        print("constraints.txt is current" if current == text else "constraints.txt is stale")
        return 0 if current == text else 1
    target.write_text(text)
    print(f"wrote {target.relative_to(ROOT)} ({text.count('==')} pins)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
