"""``config/banker.yaml`` (plus a per-user override and ``--option`` keys), validated.

A broken file raises ``ConfigError`` with one plain sentence; the CLI prints it and exits 2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from banker import safe_yaml
from banker.paths import config_dir

MAX_SEATS = 8  # the classic box seats 8: keys 1-8 by default
ENGINES = ("pocketsphinx", "vosk")


class ConfigError(Exception):
    def sentence(self) -> str:
        return str(self)


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "banker" / "banker.yaml"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = safe_yaml.safe_load(path.read_text(encoding="utf-8"))  # no YAML bombs
    except (OSError, UnicodeDecodeError):  # missing, a folder, unreadable, not UTF-8 text
        raise ConfigError(f"The config file {path} can't be read.") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"The config file {path} is not valid YAML{where}.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"The config file {path} must be a mapping of settings.")
    return data


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def load_config(path: Path | None = None, overrides: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The merged settings. ``overrides`` are dotted keys (``asr.engine``) from the command line."""
    data = _read(config_dir() / "banker.yaml")
    user = path or (Path(os.environ["BANKER_CONFIG"]) if os.environ.get("BANKER_CONFIG")
                    else user_config_path())
    # A file named on purpose (argument or BANKER_CONFIG) must be there; the per-user one may not.
    if path is not None or os.environ.get("BANKER_CONFIG") or user.exists():
        data = _merge(data, _read(user))
    file_ok = not _problems(data)
    for key, value in (overrides or {}).items():
        node = data
        parts = key.split(".")
        for p in parts[:-1]:
            child = node.get(p)
            if not isinstance(child, dict):
                child = {}
                node[p] = child
            node = child
        try:
            node[parts[-1]] = safe_yaml.safe_load(value) if value else value
        except yaml.YAMLError:
            raise ConfigError(f"--option {key}: {value!r} is not a value I can read.") from None
    problems = _problems(data)
    if problems and file_ok and overrides:  # the file is good: the command line is wrong
        given = " ".join(f"--option {k}={v}" for k, v in overrides.items())
        raise ConfigError(f"{given} doesn't work: " + "; ".join(problems) + ".")
    validate(data, str(user))
    return data


def validate(data: Mapping[str, Any], source: str) -> None:
    problems = _problems(data)
    if problems:
        raise ConfigError(f"The config file {source} is broken: " + "; ".join(problems) + ".")


def _problems(data: Mapping[str, Any]) -> list[str]:
    """Every setting that can't be used, as a short phrase each."""
    problems: list[str] = []
    asr = data.get("asr", {})
    if not isinstance(asr, dict):
        problems.append("asr must be a mapping")
    else:
        if asr.get("engine", "pocketsphinx") not in ENGINES:
            problems.append(f"asr.engine must be one of {', '.join(ENGINES)}")
        vm = asr.get("vosk_model")
        if vm is not None and not isinstance(vm, str):
            problems.append("asr.vosk_model must be a folder path")
        if asr.get("denoise", "auto") not in ("auto", "on", "off"):
            problems.append("asr.denoise must be auto, on or off")
        if str(asr.get("hearing") or "rules") not in ("rules", "model"):
            problems.append("asr.hearing must be rules or model")
        if str(asr.get("second_ear") or "none") not in ("none", "moonshine"):
            problems.append("asr.second_ear must be none or moonshine")
    buttons = data.get("buttons", {})
    if not isinstance(buttons, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_SEATS for v in buttons.values()):
        problems.append(f"buttons must map keys to seat numbers 1-{MAX_SEATS}")
    audio = data.get("audio", {})
    if not isinstance(audio, dict):
        problems.append("audio must be a mapping")
    return problems
