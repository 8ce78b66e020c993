"""Shapes of ICO phrases and sentences that hold across trials (issue 29): lists of outcomes, arms that pool
several groups, abbreviations a paper defines, "from X to Y" changes and bare "X vs Y" means.

Each is a reading of the text's form, not of any one paper's words: a rule here either finds the form or
leaves the item to the other readers (and, for an arm that pools groups, makes the extractor abstain).
"""

from __future__ import annotations

import re
from typing import Any

from claimtrace.lexicons import pattern, patterns
from claimtrace.stats.groups import GroupNumbers


def _outside_parens(text: str) -> str:
    """The text with every bracketed part blanked (same length, so offsets hold)."""
    out, depth = [], 0
    for ch in text:
        if ch in "([{":
            depth += 1
        out.append(" " if depth else ch)
        if ch in ")]}" and depth:
            depth -= 1
    return "".join(out)


_BINARY_TERMS = (r"number of|incidence|rate|proportion|percentage|patients with|mortality|death|died|events?|adverse|"
                 r"success|failure|response|responders?|remission|cure|recurrence|complications?|occurrence|infection")
_CONTINUOUS_TERMS = r"scores?|means?|levels?|concentrations?|duration|length|weight|pressure|index|volume|times?"
#: an outcome counted in patients with an event / measured on a scale (the type the extractor falls back to)
BINARY_WORDS = re.compile(rf"\b({_BINARY_TERMS})\b", re.I)
CONTINUOUS_WORDS = re.compile(rf"\b({_CONTINUOUS_TERMS})\b", re.I)
#: the same, with the wider cues the ranker's features read ("need for", "use of"; "amount", "change")
BINARY_CUES = re.compile(rf"\b({_BINARY_TERMS}|need for|required?|use of)\b", re.I)
CONTINUOUS_CUES = re.compile(rf"\b({_CONTINUOUS_TERMS}|amount|average|intensity|rate of|change)\b", re.I)


_PART_SPLIT = re.compile(r"\s*(?:;|,\s*(?:and|or)\s+|,|\band/or\b|\band\b|\bor\b)\s*", re.I)


def outcome_parts(outcome: str) -> list[str]:
    """The outcomes a phrase lists ("total sleep time and sleep efficiency" -> two), split outside brackets;
    one part (the phrase) when it lists none."""
    blank = _outside_parens(outcome)
    parts, last = [], 0
    for m in _PART_SPLIT.finditer(blank):
        parts.append(outcome[last:m.start()])
        last = m.end()
    parts.append(outcome[last:])
    parts = [p.strip(" .") for p in parts if re.search(r"[A-Za-z]{2}", p)]
    return parts if len(parts) > 1 else [outcome]


_GROUP_LABEL = re.compile(r"\bgroups?\s+([A-Z0-9][A-Za-z0-9]{0,3})\b", re.I)
_OR = re.compile(r"\bor\b", re.I)


def pooled_parts(arm: str) -> list[str]:
    """The groups an arm's phrase pools ("50 µg fentanyl in group 2, and 0.5 mg/kg ketamine in group 3";
    "metformin or pioglitazone"); [] when it names one group. An "or" inside brackets ("injection (filler or
    neurotoxin)") or an "and/or" does not pool."""
    blank = _outside_parens(arm).replace("and/or", "      ")
    labels = {m.group(1).lower() for m in _GROUP_LABEL.finditer(arm)}
    if len(labels) < 2 and not _OR.search(blank):
        return []
    parts, last = [], 0
    for m in re.finditer(r"\s*(?:,\s*(?:and|or)\s+|,|\bor\b|\band\b)\s*", blank, re.I):
        parts.append(arm[last:m.start()])
        last = m.end()
    parts.append(arm[last:])
    parts = [p.strip(" .'\"‘’") for p in parts if re.search(r"[A-Za-z]{2}|\d", p)]
    if len(labels) >= 2:  # keep the pieces that carry a group label, each with its words
        parts = [p for p in parts if _GROUP_LABEL.search(p)] or parts
    return parts if len(parts) > 1 else []


