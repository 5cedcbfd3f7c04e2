"""The README's test command is what CI runs."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def test_readme_and_docs_stand_on_their_own() -> None:
    """A clone has no ../shared: what users and contributors need is in README.md and docs/."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    leaning = [p.name for p in pages if "../shared" in p.read_text() or "shared/spec" in p.read_text()]
    assert leaning == []
    linked = {m for p in pages for m in re.findall(r"`(docs/[\w./-]+\.md)`", p.read_text())}
    assert "docs/transcripts.md" in linked
    assert [m for m in linked if not (ROOT / m).is_file()] == []


def test_the_readme_replay_example_covers_every_example_transcript() -> None:
    """The README's `banker replay …` line, globbed from a clone's root, names every example
    transcript (all of them pass in tests/test_transcripts.py) and none of the malformed ones."""
    lines = [ln for ln in (ROOT / "README.md").read_text().splitlines()
             if ln.startswith("banker replay tests/transcripts")]
    assert len(lines) == 1, lines
    files = {p for arg in shlex.split(lines[0])[2:] for p in ROOT.glob(arg)}
    examples = {p for p in (ROOT / "tests" / "transcripts").rglob("*.yaml") if "malformed" not in p.parts}
    assert files == examples and len(files) > 40


def test_install_and_test_commands_pin_the_checked_versions() -> None:
    """A fresh install gets the versions the tests were checked with (constraints.txt)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    commands = [lines[lines.index(marker) + 2] for marker in ("<!-- play-command -->", "<!-- test-command -->")]
    assert all("pip install -c constraints.txt " in c for c in commands), commands
    pins = dict(ln.split("==") for ln in (ROOT / "constraints.txt").read_text().splitlines()
                if ln and not ln.startswith("#"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]
    unpinned = [str(r) for r in wanted if canonicalize_name(r.name) not in pins]
    assert unpinned == []
    outside = [f"{r} (pinned {pins[canonicalize_name(r.name)]})" for r in wanted
               if pins[canonicalize_name(r.name)] not in r.specifier]
    assert outside == []
    assert {"piper-tts", "onnxruntime", "numpy", "pocketsphinx"} <= pins.keys()
