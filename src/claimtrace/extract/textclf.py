"""A small linear sentence classifier stored as plain JSON: TF-IDF n-grams plus named cue features.

Training (``fit_linear_text_model``) uses scikit-learn and happens only in ``scripts/train_*.py``;
scoring (``LinearTextModel``) is pure Python over the JSON weights, so the shipped model is
inspectable (every n-gram and cue feature has its weight) and nothing is trained at run time.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimtrace.errors import ClaimtraceError

WEIGHTS_DIR = Path(__file__).with_name("weights")
TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")

FeatureFn = Callable[[str, dict[str, Any]], dict[str, float]]


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (the scikit-learn default token pattern)."""
    return TOKEN_RE.findall(text.lower())


def ngrams(text: str, n_max: int = 2) -> list[str]:
    """Word 1..n_max-grams of a text, joined by a space (as scikit-learn builds them)."""
    toks = tokens(text)
    out = list(toks)
    for n in range(2, n_max + 1):
        out.extend(" ".join(toks[i : i + n]) for i in range(len(toks) - n + 1))
    return out


@dataclass
class LinearTextModel:
    """Logistic regression over L2-normalised sublinear TF-IDF n-grams and named dense features."""

    name: str
    vocabulary: dict[str, tuple[float, float]]  # term -> (idf, weight)
    features: dict[str, float]  # dense feature name -> weight
    intercept: float
    threshold: float = 0.5
    ngram_max: int = 2
    metrics: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> LinearTextModel:
        """Load a model from its JSON file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ClaimtraceError(f"cannot load classifier weights {path}: {exc}") from None
        return cls(
            name=data["name"],
            vocabulary={k: (float(v[0]), float(v[1])) for k, v in data["vocabulary"].items()},
            features={k: float(v) for k, v in data["features"].items()},
            intercept=float(data["intercept"]),
            threshold=float(data.get("threshold", 0.5)),
            ngram_max=int(data.get("ngram_max", 2)),
            metrics=data.get("metrics", {}),
            meta=data.get("meta", {}),
        )

    def save(self, path: str | Path) -> None:
        """Write the model as JSON (terms sorted, weights rounded to 6 digits)."""
        data = {
            "name": self.name,
            "format": "claimtrace-linear-text-model/1",
            "intercept": round(self.intercept, 6),
            "threshold": round(self.threshold, 4),
            "ngram_max": self.ngram_max,
            "metrics": self.metrics,
            "meta": self.meta,
            "features": {k: round(v, 6) for k, v in self.features.items()},
            "vocabulary": {k: [round(v[0], 5), round(v[1], 6)] for k, v in sorted(self.vocabulary.items())},
        }
        Path(path).write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")

    def _term_values(self, text: str) -> tuple[dict[str, float], float]:
        """The sublinear tf-idf value of each vocabulary n-gram of the text, and their L2 norm (1 when none)."""
        vocab = self.vocabulary
        counts = Counter(t for t in ngrams(text, self.ngram_max) if t in vocab)
        vals = {t: (1.0 + math.log(c)) * vocab[t][0] for t, c in counts.items()}
        return vals, math.sqrt(sum(v * v for v in vals.values())) or 1.0

    def decision(self, text: str, dense: dict[str, float]) -> tuple[float, list[tuple[str, float]]]:
        """The logit for one sentence and the contributions of its terms and features, largest first."""
        vals, norm = self._term_values(text)
        contrib: list[tuple[str, float]] = [(t, v / norm * self.vocabulary[t][1]) for t, v in vals.items()]
        contrib.extend((f"[{k}]", x * self.features[k]) for k, x in dense.items() if k in self.features and x)
        z = self.intercept + sum(c for _, c in contrib)
        contrib.sort(key=lambda kv: -abs(kv[1]))
        return z, contrib

    def logit(self, text: str, dense: dict[str, float]) -> float:
        """The logit of :meth:`decision` (the same sum, in the same order) without the sorted contributions."""
        vocab = self.vocabulary
        vals, norm = self._term_values(text)
        feats = self.features
        return self.intercept + sum([*(v / norm * vocab[t][1] for t, v in vals.items()),
                                     *(x * feats[k] for k, x in dense.items() if k in feats and x)])

    def score(self, text: str, dense: dict[str, float]) -> float:
        """The probability that the sentence is positive."""
        z, _ = self.decision(text, dense)
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def fit_linear_text_model(
    name: str,
    texts: Sequence[str],
    dense: Sequence[dict[str, float]],
    labels: Sequence[int],
    *,
    max_features: int = 6000,
    c: float = 4.0,
    class_weight: str | None = "balanced",
) -> LinearTextModel:
    """Fit TF-IDF + dense features + logistic regression with scikit-learn (training scripts only)."""
    import numpy as np
    from scipy.sparse import csr_matrix, hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, max_features=max_features,
                          token_pattern=TOKEN_RE.pattern)
    xt = vec.fit_transform(texts)
    names = sorted({k for d in dense for k in d})
    xd = csr_matrix(np.array([[d.get(k, 0.0) for k in names] for d in dense], dtype=float))
    x = hstack([xt, xd]).tocsr()
    clf = LogisticRegression(C=c, class_weight=class_weight, max_iter=3000)
    clf.fit(x, np.asarray(labels))
    coef = clf.coef_[0]
    terms = vec.get_feature_names_out()
    vocab = {str(t): (float(vec.idf_[i]), float(coef[i])) for i, t in enumerate(terms) if abs(coef[i]) > 1e-6}
    feats = {k: float(coef[len(terms) + j]) for j, k in enumerate(names)}
    return LinearTextModel(name=name, vocabulary=vocab, features=feats, intercept=float(clf.intercept_[0]))
