"""Offline extraction of per-arm numbers for one ICO: table rows first, then sentences, then captions.

Deterministic: arms are found by word overlap of the intervention/comparator (and their parenthesised
labels) with column headers or mentions in a sentence; the outcome by overlap with row labels or
sentences. Table cells come from ``Document.tables`` (row label and column header path per cell); the
numbers in a cell or a sentence are read by the statistics engine's one reader for group numbers
(:mod:`claimtrace.stats.groups`: "n/N (%)", "n (%)", "mean ± SD", "mean (SD)", "n = 30"). Nothing is
guessed: a value that no rule reads stays "not reported".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from claimtrace.documents.model import Document, Table, TableCell, TableRow
from claimtrace.lexicons import pattern, patterns
from claimtrace.numbers import derive, ranker
from claimtrace.numbers.effects import binary_effects, continuous_effects
from claimtrace.numbers.forms import (
    BINARY_WORDS,
    CONTINUOUS_WORDS,
    COUNT_WORD,
    bare_means,
    comparison_pairs,
    count_of,
    doc_abbreviations,
    drop_baselines,
    group_labels,
    outcome_parts,
    percent_counts,
    pooled_parts,
)
from claimtrace.numbers.match import Terms, distinctive, mentions, words
from claimtrace.numbers.model import Arm, NumbersResult, OutcomeType, Value
from claimtrace.stats.groups import (
    GroupNumbers,
    find_group_numbers,
    find_percentages,
    read_group_numbers,
    sample_sizes,
)

OUTCOME_MIN = 0.5  # share of the outcome's words a row label or sentence must contain
#: words that name the statistic, not the outcome ("mean ± SD of heart rate")
_STAT_WORDS = frozenset({"mean", "average", "median", "sd", "se", "sem", "iqr"})


@dataclass
class Candidate:
    """One place that gives numbers for both arms."""

    score: float
    kind: str
    reads: dict[str, GroupNumbers]
    values: dict[str, dict[str, Value]] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    origin: str = ""  # which generator gave it (the ranker's feature)
    meta: dict[str, float] = field(default_factory=dict)  # what the generator measured (the ranker's features)


@dataclass
class Ico:
    """The ICO's terms (the arms' distinctive words tell them apart)."""

    intervention: Terms
    comparator: Terms
    outcome: Terms
    abbrevs: dict[str, str] = field(default_factory=dict)  # abbreviations the paper defines in its text
    labels: dict[str, re.Pattern[str]] = field(default_factory=dict)  # arm -> where a sentence names its label
    shared: Terms | None = None  # the words both arms' descriptions hold ("bimatoprost" of "bimatoprost PF")

    @classmethod
    def of(cls, intervention: str, comparator: str, outcome: str, abbrevs: dict[str, str] | None = None) -> Ico:
        """Terms for an ICO."""
        i, c = Terms.of(intervention), Terms.of(comparator)
        o = Terms.of(outcome)
        # the statistic's name is not the outcome ("mean ± SD of heart rate" is named by "heart rate")
        o.aliases = [[w for w in a if w not in _STAT_WORDS] or a for a in o.aliases]
        parts = outcome_parts(outcome)
        if len(parts) > 1 and (first := words(parts[0])) and first not in o.aliases:
            o.aliases.append(first)  # an outcome that lists several is named by its first too ("heart rate, ...")
        both = [w for w in (i.aliases or [[]])[0] if w.isalpha() and len(w) > 2 and w in (c.aliases or [[]])[0]]
        return cls(distinctive(i, c), distinctive(c, i), o, dict(abbrevs or {}),
                   shared=Terms(" ".join(both), [both]) if both else None)

    def with_labels(self, text: str) -> Ico:
        """The same terms, with the group labels the paper's text gives the arms (:func:`group_labels`)."""
        self.labels = group_labels(text, {"intervention": self.intervention, "comparator": self.comparator})
        return self


def extract_numbers(doc: Document, intervention: str, comparator: str, outcome: str, *,
                    weights: dict[str, Any] | None = None) -> NumbersResult:
    """Per-arm numbers, outcome type, effect sizes and flags for one ICO in one paper (offline); ``weights``
    replaces the shipped ranker's (cross-validation fits one per fold)."""
    running = f"{doc.abstract_text}\n{doc.body_text}"
    abbrevs = doc_abbreviations(running)
    ico = Ico.of(intervention, comparator, outcome, abbrevs).with_labels(running)
    tables = doc.tables
    best = _ranked(doc, ico, weights) if weights or ranker.WEIGHTS.exists() else _ruled(doc, ico, outcome)
    parts = outcome_parts(outcome)
    if best is None and len(parts) > 1:  # an ICO that lists outcomes ("TST and sleep efficiency"): the first named
        first = Ico.of(intervention, comparator, parts[0], abbrevs).with_labels(running)
        best = _ranked(doc, first, weights) if weights or ranker.WEIGHTS.exists() else _ruled(doc, first, parts[0])
    caption_only = best is not None and best.origin == "caption"
    arms = {"intervention": Arm(label=intervention), "comparator": Arm(label=comparator)}
    flags: list[str] = []
    notes: list[str] = []
    context: list[str] = []
    if best is not None:
        flags.extend(best.flags)
        context.extend(best.context)
        for arm_name, vals in best.values.items():
            for f, v in vals.items():
                if not f.startswith("_"):
                    setattr(arms[arm_name], f, v)
        if caption_only:
            flags.append("figure_caption_only")
    outcome_type: OutcomeType = (best.kind if best and best.kind in ("binary", "continuous") else  # type: ignore[assignment]
                                 ("binary" if BINARY_WORDS.search(outcome) else "continuous"))
    best_table = best.context[0].split(".")[0] if best is not None and best.context else None
    _fill_group_sizes(doc, ico, arms, context, tables, best_table)
    _derive(arms, best, flags, notes)
    if _pool(doc, arms, intervention, comparator, outcome, outcome_type, notes, weights):
        flags.append("pooled_arm")
    if best is not None and outcome_type == "continuous":
        _se_check(doc, best, arms, flags, notes)
    res = NumbersResult(doc=doc.source.path, intervention=intervention, comparator=comparator, outcome=outcome,
                        outcome_type=outcome_type, arms=arms, flags=sorted(set(flags)), notes=notes,
                        context=list(dict.fromkeys(context)))
    finish(res)
    return res


def _ranked(doc: Document, ico: Ico, weights: dict[str, Any] | None = None) -> Candidate | None:
    """The candidate the learned ranker chooses among every generator's (:mod:`claimtrace.numbers.ranker`), or
    None where it abstains."""
    return ranker.choose(doc, ico, ranker.candidates(doc, ico), weights)


def _ruled(doc: Document, ico: Ico, outcome: str) -> Candidate | None:
    """The candidate the hand-set scores put first (tables, sentences, then figure captions); the fallback when
    no ranker weights are installed."""
    cands = sorted(_all_candidates(doc, ico, outcome), key=lambda c: -c.score)
    if cands:
        return cands[0]
    caps = _caption_candidates(doc, ico)
    if CONTINUOUS_WORDS.search(outcome) and not BINARY_WORDS.search(outcome):
        caps = [c for c in caps if c.kind != "binary"]
    for c in caps:
        c.origin = "caption"
    return max(caps, key=lambda c: c.score) if caps else None


def _pool(doc: Document, arms: dict[str, Arm], intervention: str, comparator: str, outcome: str,
          outcome_type: str, notes: list[str], weights: dict[str, Any] | None = None) -> bool:
    """An arm that pools several groups ("group 2 and group 3", "metformin or pioglitazone"): its events and
    group size are the sums of its groups' (each group read as an arm of its own), its mean and SD are not
    reported (a pooled mean needs more than the groups' means); nothing is summed unless every group is read."""
    pooled = False
    for name, phrase, other in (("intervention", intervention, comparator), ("comparator", comparator, intervention)):
        parts = pooled_parts(phrase)
        if not parts:
            continue
        pooled = True
        arm = arms[name]
        subs = [extract_numbers(doc, part, other, outcome, weights=weights).arms["intervention"] for part in parts]
        sizes = [a.group_size.value for a in subs if a.group_size is not None]
        events = [a.events.value for a in subs if a.events is not None]
        arm.mean = arm.sd = arm.events = arm.group_size = None
        if len(sizes) == len(parts):
            arm.group_size = Value(value=float(sum(sizes)), text=" + ".join(f"{v:g}" for v in sizes),
                                   source="derived", derived="sum of the pooled groups' sizes")
        if outcome_type == "binary" and len(events) == len(parts) and arm.group_size is not None:
            arm.events = Value(value=float(sum(events)), text=" + ".join(f"{v:g}" for v in events),
                               source="derived", derived="sum of the pooled groups' events")
        notes.append(f"{name}: pools {len(parts)} groups ({'; '.join(parts)}); " +
                     ("events and group size summed" if arm.events is not None else
                      "group size summed" if arm.group_size is not None else "not every group read") +
                     ("" if outcome_type == "binary" else "; no pooled mean or SD"))
    return pooled


def _all_candidates(doc: Document, ico: Ico, outcome: str) -> list[Candidate]:
    """Every table row, transposed block and sentence that gives both arms' numbers for the outcome."""
    tables = doc.tables
    cands = _table_candidates(tables, ico) + _transposed_candidates(tables, ico) + _sentence_candidates(doc, ico)
    # a sentence that compares several outcomes is read clause by clause, not as a whole; one comparison of one
    # outcome, when nothing else reads both arms
    cands += _clause_candidates(doc, ico, several=bool(cands))
    if BINARY_WORDS.search(outcome):
        cands += _zero_candidates(doc, ico)
    if CONTINUOUS_WORDS.search(outcome) and not BINARY_WORDS.search(outcome):
        # a score or a level is not a count of patients, unless counts are all the paper gives for it
        cands = [c for c in cands if c.kind != "binary"] or [c for c in cands if c.score >= 1.0]
    return cands