_DEF = re.compile(r"[(\[]\s*([A-Z][A-Za-z0-9+\-]{1,9})\s*[)\]]")


def doc_abbreviations(text: str) -> dict[str, str]:
    """The abbreviations a paper defines in running text: "Experimental group (EG)", "high-fat diet [HFD]",
    "dorzolamide/timolol fixed combination (DTFC)": the words just before the brackets whose initials spell
    the abbreviation's letters."""
    out: dict[str, str] = {}
    for m in _DEF.finditer(text):
        abbr = m.group(1)
        letters = [c.lower() for c in abbr if c.isalpha()]
        if len(letters) < 2 or abbr in out or abbr.lower() == abbr:
            continue
        toks = list(re.finditer(r"[A-Za-z]+", text[max(0, m.start() - 120):m.start()]))
        k = len(letters)
        if len(toks) < k:
            continue
        tail = toks[-k:]
        if [t.group(0)[0].lower() for t in tail] == letters:
            base = max(0, m.start() - 120)
            out[abbr] = text[base + tail[0].start():base + tail[-1].end()]
    for abbr, long in _COMMON_ABBREVIATIONS.items():  # used without a definition (trial reports' house style)
        if abbr not in out and re.search(rf"\b{abbr}s?\b", text):
            out[abbr] = long
    return out


#: abbreviations trial reports use without defining them; a paper's own definition wins
_COMMON_ABBREVIATIONS = {"AE": "adverse event", "SAE": "serious adverse event",
                         "TEAE": "treatment-emergent adverse event", "BP": "blood pressure",
                         "SBP": "systolic blood pressure", "DBP": "diastolic blood pressure", "BMI": "body mass index",
                         "QoL": "quality of life", "HRQoL": "health-related quality of life",
                         "VAS": "visual analogue scale", "LOS": "length of stay"}


# cue patterns: resources/lexicons/numbers.forms.yaml
_FROM_TO = pattern("numbers.forms", "FROM_TO")


def drop_baselines(text: str, reads: list[GroupNumbers]) -> list[GroupNumbers]:
    """Of "from X to Y" pairs, the final value Y alone (the change's start is a baseline, not the arm's result);
    a pair that continues a list of them without its own "from" too ("from 6.4 to 2.4 in group A and 6.3 to 2.2
    in group B")."""
    drop: set[int] = set()
    for k in range(len(reads) - 1):
        a, b = reads[k], reads[k + 1]
        if not _FROM_TO.fullmatch(text[a.end:b.start]):
            continue
        before = text[max(0, a.start - 12):a.start]
        if re.search(r"\bfrom\s*$", before, re.I) or (
                drop and max(drop) + 1 < k and re.search(r"(?:\band|[,;])\s*$", before, re.I)):
            drop.add(k)
    return [r for k, r in enumerate(reads) if k not in drop]


_NUM = re.compile(r"(?<![\w.,/·-])[-−]?\d+(?:[.·]\d+)?(?![\d.·]*\s*(?:%|/|[-–]\s*\d|:\d))(?![-–]?[A-Za-z])")
_NOT_VALUE_BEFORE, _STATS, _NOT_VALUE_AFTER, _DIFFERENCE = patterns(
    "numbers.forms", "NOT_VALUE_BEFORE", "STATS", "NOT_VALUE_AFTER", "DIFFERENCE")
_TIME_SPAN = re.compile(r"^\s*(?:days?|weeks?|months?|years?|hours?|h|minutes?|min)\b", re.I)
_PREP = re.compile(r"\b(?:for|at|after|within|over|during|by|until)\s*$", re.I)  # "for 3 days": a time, not a value
_MEDIAN = re.compile(r"\bmedians?\b", re.I)


