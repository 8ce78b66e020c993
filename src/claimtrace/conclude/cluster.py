"""Clustering of retrieved units: UMAP + GMM as published (``[umap]`` extra), PCA + GMM or none for few units.

URCA clusters the retrieved passages before extracting knowledge from each cluster. UMAP needs many
points to be meaningful; a typical question retrieves 10-30 units, so ``auto`` picks:

* fewer than ``MIN_UNITS_TO_CLUSTER`` units: no clustering (one cluster);
* up to ``PCA_MAX_UNITS`` units, or UMAP not installed: PCA to a few dimensions, then a Gaussian mixture
  whose number of components is chosen by BIC;
* more units with ``umap-learn`` installed: UMAP, then the BIC-chosen Gaussian mixture.

The chosen path and the reason are returned in :class:`ClusterInfo` and reported with every answer.
"""

from __future__ import annotations

import importlib.util
from typing import Literal

import numpy as np

from claimtrace.conclude.model import ClusterInfo, ClusterMethod
from claimtrace.errors import ClaimtraceError, MissingExtraError

MIN_UNITS_TO_CLUSTER = 8
PCA_MAX_UNITS = 60
MAX_CLUSTERS = 8
ClusterChoice = Literal["auto", "none", "pca", "umap"]


def umap_available() -> bool:
    """True when umap-learn is installed (the ``[umap]`` extra)."""
    return importlib.util.find_spec("umap") is not None


def choose_method(n_units: int, requested: ClusterChoice = "auto", has_umap: bool | None = None) -> tuple[ClusterMethod, str]:
    """The clustering path for n units and the reason for it: ('none'|'pca-gmm'|'umap-gmm', why)."""
    has = umap_available() if has_umap is None else has_umap
    if requested == "none":
        return "none", "clustering turned off"
    if requested == "umap":
        if not has:
            raise MissingExtraError("UMAP clustering", "umap", "umap-learn")
        if n_units < MIN_UNITS_TO_CLUSTER:
            return "none", f"{n_units} units: too few to cluster"
        return "umap-gmm", "UMAP requested"
    if requested == "pca":
        if n_units < 3:
            return "none", f"{n_units} units: too few to cluster"
        return "pca-gmm", "PCA requested"
    if requested != "auto":
        raise ClaimtraceError(f"unknown clustering {requested!r} (expected auto, none, pca or umap)")
    if n_units < MIN_UNITS_TO_CLUSTER:
        return "none", f"{n_units} units (< {MIN_UNITS_TO_CLUSTER}): too few to cluster"
    if n_units <= PCA_MAX_UNITS:
        return "pca-gmm", f"{n_units} units (<= {PCA_MAX_UNITS}): too few for UMAP, PCA + GMM"
    if not has:
        return "pca-gmm", f"{n_units} units but umap-learn is not installed (pip install 'claimtrace-sci[umap]'): PCA + GMM"
    return "umap-gmm", f"{n_units} units: UMAP + GMM as published"


def _reduce_pca(x: np.ndarray, dims: int) -> np.ndarray:
    from sklearn.decomposition import PCA

    d = max(1, min(dims, x.shape[0] - 1, x.shape[1]))
    return np.asarray(PCA(n_components=d, random_state=0).fit_transform(x))


def _reduce_umap(x: np.ndarray, dims: int, seed: int) -> np.ndarray:
    import umap  # type: ignore[import-not-found,import-untyped,unused-ignore]

    n = x.shape[0]
    reducer = umap.UMAP(n_components=max(2, min(dims, n - 2)), n_neighbors=max(2, min(15, n - 1)),
                        metric="cosine", random_state=seed)
    return np.asarray(reducer.fit_transform(x))


def _gmm_bic(z: np.ndarray, max_clusters: int, seed: int) -> np.ndarray:
    from sklearn.mixture import GaussianMixture

    n = z.shape[0]
    best: tuple[float, np.ndarray | None] = (np.inf, None)
    upper = max(1, min(max_clusters, n // 3))
    for c in range(1, upper + 1):
        gm = GaussianMixture(n_components=c, covariance_type="diag", random_state=seed, reg_covar=1e-4)
        gm.fit(z)
        bic = float(gm.bic(z))
        if bic < best[0]:
            best = (bic, gm.predict(z))
    assert best[1] is not None
    return np.asarray(best[1], dtype=int)


def cluster_vectors(vectors: np.ndarray, requested: ClusterChoice = "auto", *, max_clusters: int = MAX_CLUSTERS,
                    dims: int = 5, seed: int = 0, has_umap: bool | None = None) -> tuple[list[int], ClusterInfo]:
    """Cluster rows of an embedding matrix; returns one cluster id per row and what was done."""
    x = np.asarray(vectors, dtype=np.float64)
    n = int(x.shape[0]) if x.ndim == 2 else 0
    method, reason = choose_method(n, requested, has_umap)
    if method == "none" or n == 0:
        labels = [0] * n
    else:
        z = _reduce_umap(x, dims, seed) if method == "umap-gmm" else _reduce_pca(x, dims)
        raw = _gmm_bic(z, max_clusters, seed)
        # renumber by first appearance so cluster 0 holds the first unit
        remap: dict[int, int] = {}
        labels = [remap.setdefault(int(c), len(remap)) for c in raw]
    k = max(labels) + 1 if labels else 0
    sizes = [labels.count(c) for c in range(k)]
    return labels, ClusterInfo(method=method, n_units=n, n_clusters=k, reason=reason, sizes=sizes)


def group(items: list[object], labels: list[int]) -> list[list[object]]:
    """Items grouped by cluster id, clusters in order of first appearance."""
    out: dict[int, list[object]] = {}
    for it, c in zip(items, labels, strict=True):
        out.setdefault(c, []).append(it)
    return list(out.values())
