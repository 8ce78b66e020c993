"""The pages: start, corpus, paper and agreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from claimtrace.errors import ClaimtraceError
from claimtrace.serve import security as sec
from claimtrace.serve.deps import ServeState, State, clean, render
from claimtrace.serve.index import FLAGS, REVIEW_STATES, SORTS, CorpusQuery
from claimtrace.serve.paper import (
    TRACE_ELEMENTS,
    load_paper_document,
    pdf_pages,
    stat_flags,
    text_blocks,
    trace_spans,
)
from claimtrace.serve.review import ACTIONS, agreement

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def start(state: State, request: Request) -> Response:
    """The start page: the corpus counts and the latest quick checks."""
    quick = []
    for pid, root in sorted(state.quick.stores().items(), key=lambda kv: -kv[1].stat().st_mtime)[:10]:
        rows = state.reader(root).rows("papers", pid, "paper_id")
        if rows:
            quick.append(clean(rows[0]))
    total = state.index.page(CorpusQuery(), page_size=1)
    return render(request, "start.html", {"quick": quick, "total": total.total, "flag_counts": total.flag_counts,
                                        "root": str(state.settings.root)})

@router.get("/corpus", response_class=HTMLResponse)
def corpus(state: State, request: Request, q: str = "", flag: str = "", review: str = "", sort: str = "title",
           order: str = "asc", page: int = 1) -> Response:
    """The corpus table: search, filter, sort and page (the table alone for htmx)."""
    if flag and flag not in FLAGS:
        raise ClaimtraceError(f"unknown flag {flag!r}; choose one of {', '.join(FLAGS)}")
    if review and review not in REVIEW_STATES:
        raise ClaimtraceError(f"unknown review state {review!r}; choose one of {', '.join(REVIEW_STATES)}")
    if sort not in SORTS:
        raise ClaimtraceError(f"unknown sort {sort!r}; choose one of {', '.join(SORTS)}")
    if order not in ("asc", "desc"):
        raise ClaimtraceError("order is asc or desc")
    cq = CorpusQuery(q=q[:200], flag=flag, review=review, sort=sort, order=order, page=page)
    res = state.index.page(cq)
    ctx = {"res": res, "sorts": list(SORTS), "review_states": list(REVIEW_STATES)}
    if request.headers.get("hx-request") and request.headers.get("hx-target") == "corpus-table":
        return render(request, "_corpus_table.html", ctx)
    return render(request, "corpus.html", ctx)

@router.get("/paper/{paper_id}", response_class=HTMLResponse)
def paper_page(state: State, request: Request, paper_id: str) -> Response:
    """A paper's review page."""
    root = state.locate(paper_id)
    return render(request, "paper.html", paper_context(state, root, paper_id,
                                                      request.cookies.get(sec.REVIEWER_COOKIE, "")))


@router.get("/agreement", response_class=HTMLResponse)
def agreement_page(state: State, request: Request) -> Response:
    """Agreement between reviewers over the current decisions."""
    current = state.review.current()
    return render(request, "agreement.html", {"rows": agreement(current), "n_decisions": state.review.count(),
                                            "n_current": len(current), "reviewers": state.review.reviewers()})


def paper_context(state: ServeState, root: Path, paper_id: str, reviewer: str) -> dict[str, Any]:
    """The template context of a paper's page."""
    reader = state.reader(root)
    paper = clean(reader.rows("papers", paper_id, "paper_id")[0])
    traces = [clean(t) for t in reader.rows("traces", paper_id, "trace_index")]
    stats = [clean(s) for s in reader.rows("statistics", paper_id, "stat_index")]
    edges = [clean(e) for e in reader.rows("graph_edges", paper_id, "edge_index")]
    conclusions = [clean(c) for c in reader.rows("conclusions", paper_id, "intervention, comparator, outcome")]
    errors = [clean(e) for e in reader.rows("errors", paper_id, "step")]
    checks = [clean(c) for c in reader.rows("checks", paper_id, "check_index") if c["severity"] != "ok"]
    cache = state.settings.cache
    doc, src, problem = load_paper_document(root, paper, cache)
    current = state.review.current(paper_id)
    mine = {d.item_id: d for d in current if d.reviewer == reviewer}
    others: dict[str, int] = {}
    for d in current:
        if d.reviewer != reviewer:
            others[d.item_id] = others.get(d.item_id, 0) + 1
    corrections = {k: d.value for k, d in mine.items() if d.action == "correct" and d.value}
    prefix = paper_id[:16]
    for s in stats:
        s["item_id"] = f"{prefix}-s{s['stat_index']}"
        s["flag_labels"] = stat_flags(s)
        s["decision"] = mine.get(s["item_id"])
        s["others"] = others.get(s["item_id"], 0)
    for c in checks:  # the screening checks' flags and records (ok rows are left out)
        c["item_id"] = f"{prefix}-c{c['check_index']}"
        c["decision"] = mine.get(c["item_id"])
        c["others"] = others.get(c["item_id"], 0)
    for t in traces:
        t["elements"] = []
        for el in TRACE_ELEMENTS:
            item = f"{t['trace_id']}:{el}"
            text = t.get(f"{el}_text") or ""
            t["elements"].append({"el": el, "item_id": item, "dom": f"t{t['trace_index']}-{el}", "text": text,
                                  "decision": mine.get(item), "others": others.get(item, 0),
                                  "where": t.get(f"{el}_section") if el != "finding" else "abstract"})
        lo, hi, scope = t.get("evidence_start"), t.get("evidence_end"), t.get("evidence_scope")
        t["stats"] = [s for s in stats if lo is not None and s.get("scope") == scope
                      and s.get("start") is not None and lo <= s["start"] < hi]
        try:
            t["flag_list"] = json.loads(t.get("flags_json") or "[]")
        except ValueError:
            t["flag_list"] = []
    blocks = None
    pages: list[dict[str, Any]] = []
    if doc is not None:
        blocks = text_blocks(doc, trace_spans(doc, traces, stats, corrections))
        if paper.get("format") == "pdf" and src is not None:
            pages = pdf_pages(doc, src, traces, stats, cache, paper_id)
    from claimtrace.serve.graphsvg import graph_svg

    for i, c in enumerate(conclusions):
        c["forest_url"] = None
        try:
            from claimtrace.conclude.model import ConcludeResult

            res = ConcludeResult.model_validate_json(c.get("result_json") or "{}")
            if res.estimates or (res.numbers and res.numbers.effects):
                c["forest_url"] = f"/paper/{paper_id}/forest/{i}.png"
        except ValueError:
            pass
    return {"paper": paper, "traces": traces, "stats": stats, "blocks": blocks, "pages": pages,
            "graph_svg": graph_svg(edges), "edges": edges, "conclusions": conclusions, "errors": errors,
            "checks": checks,
            "problem": problem, "quick": root != state.settings.root, "actions": ACTIONS,
            "history": [d for d in state.review.history(paper_id) if d.reviewer == reviewer][-20:]}