def bare_means(text: str) -> list[GroupNumbers]:
    """A sentence's bare values, each a group's mean (no SD written): the numbers left once brackets,
    p-values, test statistics, CIs, percentages, ranges, counts of weeks/days/..., doses, folds, counts of
    people and "= n" are set aside, and each "from X to Y" reduced to Y; two of them (one per arm), or none.
    A sentence that gives medians gives no means (Yun et al. leave the mean empty)."""
    if _MEDIAN.search(text):
        return []
    blank = _outside_parens(text)
    blank = _STATS.sub(lambda m: " " * len(m.group(0)), blank)
    reads = []
    for m in _NUM.finditer(blank):
        s = m.group(0).replace("−", "-").replace("·", ".")
        before, after = blank[max(0, m.start() - 40):m.start()], blank[m.end():m.end() + 30]
        from_ = re.search(r"\bfrom\s*$", before, re.I)  # "decreased from 6.4 to 2.4": a start, not a difference
        if (_NOT_VALUE_BEFORE.search(before[-10:]) or (_DIFFERENCE.search(before) and not from_)
                or _NOT_VALUE_AFTER.match(after)
                or (_TIME_SPAN.match(after) and _PREP.search(before[-8:])) or re.search(r"\btotal of\s*$", before)):
            continue
        v = float(s)
        if v.is_integer() and 1900 <= v <= 2100:
            continue
        reads.append(GroupNumbers("continuous", m.start(), m.end(), m.group(0), mean=v))
    reads = drop_baselines(text, reads)
    return reads if len(reads) == 2 else []


#: one arm's value in a comparison clause: a number, its SD ("± 4.2", "(4.2)") or a % sign, and a unit
_ARM_VALUE = (r"(?P<{p}v>[-−]?\d+(?:\.\d+)?)(?P<{p}pct>\s?%)?"
              r"(?:\s*(?:±|\+/-|\+/−)\s*(?P<{p}sd>\d+(?:\.\d+)?)|\s*\(\s*(?:SD\s*)?(?P<{p}sdp>\d+(?:\.\d+)?)\s*\))?"
              r"(?:\s*(?:[A-Za-zµμ£$€/²³]+\.?)){{0,2}}?")
#: "A vs. B": two arms' values joined by a comparison word; the values stand in the clause's order
_PAIR = re.compile(r"(?<![\w.,/·-])[£$€]?" + _ARM_VALUE.format(p="a") +
                   r"\s*,?\s*(?:vs\.?|versus|v\.|compared (?:with|to))\s*[£$€]?" + _ARM_VALUE.format(p="b") +
                   r"(?![\d.])", re.I)
_NO_PAIR_BEFORE = re.compile(r"(?:[=<>≤≥]|\b(?:p|t|F|r|z|OR|RR|HR|CI|n|N|df)\s*[=:]?)\s*$")


def comparison_pairs(text: str) -> list[tuple[int, GroupNumbers, GroupNumbers]]:
    """Each "A vs. B" of a sentence (a mean with its SD, a bare value or a percentage per arm) with where its
    clause starts: right after the previous comparison (or the sentence's start), so that a sentence listing
    several outcomes ("TST (321.8 min vs. 422.7 min, p < .01) and sleep efficiency (72.5% vs. 91.6%)") gives
    each outcome its own clause. Test statistics, p-values and medians are no arm values."""
    out: list[tuple[int, GroupNumbers, GroupNumbers]] = []
    clause = 0
    for m in _PAIR.finditer(text):
        if _NO_PAIR_BEFORE.search(text[max(0, m.start() - 6):m.start()]) or _MEDIAN.search(text[clause:m.start()]):
            clause = m.end()
            continue
        reads = []
        for p in ("a", "b"):
            v = float(m.group(f"{p}v").replace("−", "-"))
            sd = m.group(f"{p}sd") or m.group(f"{p}sdp")
            a, b = m.span(f"{p}v")
            if m.group(f"{p}pct"):
                reads.append(GroupNumbers("binary", a, b, m.group(0), percent=m.group(f"{p}v")))
            else:
                reads.append(GroupNumbers("continuous", a, b, m.group(0), mean=v, sd=float(sd) if sd else None))
        if reads[0].kind == reads[1].kind and (reads[0].sd is None) == (reads[1].sd is None):
            out.append((clause, reads[0], reads[1]))
        clause = m.end()
    return out