def finish(res: NumbersResult) -> None:
    """Fill ``not_reported`` and the effect sizes from the arms."""
    i, c = res.arms["intervention"], res.arms["comparator"]
    fields = ("events", "group_size") if res.outcome_type == "binary" else ("mean", "sd", "group_size")
    res.not_reported = [f"{name}.{f}" for name, arm in res.arms.items() for f in fields if getattr(arm, f) is None]
    res.effects = []
    if res.outcome_type == "binary" and i.events and i.group_size and c.events and c.group_size:
        res.effects = binary_effects(i.events.value, i.group_size.value, c.events.value, c.group_size.value)
    elif res.outcome_type == "continuous" and all(
            x is not None for x in (i.mean, i.sd, i.group_size, c.mean, c.sd, c.group_size)):
        assert i.mean and i.sd and i.group_size and c.mean and c.sd and c.group_size
        res.effects = continuous_effects(i.mean.value, i.sd.value, i.group_size.value,
                                         c.mean.value, c.sd.value, c.group_size.value)


# ---- tables --------------------------------------------------------------------------------------
def column_paths(t: Table) -> dict[int, list[str]]:
    """Each column's header path (1-based column -> the header rows' texts, top down, repeats dropped)."""
    out: dict[int, list[str]] = {}
    spanning = set()  # a header row that is one label across every column, the stub's too: a section heading
    for r in range(1, t.header_rows + 1):
        texts = [(cell.text.strip() if (cell := t.cell(r, c)) is not None else "") for c in range(1, t.n_cols + 1)]
        if t.n_cols > 2 and texts[0] and len(set(texts)) == 1:
            spanning.add(r)
    for c in range(1, t.n_cols + 1):
        path: list[str] = []
        for r in range(1, t.header_rows + 1):
            if r in spanning:
                continue
            cell = t.cell(r, c)
            if cell is not None and cell.text.strip() and (not path or path[-1] != cell.text.strip()):
                path.append(cell.text.strip())
        out[c] = path
    return out


_ABBREV = re.compile(r"(?:^|[;.]\s*)([A-Z][A-Za-z0-9-]{1,9})\s*=\s*([^;=]{3,80}?)\s*(?=;|\.\s|\.?$)")


def abbreviations(t: Table) -> dict[str, str]:
    """The abbreviations a table's footnotes define ("CZP = certolizumab pegol; PBO = placebo")."""
    return {m.group(1): m.group(2).strip() for fn in t.footnotes for m in _ABBREV.finditer(fn)}


def expand(text: str, abbrevs: dict[str, str]) -> str:
    """A header or label with the long form of each abbreviation it uses appended ("CZP 200 mg (certolizumab pegol)")."""
    found = dict.fromkeys(re.findall(r"[A-Za-z][A-Za-z0-9-]*", text))
    # a plural of an abbreviation ("AEs" for "AE = adverse event")
    longs = [abbrevs[w] if w in abbrevs else abbrevs[w[:-1]] for w in found
             if w in abbrevs or (len(w) > 2 and w.endswith("s") and w[:-1] in abbrevs)]
    return f"{text} ({'; '.join(longs)})" if longs else text


def _arm_columns(t: Table, ico: Ico) -> tuple[list[int], list[int]]:
    abbrevs = {**ico.abbrevs, **abbreviations(t)}
    paths = column_paths(t)
    # a column of a between-group statistic ("Difference", "Effect of intervention › RR", "p") is no arm's
    heads = {c: expand(" ".join(p), abbrevs) for c, p in paths.items() if c > 1 and not any(
        _EFFECT_COL.search(x) for x in p)}
    tops = {c: expand(p[0], abbrevs) if p else "" for c, p in paths.items()}
    # a column that negates a name ("No intervention", "Without drug X") is not that arm
    si = {c: 0.0 if _NEGATED.match(h) else ico.intervention.score(h) for c, h in heads.items()}
    sc = {c: 0.0 if _NEGATED.match(h) else ico.comparator.score(h) for c, h in heads.items()}
    # equal scores: a column that matches by a word beats one that matches only by a number ("10-week yoga"
    # against a header cell "79 ± 10" and a "Yoga group" header)
    for score, terms in ((si, ico.intervention), (sc, ico.comparator)):
        for c, h in heads.items():
            if score[c] > 0 and terms.score(re.sub(r"\d+(?:\.\d+)?", " ", h)) > 0:
                score[c] += 1e-6
    mi, mc = max(si.values(), default=0), max(sc.values(), default=0)
    icols = [c for c in heads if mi > 0 and si[c] == mi and si[c] > sc[c]]
    ccols = [c for c in heads if mc > 0 and sc[c] == mc and sc[c] > si[c]]
    # one arm named, the other only by its role ("Treatment group" for "sodium butyrate", "Control" for
    # "standard care"): the one column that names that role, if exactly one does
    # the named arm's header is named well: by half the arm's words, or all its own words are the arm's ("Web 2.0"
    # for "Web 2.0-based intervention")
    if ccols and not icols:
        icols = _role_column(heads, ccols, _GENERIC_INTERVENTION, _GENERIC_COMPARATOR, tops) or (
            _other_arm(t, ccols) if mc >= OUTCOME_MIN or _covered(heads[ccols[0]], ico.comparator.phrase) == 1.0
            else [])
    elif icols and not ccols:
        ccols = _role_column(heads, icols, _GENERIC_COMPARATOR, _GENERIC_INTERVENTION, tops) or (
            _other_arm(t, icols) if mi >= OUTCOME_MIN or _covered(heads[icols[0]], ico.intervention.phrase) == 1.0
            else [])
    elif not icols and not ccols:
        icols = _role_column(heads, [], _GENERIC_INTERVENTION, _GENERIC_COMPARATOR, tops)
        ccols = _role_column(heads, icols, _GENERIC_COMPARATOR, _GENERIC_INTERVENTION, tops)
        if not icols or not ccols:
            return [], []
    return icols, ccols


_NEGATED = re.compile(r"^\s*(?:no|non|without|not)\b", re.I)
# cue patterns: resources/lexicons/numbers.extract.yaml
_GENERIC_INTERVENTION, _GENERIC_COMPARATOR, _NOT_ARM = patterns(
    "numbers.extract", "GENERIC_INTERVENTION", "GENERIC_COMPARATOR", "NOT_ARM")


def _other_arm(t: Table, taken: list[int]) -> list[int]:
    """The other arm's columns in a two-arm table: the one column group (by top header) left once the named
    arm's group (named by at least half its words) and the stub, p, total, difference and CI columns are set
    aside."""
    groups: dict[str, list[int]] = {}
    for c, path in _arm_level_paths(t).items():
        if c > 1 and path and not _NOT_ARM.match(path[0]):
            groups.setdefault(path[0], []).append(c)
    mine = {path for path, cols in groups.items() if set(cols) & set(taken)}
    rest = [cols for path, cols in groups.items() if path not in mine]
    return rest[0] if len(mine) == 1 and len(rest) == 1 else []


def _arm_level_paths(t: Table) -> dict[int, list[str]]:
    """Column header paths from the first level at which the value columns differ: a header spanning every
    value column ("Group › Web 2.0 | Group › Web 1.0") names no arm and is dropped."""
    paths = column_paths(t)
    cols = [c for c in paths if c > 1 and paths[c] and not _NOT_ARM.match(paths[c][0])
            and not any(_EFFECT_COL.search(x) for x in paths[c])]
    while cols and all(len(paths[c]) > 1 for c in cols) and len({paths[c][0] for c in cols}) == 1:
        paths = {c: (p[1:] if c in cols else p) for c, p in paths.items()}
    return paths


def _role_column(heads: dict[int, str], taken: list[int], role: re.Pattern[str], other: re.Pattern[str],
                 tops: dict[int, str] | None = None) -> list[int]:
    """The one column (or the one column group, under one top header that names the role: "Control group ›
    Baseline | Follow-up") that names an arm only by its role."""
    got = [c for c, h in heads.items() if c not in taken and role.search(h) and not other.search(h)]
    if len(got) > 1 and tops is not None and len({tops.get(c, "") for c in got}) == 1 and role.search(
            tops.get(got[0], "")) and not other.search(tops.get(got[0], "")):
        return got
    return got if len(got) == 1 else []


_EFFECT_COL = pattern("numbers.extract", "EFFECT_COL")


def _row_cells(t: Table, row: TableRow) -> dict[int, TableCell]:
    """The cells covering a row, by column (a cell spanning rows counts in each)."""
    out: dict[int, TableCell] = {}
    for c in range(1, t.n_cols + 1):
        cell = t.cell(row.index + 1, c)
        if cell is not None:
            out[c] = cell
    return out


