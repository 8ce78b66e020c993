"""``claimtrace check``: the screening report of a made paper and a real psychsci paper, in every format, as a
batch that resumes, with bad input as one-line errors; and the HTML report in Chromium (no request leaves it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, shared_path

DEMO = FIXTURES / "checks_demo_paper.txt"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "claimtrace", "check", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_text_report_has_traffic_lights_then_details() -> None:
    res = _run(str(DEMO))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert out.index("Screening report") < out.index("decision error: t(38) = 2.50, p = .40")
    assert "Power analyses" in out and "●" in out


def test_json_report() -> None:
    res = _run(str(DEMO), "--json")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["schema_version"]
    lights = {s["check"]: s["light"] for s in rep["summary"]}
    assert lights["consistency"] == "red" and lights["imprecise_p"] == "yellow"
    assert {r["check"] for r in rep["rows"]} >= {"consistency", "marginal", "grim", "power"}
    assert json.loads(_run(str(DEMO), "--format", "json").stdout)["summary"] == rep["summary"]


def test_markdown_report_quotes_the_sentence() -> None:
    res = _run(str(DEMO), "--format", "md", "--only", "consistency")
    assert res.returncode == 0, res.stderr
    assert "> Confidence increased over the session, **t(38) = 2.50, p = .40**, r = .48." in res.stdout
    assert "Imprecise" not in res.stdout


def test_html_report_is_self_contained() -> None:
    res = _run(str(DEMO), "--format", "html")
    assert res.returncode == 0, res.stderr
    page = res.stdout
    assert page.startswith("<!DOCTYPE html>") and "<mark>t(38) = 2.50, p = .40</mark>" in page
    for bad in ("<script", "<link", "src=", "@import", "url("):
        assert bad not in page


def test_real_paper_json() -> None:
    paper = shared_path("documents", "psychsci", "09567976231223410.xml")
    rep = json.loads(_run(str(paper), "--json").stdout)
    consistency = [r for r in rep["rows"] if r["check"] == "consistency"]
    assert consistency and all(r["severity"] in ("ok", "info") for r in consistency)


def test_batch_resumes(tmp_path: Path) -> None:
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"id": "demo", "doc": str(DEMO)}) + "\n"
                        + json.dumps({"id": "missing", "doc": str(tmp_path / "nope.txt")}) + "\n")
    out = tmp_path / "out.jsonl"
    res = _run("--batch", str(manifest), "--out", str(out))
    assert res.returncode == 1  # one item failed
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert {x["id"]: x["error"] is None for x in lines} == {"demo": True, "missing": False}
    assert next(x for x in lines if x["id"] == "demo")["schema_version"]
    res = _run("--batch", str(manifest), "--out", str(out))
    again = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in again if x["error"] is None] == ["demo"]  # not duplicated


@pytest.mark.parametrize("args", [
    ["nope.pdf"],
    [str(DEMO), "--format", "pdf"],
    [str(DEMO), "--only", "no_such_check"],
    [str(DEMO), "--retractions", "/no/such.csv"],
    [str(DEMO), "--out", "x.jsonl"],
    [str(DEMO), "--cache-dir", "/tmp"],
    [str(DEMO), "--json", "--format", "html"],
])
def test_bad_input_is_one_line(args: list[str]) -> None:
    res = _run(*args)
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error:"), res.stderr


def test_retractions_and_online_reach_the_options(tmp_path: Path) -> None:
    """--retractions FILE and --online are given to the checks (CheckOptions) for the reference checks."""
    from claimtrace.checks import CheckOptions
    from claimtrace.cli.check import _options

    csv_file = tmp_path / "rw.csv"
    csv_file.write_text("Record ID,OriginalPaperDOI\n1,10.1000/x\n")
    opts: Any = _options(0.05, csv_file, True, tmp_path)
    assert isinstance(opts, CheckOptions)
    assert (opts.retractions, opts.online, opts.cache_dir) == (csv_file, True, tmp_path)


def test_html_in_chromium_requests_nothing_and_screenshot(tmp_path: Path) -> None:
    """The HTML report opened in Debian's chromium through Playwright: no request leaves the page; the
    screenshot is docs/images/check-report.png (rewritten here when CLAIMTRACE_WRITE_SCREENSHOT=1)."""
    from serve_support import chromium_path

    exe = chromium_path()
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "report.html"
    page_file.write_text(_run(str(DEMO), "--format", "html").stdout, encoding="utf-8")
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        ctx = browser.new_context(viewport={"width": 1100, "height": 900})
        ctx.on("request", lambda req: requests.append(req.url))
        page = ctx.new_page()
        page.goto(page_file.as_uri())
        assert page.locator("mark").count() >= 10
        assert page.locator(".light.red").count() >= 2
        shot = tmp_path / "shot.png"
        page.screenshot(path=str(shot), full_page=False)
        if os.environ.get("CLAIMTRACE_WRITE_SCREENSHOT") == "1":
            (REPO / "docs" / "images").mkdir(exist_ok=True)
            page.screenshot(path=str(REPO / "docs" / "images" / "check-report.png"), full_page=False)
        browser.close()
    assert shot.stat().st_size > 10_000
    assert requests == [page_file.as_uri()], requests  # the page itself, nothing else
