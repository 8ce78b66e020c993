"""The review web app (FastAPI): corpus page, paper page, review decisions, agreement, quick check.

Pages are rendered on the server (Jinja2); a little JavaScript (htmx, vendored, and ``static/app.js``)
does the interaction. Every asset is served from this package: no page makes a third-party request.
See :mod:`claimtrace.serve.security` for the request checks and docs/serve.md for the tour.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from claimtrace.corpus.store import Store
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.serve import security as sec
from claimtrace.serve.index import FLAGS, REVIEW_STATES, SORTS, CorpusIndex, CorpusQuery
from claimtrace.serve.paper import (
    TRACE_ELEMENTS,
    StoreReader,
    _trace_spans,
    load_paper_document,
    machine_value,
    pdf_pages,
    stat_flags,
    text_blocks,
)
from claimtrace.serve.quick import DEFAULT_MAX_UPLOAD, QuickCheck
from claimtrace.serve.review import ACTIONS, REVIEW_DB, Decision, ReviewDB, agreement

log = logging.getLogger("claimtrace.serve")
HERE = Path(__file__).parent
PAPER_ID = re.compile(r"[0-9a-f]{64}")
REVIEWER = re.compile(r"[^\x00-\x1f<>\"'&]{1,64}")
STAT_FIELDS = ("test", "df1", "df2", "value", "p_comparison", "p_value")


class ServeSettings:
    """What the app serves and how it is protected."""

    def __init__(self, results_dir: Path, *, host: str = "127.0.0.1", token: str | None = None,
                 cache_dir: Path | None = None, max_upload: int = DEFAULT_MAX_UPLOAD, warm_quick: bool = True) -> None:
        """Settings of one server (see ``claimtrace serve --help``)."""
        self.root = Path(results_dir).resolve()
        self.host = host
        self.token = token
        self.cache = (cache_dir or self.root / ".serve-cache").resolve()
        self.max_upload = max_upload
        self.warm_quick = warm_quick


class ServeState:
    """Per-process state: the review database, the corpus index, store readers, the quick-check worker."""

    def __init__(self, s: ServeSettings) -> None:
        """Open the store (it must exist) and the review database next to it."""
        Store(s.root, create=False)
        self.settings = s
        self.review = ReviewDB(s.root / REVIEW_DB)
        self.index = CorpusIndex(s.root, s.root / REVIEW_DB)
        self.quick = QuickCheck(s.root)
        self.secret = os.urandom(32)
        self._readers: dict[Path, StoreReader] = {}
        self._lock = threading.Lock()

    def reader(self, root: Path) -> StoreReader:
        """The (cached) row reader of a store."""
        with self._lock:
            if root not in self._readers:
                self._readers[root] = StoreReader(root)
            return self._readers[root]

    def locate(self, paper_id: str) -> Path:
        """The store holding a paper (the main one, or a quick check's); 404 when none."""
        if not PAPER_ID.fullmatch(paper_id):
            raise StarletteHTTPException(404, "no such paper")
        if self.index.has(paper_id):
            return self.settings.root
        q = self.quick.stores().get(paper_id)
        if q is None:
            raise StarletteHTTPException(404, "no such paper in this results folder")
        return q


# ---------------------------------------------------------------------- helpers
def _templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(HERE / "templates"))
    t.env.globals["FLAGS"] = FLAGS
    t.env.filters["fmt_p"] = _fmt_p
    t.env.filters["fmt_num"] = _fmt_num
    return t


def _fmt_p(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4f}" if v >= 0.0001 else f"{v:.1e}"