_LABEL_DEF = re.compile(r"\(\s*(?:the\s+)?(?:(?:group|arm)\s+(?P<a>[A-Z0-9]{1,3})|(?P<b>[A-Z][A-Z0-9]{0,3})\s+(?:group|arm))"
                        r"\s*[,;)]")


def group_labels(text: str, arms: dict[str, Any]) -> dict[str, re.Pattern[str]]:
    """The group labels a paper gives its arms ("anion textile (group A)", "ketamine 2 µg (K2 group)"): for each
    arm (name -> its :class:`~claimtrace.numbers.match.Terms`), a pattern of where a sentence names it by its
    label ("group A", "groups A and B", "the K2 group"). A label goes to the arm whose words fill the clause
    right before its brackets (back to the previous label), and only to one arm."""
    found: dict[str, set[str]] = {a: set() for a in arms}
    last = 0
    for m in _LABEL_DEF.finditer(text):
        label = m.group("a") or m.group("b")
        before = re.split(r"[.;:()]\s", text[max(last, m.start() - 100):m.start()])[-1]
        last = m.end()
        scores = {a: t.score(before) for a, t in arms.items()}
        best = max(scores, key=lambda a: scores[a])
        if scores[best] >= 0.5 and sorted(scores.values())[-2:-1] != [scores[best]]:
            found[best].add(label)
    taken = [lab for labs in found.values() for lab in labs]
    out: dict[str, re.Pattern[str]] = {}
    for a, labs in found.items():
        labs = {lab for lab in labs if taken.count(lab) == 1}
        if labs:
            alt = "|".join(re.escape(lab) for lab in sorted(labs))
            out[a] = re.compile(rf"\b(?:groups?|arms?)\s+(?:[A-Z0-9]{{1,3}}\s*(?:,|and|&|or)\s*)*(?:{alt})\b|"
                                rf"\b(?:{alt})\s+(?:group|arm)s?\b")
    return out


_PEOPLE = (r"(?:patients|participants|subjects|cases|children|infants|women|men|persons|people|individuals|"
           r"responders|eyes)")
#: a count of people with its percentage, either way round: "90% (18 patients)", "18 patients (90%)"
_PCT_COUNT = re.compile(r"(?<![\d.,/])(?P<p1>\d+(?:\.\d+)?)\s?%\s*\(\s*(?:n\s*=\s*)?(?P<k1>\d{1,5})\s+" + _PEOPLE + r"\s*\)|"
                        r"(?<![\d.,/])(?P<k2>\d{1,5})\s+" + _PEOPLE + r"\s*\(\s*(?P<p2>\d+(?:\.\d+)?)\s?%\s*\)", re.I)


def percent_counts(text: str) -> list[GroupNumbers]:
    """Counts of people written with their percentage and a word for people between them ("90% (18 patients)",
    "18 patients (90%)"), each a group's events with its percentage."""
    out = []
    for m in _PCT_COUNT.finditer(text):
        k, p = (m.group("k1"), m.group("p1")) if m.group("k1") else (m.group("k2"), m.group("p2"))
        out.append(GroupNumbers("binary", m.start(), m.end(), m.group(0), events=float(k), percent=p))
    return out


_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
#: a count written in words, up to ninety-nine ("eight", "thirty-two", "Forty two")
COUNT_WORD = (r"(?i:(?:" + "|".join(_TENS) + r")(?:[- ](?:" + "|".join(_UNITS[1:10]) + r"))?|"
              r"(?:" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r"))")


def count_of(text: str) -> int | None:
    """The integer a count is written as: digits ("1,024") or words ("thirty-two"); None otherwise."""
    s = text.strip().lower().replace(",", "")
    if s.isdigit():
        return int(s)
    parts = re.split(r"[- ]+", s)
    if len(parts) == 1 and parts[0] in _UNITS:
        return _UNITS.index(parts[0])
    if parts[0] in _TENS and (len(parts) == 1 or (len(parts) == 2 and parts[1] in _UNITS[1:10])):
        return 20 + 10 * _TENS.index(parts[0]) + (_UNITS.index(parts[1]) if len(parts) == 2 else 0)
    return None