def _table_candidates(tables: list[Table], ico: Ico, *, wide: bool = False) -> list[Candidate]:
    """Arm column x outcome row cells. ``wide``: also rows that name the outcome weakly (a quarter of its words),
    rows of baseline tables, and two-arm tables whose arm columns only their order tells apart (the first arm
    column the intervention): candidates for the ranker, which weighs what each one measured."""
    out: list[Candidate] = []
    for t in tables:
        if t.header_rows == 0:
            continue
        icols, ccols = _arm_columns(t, ico)
        positional = False
        if wide and (not icols or not ccols):
            icols, ccols = _two_arm_columns(t)
            positional = True
        if not icols or not ccols:
            continue
        paths = column_paths(t)
        abbrevs = {**ico.abbrevs, **abbreviations(t)}
        caption = f"{t.label or ''} {t.caption or ''} {' '.join(t.footnotes)}"
        # "Baseline characteristics", "Demographics": not read for an outcome that is not a baseline one;
        # "Clinical characteristics" alone may hold outcomes too: ranked lower only
        results_caption = re.search(r"\b(results?|outcomes?|efficacy|follow[- ]?up|after|end of)\b", t.caption or "", re.I)
        baseline = bool(_BASELINE_CAPTION.search(t.caption or "")) and not results_caption
        demote = not baseline and bool(re.search(r"characteristics", t.caption or "", re.I)) and not results_caption
        sub, last = "", None
        counts = bool(BINARY_WORDS.search(ico.outcome.phrase))
        stub_head = " ".join(paths.get(1, []))
        timed: dict[str, list[Candidate]] = {}  # time-point rows' candidates by heading
        for row, cells, label, heading in _body_rows(t):
            if heading != last:
                sub, last = heading, heading
            sub = row.group or sub
            base_sub = bool(re.search(r"\bbaseline\b", sub, re.I)) and not re.search(r"baseline", ico.outcome.phrase, re.I)
            if base_sub and not wide:
                continue  # a row under a "Baseline ..." heading is a baseline subgroup, not the outcome
            s = ico.outcome.score(expand(f"{sub} {label}", abbrevs))
            s2 = ico.outcome.score(expand(label, abbrevs))
            if counts:  # events listed by name: a "Headache" row for "adverse events - headache"
                s2 = max(s2, 0.9 * _covered(label, ico.outcome.phrase))
            # a row that is a time point ("Visit 5", "120 min", "12–18"): the outcome is named by its heading,
            # else the stub's header ("AChR-ab titer | Vaccinated | Placebo"), else the caption
            time_row = bool(_TIME_ROW.fullmatch(label))
            if time_row and max(s, s2) < (WIDE_MIN if wide else OUTCOME_MIN):
                heading = sub or (stub_head if ico.outcome.score(stub_head) > 0 else caption)
                s = ico.outcome.score(expand(heading, abbrevs))
            if baseline and not wide and not re.search(r"baseline", ico.outcome.phrase, re.I):
                continue  # a baseline characteristic is not the outcome (unless the outcome says baseline)
            score = max(s, s2) + 0.1 * ico.outcome.score(caption) + (0.15 if baseline else 0.0) - (
                0.15 if demote else 0.0)
            if max(s, s2) < (WIDE_MIN if wide else OUTCOME_MIN):
                continue
            other_measure = _other_measure(ico.outcome.phrase, f"{sub} {label}")
            if other_measure and not wide:
                continue
            reads: dict[str, GroupNumbers] = {}
            values: dict[str, dict[str, Value]] = {}
            for arm, cols in (("intervention", icols), ("comparator", ccols)):
                arm_cells = [(paths[c][-1] if paths[c] else "", cells[c].text) for c in cols if c in cells]
                head = " ".join(" ".join(paths[c]) for c in cols)
                r = _read_arm(arm_cells, caption + " " + head, label, counts=counts, outcome=ico.outcome,
                              full_heads=[" ".join(paths[c]) for c in cols if c in cells])
                if r is None:
                    break
                n_head = _size_in(" ".join(paths[cols[0]]))
                if r.total is None and n_head is not None:
                    r.total = n_head
                reads[arm] = r
                values[arm] = _table_values(t, cells, cols, r, n_head, " ".join(paths[cols[0]]))
            if len(reads) < 2:
                continue
            kinds = {r.kind for r in reads.values()} - {""}
            kind = kinds.pop() if len(kinds) == 1 else ""
            flags = ["arms_swapped"] if min(ccols) < min(icols) else []
            if any(r.se_labelled for r in reads.values()):
                flags.append("sd_may_be_se")
            meta = {"label": max(s, s2), "label_only": s2, "covered": _covered(label, ico.outcome.phrase),
                    "caption": ico.outcome.score(caption), "baseline": float(baseline or base_sub),
                    "demote": float(demote), "positional": float(positional), "other_measure": float(other_measure),
                    "arm_i": max(ico.intervention.score(expand(" ".join(paths[c]), abbrevs)) for c in icols),
                    "arm_c": max(ico.comparator.score(expand(" ".join(paths[c]), abbrevs)) for c in ccols),
                    "time": float(bool(_TIME.search(f"{sub} {label}"))), "table_index": float(t.index),
                    "time_row": float(time_row), "time_named": float(time_row and _names_row_time(ico.outcome, label))}
            out.append(Candidate(score + 0.05, kind, reads, values, flags, [row.id], meta=meta))
            if time_row:
                timed.setdefault(sub, []).append(out[-1])
        for cs in timed.values():  # the last time point of a heading: the final one
            cs[-1].meta["time_final"] = 1.0
            if not wide:  # the time point the outcome names, else the final one
                keep = [c for c in cs if c.meta["time_named"]] or [cs[-1]]
                out = [c for c in out if any(c is k for k in keep) or not any(c is x for x in cs)]
    return out


_TIME_ROW = pattern("numbers.extract", "TIME_ROW")


def _names_row_time(outcome: Terms, label: str) -> bool:
    """Whether the outcome names a time-point row's time ("at 0–3 months" for a row "0–3", "week 12" for "Week 12")."""
    t = re.sub(r"\s+", " ", label.strip().lower()).replace("–", "-")
    o = re.sub(r"\s+", " ", outcome.phrase.lower()).replace("–", "-")
    return bool(t) and re.search(r"(?<![\w.-])" + re.escape(t) + r"(?![\w.])", o) is not None


def _body_rows(t: Table) -> Iterator[tuple[TableRow, dict[int, TableCell], str, str]]:
    """A table's body rows that are not sub-headings, each with its cells, its label (the stub cell) and the
    heading it stands under (the last sub-heading row, one label across the row; at first a heading the header
    took in)."""
    sub = _spanning_heading(t)
    for row in t.rows:
        if row.header:
            continue
        cells = _row_cells(t, row)
        label = cells[1].text.strip() if 1 in cells else ""
        rest = [c.text for col, c in cells.items() if col > 1 and c.text.strip()]
        if label and (not rest or all(x == label for x in rest)):
            sub = label  # a sub-heading row
            continue
        yield row, cells, label, sub


def _spanning_heading(t: Table) -> str:
    """The text of the last header row that is one label across every column (a sub-heading the table's
    header took in: "Average days with a step entry/week (months)"), or ""."""
    out = ""
    for r in range(1, t.header_rows + 1):
        texts = {(cell.text.strip() if (cell := t.cell(r, c)) is not None else "") for c in range(1, t.n_cols + 1)}
        if t.n_cols > 2 and len(texts) == 1 and "" not in texts:
            out = texts.pop()
    return out


WIDE_MIN = 0.25  # the share of the outcome's words a row of the ranker's wide candidates must name


def _two_arm_columns(t: Table) -> tuple[list[int], list[int]]:
    """The two column groups (by top header) of a table with exactly two arm-like groups once the stub, p, total,
    difference and CI columns are set aside: (first, second)."""
    groups: dict[str, list[int]] = {}
    for c, path in _arm_level_paths(t).items():
        if c > 1 and path and not _NOT_ARM.match(path[0]) and not any(_EFFECT_COL.search(x) for x in path):
            groups.setdefault(path[0], []).append(c)
    if len(groups) != 2:
        return [], []
    a, b = groups.values()
    return a, b


_BASELINE_CAPTION = pattern("numbers.extract", "BASELINE_CAPTION")


def _transposed_candidates(tables: list[Table], ico: Ico) -> list[Candidate]:
    """Tables with one row per arm and the outcomes in columns ("White Grape Juice | Total losses › Mean | › SD"):
    the columns whose header path names the outcome, read in each arm's row."""
    out: list[Candidate] = []
    for t in tables:
        if t.header_rows == 0 or not t.stub_column:
            continue
        for paths, body in _blocks(t):
            out.extend(_transposed_block(t, paths, body, ico))
    return out


def _blocks(t: Table) -> list[tuple[dict[int, list[str]], list[TableRow]]]:
    """A table's column headers and body rows, split where a body row is a header of its own: stacked
    sub-tables ("CGI-I response | Proportion responders | % | Adjusted odds ratio" and the arms' rows under
    it); an inner header's columns are named by its first cell and the cell's own text."""
    out: list[tuple[dict[int, list[str]], list[TableRow]]] = [(column_paths(t), [])]
    for row in t.rows:
        if row.header:
            continue
        cells = _row_cells(t, row)
        rest = [c.text.strip() for col, c in cells.items() if col > 1 and c.text.strip()]
        label = cells[1].text.strip() if 1 in cells else ""
        wordy = [x for x in rest if not re.search(r"\d", x) and x not in ("-", "–", "—")]
        if label and len(rest) >= 2 and len(wordy) * 2 > len(rest) and len(set(rest)) > 1:
            out.append(({c: [label, cells[c].text.strip()] if c in cells else [label] for c in range(1, t.n_cols + 1)},
                        []))
            continue
        if row.label:
            out[-1][1].append(row)
    return [b for b in out if b[1]]


