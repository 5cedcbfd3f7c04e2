"""The registry's rules classes, imported on first use (``banker.editions.registry`` names
them by dotted path, so loading an edition never imports rule code)."""

from __future__ import annotations

import importlib
from functools import cache

from banker.editions.registry import REGISTRY
from banker.rules.base import Rules


@cache
def rules_class(rules_id: str) -> type[Rules]:
    """The rules class registered for ``rules_id`` (an edition's ``rules:`` key)."""
    entry = REGISTRY.get(rules_id)
    if entry is None:
        raise ValueError(f"unknown rules module {rules_id!r}")
    module, _, name = entry.rules.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, Rules)):
        raise ValueError(f"{entry.rules} is not a rules class")
    return cls
