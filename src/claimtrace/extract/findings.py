"""Detect the finding sentences of an abstract (sentences that report an empirical result), with reasons.

The detector is a linear model (``weights/findings.json``, trained by ``training/train_findings.py`` on
``shared/data/findings``) over TF-IDF n-grams plus position, result-cue and statistics features. The
labels of a structured abstract (RESULTS, CONCLUSIONS, METHODS...) are not in that training data, so
they enter as a fixed, documented prior (``SECTION_PRIOR``) added to the model's logit.

The results block of an unstructured abstract: the model learnt biomedical *claim* labels (mostly the
closing conclusion), so it scores the results an abstract reports mid-way low ("We found ...", "X was higher
for ..."). Those sentences are findings too (they report this paper's result), so after the abstract's last
method/design/sample sentence a result statement that is not hedged, a question or prior work is also
chosen (``results_block``; within ``max_findings``). On the biomedical claim labels this adds sentences
the labels do not count (see bench/findings_psychsci.py).

PDF damage in abstracts: a page stamp that GROBID leaves in the text ("557697P SSXXX10.", SAGE's) is
removed before scoring, and a sentence cut off by it (or otherwise a fragment) is never chosen. An
"abstract" (of a TEI, PDF or text document; publisher-tagged JATS/HTML abstracts are trusted) that starts
or ends mid-sentence is the opening of the introduction that GROBID took for the
abstract (articles without one, such as Psychological Science short reports): it holds no finding of the
paper, so findings are then detected among the Discussion/Conclusion sentences of the body instead. The same
holds for an abstract block that cites like an introduction, is far longer than an abstract, states no result, or
is also the first body paragraph, or is far shorter than an abstract (``abstract_problem``), and for a document
with no abstract at all: the findings then come from the first two paragraphs of the General Discussion (or of the
first Discussion), scored by a learned Discussion-sentence scorer (``discussion_scores``, weights
``weights/discussion_findings.json`` from ``training/train_discussion_findings.py``; its features include how much
of the title a sentence restates and words that mark a main result), figure-legend lines left out; the three best
sentences are kept, and up to ``max_findings`` any other the scorer calls a finding (probability 0.5 or more:
``discussion_choice``), and the candidate says so (``source="discussion"``, carried to ``Finding.source`` of the
trace).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from claimtrace.cues import STOP_WORDS
from claimtrace.documents.model import Document, Paragraph, Sentence
from claimtrace.errors import InputError
from claimtrace.extract.textclf import WEIGHTS_DIR, LinearTextModel
from claimtrace.lexicons import pattern, patterns

FINDINGS_WEIGHTS = WEIGHTS_DIR / "findings.json"

# cue patterns: resources/lexicons/extract.findings.yaml
RESULT_CUES, CONCLUSION_CUES, METHOD_CUES, BACKGROUND_CUES = patterns(
    "extract.findings", "RESULT_CUES", "CONCLUSION_CUES", "METHOD_CUES", "BACKGROUND_CUES")
#: a page stamp GROBID leaves in the text of SAGE PDFs: "557697P SSXXX10." (article number, P, SS, XXX10.)
PAGE_STAMP = re.compile(r"\s*\b\d{5,7}P ?SSXXX10\.(?:1177/\S*)?")
#: formats whose abstract the publisher tagged (trusted); a TEI/PDF/text abstract is a reader's guess
TAGGED_ABSTRACTS = frozenset({"jats", "html"})
_OPEN_END = re.compile(r"\b[a-z][a-z-]*[,;:]?$")  # "... is far", "... the": a sentence cut at a page break
_FINISHED = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s*$")
#: a sentence that reports this paper's result ("we found", "X was higher", "Y predicted Z"): the results block
RESULT_REPORT = re.compile(
    r"\b((we|I) (found|find|observed|observe|showed|show|demonstrated?|report(ed)?|provided? evidence|detected)|"
    r"(results?|analys[ie]s|data|experiments?|stud(y|ies))( \([^()]{1,60}\))? (showed|show|revealed?|indicated?|"
    r"demonstrated?|confirmed?)|"
    r"(was|were|is|are) (also )?(higher|lower|greater|larger|smaller|faster|slower|stronger|weaker|more|less|"
    r"associated|related|correlated|linked|predicted|found|observed|reduced|increased|decreased|unrelated|specific)|"
    r"accounted for|predicted|increased|decreased|emerged|outperformed|persisted|remained (significant|robust|reliable)|"
    r"did not (differ|predict|affect|change)|"
    # a comparison or change reported as observed ("showed weaker associations", "X was abolished", "faster than")
    r"(showed|show|had|produced|yielded) (a |an )?(\w+ )?(weaker|stronger|higher|lower|greater|larger|smaller|more|less|"
    r"reliable|significant|robust|reversed)|as (hypothesi[sz]ed|predicted|expected)|abolished|eliminated|reversed|"
    r"attenuated|impaired|enhanced|favou?r(ed|s)?|there (was|were) (a |an |no )?(\w+ ){0,2}(significant|reliable|robust)|"
    r"explained|(and|we|I) (also |then )?(found|observed)|(?!rather\b|other\b)\w+er than)\b", re.I)
CHANGE_REPORT, OWN_RESULT, METHOD_REPORT, NOT_A_RESULT, STAT_CUES = patterns(
    "extract.findings", "CHANGE_REPORT", "OWN_RESULT", "METHOD_REPORT", "NOT_A_RESULT", "STAT_CUES")

# structured-abstract labels: a fixed prior on the logit (the training abstracts are unstructured)
SECTION_PRIOR: dict[str, float] = {
    "results": 1.0, "findings": 1.0, "conclusions": 1.0, "conclusion": 1.0, "interpretation": 1.0,
    "background": -2.5, "introduction": -2.5, "objective": -2.5, "objectives": -2.5, "aim": -2.5,
    "aims": -2.5, "purpose": -2.5, "context": -2.5, "methods": -2.5, "method": -2.5, "design": -2.5,
    "setting": -2.5, "participants": -2.5, "materials and methods": -2.5, "patients": -2.5,
    "methodology": -2.5, "trial registration": -4.0, "funding": -4.0,
}


class FindingCandidate(BaseModel):
    """One abstract sentence with its finding score and the reason it was (not) chosen."""

    model_config = ConfigDict(extra="forbid")

    sentence_id: str | None
    text: str
    score: float
    chosen: bool
    reason: str
    #: where the sentence comes from: the abstract, the (General) Discussion (the abstract block was not the
    #: paper's abstract), or other body text (no abstract at all)
    source: Literal["abstract", "discussion", "body"] = "abstract"


def finding_features(text: str, ctx: dict[str, Any]) -> dict[str, float]:
    """Dense features of one abstract sentence: position, cue counts, statistics, length."""
    i, n = int(ctx.get("index", 0)), max(int(ctx.get("n", 1)), 1)
    rel = i / (n - 1) if n > 1 else 1.0
    words = len(text.split())
    return {
        "rel_position": rel,
        "rel_position_sq": rel * rel,
        "is_first": float(i == 0),
        "is_last": float(i == n - 1),
        "is_second_last": float(i == n - 2),
        "result_cues": math.log1p(len(RESULT_CUES.findall(text))),
        "conclusion_cues": float(bool(CONCLUSION_CUES.search(text))),
        "method_cues": float(bool(METHOD_CUES.search(text))),
        "background_cues": float(bool(BACKGROUND_CUES.search(text))),
        "has_statistics": float(bool(STAT_CUES.search(text))),
        "log_words": math.log1p(words) / 4.0,
    }


@lru_cache(maxsize=1)
def findings_model() -> LinearTextModel:
    """The shipped findings model (loaded once)."""
    return LinearTextModel.load(FINDINGS_WEIGHTS)


def score_sentences(sentences: list[str], labels: list[str | None] | None = None) -> list[tuple[float, str]]:
    """Finding probability and a short reason for each sentence of one abstract."""
    model = findings_model()
    out: list[tuple[float, str]] = []
    n = len(sentences)
    for i, text in enumerate(sentences):
        label = (labels[i] if labels else None) or ""
        z, contrib = model.decision(text, finding_features(text, {"index": i, "n": n}))
        prior = SECTION_PRIOR.get(label.strip().lower().rstrip(":"), 0.0)
        z += prior
        p = 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))
        terms = [t for t, c in contrib if c > 0 and not t.startswith("[")][:3]
        feats = [t.strip("[]").replace("_", " ") for t, c in contrib if c > 0.05 and t.startswith("[")][:3]
        why = f"score {p:.2f}; sentence {i + 1} of {n}"
        if label:
            why += f"; abstract section {label}" + (f" (prior {prior:+.1f})" if prior else "")
        if feats:
            why += "; features: " + ", ".join(feats)
        if terms:
            why += "; words: " + ", ".join(repr(t) for t in terms)
        out.append((p, why))
    return out


def strip_page_stamps(text: str) -> str:
    """The text without GROBID's page stamps."""
    return PAGE_STAMP.sub("", text).strip()


