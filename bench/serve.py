"""Speed of ``claimtrace serve``: corpus page of a 1,000-paper store, a 30-page PDF paper page, saving a decision.

All measured in one run (``--part measure``) against the real server (``claimtrace serve`` in a
subprocess on loopback), timed by an HTTP client on the same machine (full response: request sent to
last byte received) and, for the corpus page, by Chromium's navigation timing (DOMContentLoaded; Playwright,
Debian's chromium) when it is installed:

- corpus page: time to first render of ``/corpus`` (page 1, the last page, a flag filter, a full-text
  search, a sort), median and p95 over ``--runs`` requests each, plus the first request after the server
  started (the index is built then);
- paper page of a 30-page PDF: cold (empty cache: the server re-reads the PDF, finds the highlight boxes
  and renders the first two pages) and warm (cached), median and p95; the page HTML plus its first two
  page images, as a person's first screen;
- saving a decision: ``POST /paper/ID/decide`` (accept/reject alternating), median and p95;
- a quick check: uploading a PDF until its paper page is served (the worker already loaded).

The stores are built once under ``--work`` by the real runner (``claimtrace run``, resumable):
``store1000`` from 1,000 real papers (every JATS paper of shared/: 822 EvidenceInference, 11 documents/,
100 psychsci; then EvidenceBench Markdown papers) with steps parse,stats,traces; ``store-pdf30`` from one 30-page PDF made by joining real PDFs of shared/
(pypdf: 2020.acl-main.207.pdf 13 pages, N18-3011.pdf 8, core-sample1.pdf 8, Paper1.pdf 1).

    python bench/serve.py                       # store (if missing), measure, write the result and the page
    python bench/serve.py --part report         # only the results page from bench/results/serve.json
    python bench/serve.py --part scale [--scale-papers 10000]   # the corpus page at 10,000 papers

``--part scale``: the corpus page of ``claimtrace serve`` at 10,000 papers: does paging stay fast as the store
grows? shared/ holds about 1,000 JATS papers, so the 10,000-paper store is made of copies: each copy of a real JATS
paper gets a trailing XML comment (``<!-- copy K -->``), which changes its content hash (so the runner stores it
as a paper of its own) and nothing else the documents layer reads. The store is built by the real runner
(``claimtrace run --steps parse,stats,traces --workers 2``) under ``--scale-work``; the requests are timed against
the real server process, and the 1,000-paper store's figures are repeated in the same run for the ratio. Writes
bench/results/serve_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import REPO, SHARED, Run

DATA = SHARED / "data"
RESULT = REPO / "bench" / "results" / "serve.json"
SCALE_RESULT = REPO / "bench" / "results" / "serve_scale.json"
PDF_PARTS = [DATA / "documents" / "s2orc-doc2json" / "2020.acl-main.207.pdf",
             DATA / "documents" / "s2orc-doc2json" / "N18-3011.pdf",
             DATA / "documents" / "grobid" / "core-sample1.pdf",
             DATA / "statistics" / "statcheck-test-papers" / "Paper1.pdf"]
QUICK_FILES = [DATA / "statistics" / "statcheck-test-papers" / f"Paper{i}.pdf" for i in (1, 2, 3)] + [
    DATA / "statistics" / "statcheck-test-papers" / "Paper4_multiplepages.pdf", DATA / "documents" / "grobid" / "two_pages.pdf"]
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CLAIMTRACE_SERVE_NO_WARM": "1"}


def jats_papers(n: int) -> list[Path]:
    """``n`` real papers: every JATS paper of shared/ (EvidenceInference train and validation, the
    documents/ JATS, psychsci), then EvidenceBench Markdown papers to make up the number (sorted by path)."""
    files = sorted(DATA.glob("evidence-inference/train/articles/*.nxml"))
    files += sorted(DATA.glob("evidence-inference/validation/articles/*.nxml"))
    files += sorted(DATA.glob("documents/*/*.nxml")) + sorted(DATA.glob("documents/psychsci/*.xml"))
    files += sorted(DATA.glob("evidencebench/papers/*.md"))
    if len(files) < n:
        sys.exit(f"error: only {len(files)} papers under {DATA}")
    return files[:n]


def make_pdf30(out: Path) -> Path:
    """Join the real PDFs of PDF_PARTS into one 30-page PDF (once)."""
    if out.is_file():
        return out
    from pypdf import PdfWriter

    w = PdfWriter()
    for p in PDF_PARTS:
        w.append(str(p))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(".tmp-" + out.name)
    with tmp.open("wb") as fh:
        w.write(fh)
    tmp.replace(out)
    return out


def _run_cli(listfile: Path, out: Path) -> None:
    cmd = [sys.executable, "-m", "claimtrace", "run", str(listfile), "--out", str(out),
           "--steps", "parse,stats,traces", "--workers", "1"]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, env=ENV, cwd=REPO)


def build_stores(work: Path, n: int) -> tuple[Path, Path, Path]:
    """The 1,000-paper store, the 30-page PDF and its store (built or resumed by the real runner)."""
    work.mkdir(parents=True, exist_ok=True)
    lst = work / "papers.txt"
    lst.write_text("".join(f"{p}\n" for p in jats_papers(n)), encoding="utf-8")
    _run_cli(lst, work / "store1000")
    pdf = make_pdf30(work / "pdf30" / "joined-30-pages.pdf")
    one = work / "pdf30.txt"
    one.write_text(f"{pdf}\n", encoding="utf-8")
    _run_cli(one, work / "store-pdf30")
    return work / "store1000", pdf, work / "store-pdf30"


class Server:
    """``claimtrace serve`` in a subprocess."""

    def __init__(self, store: Path, cache: Path) -> None:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "claimtrace", "serve", str(store), "--port", str(self.port),
                                      "--cache-dir", str(cache)], env=ENV, cwd=REPO,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        import httpx

        while True:
            try:
                httpx.get(self.base + "/static/app.css", timeout=2)
                break
            except httpx.TransportError:
                if self.proc.poll() is not None:
                    raise RuntimeError(self.proc.stderr.read() if self.proc.stderr else "server died") from None
                time.sleep(0.1)
        self.ready_s = time.perf_counter() - self.started

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _timed(client: Any, method: str, url: str, **kw: Any) -> float:
    t0 = time.perf_counter()
    r = client.request(method, url, **kw)
    r.read()
    dt = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"{method} {url}: {r.status_code} {r.text[:300]}")
    return dt


def summary(xs: list[float]) -> dict[str, Any]:
    """Median, p95 (nearest rank), min, max in milliseconds, and n."""
    s = sorted(xs)
    p95 = s[max(0, -(-95 * len(s) // 100) - 1)]
    return {"n": len(s), "median_ms": round(1000 * statistics.median(s), 2), "p95_ms": round(1000 * p95, 2),
            "min_ms": round(1000 * s[0], 2), "max_ms": round(1000 * s[-1], 2)}


def _session(base: str) -> tuple[Any, str]:
    import re

    import httpx

    c = httpx.Client(base_url=base, timeout=300)
    html = c.get("/").text
    m = re.search(r'name="csrf-token" content="([0-9a-f]+)"', html)
    assert m
    return c, m.group(1)


def _fcp(base: str, paths: list[str], runs: int) -> dict[str, Any] | None:
    exe = shutil.which("chromium")
    if not exe:
        return None
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        ctx = b.new_context(viewport={"width": 1400, "height": 900})
        pg = ctx.new_page()
        pg.goto(base + "/")
        for path in paths:
            xs = []
            for _ in range(runs):
                pg.goto(base + path, wait_until="load")
                v = pg.evaluate("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
                if v:
                    xs.append(v / 1000)
            out[path] = summary(xs) if xs else None
        b.close()
    return out


def measure(work: Path, n: int, runs: int, cold_runs: int) -> dict[str, Any]:
    """Every timing of the result file, in one run."""
    store, pdf, store_pdf = build_stores(work, n)
    run = Run(data=[DATA / "evidence-inference" / "train" / "articles", DATA / "evidence-inference" / "validation" / "articles",
                    DATA / "documents", DATA / "evidencebench" / "papers", *QUICK_FILES])  # the folders the papers come from
    from claimtrace.corpus.store import Store

    n_papers = len(Store(store, create=False).papers())
    res: dict[str, Any] = {"schema_version": "1", "papers_in_store": n_papers, "runs": runs, "cold_runs": cold_runs}
    # ---- corpus page
    cache = work / "cache1000"
    shutil.rmtree(cache, ignore_errors=True)
    srv = Server(store, cache)
    try:
        c, csrf = _session(srv.base)
        res["server_ready_s"] = round(srv.ready_s, 3)
        t0 = time.perf_counter()
        c.get("/corpus").read()
        res["corpus_first_request_after_start_ms"] = round(1000 * (time.perf_counter() - t0), 2)
        pages = -(-n_papers // 50)
        variants = {"page 1": "/corpus", f"last page ({pages})": f"/corpus?page={pages}",
                    "flag filter (inconsistent p)": "/corpus?flag=inconsistent",
                    "full-text search ('randomised trial')": "/corpus?q=randomised+trial",
                    "sorted by results, descending": "/corpus?sort=results&order=desc",
                    "review state filter (unreviewed)": "/corpus?review=unreviewed"}
        res["corpus_page"] = {}
        for label, url in variants.items():
            xs = [_timed(c, "GET", url) for _ in range(runs)]
            res["corpus_page"][label] = {"url": url, **summary(xs)}
        res["corpus_page_browser_dcl"] = _fcp(srv.base, ["/corpus"], max(5, runs // 2))
        # ---- saving a decision
        pid = Store(store, create=False).read("traces", ["paper_id", "trace_id"]).to_pylist()[0]
        c.post("/reviewer", data={"name": "bench"}, headers={"X-CSRF-Token": csrf, "Accept": "application/json"})
        xs = []
        for i in range(runs):
            body = {"item_id": f"{pid['trace_id']}:evidence", "action": "accept" if i % 2 else "reject"}
            xs.append(_timed(c, "POST", f"/paper/{pid['paper_id']}/decide", json=body,
                             headers={"X-CSRF-Token": csrf, "Accept": "application/json"}))
        res["save_decision"] = summary(xs)
    finally:
        srv.stop()
    # ---- quick check: upload -> parsed, checked, traced, stored, answered (worker warmed by one upload first)
    qwork = work / "quick-store"
    shutil.rmtree(qwork, ignore_errors=True)
    shutil.copytree(store_pdf, qwork)
    srv = Server(qwork, work / "cache-quick")
    try:
        c, csrf = _session(srv.base)
        hdr = {"X-CSRF-Token": csrf, "Accept": "application/json"}
        _timed(c, "POST", "/quick", params={"name": "warm-up.pdf"}, headers=hdr,
               content=(REPO / "tests" / "fixtures" / "paper.pdf").read_bytes())
        xs, names = [], []
        for f in QUICK_FILES:
            t0 = time.perf_counter()
            r = c.post("/quick", params={"name": f.name}, headers=hdr, content=f.read_bytes())
            if r.status_code != 200:
                raise RuntimeError(f"quick check of {f}: {r.status_code} {r.text[:300]}")
            _timed(c, "GET", r.json()["url"])
            xs.append(time.perf_counter() - t0)
            names.append(f.name)
        res["quick_check"] = {"files": names, **summary(xs)}
    finally:
        srv.stop()
    # ---- 30-page PDF paper page
    import pypdfium2 as pdfium

    res["pdf_pages"] = len(pdfium.PdfDocument(str(pdf)))
    ppid = next(iter(Store(store_pdf, create=False).papers()))
    res["pdf_paper"] = {"paper_id": ppid, "sha256": ppid}
    cache = work / "cache-pdf30"
    cold: list[float] = []
    cold_html: list[float] = []
    for _ in range(cold_runs):
        shutil.rmtree(cache, ignore_errors=True)
        srv = Server(store_pdf, cache)
        try:
            c, _csrf = _session(srv.base)
            t0 = time.perf_counter()
            _timed(c, "GET", f"/paper/{ppid}")
            cold_html.append(time.perf_counter() - t0)
            for k in (1, 2):
                _timed(c, "GET", f"/paper/{ppid}/page/{k}.png")
            cold.append(time.perf_counter() - t0)
        finally:
            srv.stop()
    srv = Server(store_pdf, cache)
    try:
        c, _csrf = _session(srv.base)
        warm: list[float] = []
        warm_html: list[float] = []
        for _ in range(runs):
            t0 = time.perf_counter()
            _timed(c, "GET", f"/paper/{ppid}")
            warm_html.append(time.perf_counter() - t0)
            for k in (1, 2):
                _timed(c, "GET", f"/paper/{ppid}/page/{k}.png")
            warm.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for k in range(3, res["pdf_pages"] + 1):
            _timed(c, "GET", f"/paper/{ppid}/page/{k}.png")
        res["pdf_render_remaining_pages_s"] = round(time.perf_counter() - t0, 3)
        html = c.get(f"/paper/{ppid}").text
        res["pdf_page_boxes"] = html.count('class="box box-')
    finally:
        srv.stop()
    res["pdf_paper_page"] = {"cold_first_screen": summary(cold), "cold_html_only": summary(cold_html),
                             "warm_first_screen": summary(warm), "warm_html_only": summary(warm_html)}
    res["provenance"] = run.finish()
    return res


def report_lines() -> list[str]:
    """The results page (docs/results/serve.md) from bench/results/serve.json."""
    d = json.loads(RESULT.read_text(encoding="utf-8"))
    prov = d["provenance"]
    m = prov["machine"]
    la = max(m["load_average_at_start"][0], m["load_average_at_end"][0])
    loaded = m.get("loaded")
    lines = ["# claimtrace serve: speed", "",
             f"Written by `python bench/serve.py --part report` from `bench/results/serve.json` (command "
             f"`{prov['command']}`, commit `{prov['commit']}`, {prov['date']}).", "",
             f"Machine: {m['cores']} cores, 1-min load average up to {la:.2f}"
             + (" — **loaded** (load above the core count): these times are upper bounds, not the speed; "
                "re-run `python bench/serve.py` on an idle machine." if loaded else "."), "",
             "Times are client-side (an HTTP client on the same machine: request sent to last byte received) "
             "against the real `claimtrace serve` process on loopback; median and p95 (nearest rank) of "
             f"{d['runs']} requests each (cold PDF runs: {d['cold_runs']}).", "",
             f"## Corpus page of a {d['papers_in_store']:,}-paper store", "",
             f"Store: {d['papers_in_store']:,} real papers of shared/ (every JATS paper: EvidenceInference, documents/, "
             "psychsci; then EvidenceBench Markdown papers), steps parse,stats,traces "
             f"(`claimtrace run`). Server ready {d['server_ready_s']:.2f} s after start; the first `/corpus` "
             f"request builds the index: {d['corpus_first_request_after_start_ms']:.1f} ms.", "",
             "| request | n | median (ms) | p95 (ms) |", "|---|---|---|---|"]
    for label, v in d["corpus_page"].items():
        lines.append(f"| {label} (`{v['url']}`) | {v['n']} | {v['median_ms']:.1f} | {v['p95_ms']:.1f} |")
    dcl = (d.get("corpus_page_browser_dcl") or {}).get("/corpus")
    if dcl:
        lines += ["", f"In Chromium (headless, Playwright), navigation start to DOMContentLoaded of `/corpus` (the "
                      f"page rendered and its scripts run): median {dcl['median_ms']:.1f} ms, p95 {dcl['p95_ms']:.1f} ms "
                      f"(n = {dcl['n']})."]
    pp = d["pdf_paper_page"]
    lines += ["", f"## Paper page of a {d['pdf_pages']}-page PDF", "",
              f"The PDF joins real PDFs of shared/ ({len(PDF_PARTS)} files, see the script). First screen = "
              "the page HTML plus its first two page images. Cold: an empty cache (the server re-reads the "
              "PDF with the documents layer, finds the highlight boxes, renders the pages); warm: cached. "
              f"{d['pdf_page_boxes']} highlight boxes on the page.", "",
              "| | n | median (ms) | p95 (ms) |", "|---|---|---|---|"]
    for key, label in (("cold_first_screen", "cold, first screen"), ("cold_html_only", "cold, HTML only"),
                       ("warm_first_screen", "warm, first screen"), ("warm_html_only", "warm, HTML only")):
        v = pp[key]
        lines.append(f"| {label} | {v['n']} | {v['median_ms']:.1f} | {v['p95_ms']:.1f} |")
    lines += ["", f"Rendering the other {d['pdf_pages'] - 2} pages (lazy-loaded as the reader scrolls), one after "
                  f"another: {d['pdf_render_remaining_pages_s']:.2f} s.", "",
              "## Quick check", "",
              f"Upload of a PDF to the start page until its paper page is served (parse, statistics, traces with "
              f"the embedded defaults, a one-paper store written, the page rendered; the worker loaded before): "
              f"median {d['quick_check']['median_ms']:.0f} ms, p95 {d['quick_check']['p95_ms']:.0f} ms "
              f"(n = {d['quick_check']['n']}: {', '.join(d['quick_check']['files'])}).", "",
              "## Saving a decision", "",
              f"`POST /paper/ID/decide` (validated against the store's rows, appended to review.sqlite): median "
              f"{d['save_decision']['median_ms']:.1f} ms, p95 {d['save_decision']['p95_ms']:.1f} ms "
              f"(n = {d['save_decision']['n']}).", ""]
    scale = REPO / "bench" / "results" / "serve_scale.json"
    if scale.is_file():
        lines += _scale_lines(json.loads(scale.read_text(encoding="utf-8")))
    return lines


def _scale_lines(s: dict[str, Any]) -> list[str]:
    """The 10,000-paper section of the page, from bench/results/serve_scale.json (``--part scale``)."""
    prov, big, small = s["provenance"], s["large"], s["small"]
    m = prov["machine"]
    la = max(m["load_average_at_start"][0], m["load_average_at_end"][0])
    lines = [f"## Corpus page at {big['papers_in_store']:,} papers", "",
             f"`{prov['command']}` (commit `{prov['commit']}`, {prov['date']}; 1-min load average up to {la:.2f}"
             + (", **loaded**: upper bounds" if m.get("loaded") else "") + "). The large store holds copies of "
             "the shared JATS and TEI papers, each with a trailing XML comment so that it is a paper of its own "
             f"(built by `claimtrace run`); the {small['papers_in_store']:,}-paper store of the runs above is timed "
             f"again in the same run. First request (builds the index): {big['first_request_ms']:.0f} ms at "
             f"{big['papers_in_store']:,} papers, {small['first_request_ms']:.0f} ms at "
             f"{small['papers_in_store']:,}.", "",
             f"| request | n | median at {big['papers_in_store']:,} (ms) | p95 (ms) | median at "
             f"{small['papers_in_store']:,} (ms) | ratio |", "|---|---|---|---|---|---|"]
    for label, v in big["pages"].items():
        w = small["pages"][label]
        lines.append(f"| {label} | {v['n']} | {v['median_ms']:.1f} | {v['p95_ms']:.1f} | {w['median_ms']:.1f} | "
                     f"{s['median_ratio_large_over_small'][label]:.2f} |")
    return [*lines, ""]


# ----------------------------------------------------------------- the corpus page at 10,000 papers (--part scale)


def build_scale_store(work: Path, n: int) -> Path:
    """``n`` papers: copies of the shared JATS papers, each with its own trailing comment; built or resumed."""
    src = [p for p in jats_papers(1000) if p.suffix in (".nxml", ".xml")]
    copies = work / "copies"
    paths: list[Path] = []
    k = 0
    while len(paths) < n:
        for p in src:
            if len(paths) >= n:
                break
            out = copies / f"c{k:02d}" / p.name
            if not out.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(p.read_bytes() + f"\n<!-- copy {k} -->\n".encode())
            paths.append(out)
        k += 1
    lst = work / "papers.txt"
    lst.write_text("".join(f"{p}\n" for p in paths), encoding="utf-8")
    store = work / f"store{n}"
    cmd = [sys.executable, "-m", "claimtrace", "run", str(lst), "--out", str(store), "--steps", "parse,stats,traces",
           "--workers", "2"]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, env=ENV, cwd=REPO)
    return store


def corpus_times(store: Path, cache: Path, runs: int) -> dict[str, Any]:
    """Page 1, the last page, a flag filter and a search of the corpus page, each ``runs`` times."""
    from claimtrace.corpus.store import Store

    n_papers = len(Store(store, create=False).papers())
    srv = Server(store, cache)
    try:
        c, _ = _session(srv.base)
        t0 = time.perf_counter()
        c.get("/corpus").read()
        first = round(1000 * (time.perf_counter() - t0), 2)
        pages = -(-n_papers // 50)
        variants = {"page 1": "/corpus", "last page": f"/corpus?page={pages}",
                    "flag filter (inconsistent p)": "/corpus?flag=inconsistent",
                    "full-text search ('randomised trial')": "/corpus?q=randomised+trial"}
        out = {label: {"url": url, **summary([_timed(c, "GET", url) for _ in range(runs)])}
               for label, url in variants.items()}
    finally:
        srv.stop()
    return {"papers_in_store": n_papers, "first_request_ms": first, "pages": out}


def scale(work: Path, n: int, runs: int, small: Path) -> dict[str, Any]:
    """The corpus page at ``n`` papers against the 1,000-paper store ``small``, in one run (``--part scale``)."""
    if not small.is_dir():
        sys.exit(f"error: {small} is missing: run `python bench/serve.py --part store` first")
    run = Run(data=[DATA / "evidence-inference" / "train" / "articles",
                    DATA / "evidence-inference" / "validation" / "articles", DATA / "documents"])
    store = build_scale_store(work, n)
    big = corpus_times(store, work / "cache-big", runs)
    small_times = corpus_times(small, work / "cache-small", runs)
    ratio = {label: round(big["pages"][label]["median_ms"] / small_times["pages"][label]["median_ms"], 2)
             for label in big["pages"]}
    return {"schema_version": "1", "runs": runs, "copies_note": "copies of real JATS papers, each with a trailing "
            "XML comment (a distinct content hash); see bench/serve.py", "large": big, "small": small_times,
            "median_ratio_large_over_small": ratio, "provenance": run.finish()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["all", "store", "measure", "report", "scale"], default="all")
    ap.add_argument("--work", type=Path, default=Path("/tmp/claimtrace-serve-bench"),
                    help="folder for the stores and caches (reused: the stores are built once)")
    ap.add_argument("--papers", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--scale-papers", type=int, default=10000, help="--part scale: papers in the large store")
    ap.add_argument("--scale-work", type=Path, default=Path("/tmp/claimtrace-serve-scale"),
                    help="--part scale: folder for the large store and its caches")
    args = ap.parse_args()
    if args.part == "scale":
        res = scale(args.scale_work, args.scale_papers, args.runs, args.work / "store1000")
        SCALE_RESULT.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {SCALE_RESULT.relative_to(REPO)}", file=sys.stderr)
        return
    if args.part == "store":
        build_stores(args.work, args.papers)
        return
    if args.part in ("all", "measure"):
        res = measure(args.work, args.papers, args.runs, args.cold_runs)
        RESULT.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {RESULT.relative_to(REPO)}", file=sys.stderr)
    subprocess.run([sys.executable, str(REPO / "bench" / "results_pages.py"), "serve"], check=True, cwd=REPO)


if __name__ == "__main__":
    main()