def _transposed_block(t: Table, paths: dict[int, list[str]], body: list[TableRow], ico: Ico) -> list[Candidate]:
    """One block of a transposed table: the columns whose header names the outcome, read in each arm's row."""
    out: list[Candidate] = []
    si = {r.id: ico.intervention.score(expand(r.label or "", ico.abbrevs)) for r in body}
    sc = {r.id: ico.comparator.score(expand(r.label or "", ico.abbrevs)) for r in body}
    irow = [r for r in body if si[r.id] > sc[r.id] and si[r.id] == max(si.values(), default=0) > 0]
    crow = [r for r in body if sc[r.id] > si[r.id] and sc[r.id] == max(sc.values(), default=0) > 0]
    if len(irow) != 1 or len(crow) != 1:
        return out
    col_score = {c: ico.outcome.score(" ".join(p[:-1]) if len(p) > 1 else " ".join(p)) for c, p in paths.items()
                 if c > 1}
    best = max(col_score.values(), default=0.0)
    if best < OUTCOME_MIN:
        return out
    first = min(c for c, v in col_score.items() if v == best)
    cols = [c for c, v in col_score.items() if v == best and paths[c][:-1] == paths[first][:-1]]
    caption = f"{t.label or ''} {t.caption or ''} {' '.join(t.footnotes)}"
    reads: dict[str, GroupNumbers] = {}
    values: dict[str, dict[str, Value]] = {}
    for arm, row in (("intervention", irow[0]), ("comparator", crow[0])):
        cells = _row_cells(t, row)
        arm_cells = [(paths[c][-1] if paths[c] else "", cells[c].text) for c in cols if c in cells]
        r = _read_arm(arm_cells, caption + " " + " ".join(" ".join(paths[c]) for c in cols), row.label or "",
                      counts=bool(BINARY_WORDS.search(ico.outcome.phrase)))
        if r is None:
            break
        n_row = _size_in(row.label or "")
        if n_row is None:
            n_row = _n_cell(cells, paths)
        if r.total is None and n_row is not None:
            r.total = n_row
        reads[arm] = r
        values[arm] = _table_values(t, cells, cols, r, None, row.label or "")
    if len(reads) < 2:
        return out
    kinds = {r.kind for r in reads.values()} - {""}
    flags = ["sd_may_be_se"] if any(r.se_labelled for r in reads.values()) else []
    out.append(Candidate(best + 0.05, kinds.pop() if len(kinds) == 1 else "", reads, values, flags,
                         [irow[0].id, crow[0].id]))
    return out


def _arm_of(ico: Ico, text: str) -> str | None:
    """The arm a row label or heading names: by the group label the paper gave it ("Group I"), else by the
    arm's words (the one that scores more), else None."""
    if not text.strip():
        return None
    if len(ico.labels) == 2:
        hit = [a for a, p in ico.labels.items() if p.search(text)]
        if len(hit) == 1:
            return hit[0]
    t = expand(text, ico.abbrevs)
    si, sc = ico.intervention.score(t), ico.comparator.score(t)
    if _NEGATED.match(text):  # "No incentive offer" is not the "incentive offer" arm
        si = 0.0
    return "intervention" if si > sc else "comparator" if sc > si else None


def _arm_row_candidates(tables: list[Table], ico: Ico) -> list[Candidate]:
    """Arms as rows, the outcome named by a heading: (1) rows grouped by arm ("Group I" heading, then the
    outcomes' rows; the same outcome row under "Group II"); (2) one row per arm under a heading that names the
    outcome ("Number of responses › Positive", then "Incentive offer" and "No incentive offer" rows), or under
    no heading in a table whose caption names it. The value columns are read as one arm's cells are (the time
    point the outcome names, else the last; the whole sample over subgroups); between-group columns are left out."""
    out: list[Candidate] = []
    for t in tables:
        if t.header_rows == 0:
            continue
        paths = column_paths(t)
        vcols = [c for c, p in paths.items() if c > 1 and not any(_EFFECT_COL.search(x) for x in p)
                 and not (p and _NOT_ARM.match(p[-1]) and not _OVERALL.search(p[-1]))]
        if not vcols:
            continue
        caption = f"{t.label or ''} {t.caption or ''} {' '.join(t.footnotes)}"
        abbrevs = {**ico.abbrevs, **abbreviations(t)}
        counts = bool(BINARY_WORDS.search(ico.outcome.phrase))
        by_arm: dict[str, dict[str, TableRow]] = {"intervention": {}, "comparator": {}}  # (1): arm -> label -> row
        blocks: dict[str, list[TableRow]] = {}  # (2): heading -> its rows
        for row, _cells, label, sub in _body_rows(t):
            head = " ".join(x for x in (row.group, sub if sub != row.group else "") if x)
            arm = _arm_of(ico, row.group or sub)
            if arm is not None and label:
                by_arm[arm].setdefault(label, row)
            if label and all(r.label != label for r in blocks.get(head, [])):
                blocks.setdefault(head, []).append(row)
        pairs: list[tuple[TableRow, TableRow, float, float]] = []
        for label, irow in by_arm["intervention"].items():
            crow = by_arm["comparator"].get(label)
            s = ico.outcome.score(expand(label, abbrevs))
            if crow is not None and s >= WIDE_MIN:
                pairs.append((irow, crow, s, 1.0))
        for head, rows in blocks.items():
            arms = {r.id: _arm_of(ico, r.label or "") for r in rows}
            irows = [r for r in rows if arms[r.id] == "intervention"]
            crows = [r for r in rows if arms[r.id] == "comparator"]
            s = ico.outcome.score(expand(head or caption, abbrevs))
            if len(irows) == 1 and not crows:  # "Incentive offer" / "No incentive offer": the negation is the other arm
                neg = [r for r in rows if _NEGATED.match(r.label or "") and r is not irows[0]
                       and ico.intervention.score(expand(_NEGATED.sub("", r.label or ""), abbrevs)) > 0]
                crows = neg if len(neg) == 1 else []
            if len(irows) == 1 and len(crows) == 1 and s >= WIDE_MIN:
                pairs.append((irows[0], crows[0], s, 0.0))
        for irow, crow, s, grouped in pairs:
            reads: dict[str, GroupNumbers] = {}
            values: dict[str, dict[str, Value]] = {}
            for arm, row in (("intervention", irow), ("comparator", crow)):
                cells = _row_cells(t, row)
                arm_cells = [(paths[c][-1] if paths[c] else "", cells[c].text) for c in vcols if c in cells]
                r = _read_arm(arm_cells, caption + " " + " ".join(" ".join(paths[c]) for c in vcols), row.label or "",
                              counts=counts, outcome=ico.outcome,
                              full_heads=[" ".join(paths[c]) for c in vcols if c in cells])
                if r is None:
                    break
                n_row = _size_in(f"{row.group or ''} {row.label or ''}")
                if r.total is None and n_row is not None:
                    r.total = n_row
                reads[arm] = r
                used = [c for c in vcols if c in cells and r.text and r.text in cells[c].text] or vcols
                values[arm] = _table_values(t, cells, used, r, None, row.label or "")
            if len(reads) < 2:
                continue
            kinds = {r.kind for r in reads.values()} - {""}
            flags = ["sd_may_be_se"] if any(r.se_labelled for r in reads.values()) else []
            meta = {"label": s, "caption": ico.outcome.score(caption), "arm_rows": 1.0 + grouped,
                    "baseline": float(bool(_BASELINE_CAPTION.search(t.caption or "")))}
            out.append(Candidate(s, kinds.pop() if len(kinds) == 1 else "", reads, values, flags,
                                 [irow.id, crow.id], meta=meta))
    return out


_N_HEAD = re.compile(r"\(\s*n\s*\)\s*$|^\s*(?:n|no\.?|number)\s*$", re.I)
_N_CELL = re.compile(r"^(?:.*\(\s*(?:n\s*=\s*)?(?P<a>\d{1,5})\s*\)|\s*(?P<b>\d{1,5}))\s*$", re.I)


def _n_cell(cells: dict[int, TableCell], paths: dict[int, list[str]]) -> float | None:
    """An arm row's size from its cell under an "n" column ("Group (n) | C (8)", "n | 34")."""
    for col, cell in cells.items():
        head = paths.get(col) or [""]
        m = _N_CELL.match(cell.text) if _N_HEAD.search(head[-1]) else None
        if m:
            return float(m.group("a") or m.group("b"))
    return None


def _size_in(text: str) -> float | None:
    """A group size written as "n = 30" in a header or phrase."""
    got = sample_sizes(text)
    return float(got[0][0]) if got else None


_N_PCT_HEAD = re.compile(r"\b(n|no\.?|number)\s*\(\s*%\s*\)", re.I)
_N_PCT = re.compile(r"\b(n|no\.?|number)\s*\(\s*%\s*\)|\(\s*%\s*\)|,\s*%\s*$|percent", re.I)
_SE_WORDS = re.compile(r"\bs\.?e\.?m?\b|standard error", re.I)
_SD_WORDS = re.compile(r"\bs\.?d\.?\b|standard deviation", re.I)