def cut_off(text: str) -> bool:
    """Whether a sentence is a fragment: cut by a page stamp, ending without closing punctuation, leaving a
    parenthesis open ("(Winston et al."), or starting in lower case (its beginning is on another page)."""
    t = text.strip()
    return (bool(PAGE_STAMP.search(t)) or not _FINISHED.search(t) or t.count("(") > t.count(")")
            or (t[:1].isalpha() and t[:1].islower()))


def not_an_abstract(sentences: list[str]) -> bool:
    """Whether an "abstract" is text cut from a page (GROBID's guess for an article without one): it holds a
    page stamp, starts in lower case, or ends mid-sentence (an open parenthesis, or a lower-case word with no
    closing punctuation; a trial-registration line ending in an identifier is not that)."""
    if not sentences:
        return False
    first, last = sentences[0].strip(), sentences[-1].strip()
    return (any(PAGE_STAMP.search(t) for t in sentences) or (first[:1].isalpha() and first[:1].islower())
            or last.count("(") > last.count(")") or bool(_OPEN_END.search(last)))


#: an author-year citation ("(Smith & Lee, 2010)", "Smith et al., 2010"): abstracts rarely cite, introductions do
CITATION = re.compile(r"\([A-Z][^()]{0,80}?(19|20)\d\d[a-z]?\)|\bet al\.,? \(?(19|20)\d\d")
#: an abstract longer than this (characters) is not one (Psychological Science abstracts: about 150-250 words)
MAX_ABSTRACT_CHARS = 2600
#: an abstract shorter than this (words) is not one either: the block is an introduction's opening lines (dev part and
#: extra traces: every real abstract block has 139 words or more; the short ones were all introduction text)
MIN_ABSTRACT_WORDS = 60


