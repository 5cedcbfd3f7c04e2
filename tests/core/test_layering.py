"""The architecture is visible and checked.

Imports point down the pipeline (speech in → nlu → interpreter → ledger/rules → speech out):
every top-level part of ``banker`` has a row in ``MAY_IMPORT`` naming the parts it may use,
and a new part must be given a row before it can land. The rules core also imports no I/O.
No module is over 500 lines and no function over 80, so no part grows back into a knot.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "banker"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

_LEAVES: set[str] = set()
_BASE = {"money", "paths", "safe_yaml"}
# part -> the other parts of banker it may import. Read a row as "X stands on these".
MAY_IMPORT: dict[str, set[str]] = {
    "__init__": _LEAVES,
    "money": _LEAVES,
    "paths": _LEAVES,
    "safe_yaml": _LEAVES,
    "editions": _BASE,
    "config": _BASE,
    "rules": _BASE | {"editions"},
    "ledger": _BASE | {"editions", "rules"},
    "nlu": _BASE | {"editions"},
    "journal": _BASE | {"editions", "rules", "ledger"},
    "speech": _BASE | {"editions", "config", "nlu"},
    "interpreter": _BASE | {"editions", "config", "rules", "ledger", "nlu", "speech"},
    "state_text": _BASE | {"editions", "rules"},  # `banker state` in words
    "screen": _BASE | {"editions", "config", "rules", "ledger", "nlu", "journal", "interpreter"},
    "app": _BASE | {"editions", "config", "rules", "ledger", "nlu", "speech", "journal", "interpreter",
                    "screen"},
    "frontends": _BASE | {"editions", "config", "rules", "ledger", "nlu", "speech", "journal",
                          "interpreter", "screen", "app"},
    "tools": _BASE | {"editions", "config", "rules", "ledger", "nlu", "speech", "journal", "interpreter",
                      "screen", "app", "frontends"},
    "cli": _BASE | {"editions", "config", "rules", "ledger", "nlu", "speech", "journal", "interpreter",
                    "screen", "app", "frontends", "tools", "state_text"},
    "__main__": {"cli"},
}
# The pure core: no I/O, no YAML, no speech.
CORE_FORBIDDEN = {"yaml", "sqlite3", "sounddevice", "pocketsphinx", "vosk", "piper", "webrtcvad",
                  "subprocess", "socket", "os", "pathlib", "io", "shutil"}


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "_data" not in p.parts)


def _part(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Absolute names of everything a module imports (relative imports resolved)."""
    rel = path.relative_to(PKG.parent).with_suffix("").parts
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-node.level])
                out.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
            elif node.module:
                out.append((node.lineno, node.module))
    return out


def test_every_part_has_a_row() -> None:
    parts = {_part(p) for p in _modules()}
    assert parts - MAY_IMPORT.keys() == set(), "give the new part a row in MAY_IMPORT"


def test_imports_point_down() -> None:
    bad = []
    for path in _modules():
        here = _part(path)
        for line, name in _imports(path):
            bits = name.split(".")
            if bits[0] != "banker" or len(bits) < 2 or bits[1] == here:
                continue
            if bits[1] not in MAY_IMPORT.get(here, set()):
                bad.append(f"{path.relative_to(PKG)}:{line} imports {name}")
    assert bad == []


def test_rules_core_is_pure() -> None:
    files = [*sorted((PKG / "rules").rglob("*.py")), PKG / "ledger.py", PKG / "money.py",
             PKG / "editions" / "model.py"]
    bad = [f"{p.relative_to(PKG)} imports {n}" for p in files for _, n in _imports(p)
           if n.split(".")[0] in CORE_FORBIDDEN]
    assert bad == []


def test_no_module_over_500_lines() -> None:
    big = {str(p.relative_to(PKG)): n for p in _modules()
           if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert big == {}


def test_no_function_over_80_lines() -> None:
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PKG)}:{node.lineno} {node.name} {n} lines")
    assert long == []


def test_every_package_says_what_it_does() -> None:
    """Each package has an __init__.py whose docstring says what it receives and returns."""
    missing = [str(d.relative_to(PKG)) for d in sorted(PKG.rglob("*")) if d.is_dir()
               and d.name != "__pycache__" and "_data" not in d.parts and any(d.glob("*.py"))
               and not (d / "__init__.py").exists()]
    undocumented = [str(p.relative_to(PKG)) for p in PKG.rglob("__init__.py")
                    if "_data" not in p.parts and not ast.get_docstring(ast.parse(p.read_text()))]
    assert (missing, undocumented) == ([], [])