def _read_arm(cells: list[tuple[str, str]], context: str, row_label: str, *, counts: bool,
              outcome: Terms | None = None, full_heads: list[str] | None = None) -> GroupNumbers | None:
    """One arm's cells in a table row, each as (column sub-header, text); ``context`` is caption + headers.

    A cell with a pattern ("n/N (%)", "n (%)", "mean ± SD", "mean (SD)") is read whole; "k (p)" counts as
    events and a percentage under an "n (%)" header or for an outcome counted in patients. Lone numbers in
    separate columns are told apart by their sub-header (%, SD, SE, n). ``counts``: the outcome is a
    count of patients (plain integers are events, not means)."""
    # "101.9 (±35.1)" is "mean (SD)"; "4.3 ± 1,4" a decimal comma
    cells = [(h, re.sub(r"(?<=\d),(?=\d(?!\d{2}\b))", ".", re.sub(r"\(\s*[±+]/?-?\s*", "(", t))) for h, t in cells]
    nonempty = [(h, t) for h, t in cells if t.strip() and t.strip() not in ("-", "–", "—", "NA", "n.a.")]
    if not nonempty:
        return None
    lab = row_label.lower()
    n_pct = bool(_N_PCT_HEAD.search(context + " " + row_label))
    pairs_are_pct = (n_pct or counts) and not re.search(r"\bsd\b|mean", lab)
    se = bool(_SE_WORDS.search(context)) and not _SD_WORDS.search(context)
    full = dict(zip(range(len(cells)), full_heads or [h for h, _ in cells], strict=False))
    whole: list[tuple[str, GroupNumbers]] = []  # cells holding both numbers, with their full header path
    for k, (h, t) in enumerate(cells):
        if (h, t) not in nonempty:
            continue
        h = full.get(k, h)
        g = read_group_numbers(t, percent_pairs=pairs_are_pct)
        if g is not None and ((g.kind == "binary" and (g.percent is not None or g.total is not None))
                              or g.kind == "continuous"):
            g.se_labelled = g.se_labelled or (se and g.kind == "continuous")
            whole.append((h, g))
    if whole:
        # several time points under one arm ("Week 4 | Week 12"): the one the outcome names, else the last
        # several cells under one arm: the time point the outcome names; the whole sample ("Overall", "Total")
        # over subgroups; the last of several time points (the final one); else the first
        named = [g for h, g in whole if outcome is not None and _names_time(outcome, h)]
        if named:
            return named[-1]
        overall = [g for h, g in whole if _OVERALL.search(h)]
        if len(whole) > 1 and len(overall) == 1:
            return overall[0]
        times = len(whole) > 1 and all(_TIME.search(h) for h, _ in whole) and len({g.kind for _, g in whole}) == 1
        return whole[-1][1] if times else whole[0][1]
    plain: list[tuple[str, GroupNumbers]] = []
    # separate cells under several time points ("Baseline › M | SD | Follow-up › M | SD"): the last time point's
    stamps = [m.group(0).strip().lower() if (m := _TIME.search(full.get(k, h))) else None
              for k, (h, t) in enumerate(cells) if (h, t) in nonempty]
    if len(stamps) > 1 and all(stamps) and len(set(stamps)) > 1:
        nonempty = [x for x, st in zip(nonempty, stamps, strict=True) if st == stamps[-1]]
    for h, t in nonempty:
        g = read_group_numbers(t)
        if g is not None and (g.plain is not None or (g.percent is not None and g.events is None)):
            plain.append((h.lower(), g))
    if not plain:
        return None
    out = GroupNumbers("", plain[0][1].start, plain[-1][1].end, " | ".join(g.text for _, g in plain))
    for h, g in plain:
        v = g.plain
        if g.percent is not None or re.search(r"%|percent", h) or (len(plain) == 1 and _N_PCT.search(row_label)
                                                                   and "(n)" not in g.text):
            out.percent = g.percent if g.percent is not None else g.text.strip()
            out.kind = "binary"
        elif _SD_WORDS.search(h):
            out.sd, out.kind = v, "continuous"
        elif _SE_WORDS.search(h):
            out.sd, out.se_labelled, out.kind = v, True, "continuous"
        elif "(n)" in g.text or re.fullmatch(r"\s*(n|no\.?|number)\s*", h):
            out.events, out.kind = v, "binary"
        elif out.mean is None and out.events is None:
            out.mean = v
    if out.kind == "binary" and out.events is None and out.mean is not None and float(out.mean).is_integer():
        out.events, out.mean = out.mean, None
    if out.kind == "" and counts and out.mean is not None and float(out.mean).is_integer():
        out.events, out.mean, out.kind = out.mean, None, "binary"
    if out.kind == "":
        out.kind = "continuous" if out.mean is not None else ""
    return out if (out.events is not None or out.mean is not None or out.percent is not None) else None


_OVERALL, _TIME = patterns("numbers.extract", "OVERALL", "TIME")


def _names_time(outcome: Terms, header: str) -> bool:
    """Whether a column sub-header is a time point that the outcome names ("Week 12" for "... at week 12")."""
    m = _TIME.search(header)
    return m is not None and m.group(0).strip().lower() in outcome.phrase.lower()


_MEASURES = ("onset", "duration", "severity", "incidence", "frequency", "latency", "recovery")
_MEASURE = re.compile(r"\b(" + "|".join(_MEASURES) + r")\b", re.I)


def _other_measure(outcome: str, text: str) -> bool:
    """Whether a text measures the outcome's quantity another way: the outcome asks for the onset of a block
    and the text gives its duration (it names another measure of the list and not the outcome's own)."""
    want = {m.lower() for m in _MEASURE.findall(outcome)}
    have = {m.lower() for m in _MEASURE.findall(text)}
    return bool(want) and not (want & have) and bool(have)


def _covered(label: str, outcome: str) -> float:
    """The share of a row label's words that the outcome phrase contains (a "Headache" row for "adverse events - headache")."""
    ws = [w for w in words(label) if not w.replace(".", "").isdigit()]
    return Terms.of(" ".join(ws)).score(outcome) if ws else 0.0


def _table_values(t: Table, cells: dict[int, TableCell], cols: list[int], r: GroupNumbers, n_head: float | None,
                  head: str) -> dict[str, Value]:
    used = [cells[c] for c in cols if c in cells and cells[c].text.strip()]
    text = " | ".join(c.text for c in used)
    first = used[0] if used else cells.get(cols[0])
    base = {"text": text, "source": "table", "table": t.id, "row": first.row if first else None,
            "col": first.col if first else cols[0]}
    vals: dict[str, Value] = {}
    for f, v in (("events", r.events), ("mean", r.mean), ("sd", r.sd)):
        if v is not None:
            vals[f] = Value(value=v, **base)
    if r.total is not None:
        if n_head is not None and r.total == n_head:
            vals["group_size"] = Value(value=n_head, text=head, source="table", table=t.id, row=1, col=cols[0])
        else:
            vals["group_size"] = Value(value=r.total, **base)
    if r.percent is not None:
        vals["_percent"] = Value(value=float(r.percent), **base)
    return vals


# ---- sentences -----------------------------------------------------------------------------------
def _sentence_candidates(doc: Document, ico: Ico, *, units: list[tuple[str, str, str, int]] | None = None,
                         source: str = "text") -> list[Candidate]:
    out: list[Candidate] = []
    # bare values may be means ("9.8 min vs 14.3 min"), in running text (not in figure captions)
    means = source == "text" and not BINARY_WORDS.search(ico.outcome.phrase)
    paired = False
    if units is None:
        sents = doc.sentences("all")
        units = [(s.id, s.text, s.scope, s.start) for s in sents]
        paired = True
    for uid, text, scope, start in units:
        if len(comparison_pairs(text)) < 2:  # several "A vs. B" clauses: each its own (_clause_candidates)
            out.extend(_sentence_candidate(ico, uid, text, scope, start, source, means))
    if paired:
        # the arms reported in two sentences running on ("In group A, X fell from 47 ± 14 to 36 ± 16 ...
        # In contrast, in group B ... from 42 ± 16 to 38 ± 17"): each sentence names one arm, the other the other
        for s1, s2 in pairwise(sents):
            if s2.scope != s1.scope or s2.start != s1.start + len(s1.text) + 1:
                continue
            (i1, c1), (i2, c2) = _named_arms(ico, s1.text), _named_arms(ico, s2.text)
            # the second sentence names the other arm first (it may name both later: "between groups A and B")
            if not ((i1 and not c1 and c2 and (not i2 or min(c2) < min(i2)))
                    or (c1 and not i1 and i2 and (not c2 or min(i2) < min(c2)))):
                continue
            for c in _sentence_candidate(ico, s1.id, f"{s1.text} {s2.text}", s1.scope, s1.start, source, means):
                c.score -= 0.1
                out.append(c)
    return out


def _clause_candidates(doc: Document, ico: Ico, *, several: bool = False) -> list[Candidate]:
    """The "A vs. B" comparisons of sentences that name both arms, each read in its own clause (with
    ``several``, only in sentences holding two or more): the clause must name the outcome; the first value is
    the arm the sentence names first (the order of "X vs. Y")."""
    out: list[Candidate] = []
    for sent in doc.sentences("all"):
        pairs = comparison_pairs(sent.text)
        if not pairs or (several and len(pairs) < 2):
            continue
        ipos, cpos = _arm_mentions(ico, "intervention", sent.text)
        if not ipos or not cpos or _other_measure(ico.outcome.phrase, sent.text):
            continue
        first, second = ("intervention", "comparator") if min(ipos) < min(cpos) else ("comparator", "intervention")
        for clause, r1, r2 in pairs:
            s = ico.outcome.score(expand(sent.text[clause:r1.start], ico.abbrevs))
            if s < OUTCOME_MIN:
                continue
            values: dict[str, dict[str, Value]] = {}
            for arm, r in ((first, r1), (second, r2)):
                base = {"text": sent.text[r.start:r.end], "source": "text", "unit_id": sent.id, "scope": sent.scope,
                        "start": sent.start + r.start, "end": sent.start + r.end}
                vals = {f: Value(value=v, **base) for f, v in (("mean", r.mean), ("sd", r.sd)) if v is not None}
                if r.percent is not None:
                    vals["_percent"] = Value(value=float(r.percent), **base)
                values[arm] = vals
            out.append(Candidate(s - 0.2, r1.kind, {first: r1, second: r2}, values,
                                 ["arms_swapped"] if first == "comparator" else [], [sent.id]))
    return out


def _named_arms(ico: Ico, text: str) -> tuple[list[int], list[int]]:
    """Where a text names the intervention and the comparator: by the group labels the paper gave them when it
    uses one ("in group B, who wore the cotton textile"), else by the arms' words."""
    if len(ico.labels) == 2:
        lab = {a: [m.start() for m in p.finditer(text)] for a, p in ico.labels.items()}
        if lab["intervention"] or lab["comparator"]:
            return lab["intervention"], lab["comparator"]
    return mentions(ico.intervention, text), mentions(ico.comparator, text)