NOTICE = pattern("extract.findings", "NOTICE")
#: the checks ``abstract_checks`` runs, in the order ``abstract_problem`` reports them
ABSTRACT_CHECKS = ("notice", "cut", "citations", "too_long", "too_short", "no_result", "first_paragraph")


def abstract_checks(doc: Document) -> dict[str, str]:
    """Every check the abstract block fails (``ABSTRACT_CHECKS`` code -> reason), empty when it looks like the
    paper's abstract or is a publisher-tagged one (JATS, HTML) or there is none."""
    sents = [x.text for x in doc.sentences("abstract")]
    if not sents or doc.source.format in TAGGED_ABSTRACTS:
        return {}
    text = " ".join(sents)
    out: dict[str, str] = {}
    if NOTICE.search(text):
        out["notice"] = "the abstract block is a correction or retraction notice, not an abstract"
    if not_an_abstract(sents):
        out["cut"] = "the abstract starts or ends mid-sentence (the opening of the introduction taken for an abstract)"
    if len(CITATION.findall(text)) >= 2:
        out["citations"] = "the abstract cites prior work like an introduction (two citations or more)"
    if len(text) > MAX_ABSTRACT_CHARS:
        out["too_long"] = f"the abstract is longer than an abstract ({len(text)} > {MAX_ABSTRACT_CHARS} characters)"
    if len(text.split()) < MIN_ABSTRACT_WORDS:
        out["too_short"] = (f"the abstract is far shorter than an abstract ({len(text.split())} < {MIN_ABSTRACT_WORDS} "
                            "words)")
    # no result and no study of its own: a real abstract that words its result without a result cue ("participants
    # were able to ...") still announces its study ("Here, we tested ...")
    if not any(RESULT_REPORT.search(t) or RESULT_CUES.search(t) or METHOD_REPORT.search(t) or METHOD_CUES.search(t)
               for t in sents):
        out["no_result"] = "the abstract states no result and no study"
    first = normalise_space(doc.paragraphs[0].text) if doc.paragraphs else ""
    if first and (normalise_space(text)[:200] in first or first[:200] in normalise_space(text)):
        out["first_paragraph"] = "the abstract is also the first body paragraph"
    return out


