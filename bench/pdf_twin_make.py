"""Make the twin set of bench/pdf_tables.py: real typeset tables whose authors' LaTeX source ships next to the PDF.

Bench-time tool (needs pandoc and the Debian packages below; the benchmark and the tests need neither: this
script commits what they read). R packages whose vignettes are versions of published journal articles
install, in Debian's ``r-cran-*`` packages, both the vignette source (``.Rnw``) and the PDF built from it. A
table whose cells are typed by the authors in a LaTeX ``tabular`` (no ``\\Sexpr`` and no R chunk inside) is
independent of any PDF reader, so it is a twin of the typeset table:

1. every ``table`` environment of each source is numbered in document order (code chunks and comments removed)
   and checked against the PDF: the page whose text has a line "Table N: <first words of the caption>";
2. a table is *taken* when its tabular is static, no cell holds a ``\\ref``, ``\\cite`` or ``\\footnote`` (numbers
   that exist only in the typeset PDF), and pandoc turns it into one table in which at most 20% of
   the non-empty cells hold a formula (decided from the source and pandoc's output only, before any reader
   ran on it); every other table is listed with the reason it was skipped;
3. the table environment, with the source's one-line macro definitions and jss.cls's ``\\code``, ``\\pkg``,
   ``\\proglang``, is converted by ``pandoc -f latex -t jats``; the result is rewritten as a small JATS
   article holding one ``table-wrap`` with the PDF's label (``bench/data/pdf-twins/<source>-table<N>.xml``);
4. the PDF page holding the table is copied with pypdf to ``bench/data/pdfs/twin/<source>-p<page>.pdf``.

The manifest ``bench/data/pdf-tables-twin.json`` records for each table the package and version, the sha256 of
the ``.Rnw`` and the ``.pdf``, the journal article the vignette is a version of, the licence, the page, and how
the twin was made.

    apt-get install pandoc; cd /tmp/rdeb && apt-get download r-cran-pscl ... && for f in *.deb; do
      dpkg-deb -x $f x/$(echo $f | cut -d_ -f1); done
    .venv/bin/python bench/pdf_twin_make.py --debs /tmp/rdeb
"""

from __future__ import annotations

import argparse
import copy
import glob
import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TWINS = REPO / "bench" / "data" / "pdf-twins"
PAGES = REPO / "bench" / "data" / "pdfs" / "twin"
MANIFEST = REPO / "bench" / "data" / "pdf-tables-twin.json"
MML = "http://www.w3.org/1998/Math/MathML"

# (key, Debian package, vignette stem, the article the vignette is a version of)
SOURCES: list[tuple[str, str, str, str]] = [
    ("pscl-countreg", "r-cran-pscl", "countreg",
     "Zeileis, Kleiber, Jackman (2008), Regression Models for Count Data in R, Journal of Statistical Software 27(8), "
     "doi:10.18637/jss.v027.i08 (CC BY 3.0); the vignette is a version of it (pscl's CITATION)"),
    ("vcd-strucplot", "r-cran-vcd", "strucplot",
     "Meyer, Zeileis, Hornik (2006), The Strucplot Framework, Journal of Statistical Software 17(3), "
     "doi:10.18637/jss.v017.i03 (CC BY 3.0); the vignette says 'This paper has been published in the JSS'"),
    ("lme4-lmer", "r-cran-lme4", "lmer",
     "Bates, Maechler, Bolker, Walker (2015), Fitting Linear Mixed-Effects Models Using lme4, Journal of Statistical "
     "Software 67(1), doi:10.18637/jss.v067.i01 (CC BY 3.0); the vignette says 'A version of this manuscript has been "
     "published'"),
    ("sandwich-CL", "r-cran-sandwich", "sandwich-CL",
     "Zeileis, Koell, Graham (2020), Various Versatile Variances, Journal of Statistical Software 95(1), "
     "doi:10.18637/jss.v095.i01 (CC BY 3.0); the vignette is 'a (slightly) modified version'"),
    ("seriation", "r-cran-seriation", "seriation",
     "Hahsler, Hornik, Buchta (2008), Getting Things in Order, Journal of Statistical Software 25(3), "
     "doi:10.18637/jss.v025.i03 (CC BY 3.0); the vignette says 'A previous version of this manuscript was published'"),
    ("TSP", "r-cran-tsp", "TSP",
     "Hahsler, Hornik (2007), TSP - Infrastructure for the Traveling Salesperson Problem, Journal of Statistical "
     "Software 23(2), doi:10.18637/jss.v023.i02 (CC BY 3.0); the vignette says 'A previous version of this manuscript "
     "was published'"),
    ("fitdistrplus-jss", "r-cran-fitdistrplus", "paper2JSS",
     "Delignette-Muller, Dutang (2015), fitdistrplus, Journal of Statistical Software 64(4), "
     "doi:10.18637/jss.v064.i04 (CC BY 3.0); the vignette is the accepted paper"),
    ("ordinal-clm", "r-cran-ordinal", "clm_article",
     "Christensen, Cumulative Link Models for Ordinal Regression with the R Package ordinal: JSS-style article, "
     "'no longer submitted for publication in JSS' (not a published article)"),
    ("coin-maxtest", "r-cran-coin", "MAXtest",
     "Hothorn, Hothorn, Order-restricted Scores Test: a preprint of an article in Biometrical Journal (2009), "
     "vignette version"),
    ("psychotools-simulation", "r-cran-psychotools", "toolbox-simulation",
     "a psychotools vignette in JSS style (a supplement to Schneider et al. 2020), not a journal article"),
    ("partykit-constparty", "r-cran-partykit", "constparty",
     "a partykit vignette in JSS style (Hothorn, Zeileis), not a journal article"),
]

