"""The corpus page of ``claimtrace serve`` at 10,000 papers: does paging stay fast as the store grows?

shared/ holds about 1,000 JATS papers, so the 10,000-paper store is made of copies: each copy of a real JATS
paper gets a trailing XML comment (``<!-- copy K -->``), which changes its content hash (so the runner stores it
as a paper of its own) and nothing else the documents layer reads. The store is built by the real runner
(``claimtrace run --steps parse,stats,traces --workers 2``); the requests are timed against the real server
process, as in ``bench/serve.py``, whose 1,000-paper figures this run repeats on the same machine for the ratio.

    python bench/serve_scale.py [--papers 10000] [--runs 30]

Writes bench/results/serve_scale.json; the serve results page (docs/results/serve.md) shows it.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from provenance import REPO, Run
from serve import DATA, ENV, Server, _session, _timed, jats_papers, summary

RESULT = REPO / "bench" / "results" / "serve_scale.json"


def build_store(work: Path, n: int) -> Path:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--work", type=Path, default=Path("/tmp/claimtrace-serve-scale"))
    ap.add_argument("--small", type=Path, default=Path("/tmp/claimtrace-serve-bench/store1000"),
                    help="the 1,000-paper store of bench/serve.py (built there with --part store)")
    a = ap.parse_args()
    if not a.small.is_dir():
        sys.exit(f"error: {a.small} is missing: run `python bench/serve.py --part store` first")
    run = Run(data=[DATA / "evidence-inference" / "train" / "articles",
                    DATA / "evidence-inference" / "validation" / "articles", DATA / "documents"])
    store = build_store(a.work, a.papers)
    big = corpus_times(store, a.work / "cache-big", a.runs)
    small = corpus_times(a.small, a.work / "cache-small", a.runs)
    ratio = {label: round(big["pages"][label]["median_ms"] / small["pages"][label]["median_ms"], 2)
             for label in big["pages"]}
    res = {"schema_version": "1", "runs": a.runs, "copies_note": "copies of real JATS papers, each with a trailing "
           "XML comment (a distinct content hash); see the script", "large": big, "small": small,
           "median_ratio_large_over_small": ratio, "provenance": run.finish()}
    RESULT.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULT.relative_to(REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