def abstract_problem(doc: Document) -> str | None:
    """Why the abstract block is not the paper's abstract (a reader's guess: TEI, PDF, text), or None when it looks
    like one: it is a correction notice, it is cut from a page (``not_an_abstract``), cites like an introduction
    (two citations or more),
    is far longer or far shorter than an abstract, states neither a result nor a study, or is also the first body
    paragraph (the first of ``abstract_checks`` it fails)."""
    checks = abstract_checks(doc)
    return next((checks[k] for k in ABSTRACT_CHECKS if k in checks), None)


#: the Discussion sentences always kept as findings (the best-scoring ones), and the scorer's probability at which a
#: further one is kept too, up to ``max_findings`` (0.5: the scorer's own decision threshold, its classes balanced in
#: training; bench/results/discussion_findings_cv.json gives the hit and the number kept beside a fixed 3 and 5)
DISCUSSION_TOP = 3
DISCUSSION_KEEP_P = 0.5


def discussion_choice(ranked_scores: list[float], max_findings: int) -> list[int]:
    """Which of the Discussion sentences, ranked best first by the scorer's probability, are kept as findings: the
    ``DISCUSSION_TOP`` best, then any other within the ``max_findings`` best whose probability reaches
    ``DISCUSSION_KEEP_P``."""
    return [k for k, p in enumerate(ranked_scores[:max_findings]) if k < DISCUSSION_TOP or p >= DISCUSSION_KEEP_P]


THIS_STUDY, LIMITATION, SPECULATION, AIM = patterns(
    "extract.findings", "THIS_STUDY", "LIMITATION", "SPECULATION", "AIM")
_HERE_WE = re.compile(r"\bhere,? (we|I)\b", re.I)


def discussion_non_result(text: str) -> str | None:
    """Why a Discussion sentence is not a finding of the paper whatever its score, or None: it cites prior work and
    does not speak of this study, reports a method, design or aim and no result, states a limitation or future work,
    speculates before it reports any result (and reports no result of its own), or asks a question. On the pools of the 42 training
    papers read from the Discussion these checks pass all 41 gold finding sentences and catch 130 of the 440 others
    (written while reading those pools: in-sample; bench/results/discussion_findings_cv.json)."""
    if _QUESTION.search(text):
        return "a question"
    if CITATION.search(text) and not THIS_STUDY.search(text):
        return "prior work (it cites and does not speak of this study)"
    if (METHOD_REPORT.search(text) or AIM.search(text)) and not (
            RESULT_REPORT.search(text) or CHANGE_REPORT.search(text) or RESTATED_RESULT.search(text)
            or RESULT_CUES.search(text)):
        return "a method or design sentence with no result"
    if LIMITATION.search(text) and not (OWN_RESULT.search(text) or _HERE_WE.search(text)):
        return "a limitation or future work"
    modal = SPECULATION.search(text)
    first_report = min((m.start() for m in (RESULT_REPORT.search(text), CHANGE_REPORT.search(text)) if m), default=None)
    if modal and not OWN_RESULT.search(text) and not (first_report is not None and first_report < modal.start()):
        return "a speculation (may, might or could have, be, reflect, explain, rely ...) before any result"
    return None