JSS_MACROS = r"""\newcommand{\code}[1]{\texttt{#1}}
\newcommand{\pkg}[1]{\textbf{#1}}
\newcommand{\proglang}[1]{\textsf{#1}}
"""


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def strip_source(s: str) -> str:
    """The LaTeX of a vignette without R code chunks and ``%`` comments (chunks blanked, so order is kept)."""
    s = re.sub(r"^<<[^\n]*>>=\n.*?^@[ \t]*$", "<<CHUNK>>", s, flags=re.S | re.M)
    return re.sub(r"(?<!\\)%[^\n]*", "", s)


def macros(s: str) -> str:
    """The source's one-line macro definitions from its preamble (pandoc expands them)."""
    pre = s.split(r"\begin{document}", 1)[0]
    keep = [ln.split("%")[0] for ln in pre.splitlines() if re.match(r"\s*\\(newcommand|renewcommand|def)\b", ln)]
    return "\n".join(ln for ln in keep if ln.count("{") == ln.count("}") and "color" not in ln)


def table_envs(s: str) -> list[str]:
    """The ``table`` environments of a stripped source, in document order."""
    return re.findall(r"\\begin\{table\*?\}.*?\\end\{table\*?\}", s, flags=re.S)


def pandoc(tex: str) -> bytes:
    """JATS of a LaTeX snippet, by pandoc."""
    return subprocess.run(["pandoc", "-f", "latex", "-t", "jats", "-s"], input=tex.encode(), capture_output=True,
                          check=True).stdout