def _fmt_num(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _clean(value: Any) -> Any:
    """NaN -> None, recursively (JSON and templates)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def create_app(settings: ServeSettings) -> FastAPI:
    """The FastAPI app over one results folder."""
    state = ServeState(settings)
    templates = _templates()
    def warm_store() -> None:  # the corpus index and the paper rows, before the first page asks for them
        try:
            state.index.has("")
            state.reader(settings.root).rows("papers", "", "paper_id")
        except Exception:  # a page request will meet (and report) the same problem
            log.exception("could not index the results folder at start")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        threading.Thread(target=warm_store, name="store-warm", daemon=True).start()
        if settings.warm_quick:  # load the quick check's models while the first pages are read
            threading.Thread(target=state.quick.warm, name="quick-check-warm", daemon=True).start()
        yield
        state.review.close()
        state.index.close()

    app = FastAPI(title="claimtrace review", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.ct = state

    def render(request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
        base = {"request": request, "reviewer": request.cookies.get(sec.REVIEWER_COOKIE, ""),
                "csrf": request.state.csrf, "max_upload": settings.max_upload}
        return templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)

    def error_page(request: Request, status: int, message: str) -> Response:
        if "application/json" in request.headers.get("accept", "") or request.headers.get("x-requested-with"):
            return JSONResponse({"error": message, "status": status}, status_code=status)
        csrf = getattr(request.state, "csrf", "")
        return templates.TemplateResponse(
            request, "error.html", {"request": request, "status": status, "message": message, "csrf": csrf,
                                    "reviewer": request.cookies.get(sec.REVIEWER_COOKIE, ""),
                                    "max_upload": settings.max_upload}, status_code=status)

    # ------------------------------------------------------------------ request checks
    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        request.state.csrf = ""
        loopback = sec.is_loopback(settings.host)
        if loopback:
            host = sec.host_of(request.headers.get("host", ""))
            if host not in {settings.host, "localhost", "127.0.0.1", "[::1]"}:
                return error_page(request, 400, f"unknown host {host!r}: this server answers on {settings.host} only")
        set_token = False
        if settings.token:
            given = (request.query_params.get("token") or request.cookies.get(sec.TOKEN_COOKIE)
                     or request.headers.get("authorization", "").removeprefix("Bearer ").strip() or None)
            if not sec.same(given, settings.token):
                return error_page(request, 401, "this server needs its access token: open the URL it printed "
                                                "(…?token=…)")
            set_token = request.cookies.get(sec.TOKEN_COOKIE) != settings.token
        session = request.cookies.get(sec.SESSION_COOKIE) or ""
        new_session = not session or len(session) > 64
        if new_session:
            session = sec.new_session()
        request.state.csrf = sec.csrf_for(state.secret, session)
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            origin = request.headers.get("origin")
            own = {f"{request.url.scheme}://{request.headers.get('host', '')}"}
            if origin is not None and origin not in own:
                return error_page(request, 403, "cross-site request refused (the Origin is not this server)")
            if request.headers.get("sec-fetch-site") == "cross-site":
                return error_page(request, 403, "cross-site request refused")
            if new_session or not sec.same(request.headers.get(sec.CSRF_HEADER), request.state.csrf):
                return error_page(request, 403, "missing or wrong form token (CSRF): reload the page and try again")
        response: Response = await call_next(request)
        secure = request.url.scheme == "https"
        if new_session:
            response.set_cookie(sec.SESSION_COOKIE, session, httponly=True, samesite="strict", secure=secure)
        if set_token and settings.token:
            response.set_cookie(sec.TOKEN_COOKIE, settings.token, httponly=True, samesite="strict", secure=secure)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                                    "script-src 'self'; frame-ancestors 'none'; form-action 'self'")
        return response

    # ------------------------------------------------------------------ errors: plain pages
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        msg = str(exc.detail) if exc.detail and exc.status_code != 404 else "not found"
        if exc.status_code == 404 and exc.detail and exc.detail != "Not Found":
            msg = str(exc.detail)
        return error_page(request, exc.status_code, msg)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x not in ("query", "body", "path"))
        return error_page(request, 400, f"bad request: {where or 'input'}: {first.get('msg', 'invalid')}")

    @app.exception_handler(ClaimtraceError)
    async def input_error(request: Request, exc: ClaimtraceError) -> Response:
        return error_page(request, 400, " ".join(str(exc).split()))

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_page(request, 500, f"internal error ({type(exc).__name__}); the server log has the details")

    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    # ------------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse)
    def start(request: Request) -> Response:
        quick = []
        for pid, root in sorted(state.quick.stores().items(), key=lambda kv: -kv[1].stat().st_mtime)[:10]:
            rows = state.reader(root).rows("papers", pid, "paper_id")
            if rows:
                quick.append(_clean(rows[0]))
        total = state.index.page(CorpusQuery(), page_size=1)
        return render(request, "start.html", {"quick": quick, "total": total.total, "flag_counts": total.flag_counts,
                                            "root": str(settings.root)})

    @app.get("/corpus", response_class=HTMLResponse)
    def corpus(request: Request, q: str = "", flag: str = "", review: str = "", sort: str = "title",
               order: str = "asc", page: int = 1) -> Response:
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

    @app.get("/paper/{paper_id}", response_class=HTMLResponse)
    def paper_page(request: Request, paper_id: str) -> Response:
        root = state.locate(paper_id)
        return render(request, "paper.html", _paper_context(state, root, paper_id,
                                                          request.cookies.get(sec.REVIEWER_COOKIE, "")))

    @app.get("/paper/{paper_id}/page/{n}.png")
    def page_png(paper_id: str, n: int) -> Response:
        from claimtrace.serve.paper import resolve_source
        from claimtrace.serve.pdfpages import render_page

        root = state.locate(paper_id)
        rows = state.reader(root).rows("papers", paper_id, "paper_id")
        if not rows or rows[0].get("format") != "pdf":
            raise StarletteHTTPException(404, "this paper is not a PDF")
        out = settings.cache / "pages" / paper_id / f"{n}.png"
        if not out.is_file():
            src = resolve_source(root, rows[0]["path"])
            from claimtrace.corpus.work import sha256_of

            if not src.is_file() or sha256_of(src) != paper_id:
                raise StarletteHTTPException(404, "the PDF is not there any more (or has changed)")
            try:
                render_page(src, n, out)
            except IndexError:
                raise StarletteHTTPException(404, f"no page {n}") from None
        return FileResponse(out, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    @app.get("/paper/{paper_id}/forest/{i}.png")
    def forest_png(paper_id: str, i: int) -> Response:
        root = state.locate(paper_id)
        out = settings.cache / "forest" / f"{paper_id}-{i}.png"
        if not out.is_file():
            rows = state.reader(root).rows("conclusions", paper_id, "intervention, comparator, outcome")
            if not 0 <= i < len(rows):
                raise StarletteHTTPException(404, "no such conclusion")
            from claimtrace.conclude.model import ConcludeResult
            from claimtrace.conclude.pipeline import forest_rows
            from claimtrace.plots import forest_plot

            res = ConcludeResult.model_validate_json(rows[i]["result_json"])
            frows = forest_rows([(f"{res.question.intervention} vs {res.question.comparator}", res)])
            if not frows:
                raise StarletteHTTPException(404, "no estimate with a confidence interval for a forest plot")
            out.parent.mkdir(parents=True, exist_ok=True)
            forest_plot(frows, out, title=res.question.outcome)
        return FileResponse(out, media_type="image/png")

    # ------------------------------------------------------------------ review
    @app.post("/reviewer")
    async def set_reviewer(request: Request) -> Response:
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

    @app.post("/paper/{paper_id}/decide")
    async def decide(request: Request, paper_id: str) -> Response:
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
        d = _decision(state, root, paper_id, reviewer, body, settings.cache)
        saved = state.review.record(d)
        return JSONResponse(_clean(saved.model_dump(mode="json")))

    @app.get("/agreement", response_class=HTMLResponse)
    def agreement_page(request: Request) -> Response:
        current = state.review.current()
        return render(request, "agreement.html", {"rows": agreement(current), "n_decisions": state.review.count(),
                                                "n_current": len(current), "reviewers": state.review.reviewers()})

    # ------------------------------------------------------------------ quick check
    @app.post("/quick")
    async def quick(request: Request, name: str = "") -> Response:
        if not name:
            raise ClaimtraceError("the upload needs a file name (?name=paper.pdf)")
        length = request.headers.get("content-length")
        limit = settings.max_upload
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

    return app


# ---------------------------------------------------------------------- paper page context
def _paper_context(state: ServeState, root: Path, paper_id: str, reviewer: str) -> dict[str, Any]:
    reader = state.reader(root)
    paper = _clean(reader.rows("papers", paper_id, "paper_id")[0])
    traces = [_clean(t) for t in reader.rows("traces", paper_id, "trace_index")]
    stats = [_clean(s) for s in reader.rows("statistics", paper_id, "stat_index")]
    edges = [_clean(e) for e in reader.rows("graph_edges", paper_id, "edge_index")]
    conclusions = [_clean(c) for c in reader.rows("conclusions", paper_id, "intervention, comparator, outcome")]
    errors = [_clean(e) for e in reader.rows("errors", paper_id, "step")]
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
        blocks = text_blocks(doc, _trace_spans(doc, traces, stats, corrections))
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
            "problem": problem, "quick": root != state.settings.root, "actions": ACTIONS,
            "history": [d for d in state.review.history(paper_id) if d.reviewer == reviewer][-20:]}


def _decision(state: ServeState, root: Path, paper_id: str, reviewer: str, body: dict[str, Any],
              cache: Path) -> Decision:
    """Validate a decision posted by the paper page against the paper's rows and Document."""
    item = str(body.get("item_id", ""))
    action = str(body.get("action", ""))
    if action not in ACTIONS:
        raise ClaimtraceError(f"unknown action {action!r}; choose one of {', '.join(ACTIONS)}")
    reader = state.reader(root)
    paper = _clean(reader.rows("papers", paper_id, "paper_id")[0])
    prefix = paper_id[:16]
    m = re.fullmatch(rf"{prefix}-s(\d+)", item)
    trace = stat = None
    if m:
        element = "statistic"
        stat = next((_clean(s) for s in reader.rows("statistics", paper_id, "stat_index")
                     if s["stat_index"] == int(m.group(1))), None)
        if stat is None:
            raise ClaimtraceError(f"no statistic {item} in this paper")
        key = stat.get("settings_key")
    else:
        tm = re.fullmatch(rf"({prefix}-t\d+):(finding|hypothesis|evidence)", item)
        if not tm:
            raise ClaimtraceError(f"no item {item!r} in this paper")
        element = tm.group(2)
        trace = next((_clean(t) for t in reader.rows("traces", paper_id, "trace_index")
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
        f"{out['test']}" + (f"({_fmt_num(out['df1'])}" + (f", {_fmt_num(out['df2'])}" if out["df2"] is not None else "")
                            + ")" if out["df1"] is not None else ""),
        f"= {_fmt_num(out['value'])}" if out["value"] is not None else "",
        f", p {out['p_comparison'] or '='} {_fmt_num(out['p_value'])}" if out["p_value"] is not None else "") if x)
    return out