def normalise_space(text: str) -> str:
    """Lower-cased text with runs of whitespace as one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def detect_findings(doc: Document, *, threshold: float | None = None, max_findings: int = 5) -> list[FindingCandidate]:
    """The finding sentences of a Document's abstract (the chosen ones first, in abstract order)."""
    sents = doc.sentences("abstract")
    labels: list[str | None] = []
    for sec in doc.abstract:
        labels.extend(sec.label for _ in sec.sentences)
    fallback = ""
    source: Literal["abstract", "discussion", "body"] = "abstract"
    problem = abstract_problem(doc) if sents else None
    ranks: list[int] = []
    firsts: list[bool] = []
    if problem:
        pool = _discussion_pool(doc)
        if pool:
            sents, labels = pool, [None] * len(pool)
            fallback = f"{problem}: detected among the first (General) Discussion sentences; "
            source = "discussion"
    if not sents:  # no abstract at all: the (General) Discussion opening, else the leading body paragraphs
        pool = _discussion_pool(doc)
        if pool:
            sents, fallback, source = pool, "no abstract in the document: detected among the first (General) " \
                "Discussion sentences; ", "discussion"
        else:
            sents, fallback = _body_pool(doc)
            source = "body"
        labels = [None] * len(sents)
        if source == "body":
            max_findings = min(max_findings, DISCUSSION_TOP)
    if not sents:
        raise InputError(doc.source.path, "the document has no abstract or body sentences to detect findings in; give --finding TEXT")
    texts = [strip_page_stamps(s.text) for s in sents]
    scored = score_sentences(texts, labels)
    if source == "discussion":
        ranked = {id(s): (r, f) for s, r, f in discussion_pool(doc)}
        ranks = [ranked.get(id(s), (0, False))[0] for s in sents]
        firsts = [ranked.get(id(s), (0, False))[1] for s in sents]
        scored = discussion_scores(texts, scored, ranks, firsts, doc.title)
    broken = [cut_off(s.text) for s in sents]
    thr = findings_model().threshold if threshold is None else threshold
    order = sorted((j for j in range(len(sents)) if not broken[j]), key=lambda j: -scored[j][0])
    excluded: dict[int, str] = {}
    if source == "discussion":  # the DISCUSSION_TOP best, and up to max_findings that the scorer calls findings,
        # among the sentences that are not plainly something else (prior work, method, limitation)
        excluded = {j: why for j in order if (why := discussion_non_result(texts[j])) is not None}
        if len(excluded) == len(order):
            excluded = {}
        order = [j for j in order if j not in excluded]
        chosen = {order[k] for k in discussion_choice([scored[j][0] for j in order], max_findings)}
    else:
        chosen = {j for j in order[:max_findings] if scored[j][0] >= thr}
    block: set[int] = set()
    if not fallback and not any(labels):  # an unstructured abstract: its results block
        block = {j for j in results_block(texts) if not broken[j]} - chosen
        block = set(sorted(block)[:max(0, max_findings - len(chosen))])  # its first result sentences
        chosen |= block
    if not chosen and order:
        chosen = {order[0]}
    cands = []
    for j, s in enumerate(sents):
        p, why = scored[j]
        if broken[j]:
            why = "not chosen: the sentence is cut off (a page stamp or no closing punctuation); " + why
        if j in excluded:
            why = f"not chosen: {excluded[j]}; " + why
        if j in block:
            why = "chosen: reports a result in the abstract's results block (after its last method sentence); " + why
        elif j in chosen and source == "discussion":
            why = (f"chosen: among the {DISCUSSION_TOP} best-scoring Discussion sentences; "
                   if order.index(j) < DISCUSSION_TOP else
                   f"chosen: Discussion score >= {DISCUSSION_KEEP_P:.2f} (among the {max_findings} best); ") + why
        elif j in chosen:
            why = (f"chosen: p >= threshold {thr:.2f}; " if p >= thr else
                   f"chosen: highest-scoring sentence (no sentence reached threshold {thr:.2f}); ") + why
        cands.append(FindingCandidate(sentence_id=s.id, text=s.text, score=round(p, 4), chosen=j in chosen,
                                      reason=fallback + why, source=source))
    return cands


RESTATED_RESULT, NOT_RESTATED = patterns("extract.findings", "RESTATED_RESULT", "NOT_RESTATED")
#: the learned Discussion-sentence scorer: a logistic regression over ``discussion_features`` (trained by
#: ``training/train_discussion_findings.py`` on the dev part of the gold traces and the extra traces whose finding
#: the annotators took from the Discussion, with paper-grouped cross-validation; its metrics are in the file)
DISCUSSION_WEIGHTS = WEIGHTS_DIR / "discussion_findings.json"
_QUESTION = re.compile(r"\?\s*$")


SALIENT = pattern("extract.findings", "SALIENT")
#: words too common to tie a sentence to the title
_STOP = STOP_WORDS | frozenset(["it", "our", "we", "not", "when", "how", "why", "what", "whose", "into", "over", "under",
                                "more", "less", "does", "do", "can", "but", "via", "across", "between", "both"])


def _content_stems(text: str) -> set[str]:
    """The content words of a text, cut to their first five letters (a crude stem: "partners" ~ "partner")."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _STOP}


def title_overlap(text: str, title: str | None) -> float:
    """The share of the title's content words (stems) that a sentence uses: the main result restates the title."""
    tt = _content_stems(title or "")
    return len(_content_stems(text) & tt) / len(tt) if tt else 0.0


