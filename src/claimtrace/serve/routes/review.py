"""Review: the reviewer's name, a decision on a paper's element, and the quick check of an upload."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.serve import security as sec
from claimtrace.serve.deps import REVIEWER, ServeState, State, clean, fmt_num
from claimtrace.serve.paper import load_paper_document, machine_value
from claimtrace.serve.review import ACTIONS, CHECK_ACTIONS, Decision

router = APIRouter()
STAT_FIELDS = ("test", "df1", "df2", "value", "p_comparison", "p_value")


@router.post("/reviewer")
async def set_reviewer(state: State, request: Request) -> Response:
    """Set the reviewer's name (a cookie)."""
    form = await request.form()
    name = " ".join(str(form.get("name", "")).split())
    if not REVIEWER.fullmatch(name):
        raise ClaimtraceError("a reviewer name is 1 to 64 characters, without <, >, quotes or &")
    resp: Response = JSONResponse({"reviewer": name})
    if not request.headers.get("hx-request") and "application/json" not in request.headers.get("accept", ""):
        resp = RedirectResponse(request.headers.get("referer") or "/", status_code=303)
    resp.set_cookie(sec.REVIEWER_COOKIE, name, max_age=365 * 24 * 3600, samesite="strict", httponly=True,
                    secure=request.url.scheme == "https")
    return resp

@router.post("/paper/{paper_id}/decide")
async def decide(state: State, request: Request, paper_id: str) -> Response:
    """Record a reviewer's decision on one element of a paper."""
    reviewer = request.cookies.get(sec.REVIEWER_COOKIE, "")
    if not REVIEWER.fullmatch(reviewer):
        raise ClaimtraceError("set your reviewer name first (top of the page)")
    root = state.locate(paper_id)
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise ClaimtraceError("the decision must be a JSON object") from None
    if not isinstance(body, dict):
        raise ClaimtraceError("the decision must be a JSON object")
    d = _decision(state, root, paper_id, reviewer, body, state.settings.cache)
    saved = state.review.record(d)
    return JSONResponse(clean(saved.model_dump(mode="json")))

