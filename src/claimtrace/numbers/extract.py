"""Offline extraction of per-arm numbers for one ICO: table rows first, then sentences, then captions.

Deterministic: arms are found by word overlap of the intervention/comparator (and their parenthesised
labels) with column headers or mentions in a sentence; the outcome by overlap with row labels or
sentences; the numbers by the patterns in :mod:`claimtrace.numbers.cells`. Nothing is guessed: a value
that no rule reads stays "not reported".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from claimtrace.documents.model import Document
from claimtrace.numbers import derive
from claimtrace.numbers.cells import (
    _COUNT_PCT,
    _FRAC,
    _PAREN,
    _PM,
    Read,
    group_size_in,
    read_binary,
    read_cells,
    read_continuous,
)
from claimtrace.numbers.effects import binary_effects, continuous_effects
from claimtrace.numbers.match import Terms, distinctive, mentions, words
from claimtrace.numbers.model import Arm, NumbersResult, OutcomeType, Value
from claimtrace.numbers.tables import Table, read_tables

OUTCOME_MIN = 0.5  # share of the outcome's words a row label or sentence must contain
_BINARY_WORDS = re.compile(r"\b(number of|incidence|rate|proportion|percentage|patients with|mortality|death|"
                           r"died|events?|adverse|success|failure|response|responders?|remission|cure|"
                           r"recurrence|complications?|occurrence|infection)\b", re.I)


@dataclass
class Candidate:
    """One place that gives numbers for both arms."""

    score: float
    kind: str
    reads: dict[str, Read]
    values: dict[str, dict[str, Value]] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)


@dataclass
class Ico:
    """The ICO's terms (the arms' distinctive words tell them apart)."""

    intervention: Terms
    comparator: Terms
    outcome: Terms

    @classmethod
    def of(cls, intervention: str, comparator: str, outcome: str) -> Ico:
        """Terms for an ICO."""
        i, c = Terms.of(intervention), Terms.of(comparator)
        return cls(distinctive(i, c), distinctive(c, i), Terms.of(outcome))


def extract_numbers(doc: Document, intervention: str, comparator: str, outcome: str, *,
                    tables: list[Table] | None = None) -> NumbersResult:
    """Per-arm numbers, outcome type, effect sizes and flags for one ICO in one paper (offline)."""
    ico = Ico.of(intervention, comparator, outcome)
    if tables is None:
        tables = read_tables(doc.source.path) if Path(doc.source.path).exists() else []
    cands = _table_candidates(tables, ico) + _sentence_candidates(doc, ico)
    cands.sort(key=lambda c: -c.score)
    best = cands[0] if cands else None
    caption_only = False
    if best is None:
        caps = _caption_candidates(doc, ico)
        if caps:
            best = max(caps, key=lambda c: c.score)
            caption_only = True
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
                                 ("binary" if _BINARY_WORDS.search(outcome) else "continuous"))
    _fill_group_sizes(doc, ico, arms, context, tables)
    _derive(arms, best, flags, notes)
    res = NumbersResult(doc=doc.source.path, intervention=intervention, comparator=comparator, outcome=outcome,
                        outcome_type=outcome_type, arms=arms, flags=sorted(set(flags)), notes=notes,
                        context=list(dict.fromkeys(context)))
    finish(res)
    return res


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
def _arm_columns(t: Table, ico: Ico) -> tuple[list[int], list[int]]:
    width = max(len(r) for r in t.rows)
    heads = [t.column_header(c) for c in range(width)]
    si = [ico.intervention.score(h) for h in heads]
    sc = [ico.comparator.score(h) for h in heads]
    mi, mc = max(si[1:], default=0), max(sc[1:], default=0)
    icols = [c for c in range(1, width) if mi > 0 and si[c] == mi and si[c] > sc[c]]
    ccols = [c for c in range(1, width) if mc > 0 and sc[c] == mc and sc[c] > si[c]]
    return icols, ccols


def _table_candidates(tables: list[Table], ico: Ico) -> list[Candidate]:
    out: list[Candidate] = []
    for t in tables:
        icols, ccols = _arm_columns(t, ico)
        if not icols or not ccols:
            continue
        caption = f"{t.label or ''} {t.caption} {t.foot}"
        baseline = bool(re.search(r"baseline|characteristics|demograph", t.caption, re.I))
        sub = ""
        counts = bool(_BINARY_WORDS.search(ico.outcome.phrase))
        for row in t.body_rows():
            if not row:
                continue
            label = row[0].text
            rest = [c.text for c in row[1:] if c.text.strip()]
            if label and (not rest or all(x == label for x in rest)):
                sub = label  # a sub-heading row
                continue
            s = ico.outcome.score(f"{sub} {label}")
            s2 = ico.outcome.score(label)
            if counts:  # events listed by name: a "Headache" row for "adverse events - headache"
                s2 = max(s2, 0.9 * _covered(label, ico.outcome.phrase))
            score = max(s, s2) + 0.1 * ico.outcome.score(caption) - (0.15 if baseline else 0.0)
            if max(s, s2) < OUTCOME_MIN:
                continue
            reads: dict[str, Read] = {}
            values: dict[str, dict[str, Value]] = {}
            for arm, cols in (("intervention", icols), ("comparator", ccols)):
                cells = [(_sub_header(t, c), row[c].text) for c in cols if c < len(row)]
                r = read_cells(cells, caption + " " + " ".join(t.column_header(c) for c in cols), label,
                               counts=counts)
                if r is None:
                    break
                n_head = group_size_in(t.column_header(cols[0]))
                if r.group_size is None and n_head is not None:
                    r.group_size = n_head
                reads[arm] = r
                values[arm] = _table_values(t, row, cols, r, n_head)
            if len(reads) < 2:
                continue
            kinds = {r.kind for r in reads.values()} - {""}
            kind = kinds.pop() if len(kinds) == 1 else ""
            flags = ["arms_swapped"] if min(ccols) < min(icols) else []
            if any(r.sd_is_se for r in reads.values()):
                flags.append("sd_may_be_se")
            out.append(Candidate(score + 0.05, kind, reads, values, flags,
                                 [f"{t.id} row {row[0].row}"]))
    return out


def _covered(label: str, outcome: str) -> float:
    """The share of a row label's words that the outcome phrase contains (a "Headache" row for "adverse events - headache")."""
    ws = [w for w in words(label) if not w.replace(".", "").isdigit()]
    return Terms.of(" ".join(ws)).score(outcome) if ws else 0.0


