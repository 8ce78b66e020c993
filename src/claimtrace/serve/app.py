"""The review web app (FastAPI): the app, its request checks and error pages; the routes are in
``claimtrace.serve.routes`` (pages, images, review) and what they share in ``claimtrace.serve.deps``.

Pages are rendered on the server (Jinja2); a little JavaScript (htmx, vendored, and ``static/app.js``)
does the interaction. Every asset is served from this package: no page makes a third-party request.
See :mod:`claimtrace.serve.security` for the request checks and docs/serve.md for the tour.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from claimtrace.errors import ClaimtraceError
from claimtrace.serve import security as sec
from claimtrace.serve.deps import ServeState, error_page, templates
from claimtrace.serve.routes import images, pages, review
from claimtrace.settings import ServeSettings  # the serve section of claimtrace.settings.Settings

__all__ = ["ServeSettings", "ServeState", "create_app"]

log = logging.getLogger("claimtrace.serve")
HERE = Path(__file__).parent


def create_app(settings: ServeSettings) -> FastAPI:
    """The FastAPI app over one results folder."""
    state = ServeState(settings)
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
    app.state.templates = templates()


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

    for module in (pages, images, review):
        app.include_router(module.router)
    return app