def _sentence_candidate(ico: Ico, uid: str, text: str, scope: str, start: int, source: str,
                        means: bool) -> list[Candidate]:
    """The candidate one sentence (or two running on) gives, if it names the outcome and both arms' numbers."""
    out: list[Candidate] = []
    s = ico.outcome.score(expand(text, ico.abbrevs))
    if s < OUTCOME_MIN or not re.search(r"\d", text) or _other_measure(ico.outcome.phrase, text):
        return out
    ipos, cpos = _arm_mentions(ico, "intervention", text)
    if not ipos or not cpos:
        return out
    resp = re.search(r"respectively", text, re.I)
    found = _respectively(text, ico, means=means) if resp else {}
    if not found and not (resp and len(_forms(text)[3]) > 2):
        # three or more means "..., respectively" that no list matched: nearest names would pair them wrongly
        found = _assign(text, ipos, cpos, means=means)
    if len(found) < 2 or found["intervention"][0].kind != found["comparator"][0].kind:
        return out
    values: dict[str, dict[str, Value]] = {}
    for arm, (r, a, b) in found.items():
        base = {"text": text[a:b], "source": source, "unit_id": uid, "scope": scope if source == "text" else None,
                "start": start + a if source == "text" else None, "end": start + b if source == "text" else None}
        vals: dict[str, Value] = {}
        for f, v in (("events", r.events), ("group_size", r.total), ("mean", r.mean), ("sd", r.sd)):
            if v is not None:
                vals[f] = Value(value=v, **base)
        if r.percent is not None:
            vals["_percent"] = Value(value=float(r.percent), **base)
        values[arm] = vals
    flags = ["arms_swapped"] if found["comparator"][1] < found["intervention"][1] else []
    if re.search(r"\bSEM?\b|standard error", text) and not re.search(r"\bSD\b|standard deviation", text):
        flags.append("sd_may_be_se")
        for arm in values:
            if "sd" in values[arm]:
                found[arm][0].se_labelled = True
    bare = all(r.events is None and r.total is None and (r.mean is None or r.sd is None)
               for r, _, _ in found.values())
    out.append(Candidate(s - (0.2 if bare else 0.0), found["intervention"][0].kind,
                         {a: r for a, (r, _, _) in found.items()}, values,
                         flags, [uid]))
    return out


def _assign(text: str, ipos: list[int], cpos: list[int], *, means: bool = False
            ) -> dict[str, tuple[GroupNumbers, int, int]]:
    """Numbers in a sentence assigned to arms: each to the arm named nearest before it ("drug X (3.1 ± 1.2)")
    or, when that does not give both arms, nearest after it ("12/60 on drug X"). Forms are tried in turn:
    events of a total, events with a percentage, a mean with its dispersion."""
    for reads in _forms(text, means=means):
        if len(reads) < 2:
            continue
        for direction in ("before", "after"):
            found: dict[str, tuple[GroupNumbers, int, int]] = {}
            for r in reads:
                arm = _nearest_arm(r.start if direction == "before" else r.end, ipos, cpos, direction)
                if arm and arm not in found:
                    found[arm] = (r, r.start, r.end)
            if len(found) == 2:
                return found
        vs = _VS.fullmatch(text[reads[0].end:reads[1].start]) if len(reads) == 2 else None
        if vs is not None and ipos and cpos and max(min(ipos), min(cpos)) < reads[0].start:
            # "more in the intervention group than in the control group (79% vs. 29%)": in the order named
            first, second = ("intervention", "comparator") if min(ipos) < min(cpos) else ("comparator", "intervention")
            return {first: (reads[0], reads[0].start, reads[0].end), second: (reads[1], reads[1].start, reads[1].end)}
    return {}


_VS = re.compile(r"\s*,?\s*(?:vs\.?|versus|v\.|compared with|and)\s*", re.I)


def _forms(text: str, *, lists: bool = False, means: bool = False) -> list[list[GroupNumbers]]:
    """A sentence's per-group numbers by form, tried in turn: events of a total, events with a percentage,
    a mean with its dispersion (of "from X to Y", Y), and bare percentages (events then come from the
    percentage and the group size; outside a "respectively" list, only two: more list other outcomes or time
    points too); with ``means``, last, two bare values as the arms' means."""
    found_all = [_of_total(text, g) for g in find_group_numbers(text)]
    out = [[g for g in found_all if g.kind == "binary" and g.total is not None],
           [g for g in found_all if g.kind == "binary" and g.total is None and g.percent is not None],
           percent_counts(text),
           drop_baselines(text, [g for g in found_all if g.kind == "continuous"]),
           _bare_percentages(text, lists=lists)]
    if means and not any(len(f) >= 2 for f in out):
        out.append(bare_means(text))
    return out


#: the total after events and their percentage: "265 [25%] of 1054 participants", "12 (40%) out of 30"
_OF_TOTAL = re.compile(r"\s*(?:of|out of)\s+(?:the\s+)?(\d{1,3}(?:,\d{3})+|\d+)\b(?![.,]\d|\s*%)")


def _of_total(text: str, g: GroupNumbers) -> GroupNumbers:
    """Events with a percentage and no total, followed by "of N": N is the total when the percentage is
    events / N at its precision (the reader stops at the percentage)."""
    if g.kind != "binary" or g.total is not None or g.percent is None or g.events is None:
        return g
    m = _OF_TOTAL.match(text, g.end)
    if m is None or not derive.percent_matches(int(g.events), int(m.group(1).replace(",", "")), g.percent):
        return g  # "7 (12%) of 30 mg": 7 of 30 is not 12%, no total
    return replace(g, total=float(m.group(1).replace(",", "")), end=m.end(), text=text[g.start:m.end()])


def _bare_percentages(text: str, *, lists: bool = False) -> list[GroupNumbers]:
    """The bare percentages of a sentence: two, one for each arm (or, with ``lists``, as many as a
    "..., respectively" list names); none when one ends a list that shares its % sign ("35 and 42.5%")."""
    pcts = find_percentages(text)
    if (len(pcts) != 2 and not lists) or any(re.search(r"\d\s*(?:,|and|or|&)\s*$", text[:g.start]) for g in pcts):
        return []
    return pcts


_LIST_SPLIT = re.compile(r",|;|\band\b|\bvs\.?|\bversus\b|\bor\b|\bthan\b")
_LIST_START = re.compile(r"\b(?:in|for|of|among|between|from)\b", re.I)


def _respectively(text: str, ico: Ico, *, means: bool = False) -> dict[str, tuple[GroupNumbers, int, int]]:
    """"3.94 ± 2.35, 3.59 ± 2.35 and 2.19 ± 1.63 in AJ, WGJ and WA, respectively": the values and the group
    names are two lists of the same length, matched in order (names after the values, or before them); a value
    in brackets after another ("562.6 ± 33.7 μm (increased by 28.1 ± 23.6 μm)") qualifies it and is no item."""
    low = text.lower()
    for reads in _forms(text, lists=True, means=means):
        outside = [r for r in reads if not _in_brackets(text, r.start)]
        reads = outside if len(outside) >= 2 else reads
        if len(reads) < 2:
            continue
        k = low.find("respectively", reads[-1].end)
        segs = [text[reads[-1].end:k]] if k >= 0 else []
        # the names before the values: from the last "in"/"for"/... on, else from an earlier one ("in the
        # placebo group than in the X and Y groups (25.2%, 12.5%, 10.5%, respectively)")
        starts = [m.end() for m in _LIST_START.finditer(text[:reads[0].start])]
        for st in starts[::-1]:
            segs.append(re.sub(r"\b(were|was|are|is|had|of)\b\W*$", "", text[st:reads[0].start].strip()))
        for seg in segs:
            items = [x for x in _LIST_SPLIT.split(seg) if re.search(r"[A-Za-z]{2}", x)]
            if len(items) != len(reads):
                continue
            si = [ico.intervention.score(x) for x in items]
            sc = [ico.comparator.score(x) for x in items]
            ii = [j for j in range(len(items)) if si[j] > sc[j] and si[j] == max(si) > 0]
            cc = [j for j in range(len(items)) if sc[j] > si[j] and sc[j] == max(sc) > 0]
            if len(ii) == 1 and len(cc) == 1:
                ri, rc = reads[ii[0]], reads[cc[0]]
                return {"intervention": (ri, ri.start, ri.end), "comparator": (rc, rc.start, rc.end)}
    return {}


def _in_brackets(text: str, pos: int) -> bool:
    """Whether a position lies inside round or square brackets."""
    depth = 0
    for ch in text[:pos]:
        depth += 1 if ch in "([" else -1 if ch in ")]" and depth > 0 else 0
    return depth > 0


def _nearest_arm(pos: int, ipos: list[int], cpos: list[int], direction: str) -> str | None:
    """The arm mentioned nearest before (or after) ``pos``."""
    if direction == "before":
        cands = [(pos - p, "intervention") for p in ipos if p <= pos] + [(pos - p, "comparator") for p in cpos if p <= pos]
    else:
        cands = [(p - pos, "intervention") for p in ipos if p >= pos] + [(p - pos, "comparator") for p in cpos if p >= pos]
    return min(cands)[1] if cands else None


_NONE = re.compile(r"\b(?:no|none of the (?:patients|subjects|participants) (?:had|experienced|developed|reported))\b"
                   r"(?P<np>[^.;:]{3,160}?)(?:\b(?:were|was|have been|had been)\s+(?:reported|observed|recorded|noted|"
                   r"seen|found|detected|documented|experienced)\b|\b(?:occurred|developed)\b|[.;]|$)", re.I)


