"""Built-in open-science checks: OSF/AsPredicted/... links and data, code, materials and preregistration statements.

- ``openscience-links``: links to OSF, AsPredicted, ResearchBox, GitHub, Zenodo, Dataverse and figshare, in the
  body, the abstract and the blocks left out of the body (notes, open-practices statements), repaired for PDF
  damage (spaces inside the link, a link split across lines). With ``--online`` each link's status is looked
  up (open, private, not found), rate-limited and cached.
- ``openscience-statements``: what the text says of data, code, materials and preregistration: available,
  available on request, not available, or not preregistered; and which of them the paper never mentions.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from claimtrace.checks._online import Fetcher, rewrite
from claimtrace.checks.base import (
    Check,
    CheckContext,
    CheckRow,
    Location,
    NamedCheck,
    lowered,
    section_of,
    sentence_location,
)
from claimtrace.documents.model import AbstractSection, Document, ExcludedBlock, Paragraph, Sentence
from claimtrace.lexicons import pattern, patterns

_S = r"\s?"  # a space PDF text may put inside a link
_SCHEME = rf"(?:https?{_S}:{_S}/{_S}/{_S})?(?:www{_S}\.{_S})?"


def _host(name: str) -> str:
    """A host name whose dots may have a space either side ("osf .io", "github. com")."""
    return rf"{_S}\.{_S}".join(re.escape(part) for part in name.split("."))


_SEG = r"[A-Za-z0-9_.~%-]+"
_PATH = rf"(?:{_S}/{_S}{_SEG})*"
LINK_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("osf", re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:\s?)?(?P<id>10\.17605/OSF\.IO/[A-Z0-9]{5})", re.I)),
    ("osf", re.compile(rf"{_SCHEME}(?:{_host('osf.io')}|{_host('api.osf.io')}/v2/nodes){_S}/{_S}"
                       r"(?P<id>(?:preprints/\w+/)?[a-z0-9](?:\s?[a-z0-9]){4}(?![A-Za-z0-9]))"
                       r"(?P<rest>/?(?:\?view_only=[a-f0-9]+(?:\s{1,2}[a-f0-9]+)?)?)", re.I)),
    ("aspredicted", re.compile(rf"{_SCHEME}{_host('aspredicted.org')}{_S}/{_S}"
                               r"(?P<id>(?:blind\s{0,2}\.\s?php\s?\?\s?x\s?=\s?)?[a-z0-9_]+(?:\s?\.pdf)?)", re.I)),
    ("aspredicted", re.compile(r"(?P<id>AsPredicted\s*#\s*\d{3,7})", re.I)),
    ("researchbox", re.compile(rf"{_SCHEME}{_host('researchbox.org')}{_S}/{_S}(?P<id>\d+)", re.I)),
    ("github", re.compile(rf"{_SCHEME}{_host('github.com')}{_S}/{_S}(?P<id>[A-Za-z0-9-]+(?:{_S}/{_S}[\w.-]+)?)"
                          rf"(?P<rest>{_PATH})", re.I)),
    ("zenodo", re.compile(rf"{_SCHEME}{_host('zenodo.org')}{_S}/{_S}(?P<id>(?:records?|doi|communities)"
                          rf"{_S}/{_S}[\w./-]+)", re.I)),
    ("zenodo", re.compile(r"(?P<id>10\.5281/zenodo\.\d+)", re.I)),
    ("dataverse", re.compile(rf"{_SCHEME}(?P<id>(?:[a-z-]+{_S}\.{_S})?dataverse{_S}\.{_S}[a-z.]+[a-z]"
                             rf"(?:{_S}/{_S}[\w.:?=/-]+(?:\s?\.xhtml\?persistentId=\s?doi:\s?10\s?\.\s?7910/DVN/\w+)?)?)",
                             re.I)),
    ("dataverse", re.compile(r"(?P<id>10\.7910/DVN/[A-Z0-9]+)", re.I)),
    ("figshare", re.compile(rf"{_SCHEME}(?P<id>(?:[a-z]+{_S}\.{_S})?figshare{_S}\.{_S}com(?:{_S}/{_S}[\w./-]+)?)",
                            re.I)),
    ("figshare", re.compile(r"(?P<id>10\.6084/m9\.figshare\.\d+(?:\.v\d+)?)", re.I)),
]
_KEYS = {"osf": ("osf.io", "10.17605"), "aspredicted": ("aspredicted",), "researchbox": ("researchbox",),
         "github": ("github.com",), "zenodo": ("zenodo",), "dataverse": ("dataverse", "10.7910"),
         "figshare": ("figshare",)}
_CANON = {"osf": "https://osf.io/", "aspredicted": "https://aspredicted.org/", "researchbox": "https://researchbox.org/",
          "github": "https://github.com/", "zenodo": "https://zenodo.org/"}
_DOI_HOSTS = ("10.5281/", "10.7910/", "10.6084/")


@dataclass(frozen=True)
class FoundLink:
    """One repository link: host kind, canonical URL, the text as printed and whether it was repaired."""

    kind: str
    url: str
    raw: str
    repaired: bool
    start: int
    end: int


def find_links(text: str) -> list[FoundLink]:
    """The repository links in a text, spaces inside them removed; one per canonical URL and place."""
    out: list[FoundLink] = []
    taken: list[tuple[int, int]] = []
    compact = re.sub(r"\s+", "", text).lower()
    for kind, pat in LINK_PATTERNS:
        if not any(k in compact for k in _KEYS[kind]):
            continue  # the patterns are slow on long text: run only those whose host is there at all
        for m in pat.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            raw = m.group(0)
            ident = re.sub(r"\s+", "", m.group("id"))
            rest = re.sub(r"\s+", "", m.groupdict().get("rest") or "").rstrip(".")
            if kind == "osf" and not ident.startswith("10."):
                ident = ident.lower()
            if kind == "dataverse" and re.fullmatch(r"[\w.-]+/dataset(\.xhtml)?", ident):
                continue  # the dataset's persistent id was cut off: the DOI, if printed, is found below
            if kind == "aspredicted" and ident.lower().startswith("aspredicted"):
                url = "https://aspredicted.org/#" + re.sub(r"\D", "", ident)
            elif ident.startswith((*_DOI_HOSTS, "10.17605/")):
                url = "https://doi.org/" + ident
            elif kind in _CANON:
                url = _CANON[kind] + ident.rstrip(".,;)") + (rest if kind in ("osf", "github") else "")
            else:
                url = "https://" + ident.rstrip(".,;)")
            if kind == "github" and ident.lower().split("/")[0] in ("features", "about", "pricing", "login"):
                continue
            taken.append((m.start(), m.end()))
            out.append(FoundLink(kind, url.rstrip("/"), raw,
                                 bool(re.search(r"\s", raw.strip())), m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


class _Block:
    """A stretch of the paper to search: a sentence or an excluded block; its location is made when asked (most
    blocks hold nothing a check reports)."""

    __slots__ = ("_loc", "doc", "ex", "sent", "text")

    def __init__(self, text: str, doc: Document, sent: Sentence | None = None, ex: ExcludedBlock | None = None,
                 location: Location | None = None) -> None:
        self.text, self.doc, self.sent, self.ex, self._loc = text, doc, sent, ex, location

    @property
    def location(self) -> Location:
        """Where the block is: the sentence (offsets, page, section) or the excluded block's section."""
        if self._loc is None:
            if self.sent is not None:
                self._loc = sentence_location(self.sent, section_of(self.doc, self.sent.id))
            else:
                ex = self.ex
                assert ex is not None
                where = ex.section or ex.label or ex.kind
                self._loc = Location(section=f"{where} ({ex.kind}, outside the body)", page=ex.page)
        return self._loc


