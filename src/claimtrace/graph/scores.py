"""Graph scores: edges aligned under the structure-first node alignment (``claimtrace.graph.align``).

Per document, precision = aligned / predicted edges and recall = aligned / gold edges, overall and per
relation type (``claimtrace.metrics``: two empty graphs agree perfectly); a corpus pools the
counts (micro) and averages the relation types (macro) and the documents (``doc_macro_f1``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from claimtrace.errors import InputError
from claimtrace.graph.align import align_graphs
from claimtrace.graph.model import GRAPH_SCHEMA_VERSION, RELATION_TYPES, EmpiricalGraph
from claimtrace.metrics import PRF, micro, prf_from_sizes


class PairScore(BaseModel):
    """One document's scores under one alignment."""

    id: str
    overall: PRF
    per_type: dict[str, PRF]
    mapping: dict[str, str]
    optimal: bool


def score_pair(pred: EmpiricalGraph, gold: EmpiricalGraph, *, use_status: bool = True,
               time_limit: float | None = 60.0, initial: dict[str, str] | None = None) -> PairScore:
    """Align two graphs and count aligned, predicted and gold edges overall and per relation type."""
    res = align_graphs(pred, gold, use_status=use_status, time_limit=time_limit, initial=initial)
    inv = res.mapping  # pred -> gold
    gold_keys = set()
    for e in gold.edges:
        gold_keys.add(_edge_key(e.source, e.target, e.type, e.status, use_status))
    counts = {t: [0, 0, 0] for t in RELATION_TYPES}  # matched, pred, gold
    pred_keys = set()
    for e in pred.edges:
        k = _edge_key(e.source, e.target, e.type, e.status, use_status)
        if k in pred_keys or e.source == e.target:
            continue
        pred_keys.add(k)
        counts[e.type][1] += 1
        gs, gt = inv.get(e.source), inv.get(e.target)
        if gs is not None and gt is not None and _edge_key(gs, gt, e.type, e.status, use_status) in gold_keys:
            counts[e.type][0] += 1
    for k in gold_keys:
        counts[k[2]][2] += 1  # type: ignore[index]
    per_type = {t: prf_from_sizes(*c) for t, c in counts.items()}
    tot = [sum(c[i] for c in counts.values()) for i in range(3)]
    return PairScore(id=gold.id, overall=prf_from_sizes(*tot), per_type=per_type, mapping=res.mapping, optimal=res.optimal)


def _edge_key(s: str, t: str, rtype: str, status: str, use_status: bool) -> tuple[str, str, str, str]:
    if rtype == "correlational" and t < s:
        s, t = t, s
    return (s, t, rtype, status if use_status and rtype != "hierarchy" else "")


class Scores(BaseModel):
    """Corpus scores: micro F1 (pooled counts), macro F1 (mean over relation types), per type."""

    micro_f1: float
    macro_f1: float
    doc_macro_f1: float = Field(description="mean of per-document F1")
    precision: float
    recall: float
    per_type: dict[str, float]
    per_type_counts: dict[str, PRF]


def aggregate(pairs: Iterable[PairScore]) -> Scores:
    """Micro and macro F1 overall and per relation type from per-document scores."""
    pairs = list(pairs)
    per_type_counts: dict[str, PRF] = {}
    for t in RELATION_TYPES:
        per_type_counts[t] = micro(p.per_type[t] for p in pairs)
    present = [t for t in RELATION_TYPES if per_type_counts[t].pred or per_type_counts[t].gold]
    pooled = micro(per_type_counts.values())
    macro = sum(per_type_counts[t].f1 for t in present) / len(present) if present else 1.0
    doc_macro = sum(p.overall.f1 for p in pairs) / len(pairs) if pairs else 0.0
    return Scores(micro_f1=pooled.f1, macro_f1=macro, doc_macro_f1=doc_macro, precision=pooled.precision,
                  recall=pooled.recall, per_type={t: per_type_counts[t].f1 for t in present},
                  per_type_counts=per_type_counts)


class DocumentReport(BaseModel):
    """One document: F1 with and without status, and the node mapping (pred id -> gold id)."""

    id: str
    f1: float
    f1_no_status: float
    matched: int
    pred_edges: int
    gold_edges: int
    optimal: bool
    mapping: dict[str, str]


class GraphEvaluation(BaseModel):
    """``claimtrace evaluate graph`` output."""

    schema_version: str = GRAPH_SCHEMA_VERSION
    mode: Literal["evaluate", "agreement"] = "evaluate"
    n_documents: int
    micro_f1: float
    macro_f1: float
    doc_macro_f1: float
    precision: float
    recall: float
    per_type: dict[str, float]
    per_type_counts: dict[str, PRF]
    no_status: Scores
    documents: list[DocumentReport]
    missing_pred: list[str] = Field(default_factory=list, description="gold ids with no prediction (scored as empty)")
    extra_pred: list[str] = Field(default_factory=list, description="predicted ids with no gold (ignored)")


def evaluate_graphs(preds: dict[str, EmpiricalGraph], golds: dict[str, EmpiricalGraph], *,
                    mode: Literal["evaluate", "agreement"] = "evaluate",
                    time_limit: float | None = 60.0) -> GraphEvaluation:
    """Score predicted graphs against gold graphs with the same ids (a lone pair is matched as is)."""
    if len(preds) == 1 and len(golds) == 1 and set(preds) != set(golds):
        preds = {next(iter(golds)): next(iter(preds.values()))}
    common = [k for k in golds if k in preds]
    if not common:
        raise InputError(None, f"no predicted graph id matches a gold id (gold: {', '.join(list(golds)[:5])}...)")
    with_status, no_status, docs = [], [], []
    missing = [k for k in golds if k not in preds]
    for gid, gold in golds.items():
        pred = preds.get(gid) or EmpiricalGraph(id=gid)
        a = score_pair(pred, gold, use_status=True, time_limit=time_limit)
        b = score_pair(pred, gold, use_status=False, time_limit=time_limit, initial=a.mapping)
        with_status.append(a)
        no_status.append(b)
        docs.append(DocumentReport(id=gid, f1=a.overall.f1, f1_no_status=b.overall.f1, matched=a.overall.tp,
                                   pred_edges=a.overall.pred, gold_edges=a.overall.gold,
                                   optimal=a.optimal and b.optimal, mapping=a.mapping))
    s = aggregate(with_status)
    return GraphEvaluation(mode=mode, n_documents=len(golds), micro_f1=s.micro_f1, macro_f1=s.macro_f1,
                           doc_macro_f1=s.doc_macro_f1, precision=s.precision, recall=s.recall, per_type=s.per_type,
                           per_type_counts=s.per_type_counts, no_status=aggregate(no_status), documents=docs,
                           missing_pred=missing, extra_pred=[k for k in preds if k not in golds])


def annotator_agreement(graphs: dict[str, list[EmpiricalGraph]]) -> GraphEvaluation:
    """Inter-annotator agreement: every pair of annotations of each task scored against each other."""
    a: dict[str, EmpiricalGraph] = {}
    b: dict[str, EmpiricalGraph] = {}
    for tid, anns in graphs.items():
        for i, j in itertools.combinations(range(len(anns)), 2):
            key = f"{tid}#{i + 1}v{j + 1}"
            a[key], b[key] = anns[i], anns[j]
    if not a:
        raise InputError(None, "no task has two or more annotations to compare")
    return evaluate_graphs(a, b, mode="agreement")
