"""The architecture is visible and checked: the rules core imports no I/O, speech or YAML."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "banker"
FORBIDDEN_IN_CORE = {"yaml", "sqlite3", "sounddevice", "pocketsphinx", "vosk", "piper",
                     "webrtcvad", "subprocess", "socket", "os", "pathlib", "io", "shutil",
                     "banker.speech", "banker.nlu", "banker.journal", "banker.interpreter",
                     "banker.frontends", "banker.app", "banker.cli", "banker.config",
                     "banker.editions.loader", "banker.paths", "banker.tools"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def _bad(paths: list[Path], forbidden: set[str]) -> list[str]:
    bad = []
    for p in paths:
        for mod in imports_of(p):
            if any(mod == f or mod.startswith(f + ".") for f in forbidden):
                bad.append(f"{p.relative_to(PKG)} imports {mod}")
    return bad


def test_rules_core_is_pure() -> None:
    files = [*sorted((PKG / "rules").glob("*.py")), PKG / "editions" / "model.py", PKG / "money.py"]
    assert _bad(files, FORBIDDEN_IN_CORE) == []


def test_matcher_imports_no_ledger_or_speech() -> None:
    files = sorted((PKG / "nlu").glob("*.py"))
    assert _bad(files, {"banker.rules", "banker.journal", "banker.speech", "sqlite3",
                        "sounddevice"}) == []


def test_speech_imports_nothing_from_the_ledger() -> None:
    files = sorted((PKG / "speech").glob("*.py"))
    assert _bad(files, {"banker.rules", "banker.journal", "sqlite3"}) == []
