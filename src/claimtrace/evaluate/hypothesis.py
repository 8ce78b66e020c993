"""The hypothesis metric as published, its F1-against-τ curve, and τ calibration on rated pairs.

Metric: the predicted span is split into sentences; a predicted sentence matches when its cosine
similarity to the gold hypothesis — or to any gold sentence when the gold has several — is ≥ τ.
A gold sentence is recalled when some predicted sentence reaches τ against it. Precision counts
predicted sentences, recall gold sentences; corpora are scored micro (counts summed over items).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from claimtrace.documents.model import StrictModel
from claimtrace.documents.sentences import split_sentences
from claimtrace.errors import InputError
from claimtrace.jsonl import json_lines
from claimtrace.metrics import PRF, micro, prf
from claimtrace.retrieval.embeddings import Embedder

#: Default τ for the local MiniLM embedder (see docs/evaluation.md, "Choosing τ").
DEFAULT_TAU = 0.75
#: τ the published study calibrated for its (Gemini) embedding model; not valid for MiniLM.
PUBLISHED_TAU_GEMINI = 0.89


def tau_grid(start: float = 0.10, stop: float = 1.00, step: float = 0.01) -> list[float]:
    """The calibration grid [start, stop] in ``step`` increments, rounded to avoid float drift."""
    n = round((stop - start) / step)
    return [round(start + i * step, 4) for i in range(n + 1)]


def sentences_of(text: str | None) -> list[str]:
    """The sentences of a span (the project's scientific sentence splitter); [] for empty text."""
    if not text or not text.strip():
        return []
    return [text[s:e] for s, e in split_sentences(text)]


@dataclass
class HypothesisSims:
    """Similarities of one item: rows = predicted sentences; ``pred_best`` their best score against
    the gold (whole hypothesis and its sentences); ``gold_best`` each gold sentence's best score."""

    pred_sentences: list[str]
    gold_sentences: list[str]
    pred_best: np.ndarray
    gold_best: np.ndarray

    def score(self, tau: float) -> PRF:
        """The item's counts at threshold ``tau``."""
        tp = int((self.pred_best >= tau).sum())
        tg = int((self.gold_best >= tau).sum())
        return prf(tp, len(self.pred_sentences) - tp, len(self.gold_sentences) - tg, tg)


def hypothesis_sims(pred: str | None, gold: str | None, embedder: Embedder) -> HypothesisSims:
    """Sentence similarities between a predicted span and a gold hypothesis."""
    ps, gs = sentences_of(pred), sentences_of(gold)
    if not ps or not gs:
        return HypothesisSims(ps, gs, np.zeros(len(ps)), np.zeros(len(gs)))
    gold_cols = gs if len(gs) == 1 else [(gold or "").strip(), *gs]
    vecs = embedder.encode(ps + gold_cols)
    sim = vecs[: len(ps)] @ vecs[len(ps) :].T  # rows pred, cols gold units
    sent_cols = sim if len(gs) == 1 else sim[:, 1:]
    return HypothesisSims(ps, gs, sim.max(axis=1), sent_cols.max(axis=0))


def score_hypothesis(pred: str | None, gold: str | None, embedder: Embedder, tau: float = DEFAULT_TAU) -> PRF:
    """Score one predicted hypothesis span against one gold hypothesis at threshold ``tau``."""
    return hypothesis_sims(pred, gold, embedder).score(tau)


def score_hypotheses(
    pairs: Sequence[tuple[str | None, str | None]], embedder: Embedder, tau: float = DEFAULT_TAU
) -> PRF:
    """Micro P/R/F1 over (predicted, gold) pairs."""
    return micro(hypothesis_sims(p, g, embedder).score(tau) for p, g in pairs)


class CurvePoint(StrictModel):
    """Scores at one threshold."""

    tau: float
    precision: float
    recall: float
    f1: float


def f1_curve(sims: Sequence[HypothesisSims], taus: Sequence[float]) -> list[CurvePoint]:
    """Micro P/R/F1 at each threshold, from precomputed similarities."""
    out = []
    for t in taus:
        s = micro(x.score(t) for x in sims)
        out.append(CurvePoint(tau=t, precision=s.precision, recall=s.recall, f1=s.f1))
    return out


# ---- calibration ---------------------------------------------------------------------------

class Rating(BaseModel):
    """A rated pair: 3 exact, 2 mostly similar, 1 partially similar, 0 different (2–3 = correct)."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    predicted: str
    gold: str
    rating: int = Field(ge=0, le=3)

    @property
    def correct(self) -> bool:
        """Ratings 2 and 3 count as a correct match."""
        return self.rating >= 2


class CalibrationResult(StrictModel):
    """The grid search: the best τ, its scores, and the whole curve."""

    best_tau: float
    precision: float
    recall: float
    f1: float
    n_pairs: int
    n_correct: int
    grid: list[CurvePoint]


_PRED_KEYS = ("predicted", "pred", "prediction", "text_a")
_GOLD_KEYS = ("gold", "reference", "text_b")
_RATING_KEYS = ("rating", "score", "label")


def read_ratings(path: str | Path) -> list[Rating]:
    """Read rated pairs from JSONL or CSV (columns predicted|pred, gold, rating 0–3)."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    rows: list[dict[str, object]] = []
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
    else:
        rows = [obj for _, obj in json_lines(p, text, objects=True)]
    out: list[Rating] = []
    for n, row in enumerate(rows, 1):
        pred = next((row[k] for k in _PRED_KEYS if row.get(k) not in (None, "")), None)
        gold = next((row[k] for k in _GOLD_KEYS if row.get(k) not in (None, "")), None)
        rating = next((row[k] for k in _RATING_KEYS if row.get(k) not in (None, "")), None)
        if pred is None or gold is None or rating is None:
            raise InputError(p, f"row {n}: needs 'predicted', 'gold' and 'rating' (0-3)")
        try:
            r = int(float(str(rating)))
        except ValueError:
            raise InputError(p, f"row {n}: rating {rating!r} is not a number 0-3") from None
        if not 0 <= r <= 3:
            raise InputError(p, f"row {n}: rating {r} outside 0-3")
        out.append(Rating(id=str(row.get("id")) if row.get("id") is not None else None,
                          predicted=str(pred), gold=str(gold), rating=r))
    if not out:
        raise InputError(p, "no rated pairs")
    return out


def pair_similarities(ratings: Sequence[Rating], embedder: Embedder) -> np.ndarray:
    """Cosine similarity of each rated pair (whole texts)."""
    if not ratings:
        return np.zeros(0)
    a = embedder.encode([r.predicted for r in ratings])
    b = embedder.encode([r.gold for r in ratings])
    return np.asarray((a * b).sum(axis=1), dtype=float)


def calibrate_from_scores(
    sims: Sequence[float] | np.ndarray, correct: Sequence[bool], taus: Sequence[float] | None = None
) -> CalibrationResult:
    """Grid-search τ: a pair is predicted a match when sim ≥ τ; the best F1 wins (lowest τ on ties)."""
    s = np.asarray(sims, dtype=float)
    y = np.asarray(correct, dtype=bool)
    grid: list[CurvePoint] = []
    for t in (taus or tau_grid()):
        pos = s >= t - 1e-12
        r = prf(int((pos & y).sum()), int((pos & ~y).sum()), int((~pos & y).sum()))
        grid.append(CurvePoint(tau=t, precision=r.precision, recall=r.recall, f1=r.f1))
    best = max(grid, key=lambda c: (c.f1, -c.tau))
    return CalibrationResult(best_tau=best.tau, precision=best.precision, recall=best.recall, f1=best.f1,
                             n_pairs=len(s), n_correct=int(y.sum()), grid=grid)


def calibrate(ratings: Sequence[Rating], embedder: Embedder, taus: Sequence[float] | None = None) -> CalibrationResult:
    """Calibrate τ on rated pairs with an embedder (grid [0.1, 1.0] step 0.01 by default)."""
    if not ratings:
        raise InputError(None, "no rated pairs to calibrate on")
    return calibrate_from_scores(pair_similarities(ratings, embedder), [r.correct for r in ratings], taus)