def _blocks(context: CheckContext, hint: tuple[str, ...]) -> Iterator[_Block]:
    """Sentences and excluded blocks (not references, tables, equations) whose paragraph or block holds one of
    ``hint``'s lower-case words (a quick filter: the searches that follow need those words)."""
    doc = context.document
    low = lowered(context)
    units: list[AbstractSection | Paragraph] = [*doc.abstract, *doc.paragraphs]
    for unit in units:
        if not any(w in low[unit.id] for w in hint):
            continue
        for sent in unit.sentences:
            yield _Block(sent.text, doc, sent=sent)
    for ex in doc.excluded:
        if ex.kind in ("references", "table", "equation"):
            continue
        ex_low = ex.text.lower()
        if any(w in ex_low for w in hint):
            yield _Block(ex.text, doc, ex=ex)


#: a link's host, as find_links's patterns need it (spaces only around its dots): a quick filter for them
_LINK_HINT = ("osf", "github", "zenodo", "figshare", "dataverse", "aspredicted", "researchbox", "10.17605", "10.5281",
              "10.7910", "10.6084")
_HOSTS = ("osf", "github", "zenodo", "figshare", "dataverse", "aspredicted", "researchbox")


def _ends_with_host(text: str) -> bool:
    """Whether a sentence ends with a host name, a space and a dot allowed after it (r"host\\s?\\.?$")."""
    t = text[-16:]
    if t.endswith("\n"):
        t = t[:-1]
    if t.endswith("."):
        t = t[:-1]
    if t[-1:].isspace():
        t = t[:-1]
    return t.lower().endswith(_HOSTS)