def _sub_header(t: Table, col: int) -> str:
    """The lowest header row's text in a column (e.g. 'SD' under a spanning arm name)."""
    for row in reversed(t.rows[: t.n_header_rows]):
        if col < len(row) and row[col].text:
            return row[col].text
    return ""


def _table_values(t: Table, row: list, cols: list[int], r: Read, n_head: float | None) -> dict[str, Value]:
    text = " | ".join(row[c].text for c in cols if c < len(row) and row[c].text)
    base = {"text": text, "source": "table", "table": t.id, "row": row[0].row, "col": cols[0]}
    vals: dict[str, Value] = {}
    for f, v in (("events", r.events), ("mean", r.mean), ("sd", r.sd)):
        if v is not None:
            vals[f] = Value(value=v, **base)
    if r.group_size is not None:
        if n_head is not None and r.group_size == n_head:
            vals["group_size"] = Value(value=n_head, text=t.column_header(cols[0]), source="table", table=t.id,
                                       row=0, col=cols[0])
        else:
            vals["group_size"] = Value(value=r.group_size, **base)
    if r.percent is not None:
        vals["_percent"] = Value(value=float(r.percent.replace("−", "-")), **base)
    return vals


# ---- sentences -----------------------------------------------------------------------------------
_PATTERNS = (_FRAC, _COUNT_PCT, _PM, _PAREN)


def _sentence_candidates(doc: Document, ico: Ico, *, units: list[tuple[str, str, str, int]] | None = None,
                         source: str = "text") -> list[Candidate]:
    out: list[Candidate] = []
    if units is None:
        units = [(s.id, s.text, s.scope, s.start) for s in doc.sentences("all")]
    for uid, text, scope, start in units:
        s = ico.outcome.score(text)
        if s < OUTCOME_MIN or not re.search(r"\d", text):
            continue
        ipos, cpos = mentions(ico.intervention, text), mentions(ico.comparator, text)
        if not ipos or not cpos:
            continue
        found = _assign(text, ipos, cpos)
        if len(found) < 2 or found["intervention"][0].kind != found["comparator"][0].kind:
            continue
        values: dict[str, dict[str, Value]] = {}
        for arm, (r, a, b) in found.items():
            base = {"text": text[a:b], "source": source, "unit_id": uid, "scope": scope if source == "text" else None,
                    "start": start + a if source == "text" else None, "end": start + b if source == "text" else None}
            vals: dict[str, Value] = {}
            for f, v in (("events", r.events), ("group_size", r.group_size), ("mean", r.mean), ("sd", r.sd)):
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
                    found[arm][0].sd_is_se = True
        out.append(Candidate(s, found["intervention"][0].kind, {a: r for a, (r, _, _) in found.items()}, values,
                             flags, [uid]))
    return out


