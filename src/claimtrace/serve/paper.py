"""A paper as the paper page shows it: the store's rows, the re-read Document, highlights, PDF boxes.

The rows (traces, statistics, graph edges, conclusions, errors) come from the results store; the text
comes from re-reading the paper's source with the documents layer (the offsets in the store index that
Document), after checking that the file still has the bytes the store hashed (``paper_id``). The parsed
Document, the PDF highlight boxes and page renders are cached under the cache folder.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from claimtrace.corpus.query import connect
from claimtrace.corpus.schema import TABLE_NAMES
from claimtrace.corpus.store import Store
from claimtrace.corpus.work import sha256_of
from claimtrace.documents import load_document
from claimtrace.documents.model import Document
from claimtrace.serve.pdfpages import find_text_boxes, page_sizes

log = logging.getLogger("claimtrace.serve")

KINDS = ("finding", "hypothesis", "evidence", "statistic", "corrected")
TRACE_ELEMENTS = ("finding", "hypothesis", "evidence")


class StoreReader:
    """Rows of one paper from a results store (DuckDB views over the Parquet files, rebuilt on change)."""

    def __init__(self, root: Path) -> None:
        """Read the store at ``root``."""
        self.root = root
        self._lock = threading.Lock()
        self._con: Any = None
        self._sig: tuple[str, ...] | None = None

    def _connection(self) -> Any:
        store = Store(self.root, create=False)
        sig = tuple(str(p) for t in TABLE_NAMES for p in store.parts(t))
        if self._con is None or sig != self._sig:
            if self._con is not None:
                self._con.close()
            con = connect(self.root)
            for t in TABLE_NAMES:  # in-memory copies sorted by paper: a paper's rows in a few ms, not a Parquet scan
                con.execute(f"CREATE TABLE m_{t} AS SELECT * FROM {t} ORDER BY paper_id")
            self._con, self._sig = con, sig
        return self._con

    def rows(self, table: str, paper_id: str, order: str) -> list[dict[str, Any]]:
        """The paper's rows of one table."""
        with self._lock:  # one connection, used by one thread at a time (registered empty tables live on it)
            res = self._connection().execute(f"SELECT * FROM m_{table} WHERE paper_id = ? ORDER BY {order}", [paper_id])
            names = [d[0] for d in res.description]
            return [dict(zip(names, r, strict=True)) for r in res.fetchall()]


def resolve_source(root: Path, path: str) -> Path:
    """The source file of a papers row: absolute as stored, else relative to the run's folder or the store."""
    p = Path(path)
    if p.is_absolute():
        return p
    manifest = Store(root, create=False).read_manifest()
    for base in (manifest.get("cwd"), os.getcwd(), str(root.parent), str(root)):
        if base and (Path(base) / p).is_file():
            return Path(base) / p
    return p


def load_paper_document(root: Path, paper: dict[str, Any], cache: Path) -> tuple[Document | None, Path | None, str]:
    """The paper's Document (cached) and source path, or None and the reason it cannot be shown."""

    cached = cache / "docs" / f"{paper['paper_id']}-{paper.get('parse_key') or 'none'}.json"
    src = resolve_source(root, paper.get("path") or "")
    if cached.is_file():
        try:
            return Document.model_validate_json(cached.read_text(encoding="utf-8")), src, ""
        except ValueError:
            cached.unlink(missing_ok=True)
    if not src.is_file():
        return None, None, f"the source file {paper.get('path')} is not there any more: showing the stored rows only"
    if sha256_of(src) != paper["paper_id"]:
        return None, None, (f"the source file {paper.get('path')} has changed since the run: "
                            "showing the stored rows only")

    try:
        doc = load_document(src)
    except Exception as exc:  # the run parsed it; a failure here is reported, not raised
        return None, None, f"the source could not be re-read: {' '.join(str(exc).split())}"
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
    tmp.write_text(doc.model_dump_json(), encoding="utf-8")
    os.replace(tmp, cached)
    return doc, src, ""


