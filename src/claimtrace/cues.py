"""Significance, direction and negation cues: the one home of the wording patterns that every layer reads.

The offline conclusion method (``claimtrace.conclude.offline``), the deterministic evidence-component
parser (``claimtrace.evaluate.components``), the offline graph extractor (``claimtrace.graph.offline``) and
the evidence shortlist score (``claimtrace.extract.statistics``) all read these. Where a reader needs a
looser or a stricter form of a cue, both forms stand here side by side under names that say what each
is for, so a change to the wording is made in one place. The plain word patterns among them are data, in
``resources/lexicons/cues.yaml`` (read by ``claimtrace.lexicons``); the ones built from other values stay here.

One rule for what a reported p says (:func:`p_significance`): ``p < a`` / ``p <= a`` / ``p = a`` with
``a <= alpha`` is significant; ``p > a`` / ``p >= a`` with ``a >= alpha`` and "n.s." are not; anything
else (``p < .10``) says nothing either way.
"""

from __future__ import annotations

import re

from claimtrace.lexicons import patterns

# ---- negation and null results ----------------------------------------------------------------

#: negation words that can turn a later significance or difference word into a null statement
NEGATION = r"(?:no|not|non|nor|without|neither|failed to|did not|does not|do not|was not|were not|cannot|could not)"

#: "n.s." / "ns" written after a comparison (not the word "ns" inside a name)
NS_ABBREV = re.compile(r"\bn\.?s\.?(?=[\s,;)])", re.I)

#: a statement of no effect, broadly: negated significance or difference ("did not reach significance",
#: "no difference"), "non-significant", "n. s.", "similar", "comparable", "unchanged" (the conclusion method)
NULL_STATEMENT = re.compile(
    r"\b(?:" + NEGATION + r")\b[^.;:]{0,50}?\b(?:significant(?:ly)?|statistically|differ(?:ence|ences|ent|ed)?|"
    r"chang(?:e|ed|es)|effect|affect(?:ed)?|reach(?:ed)?\s+significance)\b"
    r"|\b(?:non-?|in)significant(?:ly)?\b|\bn\.\s?s\.|\bns\b|\bnot\s+significant"
    r"|\b(?:similar|comparable|equivalent|unchanged|unaffected|did not differ|no differences?)\b"
    r"|\bno\s+(?:statistically\s+)?(?:significant\s+)?(?:difference|change|effect|association)",
    re.I,
)

# cue patterns: resources/lexicons/cues.yaml
NULL_RESULT, NO_DIFFERENCE, RELATION_NEGATION = patterns(
    "cues", "NULL_RESULT", "NO_DIFFERENCE", "RELATION_NEGATION")

# ---- significance --------------------------------------------------------------------------------

#: "significant(ly)", "significance", "statistically" (read after the null cues have been ruled out)
SIGNIFICANCE = re.compile(r"\bsignifican(?:t|tly|ce)\b|\bstatistically\b", re.I)

#: "significant(ly)" not preceded by "non", "non-" or "not " (read on its own)
SIGNIFICANT_UNNEGATED = re.compile(r"(?<!non-)(?<!non)(?<!not )\bsignificant(?:ly)?\b", re.I)

#: a reported p-value: comparator and number ("p < .001", "P = 0.03", "p-value = 2 x 10-5")
P_VALUE = re.compile(r"\bp\s*(?:-?value)?\s*(<=|>=|≤|≥|<|>|=)\s*(0?\.\d+|\d(?:\.\d+)?(?:\s*[x×]\s*10\s*-\s*\d+)?"
                     r"|\d\.?\d*e-\d+)", re.I)

#: any mention of a p-value or "n.s."/"NS" (a fast shortlist cue, no number needed; "NS" as a word, not the end of
#: an upper-case word such as "INJECTIONS")
P_MENTION = re.compile(r"\b[pP]\s*(?:-?value)?\s*[<=>≤≥]\s*[0-9.]|\b[pP]\s*[<=>≤≥]\s*\.\d|\bP\s*=\s*0\.|\bn\.?s\.?\b|(?<![A-Za-z])NS\b")

RESULT_WORDS, FINDING_REPORT, NULL_RESULT_WORDS = patterns(
    "cues", "RESULT_WORDS", "FINDING_REPORT", "NULL_RESULT_WORDS")

# ---- test families -------------------------------------------------------------------------------

