"""Retrieval metrics: recall@k, hit@k, MRR and nDCG@k, with gold given as unit ids or as text spans."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from claimtrace.textmatch import same_statement


def relevance(hits: Sequence[dict[str, Any]], gold_ids: Sequence[str] = (), gold_texts: Sequence[str] = ()) -> list[list[int]]:
    """For each hit, the indices of the gold items it matches (unit ids first, then text spans)."""
    gold = list(gold_ids) + list(gold_texts)
    out: list[list[int]] = []
    for h in hits:
        m: list[int] = []
        for j, g in enumerate(gold):
            if j < len(gold_ids):
                uid = str(h.get("unit_id", ""))
                if uid == g:
                    m.append(j)
            elif same_statement(g, str(h.get("text", ""))):
                m.append(j)
        out.append(m)
    return out


def scores_for(hits: Sequence[dict[str, Any]], gold_ids: Sequence[str] = (), gold_texts: Sequence[str] = (),
               ks: Sequence[int] = (1, 3, 5, 10)) -> dict[str, float]:
    """recall@k (share of gold items found in the top k), hit@k, MRR and nDCG@k (binary gains) for one query."""
    n_gold = len(gold_ids) + len(gold_texts)
    if n_gold == 0:
        raise ValueError("no gold for this query")
    rel = relevance(hits, gold_ids, gold_texts)
    res: dict[str, float] = {}
    for k in ks:
        found = {j for m in rel[:k] for j in m}
        res[f"recall@{k}"] = len(found) / n_gold
        res[f"hit@{k}"] = float(bool(found))
        dcg = sum(1.0 / math.log2(r + 2) for r, m in enumerate(rel[:k]) if m)
        idcg = sum(1.0 / math.log2(r + 2) for r in range(min(n_gold, k)))
        res[f"ndcg@{k}"] = dcg / idcg if idcg else 0.0
    first = next((r for r, m in enumerate(rel) if m), None)
    res["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return res


def aggregate(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Mean of each metric over queries."""
    if not rows:
        return {}
    keys = rows[0].keys()
    return {k: sum(r[k] for r in rows) / len(rows) for k in keys}
