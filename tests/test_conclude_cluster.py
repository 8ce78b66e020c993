"""Clustering of retrieved units: the automatic choice (none / PCA + GMM / UMAP + GMM) and its fallback."""

from __future__ import annotations

import numpy as np
import pytest

from claimtrace.conclude.cluster import (
    MIN_UNITS_TO_CLUSTER,
    PCA_MAX_UNITS,
    choose_method,
    cluster_vectors,
    umap_available,
)
from claimtrace.documents import load_document
from claimtrace.errors import MissingExtraError
from claimtrace.retrieval.embeddings import get_embedder
from conftest import ei_article


def _sentences(pmc: str, n: int, kind: str) -> list[str]:
    doc = load_document(ei_article(pmc))
    out = [s.text for p in doc.paragraphs if p.section_kind == kind for s in p.sentences if len(s.text) > 60]
    assert len(out) >= n
    return out[:n]


def test_auto_choice_by_number_of_units() -> None:
    assert choose_method(MIN_UNITS_TO_CLUSTER - 1, has_umap=True)[0] == "none"
    assert choose_method(20, has_umap=True)[0] == "pca-gmm"          # the typical 10-30 units: no UMAP
    assert choose_method(PCA_MAX_UNITS, has_umap=True)[0] == "pca-gmm"
    assert choose_method(PCA_MAX_UNITS + 1, has_umap=True)[0] == "umap-gmm"
    method, reason = choose_method(PCA_MAX_UNITS + 1, has_umap=False)
    assert method == "pca-gmm" and "umap-learn is not installed" in reason
    assert choose_method(20, "none", has_umap=True)[0] == "none"


def test_forced_umap_without_the_extra_is_a_clear_error() -> None:
    if umap_available():
        pytest.skip("umap-learn is installed here")
    with pytest.raises(MissingExtraError, match=r"claimtrace-sci\[umap\]"):
        choose_method(100, "umap")


def test_few_units_are_not_clustered() -> None:
    vecs = get_embedder().encode(_sentences("PMC1087200", 5, "results"))
    labels, info = cluster_vectors(vecs)
    assert labels == [0] * 5 and info.method == "none" and info.n_clusters == 1 and "too few" in info.reason


def test_pca_gmm_separates_two_unrelated_trials() -> None:
    # 10 result sentences of a malaria trial and 10 of an unrelated trial: the clusters must not mix them
    a = _sentences("PMC1087200", 10, "results")
    b = _sentences("PMC116601", 10, "results")
    vecs = get_embedder().encode(a + b)
    labels, info = cluster_vectors(vecs)
    assert info.method == "pca-gmm" and info.n_units == 20 and sum(info.sizes) == 20
    assert info.n_clusters >= 2
    la, lb = set(labels[:10]), set(labels[10:])
    assert not (la & lb), f"clusters mix the two trials: {labels}"


def test_many_units_without_umap_fall_back_to_pca() -> None:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 384))
    vecs = np.vstack([c + 0.05 * rng.normal(size=(30, 384)) for c in centres])
    labels, info = cluster_vectors(vecs, has_umap=False)
    assert info.method == "pca-gmm" and "not installed" in info.reason
    assert info.n_clusters == 3 and sorted(info.sizes) == [30, 30, 30]
    assert len(set(labels[:30])) == len(set(labels[30:60])) == len(set(labels[60:])) == 1