@router.post("/quick")
async def quick(state: State, request: Request, name: str = "") -> Response:
    """Check an uploaded paper (the quick check) and answer with its page."""
    if not name:
        raise ClaimtraceError("the upload needs a file name (?name=paper.pdf)")
    length = request.headers.get("content-length")
    limit = state.settings.max_upload
    if length is not None and length.isdigit() and int(length) > limit:
        raise StarletteHTTPException(413, f"{Path(name).name}: file is {int(length):,} bytes, "
                                          f"over the upload limit of {limit:,} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise StarletteHTTPException(413, f"{Path(name).name}: over the upload limit of {limit:,} bytes")
        chunks.append(chunk)
    data = b"".join(chunks)
    from starlette.concurrency import run_in_threadpool

    try:
        pid = await run_in_threadpool(state.quick.run, name, data, limit)
    except InputError as exc:
        status = 413 if "over the upload limit" in exc.reason else (
            415 if "unsupported file type" in exc.reason or "its content is not" in exc.reason else 400)
        raise StarletteHTTPException(status, " ".join(str(exc).split())) from None
    return JSONResponse({"paper_id": pid, "url": f"/paper/{pid}"})


def _decision(state: ServeState, root: Path, paper_id: str, reviewer: str, body: dict[str, Any],
              cache: Path) -> Decision:
    """Validate a decision posted by the paper page against the paper's rows and Document."""
    item = str(body.get("item_id", ""))
    action = str(body.get("action", ""))
    if action not in ACTIONS:
        raise ClaimtraceError(f"unknown action {action!r}; choose one of {', '.join(ACTIONS)}")
    reader = state.reader(root)
    paper = clean(reader.rows("papers", paper_id, "paper_id")[0])
    prefix = paper_id[:16]
    cm = re.fullmatch(rf"{prefix}-c(\d+)", item)
    if cm:
        if action not in CHECK_ACTIONS:
            raise ClaimtraceError(f"a check row is accepted or dismissed, not {action!r}")
        row = next((clean(c) for c in reader.rows("checks", paper_id, "check_index")
                    if c["check_index"] == int(cm.group(1))), None)
        if row is None:
            raise ClaimtraceError(f"no check row {item} in this paper")
        return Decision(paper_id=paper_id, item_id=item, element="check", action=action,
                        machine=machine_value("check", None, row, None), reviewer=reviewer,
                        settings_key=row.get("settings_key"))
    if action == "dismiss":
        raise ClaimtraceError("only a check row can be dismissed")
    m = re.fullmatch(rf"{prefix}-s(\d+)", item)
    trace = stat = None
    if m:
        element = "statistic"
        stat = next((clean(s) for s in reader.rows("statistics", paper_id, "stat_index")
                     if s["stat_index"] == int(m.group(1))), None)
        if stat is None:
            raise ClaimtraceError(f"no statistic {item} in this paper")
        key = stat.get("settings_key")
    else:
        tm = re.fullmatch(rf"({prefix}-t\d+):(finding|hypothesis|evidence)", item)
        if not tm:
            raise ClaimtraceError(f"no item {item!r} in this paper")
        element = tm.group(2)
        trace = next((clean(t) for t in reader.rows("traces", paper_id, "trace_index")
                      if t["trace_id"] == tm.group(1)), None)
        if trace is None:
            raise ClaimtraceError(f"no trace {tm.group(1)} in this paper")
        key = trace.get("settings_key")
    doc = None
    if action == "correct" or element == "finding":  # the Document is needed to check a span / locate a finding
        doc, _src, _problem = load_paper_document(root, paper, cache)
    value = None
    if action == "correct":
        raw = body.get("value")
        if not isinstance(raw, dict):
            raise ClaimtraceError("a correction needs a value object")
        value = _stat_value(raw) if element == "statistic" else _span_value(raw, doc, element)
    machine = machine_value(element, trace, stat, doc)
    return Decision(paper_id=paper_id, item_id=item, element=element,
                    trace_id=trace["trace_id"] if trace else None, action=action,
                    value=value, machine=machine, reviewer=reviewer, settings_key=key)


def _span_value(raw: dict[str, Any], doc: Any, element: str) -> dict[str, Any]:
    from claimtrace.documents.model import Span

    if doc is None:
        raise ClaimtraceError("the paper's text cannot be shown, so a span cannot be picked in it")
    scope = raw.get("scope")
    want = "abstract" if element == "finding" else None
    if scope not in ("body", "abstract") or (want and scope != want):
        raise ClaimtraceError("pick the span in the paper's text" + (" (the abstract)" if want else ""))
    try:
        start, end = int(raw["start"]), int(raw["end"])
    except (KeyError, TypeError, ValueError):
        raise ClaimtraceError("a span needs integer start and end offsets") from None
    full = doc.body_text if scope == "body" else doc.abstract_text
    if not 0 <= start < end <= len(full):
        raise ClaimtraceError("the span is outside the paper's text")
    text = doc.text_of(Span(scope=scope, start=start, end=end))
    given = str(raw.get("text", ""))
    if " ".join(given.split()) != " ".join(text.split()):
        raise ClaimtraceError("the selected text does not match the paper's text at those offsets")
    sents = [s.id for s in doc.sentences(scope) if s.start < end and s.end > start]
    return {"text": text, "scope": scope, "start": start, "end": end, "sentence_ids": sents}


def _stat_value(raw: dict[str, Any]) -> dict[str, Any]:
    from claimtrace.stats import TESTS, compute_p

    out: dict[str, Any] = {}
    test = str(raw.get("test") or "").strip()
    if test and test not in TESTS:
        raise ClaimtraceError(f"unknown test {test!r}")
    out["test"] = test or None
    for f in ("df1", "df2", "value", "p_value"):
        v = raw.get(f)
        if v in (None, ""):
            out[f] = None
            continue
        try:
            out[f] = float(v)
        except (TypeError, ValueError):
            raise ClaimtraceError(f"{f} must be a number, not {v!r}") from None
        if not math.isfinite(out[f]):
            raise ClaimtraceError(f"{f} must be a finite number")
    if out["p_value"] is not None and not 0 <= out["p_value"] <= 1:
        raise ClaimtraceError("p must be between 0 and 1")
    pc = str(raw.get("p_comparison") or "").strip()
    if pc and pc not in ("=", "<", ">", "<=", ">=", "ns"):
        raise ClaimtraceError(f"unknown p comparison {pc!r}")
    out["p_comparison"] = pc or None
    out["computed_p"] = (compute_p(out["test"], out["value"], out["df1"], out["df2"])
                         if out["test"] and out["value"] is not None else None)
    out["text"] = " ".join(str(x) for x in (
        f"{out['test']}" + (f"({fmt_num(out['df1'])}" + (f", {fmt_num(out['df2'])}" if out["df2"] is not None else "")
                            + ")" if out["df1"] is not None else ""),
        f"= {fmt_num(out['value'])}" if out["value"] is not None else "",
        f", p {out['p_comparison'] or '='} {fmt_num(out['p_value'])}" if out["p_value"] is not None else "") if x)
    return out