def _zero_candidates(doc: Document, ico: Ico) -> list[Candidate]:
    """"No unexpected adverse events were reported": no events in either arm, when the sentence names the
    outcome in what it negates and names neither arm alone (a sentence about one arm says nothing of the other)."""
    out: list[Candidate] = []
    for s in doc.sentences("all"):
        for m in _NONE.finditer(s.text):
            np_ = m.group("np")
            if m.group(0).lower().startswith("no") and not re.search(r"\b(?:were|was|have been|had been)\s+\w+ed\b|"
                                                                       r"\b(?:occurred|developed)\b", m.group(0)):
                continue  # "no" needs a verb of reporting ("no X were observed")
            if re.search(r"\d", np_) or re.search(r"\b(?:significant|difference|change)", np_, re.I):
                continue
            # one of the things negated is the outcome, with no word the outcome lacks ("no serious adverse
            # events" says nothing of adverse events in general)
            pieces = [x for x in re.split(r",|;|\band/or\b|\band\b|\bor\b", np_) if words(x)]
            score = max((ico.outcome.score(x) for x in pieces if _covered(x, ico.outcome.phrase) == 1.0), default=0.0)
            if score < OUTCOME_MIN:
                continue
            ipos, cpos = mentions(ico.intervention, s.text), mentions(ico.comparator, s.text)
            if bool(ipos) != bool(cpos):
                continue
            base = {"text": s.text[m.start():m.end()], "source": "text", "unit_id": s.id, "scope": s.scope,
                    "start": s.start + m.start(), "end": s.start + m.end()}
            reads = {a: GroupNumbers("binary", m.start(), m.end(), m.group(0), events=0.0)
                     for a in ("intervention", "comparator")}
            values = {a: {"events": Value(value=0.0, **base)} for a in ("intervention", "comparator")}
            out.append(Candidate(score - 0.3, "binary", reads, values, [], [s.id]))
    return out


def _caption_candidates(doc: Document, ico: Ico) -> list[Candidate]:
    units = [(f"excluded{i}", b.text, "body", 0) for i, b in enumerate(doc.excluded) if b.kind in ("caption", "figure")]
    return _sentence_candidates(doc, ico, units=units, source="caption")


# ---- group sizes, derivations, flags -------------------------------------------------------------
def _fill_group_sizes(doc: Document, ico: Ico, arms: dict[str, Arm], context: list[str], tables: list[Table],
                      best_table: str | None = None) -> None:
    """Group sizes, when the chosen source does not give them: from a table column header of the arm
    ("Placebo (n = 58)"), else from a "Number of patients" row of that table, else from "arm ... (n = 30)" in
    the chosen table's caption or footnotes, then in a sentence, then in another table's caption or
    footnotes, else from a sentence on allocation that puts a count next to each arm ("497 were randomised
    (251 intervention and 246 control)")."""
    ordered = sorted(tables, key=lambda t: t.id != best_table)
    for k, t in enumerate(ordered):
        if t.header_rows == 0:
            continue
        icols, ccols = _arm_columns(t, ico)
        paths = column_paths(t)
        for name, cols in (("intervention", icols), ("comparator", ccols)):
            if arms[name].group_size is not None or not cols:
                continue
            head = " ".join(paths[cols[0]])
            n = _size_in(head)
            if n is not None:
                arms[name].group_size = Value(value=n, text=head, source="table", table=t.id, row=1, col=cols[0])
                context.append(f"{t.id} header")
        if k == 0 and t.id == best_table:  # the chosen table's own "Number of patients" row before other tables
            _size_row(t, ico, arms, context)
    for t in ordered:
        if t.header_rows == 0 or all(arms[a].group_size is not None for a in arms):
            continue
        _size_row(t, ico, arms, context)
    notes = [(t, f"{t.caption or ''} {' '.join(t.footnotes)}") for t in ordered]
    units = [(f"{t.id} caption", text, "", 0, False) for t, text in notes if t.id == best_table]
    units += [(s.id, s.text, s.scope, s.start, True) for s in doc.sentences("all")]
    units += [(f"{t.id} caption", text, "", 0, False) for t, text in notes if t.id != best_table]
    for name in ("intervention", "comparator"):
        if arms[name].group_size is not None:
            continue
        for uid, text, scope, start, is_text in units:
            mine, theirs = _arm_mentions(ico, name, text)
            sizes = [(n, a, b, 20) for n, a, b in sample_sizes(text)]
            if is_text:  # "a group of 19 firefighters exposed to noise and a control group of 10 adults"
                sizes += [(int(m.group(1)), m.start(1), m.end(1), 40) for m in _GROUP_OF.finditer(text)]
            # the arm named before its size ("placebo (n = 14)") first, then after it ("N = 357 for placebo")
            hits = [(n, a, b) for n, a, b, _ in sizes
                    if (near := [p for p in mine if 0 <= a - p <= 60]) and not [p for p in theirs if max(near) < p < a]]
            hits += [(n, a, b) for n, a, b, w in sizes
                     if (after := [p for p in mine if 0 < p - b <= w]) and not [p for p in theirs if b < p < min(after)]]
            if not hits:
                continue
            n, a, b = hits[0]
            if is_text:
                _set_size(arms[name], float(n), text, uid, scope, start, a, b, context)
            else:
                arms[name].group_size = Value(value=float(n), text=text[a:b], source="table", table=uid.split()[0])
                context.append(uid)
            break
    if arms["intervention"].group_size is None and arms["comparator"].group_size is None:
        _allocation_sizes(doc.sentences("all"), ico, arms, context)
    if arms["intervention"].group_size is None and arms["comparator"].group_size is None:
        _equal_sizes(doc.sentences("all"), arms, context)
    if arms["intervention"].group_size is None and arms["comparator"].group_size is None:
        _parallel_sizes(doc.sentences("all"), ico, arms, context)


_GROUP_OF = pattern("numbers.extract", "GROUP_OF")


#: one size for every group: "two groups of 30 each", "30 patients in each group", "n = 30 per group"
_EQUAL = re.compile(r"\b(?:two|three|four|\d) (?:equal )?groups of (?P<a>\d{1,5}|" + COUNT_WORD + r")\b(?! ?%)|"
                    r"(?<![\d.,/-])\b(?P<b>\d{1,5}|" + COUNT_WORD + r") (?:(?:surviving|eligible|healthy) )?"
                    r"(?:(?:patients|subjects|participants|children|women|men|volunteers|animals|rats|mice|rabbits|"
                    r"dogs|pigs|eyes) )?(?:in|per|into|for) (?:each|every) (?:group|arm)\b|"
                    r"(?<![\d.,/-])\b(?P<c>\d{1,5}|" + COUNT_WORD + r") (?:(?:patients|subjects|participants|children|"
                    r"women|men|volunteers|animals|rats|mice) )?per (?:group|arm)\b",
                    re.I)


_ONE_ARM_SIZE = pattern("numbers.extract", "ONE_ARM_SIZE")


def _parallel_sizes(sentences: list, ico: Ico, arms: dict[str, Arm], context: list[str]) -> None:
    """Both arms' sizes from the first sentence that gives two sizes and names both arms after them, in the
    same order ("the test (n=25) and control (n=19) groups wore an anion textile or pure cotton"): parallel
    lists, read as "respectively" reads them."""
    for s in sentences:
        sizes = sample_sizes(s.text)
        if len(sizes) != 2 or (not _ALLOCATION.search(s.text) and not re.search(r"\bgroups?\b", s.text)):
            continue
        ipos, cpos = _arm_mentions(ico, "intervention", s.text)
        after = sizes[1][2]
        ia, ca = [p for p in ipos if p > after], [p for p in cpos if p > after]
        if not ia or not ca or min(ia) == min(ca) or [p for p in ipos + cpos if p < after]:
            continue
        order = ("intervention", "comparator") if min(ia) < min(ca) else ("comparator", "intervention")
        for name, (n, a, b) in zip(order, sizes, strict=True):
            _set_size(arms[name], float(n), s.text, s.id, s.scope, s.start, a, b, context)
        return


def _equal_sizes(sentences: list, arms: dict[str, Arm], context: list[str]) -> None:
    """Both arms' sizes from the first sentence that gives one size for every group ("two groups of 30 each")."""
    for s in sentences:
        m = _EQUAL.search(s.text)
        if m is None or _ONE_ARM_SIZE.search(s.text[:m.start()] + " " + s.text[m.end():]):
            continue  # "14 per arm were randomised and 40 (12 in control, ...) analysed": not one size for all
        g = next(k for k in ("a", "b", "c") if m.group(k))
        n = count_of(m.group(g)) or 0
        if n > 1:
            for arm in arms.values():
                _set_size(arm, float(n), s.text, s.id, s.scope, s.start, m.start(g), m.end(g), context)
            return


_SIZE_ROW = pattern("numbers.extract", "SIZE_ROW")


def _size_row(t: Table, ico: Ico, arms: dict[str, Arm], context: list[str]) -> None:
    """Group sizes from a table row that counts each arm's patients ("Number of patients | 30 | 22")."""
    icols, ccols = _arm_columns(t, ico)
    if not icols or not ccols:
        return
    for row in t.rows:
        cells = _row_cells(t, row)
        if row.header or 1 not in cells or not _SIZE_ROW.match(cells[1].text):
            continue
        got: dict[str, tuple[float, TableCell]] = {}
        for name, cols in (("intervention", icols), ("comparator", ccols)):
            c = cells.get(cols[0])
            m = re.fullmatch(r"\s*(\d{1,6})\s*", c.text if c else "")
            if c is not None and m:
                got[name] = (float(m.group(1)), c)
        if len(got) == 2:
            for name, (n, c) in got.items():
                if arms[name].group_size is None:
                    arms[name].group_size = Value(value=n, text=c.text, source="table", table=t.id, row=c.row,
                                                  col=c.col)
            context.append(row.id)
            return


_ALLOCATION = pattern("numbers.extract", "ALLOCATION")
#: an integer that counts people, followed closely by words (an arm's name): "251 intervention", "30 in the X group"
_COUNT_BEFORE = re.compile(r"(?<![\d.,/-])\b(\d{1,5}|" + COUNT_WORD + r")(?![\d.,/%-])\s+(?:(?:patients|participants|subjects|women|men|children|"
                           r"were|was|to|in|into|on|the|received|receiving|allocated|assigned|randomi[sz]ed)\s+){0,4}")