def _joined_blocks(context: CheckContext) -> Iterator[_Block]:
    """Sentences and blocks that name a host, plus each such sentence joined to the next (a link the sentence
    splitter cut at a dot)."""
    doc = context.document
    yield from _blocks(context, _LINK_HINT)
    low = lowered(context)
    hosted = {uid for uid, text in low.items() if any(h in text for h in _HOSTS)}
    if not hosted:
        return
    for a, b in itertools.pairwise(doc.sentences("all")):
        if a.scope == b.scope and a.id.split(".")[0] in hosted and _ends_with_host(a.text):
            yield _Block(a.text + " " + b.text, doc,
                         location=sentence_location(a).model_copy(update={"end": b.end}))


_STATUS_WORDS = {200: "open", 401: "private", 403: "private", 404: "not found", 410: "not found"}


class OpenScienceLinks(NamedCheck, id="openscience-links", title="Open-science links"):
    """Links to repositories and registries; their status with ``--online``."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per distinct link (``info``; online: ``ok`` open, ``warn`` private or not found)."""
        seen: dict[str, CheckRow] = {}
        for block in _joined_blocks(context):
            for link in find_links(block.text):
                if link.url in seen:
                    seen[link.url].data["mentions"] += 1
                    continue
                loc = block.location
                if loc.start is not None:
                    loc = loc.model_copy(update={"start": loc.start + link.start, "end": loc.start + link.end})
                note = " (repaired: spaces removed from the printed link)" if link.repaired else ""
                seen[link.url] = CheckRow(
                    check=self.id, severity="info", message=f"{_KIND_NAMES[link.kind]} link: {link.url}{note}.",
                    guidance="Make sure the link is public and points to the materials the paper describes.",
                    location=loc, text=block.text[:400],
                    data={"kind": link.kind, "url": link.url, "printed": link.raw, "repaired": link.repaired,
                          "mentions": 1})
        rows = list(seen.values())
        if context.options.online and rows:
            fetcher = context.options.extra.get("fetcher") or Fetcher(context.options)
            for row in rows:
                self._status(row, fetcher, context)
        if not rows:
            return [CheckRow(check=self.id, severity="info", message="No link to an open-science repository or "
                             "registry was found.",
                             guidance="If data, code, materials or a preregistration are shared, give their link.")]
        return rows

    def _status(self, row: CheckRow, fetcher: Fetcher, context: CheckContext) -> None:
        url = str(row.data["url"])
        ask = url
        if row.data["kind"] == "osf" and "view_only" not in url:
            api = str(context.options.extra.get("osf_api_url") or "https://api.osf.io")
            ask = f"{api.rstrip('/')}/v2/guids/{url.rsplit('osf.io/', 1)[-1].strip('/')}/"
        got = fetcher.get(rewrite(ask, context.options), accept="application/json, text/html")
        status = _STATUS_WORDS.get(got.status, "unknown")
        row.data.update({"status": status, "http_status": got.status})
        if status == "open":
            row.severity = "ok"
            row.message = row.message.rstrip(".") + " — open."
        elif status in ("private", "not found"):
            row.severity = "warn"
            row.message = row.message.rstrip(".") + f" — {status} (HTTP {got.status})."
            row.guidance = ("Make the project public (or give a view-only link) so readers can reach it."
                            if status == "private" else "Fix the link: it points to nothing.")
        else:
            row.message = row.message.rstrip(".") + f" — status unknown ({got.error or 'HTTP ' + str(got.status)})."


_KIND_NAMES = {"osf": "OSF", "aspredicted": "AsPredicted", "researchbox": "ResearchBox", "github": "GitHub",
               "zenodo": "Zenodo", "dataverse": "Dataverse", "figshare": "figshare"}