#: statistical test and model families in a fixed order, each as (name, the words that name it, the symbols of its
#: reported statistic or None): "a paired t test" / "t(38) = 2.1". The evidence-component parser
#: (``claimtrace.evaluate.components``) reads words and symbols, the power check (``claimtrace.checks.statistics``)
#: the words of the test a power analysis plans for.
TEST_FAMILIES: list[tuple[str, re.Pattern[str], re.Pattern[str] | None]] = [
    ("t", re.compile(r"\bt[- ]?tests?\b|student'?s t\b", re.I), re.compile(r"\bt\s*\(\s*\d|\bt\s*=\s*-?\.?\d", re.I)),
    ("anova", re.compile(r"\bANOVA\b|\bANCOVA\b|\bMANOVA\b|analysis of (?:co)?variance"),
     re.compile(r"\bF\s*\(\s*\d|\bF\s*=\s*\d")),
    ("chi2", re.compile(r"chi[- ]?squared?|χ\s*2|χ²|\bchi2", re.I), re.compile(r"\bX2\s*[(=]", re.I)),
    ("fisher", re.compile(r"fisher'?s? exact", re.I), None),
    ("correlation", re.compile(r"correlat|pearson|spearman|\brho\b", re.I),
     re.compile(r"\br\s*=\s*-?\.?\d|\br\s*\(\s*\d", re.I)),
    ("z", re.compile(r"\bz[- ]tests?\b", re.I), re.compile(r"\bz\s*=\s*-?\.?\d", re.I)),
    ("nonparametric", re.compile(r"mann[- ]whitney|wilcoxon|kruskal|rank[- ]sum|signed[- ]rank", re.I),
     re.compile(r"\bU\s*=\s*\d", re.I)),
    ("regression", re.compile(r"regression", re.I), re.compile(r"\bβ\s*=|\bbeta\s*=|\b[bB]\s*=\s*-?\.?\d", re.I)),
    ("odds ratio", re.compile(r"odds ratio|\baOR\b", re.I), re.compile(r"\bOR\s*[=:,(]|\bOR\s+-?\d", re.I)),
    ("survival", re.compile(r"hazard ratio|\bcox\b|log[- ]?rank|kaplan", re.I), re.compile(r"\bHR\s*[=:,(]|\bHR\s+\d", re.I)),
    ("risk ratio", re.compile(r"relative risk|risk ratio", re.I), re.compile(r"\bRR\s*[=:,(]|\bRR\s+\d", re.I)),
    ("mixed model", re.compile(r"mixed[- ](?:effects? )?model|generali[sz]ed estimating|\bGEE\b|multilevel"
                               r"|hierarchical linear", re.I), None),
]


# ---- direction -----------------------------------------------------------------------------------

INCREASE, DECREASE = patterns("cues", "INCREASE", "DECREASE")
#: "improved" / "improvement": a direction only when nothing plainer is said
IMPROVE = re.compile(r"\bimprov(?:ed|ement|ements|es)\b", re.I)

INCREASE_LOOSE, DECREASE_LOOSE = patterns("cues", "INCREASE_LOOSE", "DECREASE_LOOSE")


def p_significance(comparator: str | None, p: float | None, alpha: float = 0.05) -> bool | None:
    """What a reported p says at ``alpha``: True (significant), False (not), None (neither can be told)."""
    c = {"≤": "<=", "≥": ">="}.get(comparator or "", comparator)
    if c == "ns":
        return False
    if p is None or c is None:
        return None
    if c in ("<", "<="):
        return True if p <= alpha else None
    if c == "=":
        return p <= alpha
    if c in (">", ">="):
        return False if p >= alpha else None
    return None


def written_p_values(text: str) -> list[tuple[str, float]]:
    """(comparator, p) pairs written in ``text`` by the :data:`P_VALUE` pattern ("2 x 10-5" read as 2e-5)."""
    out = []
    for m in P_VALUE.finditer(text):
        try:
            v = float(re.sub(r"\s*[x×]\s*10\s*-\s*", "e-", m.group(2)))
        except ValueError:
            continue
        out.append((m.group(1), v))
    return out


def stated_direction(text: str) -> str | None:
    """"none" for a null result without direction, else "increase" / "decrease" by the first loose cue."""
    if NO_DIFFERENCE.search(text):
        return "none"
    up, down = INCREASE_LOOSE.search(text), DECREASE_LOOSE.search(text)
    if up and down:
        return "increase" if up.start() < down.start() else "decrease"
    if up:
        return "increase"
    if down:
        return "decrease"
    return None


def stated_significance(text: str, alpha: float = 0.05) -> bool | None:
    """Whether a sentence reports a significant result: null wording, then p-values, then "significant"."""
    if NULL_RESULT.search(text) or NS_ABBREV.search(text):
        return False
    ps = [p_significance(op, v, alpha) for op, v in written_p_values(text)]
    if any(s is True for s in ps):
        return True
    if ps:
        return False
    return True if SIGNIFICANT_UNNEGATED.search(text) else None


#: the stop words every word-overlap matcher of a trial report drops (ICO descriptions, table labels, evidence
#: components): function words and the words every arm and outcome shares ("group", "patients", "mean", "rate");
#: each matcher adds those of its own task
STOP_WORDS = frozenset([
    "a", "after", "an", "and", "are", "as", "at", "be", "been", "before", "by", "during", "each", "for",
    "from", "group", "groups", "in", "is", "its", "level", "levels", "mean", "number", "of", "on", "only",
    "or", "participants", "patients", "per", "rate", "rates", "subjects", "than", "that", "the", "their",
    "these", "this", "those", "to", "total", "versus", "vs", "was", "were", "which", "who", "with"
])

#: the stop words of the trace and evidence rankers' word overlap (``extract.trace_ranker.content_words``, which
#: reads words of four letters or more, so it needs no short function words; ``extract.evidence_ranker.stems``
#: cuts the same words to five letters). A list apart from ``STOP_WORDS`` (it keeps "group", "mean", "rate" ...,
#: which a trial matcher drops) because the shipped ranker weights were trained on features made with it: one
#: list for both means retraining both rankers on it.
RANKER_STOP_WORDS = frozenset([
    "that", "this", "with", "were", "from", "than", "their", "there", "these", "those", "which", "when", "have",
    "been", "more", "less", "also", "into", "such", "each", "between", "across", "after", "before", "other", "both",
    "only", "over", "under", "they", "them", "then", "what",
])