def pandoc_version() -> str:
    """pandoc's version line."""
    return subprocess.run(["pandoc", "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]


def cell_text(el: Any) -> str:
    """A JATS cell's text: its words, a formula by its MathML (not its TeX)."""
    out: list[str] = []

    def walk(e: Any) -> None:
        if e.tag == "tex-math":
            if e.tail:
                out.append(e.tail)
            return
        if e.text:
            out.append(e.text)
        for ch in e:
            walk(ch)
        if e.tail and e is not el:
            out.append(e.tail)

    walk(el)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def find_page(pdf: Path, n: int, caption: str) -> int | None:
    """1-based page whose text has "Table n:" followed by the caption's first words, or None."""
    import pdfplumber

    words = re.findall(r"[A-Za-z]{3,}", caption)[:3]
    with pdfplumber.open(pdf) as doc:
        for i, page in enumerate(doc.pages, 1):
            text = re.sub(r"\s+", "", page.extract_text() or "")
            for m in re.finditer(rf"Table{n}[:.]", text):
                if all(w in text[m.end(): m.end() + 200] for w in words):
                    return i
    return None


def make_twin(wrap: Any, label: str, title: str) -> bytes:
    """A small JATS article holding one table-wrap (pandoc's caption and table) with the PDF's label."""
    from lxml import etree

    nsmap = {"mml": MML, "xlink": "http://www.w3.org/1999/xlink"}
    art = etree.Element("article", nsmap=nsmap, attrib={"article-type": "research-article"})
    front = etree.SubElement(art, "front")
    meta = etree.SubElement(front, "article-meta")
    etree.SubElement(etree.SubElement(meta, "title-group"), "article-title").text = title
    sec = etree.SubElement(etree.SubElement(art, "body"), "sec")
    etree.SubElement(sec, "title").text = "Table"
    etree.SubElement(sec, "p").text = f"{label} of the typeset article, converted from the authors' LaTeX by pandoc."
    tw = etree.SubElement(sec, "table-wrap", id="t" + label.split()[-1])
    etree.SubElement(tw, "label").text = label
    for ch in wrap:
        tw.append(copy.deepcopy(ch))
    return bytes(etree.tostring(art, xml_declaration=True, encoding="utf-8", pretty_print=True))


def main() -> None:
    """Find every table of the sources, convert the static ones, copy their pages, write the manifest."""
    from lxml import etree
    from pypdf import PdfReader, PdfWriter

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--debs", type=Path, required=True, help="folder with the .deb files and x/<package>/ extracted")
    args = ap.parse_args()
    TWINS.mkdir(parents=True, exist_ok=True)
    PAGES.mkdir(parents=True, exist_ok=True)
    version = pandoc_version()
    taken: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for key, pkg, stem, article in SOURCES:
        root = args.debs / "x" / pkg
        rnw = Path(glob.glob(str(root / f"usr/lib/R/*/*/doc/{stem}.Rnw"))[0])
        pdf = rnw.with_suffix(".pdf")
        deb = Path(glob.glob(str(args.debs / f"{pkg}_*.deb"))[0]).name
        lic = re.findall(r"^License: (.+)$", (root / f"usr/share/doc/{pkg}/copyright").read_text(), flags=re.M)
        src = {"package": pkg, "deb": deb, "vignette": f"{stem}.Rnw", "rnw_sha256": sha256(rnw),
               "pdf_sha256": sha256(pdf), "article": article,
               "licence": f"vignette under the package's licence ({lic[0] if lic else '?'}, Debian copyright file)"}
        raw = rnw.read_text(errors="replace")
        body = strip_source(raw)
        defs = macros(strip_source(raw))
        for n, env in enumerate(table_envs(body), 1):
            label = f"Table {n}"
            entry: dict[str, Any] = {"source": key, "label": label, **src}
            tabular = re.search(r"\\begin\{tabular\}.*?\\end\{tabular\}", env, flags=re.S)
            if tabular is None or "<<CHUNK>>" in tabular.group(0) or r"\Sexpr" in tabular.group(0):
                skipped.append({**entry, "reason": "cells made by R code at build time (\\Sexpr or an R chunk)"
                                if tabular is not None else "no tabular"})
                continue
            if re.search(r"\\(ref|eqref|cite\w*|footnote)\b", tabular.group(0)):
                skipped.append({**entry, "reason": "a cross-reference, citation or footnote in a cell (its number exists "
                                                   "only in the typeset PDF, pandoc leaves it unresolved)"})
                continue
            if env.count(r"\begin{tabular}") > 1:
                skipped.append({**entry, "reason": "more than one tabular in the table environment"})
                continue
            tex = "\\documentclass{article}\n" + JSS_MACROS + defs + "\n\\begin{document}\n" + env + "\n\\end{document}\n"
            try:
                jats = pandoc(tex)
            except subprocess.CalledProcessError as exc:
                skipped.append({**entry, "reason": f"pandoc failed: {exc.stderr.decode(errors='replace')[:200]}"})
                continue
            tree = etree.fromstring(jats)
            wraps = tree.findall(".//table-wrap")
            if len(wraps) != 1 or len(wraps[0].findall(".//table")) != 1:
                skipped.append({**entry, "reason": f"pandoc made {len(wraps)} table-wraps"})
                continue
            cells = [c for c in wraps[0].iter("td", "th")]
            filled = [c for c in cells if cell_text(c)]
            math = [c for c in filled if c.find(".//inline-formula") is not None]
            caption = cell_text(wraps[0].find("caption")) if wraps[0].find("caption") is not None else ""
            page = find_page(pdf, n, caption)
            entry.update({"caption": caption[:200], "source_page": page, "cells": len(filled), "formula_cells": len(math)})
            if page is None:
                skipped.append({**entry, "reason": "no 'Table N: caption' line found in the PDF (numbering not confirmed)"})
                continue
            if len(math) > 0.2 * max(1, len(filled)):
                skipped.append({**entry, "reason": f"{len(math)} of {len(filled)} cells hold a formula (> 20%)"})
                continue
            twin = TWINS / f"{key}-table{n}.xml"
            twin.write_bytes(make_twin(wraps[0], label, article.split(",")[0] + " / " + stem))
            out_pdf = PAGES / f"{key}-p{page}.pdf"
            if not out_pdf.exists():
                w = PdfWriter()
                w.add_page(PdfReader(pdf).pages[page - 1])
                buf = io.BytesIO()
                w.write(buf)
                out_pdf.write_bytes(buf.getvalue())
            entry.update({"pdf": str(out_pdf.relative_to(REPO)), "page": 1, "twin": str(twin.relative_to(REPO)),
                          "twin_made": f"the authors' LaTeX source ({stem}.Rnw, its table environment with the "
                                       f"source's macro definitions), converted to JATS by {version}; not publisher JATS"})
            taken.append(entry)
            print(f"{key} {label} p{page}: {len(filled)} cells, {len(math)} formula", file=sys.stderr)
    MANIFEST.write_text(json.dumps({
        "what": "real typeset tables (R package vignettes that are versions of journal articles, from Debian's "
                "r-cran-* packages) with a JATS twin made from the authors' LaTeX source by pandoc",
        "made_by": "bench/pdf_twin_make.py", "pandoc": version,
        "rule": "every table environment of each source, numbered in document order and confirmed by a 'Table N:' "
                "caption line in the PDF; taken when the tabular is static (no \\Sexpr, no R chunk), no cell holds a "
                "\\ref, \\cite or \\footnote, and at most 20% of its non-empty cells hold a formula",
        "tables": taken, "skipped": skipped}, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(taken)} taken, {len(skipped)} skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
