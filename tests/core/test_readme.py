"""The README's test command is what CI runs."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_runs_the_readme_test_command() -> None:
    readme = ROOT / "README.md"
    lines = readme.read_text().splitlines()
    i = lines.index("<!-- test-command -->")
    cmd = lines[i + 2]
    assert "pytest" in cmd
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command -->" in ci and 'bash -c "$cmd"' in ci
    # the first two commands of the README are install+play and the tests
    first = [ln for ln in lines if ln.startswith("apt-get")]
    assert first[0].endswith("banker play") and first[1] == cmd
