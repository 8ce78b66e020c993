"""Reference entries and in-text citations read into the Document, against the counts in the XML itself.

Papers: the first 10 by sorted file name of ``../shared/data/evidence-inference/validation/articles/*.nxml``
(JATS) and of ``../shared/data/documents/psychsci/*.xml`` (GROBID TEI). For each paper the XML is counted
with plain XPath, independently of the readers:

- ``xml_entries``: ``ref-list//ref`` (JATS) or ``listBibl/biblStruct`` (TEI);
- ``xml_citations``: ``xref[@ref-type="bibr"]`` outside the reference list (JATS) or ``ref[@type="bibr"]``
  outside ``listBibl`` and the header (TEI);
- ``xml_linked``: those whose ``rid``/``target`` names an entry that exists;

and the Document gives ``entries`` (``len(references)``), ``citations``, ``linked_xml`` (citations whose entry
the XML named), ``linked`` (with the text fall-back: author-year matched where the XML named none) and
``placed`` (citations with offsets into the body or abstract).

    PYTHONPATH=src python bench/references_xml.py

Writes bench/results/references_xml.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from claimtrace.documents.readers import load_document  # noqa: E402
from claimtrace.documents.readers._xml import local, safe_parser  # noqa: E402
from claimtrace.schema_version import SCHEMA_VERSION  # noqa: E402
from provenance import Run  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
JATS = SHARED / "evidence-inference" / "validation" / "articles"
TEI = SHARED / "documents" / "psychsci"
OUT = ROOT / "bench" / "results" / "references_xml.json"
TEI_ID = "{http://www.w3.org/XML/1998/namespace}id"


def xml_counts(path: Path, fmt: str) -> dict[str, int]:
    """The entries, citations and linked citations in the XML, counted by XPath."""
    root = etree.parse(str(path), safe_parser()).getroot()
    if fmt == "jats":
        ids = {r.get("id") for rl in root.iter("ref-list") for r in rl.iter("ref")}
        entries = sum(1 for rl in root.iter("ref-list") for _ in rl.iter("ref"))
        cites = [x for x in root.iter("xref") if x.get("ref-type") == "bibr"
                 and not any(a.tag == "ref-list" for a in x.iterancestors())]
        linked = sum(1 for x in cites if any(r in ids for r in (x.get("rid") or "").split()))
    else:
        bibls = [b for e in root.iter() if local(e.tag) == "listBibl" for b in e if local(b.tag) == "biblStruct"]
        ids = {b.get(TEI_ID) for b in bibls}
        entries = len(bibls)
        cites = [x for x in root.iter() if local(x.tag) == "ref" and x.get("type") == "bibr"
                 and not any(local(a.tag) in ("listBibl", "teiHeader") for a in x.iterancestors())]
        linked = sum(1 for x in cites if any(t.lstrip("#") in ids for t in (x.get("target") or "").split()))
    return {"xml_entries": entries, "xml_citations": len(cites), "xml_linked": linked}


def doc_counts(path: Path) -> dict[str, int]:
    """The same counts from the Document the reader builds."""
    doc = load_document(path)
    return {"entries": len(doc.references), "citations": len(doc.citations),
            "linked_xml": sum(1 for c in doc.citations if c.ref_ids and c.via == "xml"),
            "linked": sum(1 for c in doc.citations if c.ref_ids),
            "placed": sum(1 for c in doc.citations if c.start is not None)}


def main() -> int:
    """Count the first 10 JATS and 10 TEI papers and write the JSON."""
    run = Run(data=[JATS, TEI])
    if not JATS.is_dir() or not TEI.is_dir():
        print("references_xml: ../shared/data is absent", file=sys.stderr)
        return 2
    papers: list[dict[str, Any]] = []
    for fmt, folder, pattern in (("jats", JATS, "*.nxml"), ("tei", TEI, "*.xml")):
        for path in sorted(folder.glob(pattern))[:10]:
            row = {"paper": path.name, "format": fmt, **xml_counts(path, fmt), **doc_counts(path)}
            row["entries_match"] = row["entries"] == row["xml_entries"]
            row["citations_match"] = row["citations"] == row["xml_citations"]
            row["linked_match"] = row["linked_xml"] == row["xml_linked"]
            papers.append(row)
    summary = {}
    for fmt in ("jats", "tei"):
        rows = [p for p in papers if p["format"] == fmt]
        summary[fmt] = {k: sum(int(p[k]) for p in rows) for k in
                        ("xml_entries", "entries", "xml_citations", "citations", "xml_linked", "linked_xml",
                         "linked", "placed", "entries_match", "citations_match", "linked_match")}
        summary[fmt]["papers"] = len(rows)
    out = {"schema_version": SCHEMA_VERSION, "selection": "first 10 by sorted file name, per format",
           "loadavg": os.getloadavg(), "summary": summary, "papers": papers}
    out["provenance"] = run.finish()
    OUT.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