# ---------------------------------------------------------------------- highlight segments
def segments(text: str, base: int, spans: list[tuple[int, int, str, str]]) -> list[dict[str, Any]]:
    """Cut ``text`` (which starts at offset ``base``) at every span edge: [{text, els, kinds}]."""
    end = base + len(text)
    cuts = {base, end}
    inside = [(max(s, base), min(e, end), el, k) for s, e, el, k in spans if s < end and e > base]
    for s, e, _, _ in inside:
        cuts.update((s, e))
    pts = sorted(cuts)
    out = []
    for a, b in itertools.pairwise(pts):
        if b <= a:
            continue
        els = [el for s, e, el, _ in inside if s <= a and b <= e]
        kinds = sorted({k for s, e, _, k in inside if s <= a and b <= e})
        out.append({"text": text[a - base:b - base], "els": " ".join(els), "kinds": kinds})
    return out


def trace_spans(doc: Document | None, traces: list[dict[str, Any]], stats: list[dict[str, Any]],
                 corrections: dict[str, dict[str, Any]]) -> dict[str, list[tuple[int, int, str, str]]]:
    spans: dict[str, list[tuple[int, int, str, str]]] = {"body": [], "abstract": [], "table": []}
    for t in traces:
        k = f"t{t['trace_index']}"
        if doc is not None and t.get("finding_sentence_id"):
            try:
                u = doc.unit(t["finding_sentence_id"])
                spans["abstract"].append((u.start, u.end, f"{k}-finding", "finding"))
            except KeyError:
                pass
        for el in ("hypothesis", "evidence"):
            if t.get(f"{el}_start") is not None and t.get(f"{el}_scope") in spans:
                spans[t[f"{el}_scope"]].append((t[f"{el}_start"], t[f"{el}_end"], f"{k}-{el}", el))
            c = corrections.get(f"{t['trace_id']}:{el}")
            if c and c.get("scope") in spans and c.get("start") is not None:
                spans[c["scope"]].append((c["start"], c["end"], f"{k}-{el}", "corrected"))
    for s in stats:
        if s.get("start") is not None and s.get("scope") in spans:
            spans[s["scope"]].append((s["start"], s["end"], f"s{s['stat_index']}", "statistic"))
    return spans


def text_blocks(doc: Document, spans: dict[str, list[tuple[int, int, str, str]]]) -> dict[str, Any]:
    """The abstract, the body grouped by section and the tables, each cut into highlight segments."""
    abstract = [{"id": a.id, "label": a.label, "start": a.start, "scope": "abstract",
                 "segments": segments(a.text, a.start, spans["abstract"])} for a in doc.abstract]
    sections: list[dict[str, Any]] = []
    for p in doc.paragraphs:
        if not sections or sections[-1]["heading"] != (p.section or ""):
            sections.append({"heading": p.section or "", "paragraphs": []})
        sections[-1]["paragraphs"].append({"id": p.id, "start": p.start, "scope": "body", "page": p.page,
                                           "segments": segments(p.text, p.start, spans["body"])})
    tables = []
    for t in doc.tables:
        rows = []
        for r in t.rows:
            els = [el for s, e, el, _ in spans["table"] if s < r.end and e > r.start]
            kinds = sorted({k for s, e, _, k in spans["table"] if s < r.end and e > r.start})
            cells = [c for c in t.cells if c.row == r.index + 1] or []
            rows.append({"id": r.id, "header": r.header, "els": " ".join(els), "kinds": kinds,
                         "cells": [{"text": c.text, "colspan": c.colspan, "rowspan": c.rowspan, "header": c.header}
                                   for c in sorted(cells, key=lambda c: c.col)] or [{"text": r.text, "colspan": 1,
                                                                                      "rowspan": 1, "header": False}]})
        tables.append({"id": t.id, "label": t.label, "caption": t.caption, "rows": rows, "footnotes": t.footnotes})
    return {"abstract": abstract, "sections": sections, "tables": tables}


