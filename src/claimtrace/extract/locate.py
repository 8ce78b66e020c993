"""Find a quote (from an LLM or a user) in a Document: exact, then normalised, then fuzzy over sentence windows.

A located quote becomes a span with offsets into ``body_text`` (or ``abstract_text``), sentence and
paragraph ids and page. A quote that cannot be located returns ``None``: the caller flags it
(``quote_not_found``) and never keeps it as if it were real.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz

from claimtrace.documents.model import Document, Scope, Sentence
from claimtrace.extract.model import LocateMethod, TraceSpan

DEFAULT_FUZZY_THRESHOLD = 88.0
MIN_QUOTE_CHARS = 20  # shorter quotes ("p < 0.001") are ambiguous: they cannot be placed
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2032": "'", "\u00b4": "'"})
_DASH = re.compile(r"[\u2010-\u2015\u2212\ufe63\uff0d]")
_ELLIPSIS = re.compile(r"\s*(\.\.\.|…)\s*")


@dataclass
class Located:
    """Where a quote was found: offsets in the scope's text and how it was matched."""

    start: int
    end: int
    method: LocateMethod
    score: float = 100.0


def _norm_char(ch: str) -> str:
    ch = ch.translate(_QUOTES)
    if _DASH.match(ch):
        return "-"
    if ch.isspace():
        return " "
    return unicodedata.normalize("NFKC", ch).lower()


def normalise_with_map(text: str) -> tuple[str, list[int]]:
    """Lower-case, unify dashes/quotes and collapse whitespace; map each output char to its input offset."""
    out: list[str] = []
    idx: list[int] = []
    prev_space = True
    for i, ch in enumerate(text):
        n = _norm_char(ch)
        if n == " ":
            if prev_space:
                continue
            prev_space = True
        else:
            prev_space = False
        for c in n:
            out.append(c)
            idx.append(i)
    while out and out[-1] == " ":
        out.pop()
        idx.pop()
    return "".join(out), idx


def normalise(text: str) -> str:
    """The normalised form of a text (see ``normalise_with_map``), without the offset map.

    Fast path, the same string: once quotes and dashes are unified, a text that is already in NFKC (every
    character is then its own NFKC form) and has no capital sigma (whose lower case depends on its neighbours)
    normalises character by character exactly as the whole string does; the per-character loop is kept for
    the rest."""
    t = _DASH.sub("-", text.translate(_QUOTES))
    if t.isascii() or ("\u03a3" not in t and unicodedata.is_normalized("NFKC", t)):
        return " ".join(t.lower().split())
    return normalise_with_map(text)[0]


def locate_text(haystack: str, quote: str, sentences: list[Sentence] | None = None, *,
                fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD, max_window: int = 6) -> Located | None:
    """Locate ``quote`` in ``haystack`` (exact, normalised, then fuzzy over windows of ``sentences``)."""
    q = quote.strip().strip('"').strip()
    if len(q) < MIN_QUOTE_CHARS:
        return None
    pos = haystack.find(q)
    if pos >= 0:
        return Located(pos, pos + len(q), "exact")
    hay_n, hay_map = normalise_with_map(haystack)
    q_n = normalise(q)
    pos = hay_n.find(q_n)
    if pos >= 0:
        return Located(hay_map[pos], hay_map[pos + len(q_n) - 1] + 1, "normalised")
    # an LLM may elide with "..." -- accept when every piece is found, in order, close together
    pieces = [p for p in (normalise(x) for x in _ELLIPSIS.split(q)) if len(p) >= 12]
    if len(pieces) > 1:
        start = hay_n.find(pieces[0])
        cur, ok = start, start >= 0
        for p in pieces[1:]:
            if not ok:
                break
            nxt = hay_n.find(p, cur)
            ok = nxt >= 0 and nxt - cur < 2000
            cur = nxt + len(p)
        if ok:
            return Located(hay_map[start], hay_map[cur - 1] + 1, "normalised", 95.0)
    if not sentences:
        return None
    return _fuzzy(haystack, q_n, sentences, fuzzy_threshold, max_window)