# ---- statements -------------------------------------------------------------------------------------

TOPICS: dict[str, re.Pattern[str]] = {
    "data": re.compile(r"\b(?:raw\s+|all\s+)?(?:data(?:\s?sets?)?|dataset)\b", re.I),
    "code": re.compile(r"\b(?:analysis\s+|analytic\s+|R\s+|computer\s+)?(?:code|scripts?|syntax)\b", re.I),
    "materials": re.compile(r"\b(?:materials?|stimuli|stimulus\s+sets?|questionnaires?)\b", re.I),
    "preregistration": re.compile(r"\b(?:pre-?\s?regist(?:ered|ration|rations)|registered\s+report|aspredicted"
                                  r"|design\s+and\s+analysis\s+plans?\s+(?:were|was)\s+(?:not\s+)?(?:pre-?)?registered)\b",
                                  re.I),
}
#: every phrase of a topic's pattern holds one of its words (lower case): a quick filter before it
_TOPIC_WORDS = {"data": ("data",), "code": ("code", "script", "syntax"), "materials": ("material", "stimul", "questionnaire"),
                "preregistration": ("regist", "aspredicted")}
# cue patterns: resources/lexicons/checks.openscience.yaml
_SHARED, _REQUEST, _NEGATIVE, _PREREG_POS, _OWN, _REGISTRY, _HYPOTHETICAL, _SHARING = patterns(
    "checks.openscience", "SHARED", "REQUEST", "NEGATIVE", "PREREG_POS", "OWN", "REGISTRY", "HYPOTHETICAL",
    "SHARING")


@dataclass(frozen=True)
class Statement:
    """What one sentence says of one topic: ``available``, ``on request``, ``not available``."""

    topic: str
    status: str


_PART_NOT_PREREG = pattern("checks.openscience", "PART_NOT_PREREG")


#: the words of the availability test in ``read_statements`` (lower-case substrings of its alternatives)
_AVAILABILITY_WORDS = ("availab", "access", "posted", "deposited", "archived", "shar", "uploaded", "request", "osf",
                       "framework", "github", "repositor", "zenodo", "figshare", "dataverse", "researchbox", "http")


def read_statements(sentence: str) -> list[Statement]:
    """The availability statements a sentence makes, one per topic it names ("data are not available")."""
    out: list[Statement] = []
    whole = sentence
    low = whole.lower()
    # quick: every statement but a preregistration's must pass the availability test below, which needs these words
    sharing = any(w in low for w in _AVAILABILITY_WORDS)
    for topic, pat in TOPICS.items():
        if (topic != "preregistration" and not sharing) or not any(w in low for w in _TOPIC_WORDS[topic]):
            continue
        m = pat.search(whole)
        if not m:
            continue
        sentence = _clause(whole, topic, pat)
        if topic == "preregistration":
            if not (_OWN.search(sentence) or _REGISTRY.search(sentence)) or _HYPOTHETICAL.search(sentence):
                continue
            if _PART_NOT_PREREG.search(sentence):
                continue  # "exploratory (not preregistered) analyses": some analyses, not the study
            if _NEGATIVE.search(sentence) and re.search(r"not\s+(?:\w+\s+){0,2}?(?:pre-?\s?)?registered|no\s+pre-?\s?reg",
                                                        sentence, re.I):
                out.append(Statement(topic, "not preregistered"))
            elif _PREREG_POS.search(sentence) and not re.search(r"\b(?:should|could|would|may|might|if)\b"
                                                                r"[^.]{0,40}pre-?\s?regist", sentence, re.I):
                out.append(Statement(topic, "preregistered"))
            continue
        if topic == "code" and not re.search(r"\b(?:analysis|analytic|R|and\s+code|scripts?|syntax)\b|\bcode(?:\s*[,;)]"
                                             r"|\s+(?:and|is|are|was|were|for|used|needed|to|have|has|can|will|that"
                                             r"|which|we)\b)",
                                             sentence):
            continue
        if not _SHARED.search(sentence) and not _REQUEST.search(sentence) and not _NEGATIVE.search(sentence):
            continue
        if not re.search(r"\b(?:available|accessible|access|accessed|posted|deposited|archived|shared|share|"
                         r"uploaded|request|osf|open\s+science\s+framework|github|repository|zenodo|figshare|"
                         r"dataverse|researchbox|https?:)", sentence, re.I):
            continue
        if _REQUEST.search(sentence):  # "not publicly available but can be requested": on request
            status = "on request"
        elif _NEGATIVE.search(sentence) and not re.search(r"\bnot\s+(?:only|just|all)\b", sentence, re.I):
            if not _SHARING.search(sentence):
                continue  # "no data were available from those over 97": not about sharing
            status = "not available"
        else:
            status = "available"
        out.append(Statement(topic, status))
    return out