def discussion_features(text: str, p: float, i: int, n: int, par_rank: int, first_in_par: bool,
                        title: str | None = None) -> dict[str, float]:
    """Dense features of one Discussion sentence as a finding: the abstract model's probability, cue words
    (restated or reported result, limitation/speculation, hedge, question, citation, statistics, method, salience),
    its position in the pool, which paragraph of the pool it is in and how much of the title it restates."""
    return {
        "title_overlap": title_overlap(text, title),
        "salient": float(bool(SALIENT.search(text))),
        "model_p": p,
        "restated": float(bool(RESTATED_RESULT.search(text))),
        "reports_result": float(bool(RESULT_REPORT.search(text))),
        "change_report": float(bool(CHANGE_REPORT.search(text))),
        "own_result": float(bool(OWN_RESULT.search(text))),
        "not_restated": float(bool(NOT_RESTATED.search(text))),
        "hedged": float(_hedged(text)),
        "question": float(bool(_QUESTION.search(text))),
        "citations": math.log1p(len(CITATION.findall(text))),
        "has_statistics": float(bool(STAT_CUES.search(text))),
        "conclusion_cues": float(bool(CONCLUSION_CUES.search(text))),
        "method_report": float(bool(METHOD_REPORT.search(text))),
        "background": float(bool(BACKGROUND_CUES.search(text))),
        "rel_position": i / max(n - 1, 1),
        "paragraph_rank": float(par_rank),
        "first_in_paragraph": float(first_in_par),
        "log_words": math.log1p(len(text.split())) / 4.0,
    }


@lru_cache(maxsize=1)
def discussion_model() -> dict[str, Any]:
    """The shipped Discussion-sentence scorer (loaded once)."""
    import json

    try:
        data: dict[str, Any] = json.loads(DISCUSSION_WEIGHTS.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(str(DISCUSSION_WEIGHTS), f"cannot load the discussion finding weights: {exc}") from None
    return data


def discussion_logit(feats: dict[str, float], model: dict[str, Any]) -> tuple[float, list[tuple[str, float]]]:
    """The scorer's logit for one sentence's features, with each feature's contribution (largest first)."""
    contrib = [(k, float(w) * (feats[k] - model["mean"][k]) / model["scale"][k]) for k, w in model["weights"].items()]
    return float(model["intercept"]) + sum(c for _, c in contrib), sorted(contrib, key=lambda kc: -kc[1])


def discussion_scores(texts: list[str], scored: list[tuple[float, str]], par_ranks: list[int] | None = None,
                      first_in_par: list[bool] | None = None, title: str | None = None) -> list[tuple[float, str]]:
    """Scores of Discussion sentences as findings from the learned scorer (``discussion_features``; the abstract
    model alone, trained on abstracts, favours hedged conclusions)."""
    model = discussion_model()
    n = max(len(texts), 1)
    ranks = par_ranks or [0] * len(texts)
    firsts = first_in_par or [i == 0 for i in range(len(texts))]
    out = []
    for i, (t, (p, why)) in enumerate(zip(texts, scored, strict=True)):
        feats = discussion_features(t, p, i, n, ranks[i], firsts[i], title)
        z, contrib = discussion_logit(feats, model)
        z = 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))
        # the cues the sentence has that raise its score most (an absent cue is no reason)
        pos = ", ".join(k.replace("_", " ") for k, c in contrib if c > 0.05 and feats[k] > 0 and k != "model_p")[:80]
        out.append((z, f"discussion score {z:.2f} from model {p:.2f}" + (f"; for: {pos}" if pos else "") + "; " + why))
    return out


def results_block(sentences: list[str]) -> list[int]:
    """Indexes of the sentences of an unstructured abstract that report a result of the paper: after the last
    method/design/sample sentence, a result statement ("we found", "X was higher", "Y predicted Z") that is not
    hedged, a question, prior work or a prediction. The model, trained on biomedical claim labels, scores such
    mid-abstract results low and favours the closing conclusion."""
    last_method = max((i for i, t in enumerate(sentences) if METHOD_REPORT.search(t) and not RESULT_REPORT.search(t)),
                      default=-1)
    return [i for i, t in enumerate(sentences) if i > last_method and (RESULT_REPORT.search(t) or CHANGE_REPORT.search(t))
            and (not _hedged(t) or (OWN_RESULT.search(t) and not t.rstrip().endswith("?")))]


def _hedged(text: str) -> bool:
    """A hedge, question, prior work or prediction before the sentence's result report (a hedge in a clause after it,
    "..., especially in societies in which competition may be ...", leaves the result stated)."""
    hedge = NOT_A_RESULT.search(text)
    if not hedge:
        return False
    rep = RESULT_REPORT.search(text) or CHANGE_REPORT.search(text)
    return not (rep and rep.start() < hedge.start() and not text.rstrip().endswith("?"))


