"""``claimtrace serve``: review a results folder in the browser; ``claimtrace review-export``: the decisions."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import fail, print_json


def _free_port(host: str) -> int:
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _check_bind(host: str, port: int) -> None:
    import socket

    from claimtrace.errors import ClaimtraceError

    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as exc:
        raise ClaimtraceError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


@app.command("serve")
def serve_cmd(
    results: Path = typer.Argument(..., help="A results folder written by claimtrace run."),
    host: str | None = typer.Option(None, "--host", help="Address to bind; anything but loopback needs a token (default: serve.host, else 127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", min=0, max=65535, help="Port (0: a free one; default: serve.port, else 8765)."),
    token: str | None = typer.Option(None, "--token", help="Access token required on every request (generated and printed when binding a non-loopback address without one)."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Folder for page renders and parsed papers (default RESULTS/.serve-cache)."),
    max_upload_mb: float | None = typer.Option(None, "--max-upload-mb", min=0.001, help="Quick check: largest upload in MiB (default: serve.max_upload, else 20 MiB)."),
    settings_file: Path | None = typer.Option(None, "--settings", metavar="FILE", help="Settings file (TOML or YAML; env CLAIMTRACE_SETTINGS): its [serve] section (docs/settings.md)."),
    json_out: bool = typer.Option(False, "--json", help="Print the address (and token) as JSON on stdout when listening."),
) -> None:
    """Serve the review app: corpus page, paper pages with highlights, review decisions, quick check."""
    from claimtrace.corpus.store import Store
    from claimtrace.errors import InputError, MissingExtraError
    from claimtrace.serve.security import is_loopback, new_token

    if not results.exists():
        raise InputError(results, "no such folder")
    if not results.is_dir():
        raise InputError(results, "not a folder; give a results folder written by claimtrace run")
    Store(results, create=False)  # a results folder, or a one-line error naming it
    if cache_dir is not None and cache_dir.exists() and not cache_dir.is_dir():
        raise InputError(cache_dir, "is a file; --cache-dir takes a folder")
    if token is not None and len(token) < 8:
        fail("--token must be at least 8 characters")
    try:
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import python_multipart  # noqa: F401  (the python-multipart package: Starlette's form parser)
        import uvicorn
    except ImportError as exc:
        package = {"python_multipart": "python-multipart"}.get(exc.name or "", exc.name or "fastapi")
        raise MissingExtraError("claimtrace serve", "serve", package) from None
    from claimtrace.serve.app import create_app
    from claimtrace.settings import Settings

    # the options given, over CLAIMTRACE_SERVE__* (and CLAIMTRACE_SERVE_NO_WARM), the settings file, the defaults
    given = {"results_dir": results, "host": host, "port": port, "token": token, "cache_dir": cache_dir,
             "max_upload": int(max_upload_mb * 1024 * 1024) if max_upload_mb is not None else None}
    settings = Settings.load(settings_file=settings_file, serve=given).serve
    host, port, token = settings.host, settings.port, settings.token
    if token is not None and len(token) < 8:
        fail("serve.token (settings file or CLAIMTRACE_SERVE__TOKEN) must be at least 8 characters")
    loopback = is_loopback(host)
    generated = False
    if not loopback and not token:
        token, generated = new_token(), True
    if port == 0:
        port = _free_port(host)
    _check_bind(host, port)
    if generated:
        settings = settings.model_copy(update={"token": token})
    web = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    print(f"claimtrace serve: {url}  (results {settings.root}; Ctrl-C to stop)", file=sys.stderr)
    if generated:
        print("access token generated for this non-loopback address: every request needs it (the URL above "
              "carries it once, then a cookie)", file=sys.stderr)
    if json_out:
        print_json({"schema_version": "1.0", "url": url, "host": host, "port": port, "token": token})
        sys.stdout.flush()
    uvicorn.run(web, host=host, port=port, log_level="warning", access_log=False)


@app.command("review-export")
def review_export_cmd(
    results: Path = typer.Argument(..., help="A results folder written by claimtrace run and reviewed with claimtrace serve."),
    fmt: str = typer.Option("csv", "--format", help="csv or jsonl."),
    out: Path | None = typer.Option(None, "--out", help="Output file (default: stdout)."),
    history: bool = typer.Option(False, "--history", help="Every decision ever made, not only each reviewer's current one."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON summary (file, rows, reviewers) on stdout; needs --out."),
) -> None:
    """Write the review decisions: machine value and reviewed value, reviewer and time, one row per decision."""
    from claimtrace.corpus.store import Store
    from claimtrace.errors import InputError
    from claimtrace.serve.review import EXPORT_COLUMNS, REVIEW_DB, ReviewDB, export_rows

    if fmt not in ("csv", "jsonl"):
        fail(f"unknown --format {fmt!r}; choose csv or jsonl")
    if json_out and out is None:
        fail("--json prints a summary of the written file: give --out FILE")
    if out is not None:
        if out.is_dir():
            raise InputError(out, "is a folder; --out takes a file here")
        if not out.parent.is_dir():
            raise InputError(out, f"folder {out.parent} does not exist")
        probe = out.with_name(f".{out.name}.write-test")
        try:
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise InputError(out, f"cannot write this file ({exc.strerror or exc})") from None
    if not results.exists():
        raise InputError(results, "no such folder")
    if not results.is_dir():
        raise InputError(results, "not a folder; give a results folder written by claimtrace run")
    store = Store(results, create=False)
    db = ReviewDB.open_existing(results / REVIEW_DB)
    try:
        paths = {r["paper_id"]: r["path"] for r in store.read("papers", ["paper_id", "path"]).to_pylist()}
        quick = results / "quick"
        if quick.is_dir():
            for sub in quick.iterdir():
                if Store.is_store(sub):
                    for r in Store(sub, create=False).read("papers", ["paper_id", "path"]).to_pylist():
                        paths.setdefault(r["paper_id"], r["path"])
        rows = export_rows(db, paths, history=history)
        reviewers = db.reviewers()
    finally:
        db.close()
    buf = io.StringIO()
    if fmt == "csv":
        w = csv.DictWriter(buf, fieldnames=list(EXPORT_COLUMNS), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    else:
        for r in rows:
            buf.write(json.dumps(r, ensure_ascii=False) + "\n")
    if out is None:
        sys.stdout.write(buf.getvalue())
    else:
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(buf.getvalue(), encoding="utf-8")
        os.replace(tmp, out)
        print(f"{len(rows)} decision row(s) by {len(reviewers)} reviewer(s) -> {out}", file=sys.stderr)
    if json_out:
        print_json({"schema_version": "1.0", "out": str(out), "format": fmt, "rows": len(rows), "reviewers": reviewers})