_CLAUSE_CUT = re.compile(r";|,\s+(?:and|but|whereas|while|although)\s+|\.\s+(?=[A-Z])")


def _clause(sentence: str, topic: str, pat: re.Pattern[str]) -> str:
    """The clause of a sentence that names the topic, when it says something of availability itself."""
    for part in _CLAUSE_CUT.split(sentence):
        if pat.search(part):
            if topic == "preregistration" or _SHARED.search(part) or _REQUEST.search(part) or _NEGATIVE.search(part):
                return part if topic != "preregistration" else sentence
            break
    return sentence


_WORDS = {"data": "Data", "code": "Code", "materials": "Materials", "preregistration": "Preregistration"}


class OpenScienceStatements(NamedCheck, id="openscience-statements",
                            title="Data, code, materials and preregistration statements"):
    """Data, code, materials and preregistration statements read from the text, negative ones included."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """A row per topic: ``ok`` available/preregistered, ``info`` on request, not available, or never stated."""
        found: dict[str, list[tuple[Statement, _Block]]] = {t: [] for t in TOPICS}
        for block in _blocks(context, _CANDIDATE):
            if not _candidate(block.text):
                continue
            for sentence in _sentences_of(block):
                for st in read_statements(sentence.text):
                    found[st.topic].append((st, sentence))
        rows: list[CheckRow] = []
        for topic, hits in found.items():
            if not hits:
                rows.append(CheckRow(
                    check=self.id, severity="info", message=f"No statement about {_noun(topic)} was found.",
                    guidance=_GUIDE_MISSING[topic], data={"topic": topic, "status": "not stated"}))
                continue
            # the most telling statement: a negative one outranks a positive one in the same paper
            rank = {"not available": 0, "not preregistered": 0, "on request": 1, "available": 2, "preregistered": 2}
            st, where = min(hits, key=lambda h: rank[h[0].status])
            sev = "ok" if st.status in ("available", "preregistered") else "info"
            rows.append(CheckRow(
                check=self.id, severity=sev,
                message=f"{_WORDS[topic]}: {_PHRASE[st.status]} ('{_clip(where.text)}').",
                guidance="" if sev == "ok" else _GUIDE[st.status].format(noun=_noun(topic)),
                location=where.location, text=where.text[:400],
                data={"topic": topic, "status": st.status, "statements": len(hits)}))
        return rows


_PHRASE = {"available": "the paper says they are available", "on request": "available on request only",
           "not available": "the paper says they are not available", "preregistered": "the paper says it was "
           "preregistered", "not preregistered": "the paper says it was not preregistered"}
_GUIDE = {"on request": "Consider depositing the {noun} in a public repository rather than on request.",
          "not available": "Say why the {noun} cannot be shared, and how a reader may still check the results.",
          "not preregistered": "Label the analyses as exploratory where they were not planned in advance."}
_GUIDE_MISSING = {
    "data": "Add a data availability statement (where the data are, or why they cannot be shared).",
    "code": "Say whether the analysis code is shared, and where.",
    "materials": "Say whether the materials are shared, and where.",
    "preregistration": "Say whether the study was preregistered (and link the registration).",
}


def _clip(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _noun(topic: str) -> str:
    return {"data": "the data", "code": "the analysis code", "materials": "the materials",
            "preregistration": "a preregistration"}[topic]


_CANDIDATE = ("availab", "access", "posted", "deposit", "shared", "request", "regist", "osf", "repositor", "framework")


def _candidate(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in _CANDIDATE)


def _sentences_of(block: _Block) -> list[_Block]:
    """An excluded block split into sentences (a body sentence stays whole)."""
    if block.ex is None:
        return [block]
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z])", block.text)
    return [_Block(p, block.doc, ex=block.ex) for p in parts if p.strip()]


CHECKS: list[Check] = [OpenScienceLinks(), OpenScienceStatements()]