def _assign(text: str, ipos: list[int], cpos: list[int]) -> dict[str, tuple[Read, int, int]]:
    """Numbers in a sentence assigned to arms: each to the arm named nearest before it ("drug X (3.1 ± 1.2)")
    or, when that does not give both arms, nearest after it ("12/60 on drug X")."""
    for pat in _PATTERNS:
        reads = []
        for m in pat.finditer(text):
            r = read_binary(m.group(0)) if pat in (_FRAC, _COUNT_PCT) else read_continuous(m.group(0))
            if r is not None:
                reads.append((r, m.start(), m.end()))
        if len(reads) < 2:
            continue
        for direction in ("before", "after"):
            found: dict[str, tuple[Read, int, int]] = {}
            for r, a, b in reads:
                arm = _nearest_arm(a if direction == "before" else b, ipos, cpos, direction)
                if arm and arm not in found:
                    found[arm] = (r, a, b)
            if len(found) == 2:
                return found
    return {}


def _nearest_arm(pos: int, ipos: list[int], cpos: list[int], direction: str) -> str | None:
    """The arm mentioned nearest before (or after) ``pos``."""
    if direction == "before":
        cands = [(pos - p, "intervention") for p in ipos if p <= pos] + [(pos - p, "comparator") for p in cpos if p <= pos]
    else:
        cands = [(p - pos, "intervention") for p in ipos if p >= pos] + [(p - pos, "comparator") for p in cpos if p >= pos]
    return min(cands)[1] if cands else None


def _caption_candidates(doc: Document, ico: Ico) -> list[Candidate]:
    units = [(f"excluded{i}", b.text, "body", 0) for i, b in enumerate(doc.excluded) if b.kind in ("caption", "figure")]
    return _sentence_candidates(doc, ico, units=units, source="caption")


# ---- group sizes, derivations, flags -------------------------------------------------------------
def _fill_group_sizes(doc: Document, ico: Ico, arms: dict[str, Arm], context: list[str], tables: list[Table]) -> None:
    """Group sizes, when the chosen source does not give them: from a table column header of the arm
    ("Placebo (n = 58)"), else from "arm ... (n = 30)" in a sentence."""
    for t in tables:
        icols, ccols = _arm_columns(t, ico)
        for name, cols in (("intervention", icols), ("comparator", ccols)):
            if arms[name].group_size is not None or not cols:
                continue
            head = t.column_header(cols[0])
            n = group_size_in(head)
            if n is not None:
                arms[name].group_size = Value(value=n, text=head, source="table", table=t.id, row=0, col=cols[0])
                context.append(f"{t.id} header")
    for name, terms in (("intervention", ico.intervention), ("comparator", ico.comparator)):
        if arms[name].group_size is not None:
            continue
        for s in doc.sentences("all"):
            for m in re.finditer(r"\b[nN]\s*=\s*(\d+)", s.text):
                near = [p for p in mentions(terms, s.text) if 0 <= m.start() - p <= 60]
                other = ico.comparator if name == "intervention" else ico.intervention
                after = [p for p in mentions(terms, s.text) if 0 < p - m.end() <= 20]  # "N = 357 for placebo"
                if (near and not [p for p in mentions(other, s.text) if max(near) < p < m.start()]) or (
                        after and not [p for p in mentions(other, s.text) if m.end() < p < min(after)]):
                    arms[name].group_size = Value(value=float(m.group(1)), text=m.group(0), source="text",
                                                  unit_id=s.id, scope=s.scope, start=s.start + m.start(),
                                                  end=s.start + m.end())
                    context.append(s.id)
                    break
            if arms[name].group_size is not None:
                break


def _derive(arms: dict[str, Arm], best: Candidate | None, flags: list[str], notes: list[str]) -> None:
    if best is None:
        return
    for name, arm in arms.items():
        pct = best.values.get(name, {}).get("_percent")
        read = best.reads.get(name)
        n = arm.group_size.value if arm.group_size else None
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
        if read is not None and read.sd_is_se and arm.sd is not None and n:
            sd, formula = derive.sd_from_se(arm.sd.value, int(n))
            arm.sd = Value(value=sd, text=arm.sd.text, source="derived", derived=formula, unit_id=arm.sd.unit_id,
                           table=arm.sd.table, row=arm.sd.row, col=arm.sd.col)
            notes.append(f"{name}: the dispersion is labelled SE; SD derived as SE × √N")


def _pct_text(v: Value) -> str:
    m = re.search(r"(\d+(?:\.\d+)?)\s*%", v.text)
    if m and abs(float(m.group(1)) - v.value) < 1e-9:
        return m.group(1)
    return f"{v.value:g}" if v.value != int(v.value) else str(int(v.value))
