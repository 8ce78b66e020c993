"""Parsing speed and memory: JATS (every .nxml under ../shared/data) and PDF (every .pdf there).

Measures, for each format:

* ``sequential``: one process, files parsed one after another: papers/s (and pages/s for PDF) by wall
  clock and by process CPU time (the machine may be shared, CPU time is the steadier number), peak
  resident memory of that process (``ru_maxrss``) and peak Python allocation (tracemalloc, on a sample);
* ``parallel_2``: a pool of 2 worker processes (the 2 cores of the CI machine): papers/s by wall clock.

For PDF both backends are timed sequentially: ``pypdfium2`` (the default) and ``pdfplumber``.
Targets: JATS >= 20 papers/s, PDF >= 5 pages/s.

Usage: ``python bench/parse.py [--repeat N]`` -> ``bench/results/parse.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from claimtrace.documents import load_document  # noqa: E402
from claimtrace.errors import ClaimtraceError  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
OUT = REPO / "bench" / "results" / "parse.json"


def _parse(path: str) -> tuple[bool, str]:
    try:
        load_document(path)
        return True, ""
    except ClaimtraceError as exc:
        return False, str(exc)


def _pages(path: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return len(pdf)
    finally:
        pdf.close()


def sequential(files: list[Path], repeat: int) -> dict[str, object]:
    """Parse the files one after another in this process."""
    failures: list[str] = []
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        for f in files:
            ok, err = _parse(str(f))
            if not ok and err not in failures:
                failures.append(err)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = len(files) * repeat
    return {"papers": n, "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            "papers_per_second_wall": round(n / wall, 2), "papers_per_second_cpu": round(n / cpu, 2),
            "failures": failures}


def parallel(files: list[Path], workers: int, repeat: int) -> dict[str, object]:
    """Parse the files with a pool of worker processes."""
    jobs = [str(f) for f in files] * repeat
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_parse, jobs, chunksize=4))
    wall = time.perf_counter() - t0
    return {"workers": workers, "papers": len(jobs), "wall_seconds": round(wall, 3),
            "papers_per_second_wall": round(len(jobs) / wall, 2),
            "failed": sum(1 for ok, _ in results if not ok)}


def peak_python_mib(files: list[Path]) -> float:
    """Peak Python-level allocation while parsing the files (tracemalloc)."""
    tracemalloc.start()
    for f in files:
        _parse(str(f))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round(peak / 2**20, 1)


def main() -> None:
    """Run the measurements and write bench/results/parse.json."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="passes over the PDFs (they are few)")
    args = ap.parse_args()

    jats = sorted(SHARED.rglob("*.nxml"))
    pdfs = sorted(SHARED.rglob("*.pdf"))
    if not jats and not pdfs:
        sys.exit(f"no data under {SHARED}")
    report: dict[str, object] = {"benchmark": "parse", "cpu_count": os.cpu_count(),
                                 "targets": {"jats_papers_per_second": 20, "pdf_pages_per_second": 5}}

    # warm up imports so that they are not timed
    if jats:
        _parse(str(jats[0]))
    if pdfs:
        _parse(str(pdfs[0]))

    if jats:
        seq = sequential(jats, 1)
        report["jats"] = {"files": len(jats), "sequential": seq, "parallel_2": parallel(jats, 2, 1),
                          "peak_python_mib_sample_50": peak_python_mib(jats[:50])}
        print("jats", json.dumps(report["jats"]), file=sys.stderr)

    if pdfs:
        pages = sum(_pages(p) for p in pdfs)
        pdf_report: dict[str, object] = {"files": len(pdfs), "pages": pages, "repeat": args.repeat}
        for backend in ("pypdfium2", "pdfplumber"):
            os.environ["CLAIMTRACE_PDF_BACKEND"] = backend
            seq = sequential(pdfs, args.repeat if backend == "pypdfium2" else 1)
            reps = args.repeat if backend == "pypdfium2" else 1
            seq["pages_per_second_wall"] = round(pages * reps / float(seq["wall_seconds"]), 2)  # type: ignore[arg-type]
            seq["pages_per_second_cpu"] = round(pages * reps / float(seq["cpu_seconds"]), 2)  # type: ignore[arg-type]
            pdf_report[f"sequential_{backend}"] = seq
            print("pdf", backend, json.dumps(seq), file=sys.stderr)
        os.environ["CLAIMTRACE_PDF_BACKEND"] = "pypdfium2"
        par = parallel(pdfs, 2, args.repeat)
        par["pages_per_second_wall"] = round(pages * args.repeat / float(par["wall_seconds"]), 2)  # type: ignore[arg-type]
        pdf_report["parallel_2"] = par
        pdf_report["peak_python_mib"] = peak_python_mib(pdfs)
        report["pdf"] = pdf_report

    report["peak_rss_mib_main_process"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    report["peak_rss_mib_workers"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    summary: dict[str, object] = {}
    if "jats" in report:
        j = report["jats"]
        assert isinstance(j, dict)
        summary["jats_papers_per_second_sequential"] = j["sequential"]["papers_per_second_wall"]
        summary["jats_papers_per_second_2_cores"] = j["parallel_2"]["papers_per_second_wall"]
    if "pdf" in report:
        p = report["pdf"]
        assert isinstance(p, dict)
        summary["pdf_papers_per_second_sequential"] = p["sequential_pypdfium2"]["papers_per_second_wall"]
        summary["pdf_pages_per_second_sequential"] = p["sequential_pypdfium2"]["pages_per_second_wall"]
        summary["pdf_pages_per_second_2_cores"] = p["parallel_2"]["pages_per_second_wall"]
        summary["pdf_pages_per_second_pdfplumber_backend"] = p["sequential_pdfplumber"]["pages_per_second_wall"]
    report["summary"] = summary
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
