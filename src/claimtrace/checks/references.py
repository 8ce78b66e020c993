"""Built-in checks on the reference list: citation integrity, malformed DOIs, retracted or corrected works, DOI look-ups.

- ``reference-unlisted``: an in-text citation that matches no entry of the reference list;
- ``reference-uncited``: an entry that no citation names (nor its first author and year anywhere in the text);
- ``reference-doi``: an entry's DOI that is not a DOI (``10.NNNN/suffix``), or was damaged (spaces, junk);
- ``reference-retracted``: a cited work that the user's Retraction Watch CSV (``--retractions FILE``) lists as
  retracted, corrected, or under an expression of concern, matched by normalised DOI;
- ``reference-doi-title`` (``--online`` only): an entry's DOI that resolves (Crossref REST API) to a work whose
  title differs from the title printed.
"""

from __future__ import annotations

import csv
import difflib
import json
import os
import re
import urllib.parse
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from claimtrace.checks._online import Fetcher
from claimtrace.checks.base import Check, CheckContext, CheckRow, Location, NamedCheck, ok_row, section_of
from claimtrace.documents.bibliography import (  # the index and the item splitter unmatched_items uses, built once
    CiteItem,
    _AuthorYearIndex,
    _split_items,
    fold,
    normalize_doi,
    numbers_of,
)
from claimtrace.documents.model import Citation, Document, Reference
from claimtrace.errors import InputError

_DOI_OK = re.compile(r"^10\.\d{4,9}/[^\s\"<>{}|\\^`]+$")
REFS_SECTION = "References"


def _cite_location(c: Citation, doc: Document) -> Location | None:
    if c.scope is None:
        return None
    return Location(scope=c.scope, unit_id=c.unit_id, start=c.start, end=c.end, page=c.page,
                    section=section_of(doc, c.unit_id))


def _ref_location(ref: Reference) -> Location:
    return Location(section=REFS_SECTION)


def _ref_data(ref: Reference) -> dict[str, object]:
    return {"ref_id": ref.id, "authors": ref.authors, "year": ref.year, "title": ref.title, "doi": ref.doi}


def _short(ref: Reference) -> str:
    who = ref.authors[0] if ref.authors else (ref.raw[:40] or ref.id)
    more = " et al." if len(ref.authors) > 2 else (f" & {ref.authors[1]}" if len(ref.authors) == 2 else "")
    return f"{who}{more} ({ref.year or 'n.d.'})"


def _all_text(doc: Document) -> str:
    """Body, abstract and the excluded blocks other than the reference list (captions, notes, tables)."""
    parts = [doc.abstract_text, doc.body_text, doc.tables_text]
    parts.extend(e.text for e in doc.excluded if e.kind != "references")
    return "\n".join(parts)


