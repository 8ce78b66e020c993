"""Screenshots of ``claimtrace serve`` for the README and docs/serve.md (docs/images/serve-*.png).

Builds a small store with the real runner (the two example JATS papers and tests/fixtures/paper.pdf,
steps parse,stats,traces,graphs), starts ``claimtrace serve`` on a free loopback port, and drives
Debian's chromium (Playwright, headless): the corpus page filtered by a flag, a JATS paper page with a
hypothesis selected, the PDF paper page with its highlight boxes, and the quick check (the start page
after uploading the project's PDF, and the paper page it opens).

    python scripts/serve_screenshots.py            # writes docs/images/serve-*.png
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "images"
PAPERS = [REPO / "examples" / "PMC1090588.nxml", REPO / "examples" / "PMC1821024.nxml",
          REPO / "tests" / "fixtures" / "paper.pdf"]


def main() -> None:
    exe = shutil.which("chromium")
    if not exe:
        sys.exit("error: Debian's chromium is needed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    work = Path(tempfile.mkdtemp(prefix="serve-shots-"))
    try:
        papers = work / "papers"
        papers.mkdir()
        for p in PAPERS:
            shutil.copy(p, papers / p.name)
        results = work / "results"
        subprocess.run([sys.executable, "-m", "claimtrace", "run", str(papers), "--out", str(results),
                        "--steps", "parse,stats,traces,graphs", "--workers", "1"], check=True, env=env, cwd=work)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        srv = subprocess.Popen([sys.executable, "-m", "claimtrace", "serve", str(results), "--port", str(port)],
                               env=env, cwd=work)
        base = f"http://127.0.0.1:{port}"
        ids = {Path(r["path"]).name: r["paper_id"] for r in json.loads(subprocess.run(
            [sys.executable, "-m", "claimtrace", "query", str(results), "select paper_id, path from papers", "--json"],
            check=True, env=env, capture_output=True, text=True).stdout)["rows"]}
        try:
            import httpx

            for _ in range(600):
                try:
                    httpx.get(base + "/static/app.css", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            OUT.mkdir(parents=True, exist_ok=True)
            with sync_playwright() as pw:
                b = pw.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
                pg = b.new_context(viewport={"width": 1400, "height": 880}).new_page()
                pg.goto(base + "/")
                pg.fill("#reviewer-name", "Reviewer A")
                with pg.expect_navigation():
                    pg.click("#reviewer-form button")
                jats = ids["PMC1090588.nxml"]
                pg.goto(f"{base}/paper/{jats}")
                pg.click('.element[data-dom="t0-finding"] button[data-action="accept"]')
                pg.wait_for_selector('.element[data-dom="t0-finding"] .state-accept')
                pg.click('.element[data-dom="t0-evidence"] button[data-action="reject"]')
                pg.wait_for_selector('.element[data-dom="t0-evidence"] .state-reject')
                pg.goto(f"{base}/corpus?flag=inconsistent")
                pg.screenshot(path=str(OUT / "serve-corpus.png"))
                pg.goto(f"{base}/paper/{jats}")
                pg.click('.element[data-dom="t2-evidence"] .el-text')
                time.sleep(0.3)
                pg.screenshot(path=str(OUT / "serve-paper.png"))
                pg.goto(f"{base}/paper/{ids['paper.pdf']}")
                pg.wait_for_load_state("load")
                pg.click('.element[data-dom="t0-hypothesis"] .el-text')
                time.sleep(0.3)
                pg.screenshot(path=str(OUT / "serve-paper-pdf.png"))
                pg.goto(base + "/")
                pg.set_input_files("#quick-file", str(REPO / "tests" / "fixtures" / "paper.pdf"))
                pg.wait_for_url(f"{base}/paper/*", timeout=120_000)
                pg.goto(base + "/")
                pg.locator("#quick").scroll_into_view_if_needed()
                pg.screenshot(path=str(OUT / "serve-quick-check.png"))
                b.close()
        finally:
            srv.terminate()
            srv.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in ("serve-corpus", "serve-paper", "serve-paper-pdf", "serve-quick-check"):
        shrink(OUT / f"{name}.png")
        print(OUT / f"{name}.png", file=sys.stderr)


def shrink(path: Path) -> None:
    """Re-save a screenshot with a 256-colour palette (a third of the size; text stays sharp)."""
    from PIL import Image

    with Image.open(path) as img:
        small = img.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    small.save(path, format="PNG", optimize=True)


if __name__ == "__main__":
    main()
