"""What every router of the review app shares: the per-process state (a FastAPI dependency), the templates
and the page and error renderers."""

from __future__ import annotations

import math
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from claimtrace.corpus.store import Store
from claimtrace.serve import security as sec
from claimtrace.serve.index import FLAGS, CorpusIndex
from claimtrace.serve.paper import StoreReader
from claimtrace.serve.quick import QuickCheck
from claimtrace.serve.review import REVIEW_DB, ReviewDB

if TYPE_CHECKING:
    from claimtrace.serve.app import ServeSettings

HERE = Path(__file__).parent
PAPER_ID = re.compile(r"[0-9a-f]{64}")
REVIEWER = re.compile(r"[^\x00-\x1f<>\"'&]{1,64}")


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


def get_state(request: Request) -> ServeState:
    """The app's state (the dependency every route takes)."""
    state: ServeState = request.app.state.ct
    return state


State = Annotated[ServeState, Depends(get_state)]


def templates() -> Jinja2Templates:
    """The Jinja2 templates with the app's globals and filters."""
    t = Jinja2Templates(directory=str(HERE / "templates"))
    t.env.globals["FLAGS"] = FLAGS
    t.env.filters["fmt_p"] = fmt_p
    t.env.filters["fmt_num"] = fmt_num
    return t


def render(request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
    """A page from a template, with the reviewer, the form token and the upload limit."""
    state = get_state(request)
    base = {"request": request, "reviewer": request.cookies.get(sec.REVIEWER_COOKIE, ""),
            "csrf": request.state.csrf, "max_upload": state.settings.max_upload}
    return request.app.state.templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)


def error_page(request: Request, status: int, message: str) -> Response:
    """An error as JSON (to scripts and htmx) or as a plain page."""
    if "application/json" in request.headers.get("accept", "") or request.headers.get("x-requested-with"):
        return JSONResponse({"error": message, "status": status}, status_code=status)
    csrf = getattr(request.state, "csrf", "")
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"request": request, "status": status, "message": message, "csrf": csrf,
                                "reviewer": request.cookies.get(sec.REVIEWER_COOKIE, ""),
                                "max_upload": get_state(request).settings.max_upload}, status_code=status)


def fmt_p(v: Any) -> str:
    """A p-value for a page (four decimals, or scientific below 0.0001; a dash for none)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4f}" if v >= 0.0001 else f"{v:.1e}"


def fmt_num(v: Any) -> str:
    """A number for a page (a whole float without its .0; empty for none)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def clean(value: Any) -> Any:
    """NaN -> None, recursively (JSON and templates)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value
