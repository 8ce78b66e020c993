"""The LLM conclusion methods under one interface: URCA and the baselines (none, abstracts, rag, uniform, raptor).

* ``none``: no retrieval, the question alone (what the model already believes).
* ``abstracts``: the papers' abstracts.
* ``rag``: the top k units of all papers pooled (one long paper can take every slot).
* ``uniform``: RAG + uniform retrieval, each paper its quota k_s = ceil(min(k + beta ln S, N_max) / S).
* ``urca``: uniform retrieval, clustering of the units (see ``cluster.py``), knowledge extraction per
  cluster, answer from the extracted knowledge.
* ``raptor``: a RAPTOR-style tree: all units clustered, one summary per cluster, a root summary; the
  top k nodes of the collapsed tree (units and summaries) are retrieved for the answer.

Every answer's quotes are located in the papers (``claimtrace.extract.locate``); a quote that cannot be
found is reported in ``unlocated_quotes`` and never kept as real.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from claimtrace.conclude.cluster import cluster_vectors
from claimtrace.conclude.model import (
    ConcludeResult,
    Question,
    Quote,
    RetrievalInfo,
    conclusion_for,
)
from claimtrace.conclude.papers import (
    DEFAULT_K,
    Paper,
    Passage,
    format_passages,
    pooled_retrieve,
    uniform_retrieve,
    units_per_paper,
)
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.locate import locate_quote
from claimtrace.llm import LLMClient
from claimtrace.retrieval.base import Retriever, rank
from claimtrace.retrieval.embeddings import get_embedder
from claimtrace.retrieval.units import Unit

TASK = "conclusion"
RAPTOR_MAX_PER_CLUSTER = 12


class Knowledge(BaseModel):
    """What one cluster of passages says about the question."""

    relevant: bool = False
    knowledge: str = ""
    quotes: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    """The final answer of an LLM method."""

    label: Literal["significantly increased", "significantly decreased", "no significant difference",
                   "insufficient evidence"]
    rationale: str = ""
    quotes: list[str] = Field(default_factory=list)
    higher_is_better: Literal["yes", "no", "unknown"] | None = None


class Summary(BaseModel):
    """A RAPTOR node summary."""

    summary: str


def locate_quotes(quotes: Sequence[str], papers: Sequence[Paper]) -> tuple[list[Quote], list[Quote]]:
    """Locate quotes in the papers (body, then abstract); returns (located, unlocated) without duplicates."""
    found: list[Quote] = []
    missing: list[Quote] = []
    seen: set[tuple[int, int | None, int | None, str | None]] = set()
    for q in quotes:
        if not q or not q.strip():
            continue
        hit = None
        for p in papers:
            span = locate_quote(p.doc, q, scopes=("body", "abstract"))
            if span is not None:
                hit = Quote(text=span.text, paper=p.path, paper_index=p.index, located=True, scope=span.scope,
                            start=span.start, end=span.end, sentence_ids=list(span.sentence_ids),
                            match=span.located)
                break
        if hit is None:
            if all(m.text != q for m in missing):
                missing.append(Quote(text=q, paper="", paper_index=-1, located=False))
            continue
        key = (hit.paper_index, hit.start, hit.end, hit.scope)
        if key not in seen:
            seen.add(key)
            found.append(hit)
    return found, missing


def _embed(texts: Sequence[str]) -> np.ndarray:
    return np.asarray(get_embedder().encode(list(texts)))


def _variables(q: Question) -> dict[str, Any]:
    return {"intervention": q.intervention, "comparator": q.comparator, "outcome": q.outcome}


def run_llm_method(method: str, q: Question, papers: Sequence[Paper], client: LLMClient, hib: bool | None, *,
                   retriever: Retriever, k: int | None = None, beta: float = 2.0, n_max: int = 40,
                   clustering: str = "auto") -> ConcludeResult:
    """Run one LLM method end to end and locate its quotes."""
    k = k or DEFAULT_K
    invocations: list[str] = []
    warnings: list[str] = []
    cluster_info = None
    extra_quotes: list[str] = []
    query = q.query()
    evidence_kind = "passages"
    if method == "none":
        evidence = "(no text from the papers is given)"
        evidence_kind = "notes"
        info = RetrievalInfo(strategy="none", k=0, units_per_paper=[0] * len(papers))
    elif method == "abstracts":
        parts = [f"[paper {p.index + 1}] {p.abstract()}" if len(papers) > 1 else p.abstract()
                 for p in papers if p.abstract().strip()]
        if not parts:
            warnings.append("no abstract found in the papers")
        evidence = "\n\n".join(parts) or "(no abstract)"
        evidence_kind = "abstracts"
        info = RetrievalInfo(strategy="abstracts", k=0, units_per_paper=[int(bool(p.abstract().strip())) for p in papers])
    elif method == "rag":
        passages = pooled_retrieve(papers, query, retriever, k)
        evidence = format_passages(passages, papers)
        info = RetrievalInfo(strategy="pooled", k=k, units_per_paper=units_per_paper(passages, len(papers)))
    elif method == "uniform":
        passages, ks = uniform_retrieve(papers, query, retriever, k, beta, n_max)
        evidence = format_passages(passages, papers)
        info = RetrievalInfo(strategy="uniform", k=k, per_paper_quota=ks,
                             units_per_paper=units_per_paper(passages, len(papers)))
    elif method == "urca":
        passages, ks = uniform_retrieve(papers, query, retriever, k, beta, n_max)
        info = RetrievalInfo(strategy="uniform", k=k, per_paper_quota=ks,
                             units_per_paper=units_per_paper(passages, len(papers)))
        labels, cluster_info = cluster_vectors(_embed([p.text for p in passages]) if passages else np.zeros((0, 1)),
                                               clustering)  # type: ignore[arg-type]
        groups: dict[int, list[Passage]] = {}
        for p, c in zip(passages, labels, strict=True):
            groups.setdefault(c, []).append(p)
        items = [{**_variables(q), "passages": format_passages(g, papers)} for g in groups.values()]
        results = client.structured_batch("conclude_knowledge", items, Knowledge, task=TASK) if items else []
        notes = []
        for i, kr in enumerate(results, 1):
            invocations += kr.invocation_ids
            if not kr.ok or kr.value is None:
                warnings.append(f"cluster {i}: knowledge extraction failed ({kr.error})")
                continue
            kn = kr.value
            if kn.relevant and kn.knowledge.strip():
                qs = " ".join(f'"{x}"' for x in kn.quotes)
                notes.append(f"- {kn.knowledge.strip()}" + (f" Quotes: {qs}" if qs else ""))
                extra_quotes += kn.quotes
        evidence = "\n".join(notes) or "(no passage was relevant to the question)"
        evidence_kind = "notes"
    elif method == "raptor":
        evidence, info, cluster_info, invs, warns = _raptor(q, papers, client, retriever, k, clustering)
        invocations += invs
        warnings += warns
    else:
        raise ClaimtraceError(f"unknown LLM method {method!r}")

    res = client.structured("conclude_answer", {**_variables(q), "evidence_kind": evidence_kind,
                                                "evidence": evidence, "ask_polarity": hib is None},
                            Answer, task=TASK)
    invocations += res.invocation_ids
    if not res.ok or res.value is None:
        raise ClaimtraceError(f"conclusion: the LLM gave no valid answer ({res.error})")
    ans = res.value
    polarity, source = hib, "user" if hib is not None else "none"
    if hib is None and ans.higher_is_better in ("yes", "no"):
        polarity, source = ans.higher_is_better == "yes", "llm"
    located, unlocated = locate_quotes(list(ans.quotes) or extra_quotes, papers)
    if unlocated:
        warnings.append(f"{len(unlocated)} quote(s) not found in the papers (kept apart, not used as evidence)")
    if ans.label in ("significantly increased", "significantly decreased") and polarity is None:
        warnings.append("outcome polarity unknown: conclusion 'unknown direction'")
    return ConcludeResult(
        method=method,
        question=q, papers=[p.path for p in papers], label=ans.label,
        conclusion=conclusion_for(ans.label, polarity), rationale=ans.rationale.strip(), quotes=located,
        unlocated_quotes=unlocated, higher_is_better=polarity, polarity_source=source,
        retrieval=info, clustering=cluster_info, llm_invocations=invocations, warnings=warnings,
    )


def _raptor(q: Question, papers: Sequence[Paper], client: LLMClient, retriever: Retriever, k: int,
            clustering: str) -> tuple[str, RetrievalInfo, Any, list[str], list[str]]:
    """Build the summary tree over all units and retrieve the top k nodes of the collapsed tree."""
    leaves = [(p.index, u) for p in papers for u in p.units]
    if not leaves:
        raise ClaimtraceError("raptor: the papers have no text units")
    labels, info = cluster_vectors(_embed([u.text for _, u in leaves]), clustering)  # type: ignore[arg-type]
    groups: dict[int, list[tuple[int, Unit]]] = {}
    for leaf, c in zip(leaves, labels, strict=True):
        groups.setdefault(c, []).append(leaf)
    invs: list[str] = []
    warns: list[str] = []
    items = []
    for g in groups.values():
        qv = np.asarray(retriever.scores(retriever.build([u for _, u in g]), q.query()))
        keep = [g[i] for i in sorted(rank(qv, RAPTOR_MAX_PER_CLUSTER))]  # the cluster's units in reading order
        items.append({"passages": "\n".join(u.text for _, u in keep)})
    sums = client.structured_batch("conclude_summary", items, Summary, task=TASK)
    nodes: list[str] = []
    for i, r in enumerate(sums, 1):
        invs += r.invocation_ids
        if r.ok and r.value is not None:
            nodes.append(r.value.summary)
        else:
            warns.append(f"raptor: summary of cluster {i} failed ({r.error})")
    if len(nodes) > 1:
        root = client.structured("conclude_summary", {"passages": "\n".join(nodes)}, Summary, task=TASK)
        invs += root.invocation_ids
        if root.ok and root.value is not None:
            nodes.append(root.value.summary)
    # collapsed tree: leaves and summaries in one index
    all_nodes = [u for _, u in leaves] + [
        Unit(id=f"summary{i}", text=t, scope="body", start=0, end=0, paragraph_id=f"summary{i}")
        for i, t in enumerate(nodes)
    ]
    s = np.asarray(retriever.scores(retriever.build(all_nodes), q.query()))
    top = rank(s, k)
    per = [0] * len(papers)
    for i in top:
        if i < len(leaves):
            per[leaves[i][0]] += 1
    evidence = "\n".join(f"[{n}] {all_nodes[i].text}" for n, i in enumerate(top, 1))
    return evidence, RetrievalInfo(strategy="tree", k=k, units_per_paper=per), info, invs, warns