def _arm_mentions(ico: Ico, arm: str, text: str) -> tuple[list[int], list[int]]:
    """Where a sentence names this arm and the other one: by their own words, or, when the sentence names
    neither that way, by their roles ("intervention", "treatment" / "control", "placebo")."""
    terms, other = (ico.intervention, ico.comparator) if arm == "intervention" else (ico.comparator, ico.intervention)
    ipos, cpos = _named_arms(ico, text)
    if ipos and cpos:  # by the arms' group labels, else their words
        ipos, cpos = _own_phrases(text, ipos, cpos), _own_phrases(text, cpos, ipos)
        return (ipos, cpos) if arm == "intervention" else (cpos, ipos)
    mine, theirs = mentions(terms, text), mentions(other, text)
    if mine and theirs:
        return mine, theirs
    if bool(mine) != bool(theirs) and ico.shared is not None:
        # arms that differ by a mark ("bimatoprost PF" / "bimatoprost"): the unmarked arm is named by the shared
        # words alone, where they do not open or close the marked arm's phrase
        bare = [p for p in mentions(ico.shared, text)
                if not any(abs(q - p) <= 25 and not _PHRASE_BREAK.search(text[min(p, q):max(p, q)])
                           for q in mine or theirs)]
        if bare:
            return (mine, bare) if mine else (bare, theirs)
    roles = {"intervention": _ROLE_I, "comparator": _ROLE_C}
    if theirs:  # "the treatment group (n = 30) ... the placebo group (n = 22)": this arm by its role
        role = [m.start() for m in roles[arm].finditer(text)]
        return [p for p in role if p not in theirs] or _other_group(text, theirs), theirs
    if mine:  # "... in the clonidine group when compared to ... in the control group": the other arm by its role
        role = [m.start() for m in roles["comparator" if arm == "intervention" else "intervention"].finditer(text)]
        return mine, [p for p in role if p not in mine] or _other_group(text, mine)
    mine = [m.start() for m in roles[arm].finditer(text)]
    theirs = [m.start() for m in roles["comparator" if arm == "intervention" else "intervention"].finditer(text)]
    if bool(mine) != bool(theirs):  # one arm by its role, the other only as "the closed capsule group"
        mine, theirs = mine or _other_group(text, theirs), theirs or _other_group(text, mine)
    return mine, theirs


def _own_phrases(text: str, mine: list[int], theirs: list[int]) -> list[int]:
    """An arm's mentions less those that open the other arm's name: arms that share a word ("bimatoprost PF"
    and "bimatoprost"), where the shared word is followed in the same phrase by the other arm's own word."""
    keep = [p for p in mine if not any(0 < q - p <= 25 and not _PHRASE_BREAK.search(text[p:q]) for q in theirs)]
    return keep or mine


_PHRASE_BREAK = re.compile(r"[,;()]|\b(?:and|or|vs|versus|than|with)\b")


_GROUP_PHRASE = re.compile(r"\b(?:[A-Za-z][\w-]*\s+){1,2}(?:group|arm)\b", re.I)


def _other_group(text: str, found: list[int]) -> list[int]:
    """Where a two-arm sentence names a group that is not the arm already found: "... in the closed capsule group
    and ... in the control group" names the intervention by its own label; only when exactly one such group
    phrase is left (and it is not "both groups", "each group")."""
    got = [m for m in _GROUP_PHRASE.finditer(text)
           if not any(m.start() <= p < m.end() + 1 for p in found)
           and not re.search(r"\b(?:both|each|either|all|two|three|the other|between|per|every|same)\s+\w*\s*(?:group|arm)",
                             m.group(0), re.I)]
    return [got[0].start()] if len(got) == 1 else []


_ROLE_I = re.compile(r"(?<!no )\b(?:intervention|treatment|experimental|active)\b", re.I)
_ROLE_C = re.compile(r"\b(?:control|placebo|usual care|standard care|sham)\b", re.I)


def _allocation_sizes(sentences: list, ico: Ico, arms: dict[str, Arm], context: list[str]) -> None:
    """Both arms' sizes from one sentence on allocation: a count right before each arm's name, each arm once."""
    for s in sentences:
        if not _ALLOCATION.search(s.text):
            continue
        ipos, cpos = _arm_mentions(ico, "intervention", s.text)
        if not ipos or not cpos:
            continue
        got: dict[str, tuple[int, int, int]] = {}
        for m in _COUNT_BEFORE.finditer(s.text):
            arm = ("intervention" if m.end() in ipos else "comparator" if m.end() in cpos else None)
            if arm is not None and arm not in got:
                got[arm] = (count_of(m.group(1)) or 0, m.start(1), m.end(1))
        if len(got) == 2 and all(v[0] > 1 for v in got.values()):
            for arm, (n, a, b) in got.items():
                _set_size(arms[arm], float(n), s.text, s.id, s.scope, s.start, a, b, context)
            return


def _set_size(arm: Arm, n: float, text: str, uid: str, scope: str, start: int, a: int, b: int,
              context: list[str]) -> None:
    arm.group_size = Value(value=n, text=text[a:b], source="text", unit_id=uid, scope=scope,
                           start=start + a, end=start + b)
    context.append(uid)


def _derive(arms: dict[str, Arm], best: Candidate | None, flags: list[str], notes: list[str]) -> None:
    if best is None:
        return
    bare = all(r.events is None and r.total is None and r.mean is None for r in best.reads.values())
    for name, arm in arms.items():
        pct = best.values.get(name, {}).get("_percent")
        read = best.reads.get(name)
        n = arm.group_size.value if arm.group_size else None
        if arm.events is not None and pct is not None and not n:
            # no size found: the percentage's own denominator when only one size fits it (a size found that the
            # percentage does not fit is kept and flagged below: the annotators keep the arm's size)
            size = derive.size_from_percent(int(arm.events.value), _pct_text(pct))
            if size is not None:
                arm.group_size = Value(value=float(size[0]), text=pct.text, source="derived", derived=size[1],
                                       unit_id=pct.unit_id, table=pct.table, row=pct.row, col=pct.col)
                n = float(size[0])
        if arm.events is None and pct is not None and n:
            got = derive.events_from_percent(_pct_text(pct), int(n))
            if got:
                arm.events = Value(value=float(got[0]), text=pct.text, source="derived", derived=got[1],
                                   unit_id=pct.unit_id, table=pct.table, row=pct.row, col=pct.col)
            else:
                flags.append("ambiguous_percent")
        elif arm.events is not None and pct is not None and n and not derive.percent_matches(
                int(arm.events.value), int(n), _pct_text(pct)):
            flags.append("percent_mismatch")
            notes.append(f"{name}: {arm.events.value:g}/{n:g} is not {_pct_text(pct)}%")
        if read is not None and read.se_labelled and arm.sd is not None and n:
            sd, formula = derive.sd_from_se(arm.sd.value, int(n))
            arm.sd = Value(value=sd, text=arm.sd.text, source="derived", derived=formula, unit_id=arm.sd.unit_id,
                           table=arm.sd.table, row=arm.sd.row, col=arm.sd.col)
            notes.append(f"{name}: the dispersion is labelled SE; SD derived as SE × √N")
    if bare and any(arms[a].events is None for a in arms):  # percentages alone: both arms' events or neither
        for a in arms:
            arms[a].events = None
        notes.append("events not derived for both arms from the percentages; none reported")


def _se_check(doc: Document, best: Candidate, arms: dict[str, Arm], flags: list[str], notes: list[str]) -> None:
    """Flag SDs that behave like SEs against the comparison's reported p (same sentence or table row)."""
    i, c = arms["intervention"], arms["comparator"]
    if any(x is None for x in (i.mean, i.sd, i.group_size, c.mean, c.sd, c.group_size)) or "sd_may_be_se" in flags:
        return
    assert i.mean and i.sd and i.group_size and c.mean and c.sd and c.group_size
    p = _reported_p(doc, best.context[0]) if best.context else None
    why = derive.se_signature(i.mean.value, i.sd.value, i.group_size.value, c.mean.value, c.sd.value,
                              c.group_size.value, p=p)
    if why:
        flags.append("sd_may_be_se")
        notes.append(f"the SDs may be SEs: {why}")


_P_HEAD = re.compile(r"^(?:p|p[- ]?values?|sig\.?|significance)\b", re.I)


def _reported_p(doc: Document, unit: str) -> tuple[float, str] | None:
    """The p of the comparison in a sentence, or in a table row's p column (read by the statistics engine)."""
    from claimtrace.stats import parse

    texts: list[str] = []
    m = re.fullmatch(r"(t\d+)\.r(\d+)", unit)
    if m:
        t = next((t for t in doc.tables if t.id == m.group(1)), None)
        if t is None:
            return None
        for cell in t.cells:
            if cell.row == int(m.group(2)) and cell.column_path and _P_HEAD.match(cell.column_path[-1]):
                v = cell.text.strip()
                texts.append(f"p {v}" if v[:1] in "<>≤≥" else f"p = {v}")
    else:
        texts = [s.text for s in doc.sentences("all") if s.id == unit]
    for text in texts:
        for r in parse(text):
            if r.p_value is not None and r.p_comparison in ("=", "<", ">"):
                return r.p_value, r.p_comparison
    return None


def _pct_text(v: Value) -> str:
    m = re.search(r"(\d+(?:\.\d+)?)\s*%", v.text)
    if m and abs(float(m.group(1)) - v.value) < 1e-9:
        return m.group(1)
    return f"{v.value:g}" if v.value != int(v.value) else str(int(v.value))