#: the first paragraphs of the (General) Discussion read (a Discussion often opens with a paragraph that recaps the
#: aims, the result following in the next one); the scorer's paragraph-rank feature weighs them
DISCUSSION_PARAGRAPHS = 2


def _discussion_pool(doc: Document, limit: int = 60) -> list[Sentence]:
    """The sentences of ``discussion_pool`` (without their paragraph ranks)."""
    return [s for s, _, _ in discussion_pool(doc, limit)]


def discussion_pool(doc: Document, limit: int = 60) -> list[tuple[Sentence, int, bool]]:
    """The sentences of the first paragraphs of the General Discussion (else of the first Discussion, else of the
    Conclusion): where a paper without an abstract states its main result."""
    general = [p for p in doc.paragraphs if p.study == "general" and p.section_kind == "discussion"]
    discussion = [p for p in doc.paragraphs if p.section_kind == "discussion"]
    # a General Discussion shorter than the pool (a one-paragraph wrap-up of a multi-study paper) is topped up with
    # the first Discussion's opening paragraphs (the first study's result), after it
    pars = (general + [p for p in discussion if p not in general] if 0 < len(general) < DISCUSSION_PARAGRAPHS else
            general or discussion or [p for p in doc.paragraphs if p.section_kind == "conclusion"])
    out: list[tuple[Sentence, int, bool]] = []
    used = 0
    for p in pars:  # the first paragraphs that hold a whole sentence (figure text and fragments do not count)
        whole = [s for s in p.sentences if not cut_off(s.text) and not figure_text(s.text) and not caption_text(s.text)]
        if whole:
            out.extend((s, used, k == 0) for k, s in enumerate(whole))
            used += 1
        if used >= DISCUSSION_PARAGRAPHS:
            break
    return out[:limit]


#: six numbers in a row: a figure's axis ticks ("0 10 20 30 40 50"); prose, statistics included, never has them
_FIGURE_TICKS = re.compile(r"(?:(?<=\s)|^)(?:[<>]?\s?-?\d+(?:[.,]\d+)?%?\s+){5}-?\d+(?:[.,]\d+)?%?(?=\s|$)")
#: a figure's axis title set letter by letter ("S h e P r o n o u n s"): six single letters in a row
_SPACED_LETTERS = re.compile(r"(?:(?<=\s)|^)(?:[A-Za-z] ){5}[A-Za-z](?=\s|$)|(?:(?<=\s)|^)(?:[A-Za-z]{1,2} ){7}[A-Za-z]{1,2}(?=\s|$)")


def figure_text(text: str) -> bool:
    """Whether a "sentence" holds a figure's axis labels and ticks that GROBID left in a paragraph (six numbers in a
    row: "Proportion of Average Earnings 0 10 20 30 40 50 ...", an axis title set letter by letter, or eight tick
    labels of one or two letters in a row: "ab da ea gl gr le mi pr st zo")."""
    return bool(_FIGURE_TICKS.search(text) or _SPACED_LETTERS.search(text))


_CAPTION = pattern("extract.findings", "CAPTION")
#: a "sentence" of fewer words than this is a panel title or a label, not a statement
MIN_POOL_WORDS = 4


def caption_text(text: str) -> bool:
    """Whether a "sentence" is a figure legend's line (error bars, data source, line key, a panel title of fewer than
    ``MIN_POOL_WORDS`` words) rather than prose."""
    return bool(_CAPTION.search(text.strip())) or len(text.split()) < MIN_POOL_WORDS


def _body_pool(doc: Document) -> tuple[list[Sentence], str]:
    """Where to look for findings when the Document has no abstract (a PDF whose abstract was not found)."""
    lead: list[Paragraph] = []
    for par in doc.paragraphs:
        if par.section_kind != "other":
            break
        lead.append(par)
    pool = lead + [p for p in doc.paragraphs if p.section_kind == "conclusion" and p not in lead]
    if not pool:
        pool = doc.paragraphs[-3:]
    sents = [s for p in pool for s in p.sentences][:60]
    where = "the leading paragraphs and conclusions" if lead else "the conclusions or last paragraphs"
    return sents, f"no abstract in the document: detected among the body sentences of {where}; "