def _fuzzy(haystack: str, q_n: str, sentences: list[Sentence], threshold: float, max_window: int) -> Located | None:
    norms = [normalise(s.text) for s in sentences]
    best: tuple[float, int, int] = (0.0, -1, -1)
    qlen = len(q_n)
    for i in range(len(sentences)):
        text = ""
        for j in range(i, min(i + max_window, len(sentences))):
            text = (text + " " + norms[j]).strip()
            if len(text) > 1.6 * qlen + 40:
                break
            if len(text) < 0.5 * qlen:
                continue
            s = fuzz.ratio(q_n, text)
            if s > best[0]:
                best = (s, i, j)
    if best[0] >= threshold:
        _, i, j = best
        return Located(sentences[i].start, sentences[j].end, "fuzzy", round(best[0], 1))
    # a fragment of one sentence, paraphrased slightly
    if qlen >= 30:
        for k, s_n in enumerate(norms):
            if len(s_n) < qlen:
                continue
            al = fuzz.partial_ratio_alignment(q_n, s_n)
            if al is not None and al.score >= max(threshold, 92.0):
                return Located(sentences[k].start, sentences[k].end, "fuzzy", round(al.score, 1))
    return None


def span_from_offsets(doc: Document, start: int, end: int, *, scope: Scope = "body", method: LocateMethod = "extracted",
                      score: float | None = None, match_score: float | None = None, snap: bool = False) -> TraceSpan:
    """A TraceSpan for ``[start, end)`` of the scope's text, with its sentences, paragraphs and page."""
    sents = [s for s in doc.sentences(scope) if s.end > start and s.start < end]
    if snap and sents:
        start, end = sents[0].start, sents[-1].end
    text = (doc.body_text if scope == "body" else doc.abstract_text)[start:end]
    pids: list[str] = []
    for s in sents:
        pid = s.id.split(".")[0]
        if pid not in pids:
            pids.append(pid)
    section = kind = None
    page = sents[0].page if sents else None
    if pids:
        par = doc.paragraph_of(pids[0])
        section = getattr(par, "section", None) if scope == "body" else getattr(par, "label", None)
        kind = getattr(par, "section_kind", None)
        page = page if page is not None else par.page
    return TraceSpan(text=text, sentence_ids=[s.id for s in sents], paragraph_ids=pids, scope=scope, start=start,
                     end=end, page=page, section=section, section_kind=kind, score=score, located=method,
                     match_score=match_score)


def span_from_table_row(doc: Document, row_id: str, *, score: float | None = None) -> TraceSpan:
    """A TraceSpan for one table row (``t2.r5``): its rendered text, table, row and cells, offsets into ``tables_text``."""
    tid = row_id.split(".")[0]
    table = next((t for t in doc.tables if t.id == tid), None)
    row = next((r for r in table.rows if r.id == row_id), None) if table is not None else None
    if table is None or row is None:
        raise KeyError(f"no table row {row_id!r} in document {doc.id[:12]}")
    return TraceSpan(text=row.text, sentence_ids=[row.id], paragraph_ids=[table.id], scope="table", start=row.start,
                     end=row.end, page=table.page, section=table.label or table.id, section_kind="results",
                     score=score, located="extracted", table_id=table.id, row_id=row.id, cell_ids=list(row.cell_ids))


def locate_quote(doc: Document, quote: str, *, scopes: tuple[Scope, ...] = ("body",),
                 fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD) -> TraceSpan | None:
    """Locate a quote in the Document's body (then the other scopes given); None when it is not there."""
    for scope in scopes:
        text = doc.body_text if scope == "body" else doc.abstract_text
        loc = locate_text(text, quote, doc.sentences(scope), fuzzy_threshold=fuzzy_threshold)
        if loc is not None:
            return span_from_offsets(doc, loc.start, loc.end, scope=scope, method=loc.method,
                                     match_score=loc.score if loc.method != "exact" else None,
                                     snap=loc.method == "fuzzy")
    return None
