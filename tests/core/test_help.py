"""``banker --help`` teaches: every subcommand has a line saying what it does and an example
that parses; ``banker --version`` says the version."""

from __future__ import annotations

import argparse
import importlib.metadata
import shlex
import tomllib
from pathlib import Path

import pytest

from banker.cli import COMMANDS, build_parser, main, version

ROOT = Path(__file__).resolve().parents[2]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def test_every_subcommand_has_a_line_and_an_example() -> None:
    subs = _subcommands()
    assert set(subs) == set(COMMANDS)
    for name, parser in subs.items():
        line, example = COMMANDS[name]
        assert line and parser.description and parser.epilog and example in parser.epilog
        assert all(ex.strip().startswith(f"banker {name}") for ex in example.splitlines())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_example_parses(name: str) -> None:
    for example in COMMANDS[name][1].splitlines():
        args = build_parser().parse_args(shlex.split(example)[1:])
        assert args.cmd == name


def test_the_top_help_lists_every_subcommand_with_its_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    for name, (line, example) in COMMANDS.items():
        assert name in out and example.splitlines()[0] in out
        assert " ".join(line.split()[:3]) in " ".join(out.split())


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    try:
        installed = importlib.metadata.version("banker")
    except importlib.metadata.PackageNotFoundError:
        installed = pyproject
    assert capsys.readouterr().out.strip() == f"banker {installed}" == f"banker {version()}"
    assert version() != "unknown"
