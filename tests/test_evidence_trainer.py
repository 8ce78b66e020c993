"""The evidence ranker's trainer (``scripts/train_evidence_ranker.py``): the fit on standardised features pulls every
feature alike, so a feature's unit does not change the ranking it learns, and its weights apply to the raw features."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from train_evidence_ranker import fit_scaled, fold_of


def _lists(seed: int = 7, n: int = 40) -> list[tuple[np.ndarray, np.ndarray]]:
    """Candidate lists whose positive is marked by the second feature (a small cue) and noise in the others."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        x = rng.normal(size=(8, 3))
        x[:, 1] = rng.random(8) < 0.3
        y = np.zeros(8, dtype=bool)
        y[int(np.argmax(x[:, 1] * 2 + x[:, 0] * 0.5 + rng.normal(scale=0.3, size=8)))] = True
        out.append((x, y))
    return out


def test_a_features_unit_does_not_change_the_scaled_fit() -> None:
    data = _lists()
    prior = np.array([1.0, 0.0, 0.0])
    w = fit_scaled(data, 0.05, prior)
    scaled = [(x * np.array([1.0, 1000.0, 1.0]), y) for x, y in data]
    w2 = fit_scaled(scaled, 0.05, prior)
    # the same scores on the raw features: the weight of the rescaled column is rescaled back
    for (x, _), (x2, _) in zip(data, scaled, strict=True):
        assert np.allclose(x @ w, x2 @ w2, atol=1e-3)
    assert w[1] > 0.5  # the cue that marks the positive is learned


def test_folds_keep_a_paper_together_and_differ_between_repeats() -> None:
    papers = [f"p{i}.xml" for i in range(50)]
    assert all(fold_of(p, 5, 1) == fold_of(p, 5, 1) for p in papers)
    assert [fold_of(p, 5, 0) for p in papers] != [fold_of(p, 5, 1) for p in papers]
    assert {fold_of(p, 5, 2) for p in papers} == set(range(5))