class _RefTexts:
    """The reference list read once per paper: the author-year index, the text the entries are looked for in
    (lower-cased too, for quick filters) and, when first asked, each entry's raw text folded."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.index = _AuthorYearIndex(doc.references)
        self.text = _all_text(doc)
        self.lower = self.text.lower()
        self._folded: list[tuple[Reference, str]] | None = None

    @property
    def folded(self) -> list[tuple[Reference, str]]:
        """Each entry with its raw text folded (``fold``)."""
        if self._folded is None:
            self._folded = [(r, _fold_text(r.raw)) for r in self.doc.references]
        return self._folded


_NOT_AZ = re.compile(r"[^a-z]+")


def _fold_text(text: str) -> str:
    """``fold`` of a long text: ASCII text needs no accent stripping, only lower-casing and letters kept."""
    return _NOT_AZ.sub("", text.lower()) if text.isascii() else fold(text)


def _ref_texts(context: CheckContext) -> _RefTexts:
    return context.shared("references.texts", lambda: _RefTexts(context.document))


def _unmatched(c: Citation, refs: _RefTexts) -> list[CiteItem]:
    """The author-year items of a citation that match no entry (``unmatched_items``, with the paper's index)."""
    return [it for it in _split_items(c.text) if not refs.index.match(it)]


def _listed_anyway(item: CiteItem, citation: Citation, doc: Document, refs: _RefTexts) -> bool:
    """An entry whose printed text holds the surname and year, though it was parsed otherwise; or, for a
    group author ("APA", "Scottish Council for Research in Education"), an entry from the same year with no
    personal author (GROBID often keeps a corporate author only as "Author", or drops it)."""
    name = fold(item.names[0])
    if len(name) < 2:
        return True
    dated = [y[:4] for y in item.years if y[:4].isdigit()]
    for ref, folded in refs.folded:
        if name in folded and (not dated or any(y in ref.raw or (ref.year or "").startswith(y) for y in dated)):
            return True
    group = item.names[0].isupper() or re.search(rf"[A-Z][\w-]+\s+(?:(?:of|and|for|the|in|on|&)\s+)*"
                                                 rf"{re.escape(item.names[0])}\b", citation.text)
    if group:
        for ref in doc.references:
            if not ref.authors and (not dated or any(y in ref.raw or (ref.year or "").startswith(y) for y in dated)):
                return True
    return False


class UnlistedCitations(NamedCheck, id="reference-unlisted", title="Citations with no reference entry"):
    """Citations in the text that match no entry of the reference list."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One ``warn`` row per cited work with no entry; ``ok`` when every citation has one."""
        doc = context.document
        if not doc.references:
            return [CheckRow(check=self.id, severity="info", message="No reference list was found in this document.",
                             guidance="If the paper has a reference list, give the checks a source where it is "
                                      "readable (JATS, GROBID TEI, or a PDF with a 'References' heading).")]
        rows: list[CheckRow] = []
        refs = _ref_texts(context)
        labels = {r.label for r in doc.references if r.label}
        for c in doc.citations:
            if c.ref_ids and c.via == "xml":
                continue
            if labels and c.via == "text" and c.text.startswith("["):
                missing = [n for n in numbers_of(c.text) if n not in labels]
                if missing:
                    rows.append(CheckRow(
                        check=self.id, severity="warn",
                        message=f"Cited [{', '.join(missing)}] has no entry in the numbered reference list.",
                        guidance="Add the cited work to the reference list, or correct the number.",
                        location=_cite_location(c, doc), text=c.text,
                        data={"citation_id": c.id, "names": [], "numbers": missing}))
                continue
            items = _unmatched(c, refs)
            if c.ref_ids and not items:
                continue
            if not items:
                continue  # a mention the markup calls a citation but that names no author and year to look up
            for item in items:
                if _listed_anyway(item, c, doc, refs):
                    continue
                label = (item.names[0] + " et al." if item.et_al or len(item.names) > 2
                         else " & ".join(item.names))
                rows.append(CheckRow(
                    check=self.id, severity="warn",
                    message=f"Cited '{label}, {', '.join(item.years)}' has no entry in the reference list.",
                    guidance="Add the cited work to the reference list, or correct the citation's author or year "
                             "so it matches its entry.",
                    location=_cite_location(c, doc), text=c.text,
                    data={"citation_id": c.id, "names": list(item.names), "years": list(item.years)}))
        if not rows:
            rows.append(ok_row(self.id, f"All {len(doc.citations)} citations match an entry of the reference list."))
        return rows


class UncitedEntries(NamedCheck, id="reference-uncited", title="Reference entries never cited"):
    """Entries of the reference list that no citation names."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One ``warn`` row per entry no citation links and whose first author and year the text never names."""
        doc = context.document
        if not doc.references:
            return []
        cited = {rid for c in doc.citations for rid in c.ref_ids}
        if not cited and doc.citations == [] and doc.source.format not in ("jats", "tei"):
            return [CheckRow(check=self.id, severity="info", message="No in-text citation could be read (numbered "
                             "superscripts or another style the checks do not read): entries not checked.",
                             guidance="Nothing to do; a JATS or GROBID TEI version of the paper can be checked.",
                             data={"entries": len(doc.references)})]
        refs = _ref_texts(context)
        rows: list[CheckRow] = []
        # GROBID tags superscript numbers only in part (not those of the abstract, not all of the body's), and a
        # number cannot be searched for as a name is: in a numbered TEI an entry not linked is only info
        numbered = doc.source.format == "tei" and bool(doc.citations) and all(
            _NUMBERED.fullmatch(c.text.strip()) for c in doc.citations)
        for ref in doc.references:
            if ref.id in cited or _named_in_text(ref, refs.text, refs.lower) or _DOWNLOAD_STAMP.search(ref.raw):
                continue  # a download stamp: page furniture the conversion took for an entry, not a reference
            if numbered:
                rows.append(CheckRow(
                    check=self.id, severity="info", message=f"Reference entry {_short(ref)} is not linked by a "
                    "numbered citation (GROBID leaves some superscript numbers untagged).",
                    guidance="Check by its number that the work is cited.", location=_ref_location(ref),
                    text=ref.raw[:300], data=_ref_data(ref)))
                continue
            rows.append(CheckRow(
                check=self.id, severity="warn", message=f"Reference entry {_short(ref)} is never cited in the text.",
                guidance="Cite the work where it is used, or remove it from the reference list.",
                location=_ref_location(ref), text=ref.raw[:300], data=_ref_data(ref)))
        if not rows:
            rows.append(ok_row(self.id, f"All {len(doc.references)} reference entries are cited."))
        return rows


def _named_in_text(ref: Reference, text: str, lower: str | None = None) -> bool:
    """The first author's surname (or, with no author, a capitalised word of the entry) within 80 characters
    before one of the entry's years, anywhere in the text (years: the parsed one and any printed in the entry);
    ``lower``: the text lower-cased (default: computed here)."""
    years = {y for y in [*(m.group(0) for m in _YEAR.finditer(ref.raw)), (ref.year or "")[:4]] if y}
    if not ref.year and years:  # an undated entry is cited "(Statista, n.d.)"; a year in its title is no date
        years.add("n.d.")
    if ref.authors:  # the longest run of letters: "Fra ˘tescu" (a damaged diacritic) gives "tescu", "Muñoz" "Muñoz"
        names = [max(_LETTERS.findall(ref.authors[0]) or [ref.authors[0]], key=len)]
    else:
        names = [w for w in _CAPITALISED.findall(ref.raw[:120]) if w.lower() not in _STOP][:6]
    if not names or not years:
        return True  # nothing to look for: not flagged
    if not all(n.isascii() for n in names):
        name = "|".join(re.escape(n) for n in names)
        year = "|".join(re.escape(y) for y in sorted(years))
        return re.search(rf"(?:{name})\b[\s\S]{{0,80}}?(?:{year})", text, re.I) is not None
    # ASCII names: found by plain search in the lower-cased text (a regex per entry would be compiled per entry)
    low = lower if lower is not None else text.lower()
    ys = [y.lower() for y in years]
    for n in names:
        key = n.lower()
        word_end = _is_word(key[-1])
        at = low.find(key)
        while at >= 0:
            end = at + len(key)
            boundary = word_end != (end < len(low) and _is_word(low[end]))  # \b after the name
            if boundary and any(low.find(y, end, end + 80 + len(y)) >= 0 for y in ys):
                return True
            at = low.find(key, at + 1)
    return False


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


_YEAR = re.compile(r"\b(?:1[6-9]|20)\d{2}\b")
_NUMBERED = re.compile(r"[\[(]?\d{1,3}(?:\s*[-–,]\s*\d{1,3})*[\])]?[,;.]?")
_DOWNLOAD_STAMP = re.compile(r"\bDownloaded\s+from\b|\bThis\s+content\s+downloaded\b", re.I)
_LETTERS = re.compile(r"[^\W\d_]+")  # letters of any script: "Muñoz" whole, "Fra ˘tescu" at the breve
_CAPITALISED = re.compile(r"\b[A-Z][\w-]{3,}")


_STOP = frozenset(["the", "this", "that", "with", "from", "what", "when", "report", "journal", "press", "university",
                   "retrieved", "available", "online", "version", "computer", "software"])


class MalformedDois(NamedCheck, id="reference-doi", title="Malformed DOIs"):
    """DOIs in the reference list that are not well-formed."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One ``warn`` row per entry whose DOI is not ``10.NNNN/suffix`` (after removing a doi.org prefix)."""
        doc = context.document
        rows: list[CheckRow] = []
        n = 0
        for ref in doc.references:
            for doi in _printed_dois(ref):
                n += 1
                problem = doi_problem(doi)
                if problem:
                    rows.append(CheckRow(
                        check=self.id, severity="warn", message=f"DOI '{doi}' of {_short(ref)} is malformed: {problem}.",
                        guidance="Copy the DOI from the work's landing page (it has the form 10.NNNN/suffix).",
                        location=_ref_location(ref), text=ref.raw[:300], data={**_ref_data(ref), "printed": doi}))
        if not rows and n:
            rows.append(ok_row(self.id, f"All {n} DOIs in the reference list are well-formed."))
        return rows


def _printed_dois(ref: Reference) -> list[str]:
    if ref.doi:
        return [ref.doi]
    m = re.search(r"(?:doi\.org/|doi:\s*)(\S+)", ref.raw, re.I)
    return [m.group(1).rstrip(".,;")] if m else []


def doi_problem(doi: str) -> str | None:
    """Why a printed DOI is not a DOI (None when it is well-formed)."""
    d = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi.strip(), flags=re.I).rstrip(".,;")
    if not d.startswith("10."):
        return "it does not start with '10.'"
    if not re.match(r"^10\.\d{4,9}/", d):
        return "the prefix is not 10. followed by 4 to 9 digits and a slash"
    if re.search(r"\s", d):
        return "it holds a space"
    if re.search(r"/$|[/.]-?$", d) or len(d.split("/", 1)[1]) < 2:
        return "the suffix is cut short"
    if not _DOI_OK.match(d):
        return "it holds characters a DOI cannot have"
    return None