# ---------------------------------------------------------------------- PDF boxes
def pdf_pages(doc: Document, src: Path, traces: list[dict[str, Any]], stats: list[dict[str, Any]],
              cache: Path, paper_id: str) -> list[dict[str, Any]]:
    """Every page's size and highlight boxes (percent of the page) for the trace elements and statistics."""

    box_file = cache / "boxes" / f"{paper_id}.json"
    sizes = page_sizes(src)
    wanted: list[tuple[str, str, str]] = []  # (el, kind, sentence id)
    for t in traces:
        k = f"t{t['trace_index']}"
        if t.get("finding_sentence_id"):
            wanted.append((f"{k}-finding", "finding", t["finding_sentence_id"]))
        for el in ("hypothesis", "evidence"):
            for sid in t.get(f"{el}_sentence_ids") or []:
                wanted.append((f"{k}-{el}", el, sid))
    for s in stats:
        if s.get("unit_id"):
            wanted.append((f"s{s['stat_index']}", "statistic", s["unit_id"]))
    key = json.dumps(wanted)
    if box_file.is_file():
        saved = json.loads(box_file.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            return _pages(sizes, saved["boxes"])
    requests: list[tuple[int, str]] = []
    fallback: list[tuple[int, Any] | None] = []
    for _el, _kind, sid in wanted:
        try:
            unit = doc.unit(sid)
        except KeyError:
            requests.append((0, ""))
            fallback.append(None)
            continue
        par = doc.paragraph_of(sid)
        page = getattr(unit, "page", None) or getattr(par, "page", None) or 0
        requests.append((page, unit.text))
        bbox = getattr(par, "bbox", None)
        fallback.append((getattr(par, "page", None) or page, bbox) if bbox is not None else None)
    found = find_text_boxes(src, requests)
    boxes: list[dict[str, Any]] = []
    for (el, kind, _sid), (page, _), hits, fb in zip(wanted, requests, found, fallback, strict=True):
        if hits:
            boxes += [{"page": page, "el": el, "kind": kind, **b.model_dump()} for b in hits]
        elif fb is not None and fb[0]:
            b = fb[1]
            boxes.append({"page": fb[0], "el": el, "kind": kind, "x0": b.x0, "top": b.top, "x1": b.x1,
                          "bottom": b.bottom, "paragraph": True})
    box_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = box_file.with_name(f".{box_file.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"key": key, "boxes": boxes}), encoding="utf-8")
    os.replace(tmp, box_file)
    return _pages(sizes, boxes)


def _pages(sizes: list[tuple[float, float]], boxes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    pages = [{"n": i + 1, "w": w, "h": h, "boxes": []} for i, (w, h) in enumerate(sizes)]
    for b in boxes:
        if 1 <= b["page"] <= len(pages):
            pg = pages[b["page"] - 1]
            w, h = pg["w"], pg["h"]
            pg["boxes"].append({"el": b["el"], "kind": b["kind"], "left": 100 * b["x0"] / w, "top": 100 * b["top"] / h,
                                "width": 100 * (b["x1"] - b["x0"]) / w, "height": 100 * (b["bottom"] - b["top"]) / h})
    return pages


# ---------------------------------------------------------------------- machine values of the items
def machine_value(element: str, trace: dict[str, Any] | None, stat: dict[str, Any] | None,
                  doc: Document | None) -> dict[str, Any]:
    """The machine's value of an item, as stored with each decision (text and offsets, or numbers).

    For a check row (``element == "check"``) ``stat`` holds the row of the checks table."""
    if element == "check":
        assert stat is not None
        return {k: stat.get(k) for k in ("check_id", "severity", "message", "text", "scope", "unit_id", "start",
                                         "end", "page")}
    if element == "statistic":
        assert stat is not None
        return {k: stat.get(k) for k in ("text", "scope", "start", "end", "test", "df1", "df2", "value",
                                         "p_comparison", "p_value", "computed_p", "consistent", "decision_error")}
    assert trace is not None
    if element == "finding":
        out: dict[str, Any] = {"text": trace.get("finding_text"), "sentence_id": trace.get("finding_sentence_id"),
                               "scope": "abstract"}
        if doc is not None and trace.get("finding_sentence_id"):
            try:
                s = doc.unit(trace["finding_sentence_id"])
                out.update(start=s.start, end=s.end)
            except KeyError:
                pass
        return out
    return {"text": trace.get(f"{element}_text"), "scope": trace.get(f"{element}_scope"),
            "start": trace.get(f"{element}_start"), "end": trace.get(f"{element}_end"),
            "sentence_ids": list(trace.get(f"{element}_sentence_ids") or []), "page": trace.get(f"{element}_page")}


def stat_flags(s: dict[str, Any]) -> list[str]:
    """A statistic's flags as short labels."""
    out = []
    if s.get("consistent") is False:
        out.append("inconsistent p")
    if s.get("decision_error"):
        out.append("decision error")
    if s.get("ci_consistent") is False or s.get("ci_p_consistent") is False:
        out.append("CI mismatch")
    out += [str(f) for f in (s.get("check_flags") or [])]
    return out
