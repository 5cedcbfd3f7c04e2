"""The confidence refit's regression (``scripts/fit_confidence.py``) recovers known weights."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np


def test_logistic_fit_recovers_the_weights_that_made_the_labels() -> None:
    path = Path(__file__).resolve().parents[2] / "scripts" / "fit_confidence.py"
    spec = importlib.util.spec_from_file_location("fit_confidence", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(3)
    x = np.hstack([np.ones((4000, 1)), rng.normal(size=(4000, 2))])
    truth = np.array([1.5, 0.8, -2.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-x @ truth))).astype(float)
    w = mod.logistic_fit(x, y)
    assert np.allclose(w, truth, atol=0.25), w