# ---- Retraction Watch ---------------------------------------------------------------------------------

RW_DOI = "OriginalPaperDOI"
RW_NATURE = "RetractionNature"
RW_COLUMNS = (RW_DOI, RW_NATURE)
_NATURE_SEVERITY = {"retraction": "error", "expression of concern": "warn", "correction": "warn",
                    "reinstatement": "info"}


@dataclass(frozen=True)
class RetractionNotice:
    """One Retraction Watch record for an original paper (its DOI), as the CSV gives it."""

    doi: str
    nature: str
    date: str = ""
    notice_doi: str = ""
    reason: str = ""
    title: str = ""


def load_retractions(path: Path) -> dict[str, list[RetractionNotice]]:
    """Retraction Watch records by normalised original-paper DOI (the open data set's CSV columns)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "no such Retraction Watch CSV file")
    st = p.stat()
    return _load_retractions(str(p.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _load_retractions(path: str, mtime: int, size: int) -> dict[str, list[RetractionNotice]]:
    out: dict[str, list[RetractionNotice]] = {}
    with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
        reader = csv.DictReader(fh)
        cols = set(reader.fieldnames or [])
        missing = [c for c in RW_COLUMNS if c not in cols]
        if missing:
            raise InputError(path, f"not a Retraction Watch CSV (no column {', '.join(missing)})")
        for row in reader:
            doi = normalize_doi(row.get(RW_DOI))
            if not doi or doi in ("unavailable", "na"):
                continue
            out.setdefault(doi, []).append(RetractionNotice(
                doi=doi, nature=(row.get(RW_NATURE) or "").strip(), date=(row.get("RetractionDate") or "").strip(),
                notice_doi=(row.get("RetractionDOI") or "").strip(), reason=(row.get("Reason") or "").strip(),
                title=(row.get("Title") or "").strip()))
    return out


class RetractedWorks(NamedCheck, id="reference-retracted", title="Retracted or corrected cited works"):
    """Cited works that Retraction Watch lists as retracted, corrected or of concern."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """Rows for entries whose DOI a Retraction Watch record names; nothing without ``--retractions``."""
        path = context.options.retractions
        if path is None:
            return []
        notices = load_retractions(path)
        doc = context.document
        rows: list[CheckRow] = []
        with_doi = 0
        for ref in doc.references:
            doi = normalize_doi(ref.doi)
            if not doi:
                continue
            with_doi += 1
            for notice in notices.get(doi, []):
                nature = notice.nature or "a notice"
                sev = _NATURE_SEVERITY.get(nature.lower(), "warn")
                cites = [c for c in doc.citations if ref.id in c.ref_ids]
                first = cites[0] if cites else None
                rows.append(CheckRow(
                    check=self.id, severity=sev,
                    message=f"Cited work {_short(ref)} has a Retraction Watch record: {nature}"
                            f"{' (' + notice.date.split()[0] + ')' if notice.date else ''}.",
                    guidance=("Check the notice and say in the text why a retracted work is cited, or cite "
                              "other evidence." if sev == "error" else
                              "Read the notice and make sure what the paper cites still holds."),
                    location=_cite_location(first, doc) if first else _ref_location(ref),
                    text=ref.raw[:300],
                    data={**_ref_data(ref), "nature": nature, "notice_date": notice.date,
                          "notice_doi": notice.notice_doi, "reason": notice.reason,
                          "citations": [c.id for c in cites]}))
        if not rows:
            rows.append(ok_row(self.id, f"None of the {with_doi} DOIs in the reference list has a Retraction Watch "
                                        "record."))
        return rows


# ---- online: DOI -> title ---------------------------------------------------------------------------

CROSSREF_URL = "https://api.crossref.org"


def title_similarity(a: str, b: str) -> float:
    """How alike two titles are, 0..1 (word sequence ratio on folded words; 1 when one holds the other)."""
    wa = re.findall(r"[a-z0-9]+", a.casefold())
    wb = re.findall(r"[a-z0-9]+", b.casefold())
    if not wa or not wb:
        return 0.0
    sa, sb = " ".join(wa), " ".join(wb)
    if sa in sb or sb in sa:
        return 1.0
    return difflib.SequenceMatcher(None, wa, wb).ratio()


@dataclass
class DoiTitles(NamedCheck, id="reference-doi-title", title="DOIs that point to a different work"):
    """DOIs that resolve to a work with a different title (Crossref), with ``--online`` only."""

    threshold: float = 0.6

    def run(self, context: CheckContext) -> list[CheckRow]:
        """Look each entry's DOI up (cached, rate-limited); ``warn`` when the title differs or the DOI is unknown."""
        if not context.options.online:
            return []
        opts = context.options
        base = str(opts.extra.get("crossref_url") or os.environ.get("CLAIMTRACE_CROSSREF_URL") or CROSSREF_URL)
        fetcher = opts.extra.get("fetcher") or Fetcher(opts)
        rows: list[CheckRow] = []
        looked = 0
        for ref in context.document.references:
            doi = normalize_doi(ref.doi)
            if not doi or not ref.title or doi_problem(doi):
                continue
            looked += 1
            got = fetcher.get(f"{base.rstrip('/')}/works/{urllib.parse.quote(doi, safe='/')}")
            if got.status == 404:
                rows.append(CheckRow(
                    check=self.id, severity="warn", message=f"DOI {doi} of {_short(ref)} is not registered.",
                    guidance="Check the DOI against the work's landing page.", location=_ref_location(ref),
                    text=ref.raw[:300], data={**_ref_data(ref), "status": 404}))
                continue
            if got.status != 200:
                rows.append(CheckRow(
                    check=self.id, severity="info", message=f"DOI {doi} could not be looked up "
                    f"({got.error or 'HTTP ' + str(got.status)}).", guidance="Run the check again later.",
                    location=_ref_location(ref), data={**_ref_data(ref), "status": got.status}))
                continue
            found = _crossref_title(got.body)
            if found is None:
                continue
            sim = title_similarity(ref.title, found)
            if sim < self.threshold:
                rows.append(CheckRow(
                    check=self.id, severity="warn",
                    message=f"DOI {doi} of {_short(ref)} resolves to a different title: '{found[:120]}'.",
                    guidance="Correct the DOI (or the entry) so the DOI points to the work cited.",
                    location=_ref_location(ref), text=ref.raw[:300],
                    data={**_ref_data(ref), "resolved_title": found, "similarity": round(sim, 3)}))
        if not rows and looked:
            rows.append(ok_row(self.id, f"All {looked} DOIs looked up resolve to the titles printed."))
        return rows


def _crossref_title(body: str) -> str | None:
    """The title of a Crossref ``/works/{doi}`` answer (``message.title[0]``), or a CSL-JSON ``title``."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    msg = data.get("message", data) if isinstance(data, dict) else None
    if not isinstance(msg, dict):
        return None
    title = msg.get("title")
    if isinstance(title, list):
        title = title[0] if title else None
    return str(title) if title else None


CHECKS: list[Check] = [UnlistedCitations(), UncitedEntries(), MalformedDois(), RetractedWorks(), DoiTitles()]
