"""Statistics from tables: regression coefficients with their standard errors (or t/z values, or CIs),
significance stars resolved through the table's own footnote legend, and model-level N and R².

Only tables that say they report estimates (a regression cue in the caption, notes or headers: "regression",
"coefficient", "estimate", "SE", "β", "odds ratio", "Model 2"...) yield coefficients; a cell must hold a
decimal number, so years, page ranges, counts and reference numbers are never read as results. Each result
names its cells (``t2.r5.c3``). p is recomputed from the estimate and its SE (or t/z, or CI) with the normal
distribution (two-tailed), using the statistics engine's public ``compute_p``; the stars' p range is checked
against it, allowing for the rounding of the printed numbers.
"""

from __future__ import annotations

import math
import re
from typing import Literal

from pydantic import Field

from claimtrace.documents.model import Document, StrictModel, Table, TableCell
from claimtrace.lexicons import pattern, patterns
from claimtrace.schema_version import SCHEMA_VERSION
from claimtrace.stats.check import compute_p

#: degrees of freedom assumed for the highest p when a table gives no N: p is recomputed with the normal
#: distribution, and any p between that and t(20)'s counts as consistent (small-sample models use t)
UNKNOWN_DF = 20

TableStatKind = Literal["coefficient", "model_n", "model_r2"]

_NUM = r"[-−–+]?\s*(?:\d[\d,]*\.?\d*|\.\d+)"
_STARS = r"(?P<stars>[*†‡§#+]{1,4}|\^[a-c])?"
#: "−0.009 (0.004)**", "0.75 (0.26)**", "1.2** [0.3]", "2.2 (1.3–3.8)", "0.31 [0.12, 0.50]"
_CELL = re.compile(
    rf"^\s*(?P<est>{_NUM})\s*(?P<s1>[*†‡§#+]{{1,4}})?\s*"
    rf"(?:(?P<open>[(\[])\s*(?P<second>{_NUM})\s*(?:(?:[,;]|\s[-–−]\s|[–−]|(?<=\d)-|\bto\b)\s*(?P<third>{_NUM}))?\s*[)\]])?"
    rf"\s*{_STARS}\s*$")
_PAREN_ONLY = re.compile(rf"^\s*[(\[]\s*(?P<second>{_NUM})\s*(?:(?:[,;]|\s[-–−]\s|[–−]|(?<=\d)-|\bto\b)\s*(?P<third>{_NUM}))?\s*[)\]]\s*{_STARS}\s*$")
# cue patterns: resources/lexicons/stats.tables.yaml
_REGRESSION_CUE, _DESCRIPTIVE = patterns("stats.tables", "REGRESSION_CUE", "DESCRIPTIVE")
_DESCRIPTIVE_COL = re.compile(r"^(m|mean|means|sd|s\.d\.|median|iqr|%|n|range|min|max)\b", re.I)
_DESCRIPTIVE_ROW, _T_IN_PARENS = patterns("stats.tables", "DESCRIPTIVE_ROW", "T_IN_PARENS")
_SE_IN_PARENS = re.compile(r"standard errors?|\bS\.?E\.?s?\b", re.I)
_LEGEND = re.compile(r"(?P<sym>[*†‡§#+]{1,4}|\^?[a-c](?=\s*p))\s*(?:=\s*)?[pP]\s*(?P<cmp>[<≤])\s*(?P<thr>0?\.\d+|\d+(?:\.\d+)?\s*%)")
_LEGEND_LEVEL = re.compile(r"(?P<sym>[*†‡§#+]{1,4})\s*(?:significant\s+at\s+(?:the\s+)?)?(?P<thr>\d+(?:\.\d+)?)\s*(?:%|percent)", re.I)
_N_ROW = pattern("stats.tables", "N_ROW")
_R2_ROW = re.compile(r"^(adj(usted)?\.?\s*|pseudo[- ]?|within\s+|overall\s+)?(r2|r²|r\^2|r-squared|r squared)$", re.I)
_SE_COL = re.compile(r"^(s\.?e\.?|se\(?b?\)?|std\.?\s*err(or)?\.?|standard error|robust se)$", re.I)
_ESTIMATE_HEAD = re.compile(r"^(?:b|B|β|beta|γ|estimates?|coefficients?|coef\.?)$", re.I)
_STAT_COL = pattern("stats.tables", "STAT_COL")
_CI_COL = re.compile(r"(\d{2}\s*%\s*)?\b(CI|confidence interval)\b", re.I)
_RATIO = pattern("stats.tables", "RATIO")


class TableStat(StrictModel):
    """One result read from a table: a coefficient (with SE, t/z, CI, stars) or a model-level N or R²."""

    schema_version: str = SCHEMA_VERSION
    source: Literal["table"] = "table"
    kind: TableStatKind
    table_id: str
    table_label: str | None = None
    row_id: str
    cell_ids: list[str] = Field(default_factory=list)
    row_label: str | None = None
    column: str | None = None
    text: str
    estimate_type: str | None = None
    value: float
    se: float | None = None
    statistic: str | None = None  # "t" or "z" when the table prints one
    statistic_value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    stars: str | None = None
    p_comparison: str | None = None
    p_value: float | None = None
    p_lower: float | None = None  # the stars' p range: p_lower <= p < p_value
    computed_p: float | None = None
    consistent: bool | None = None
    significant: bool | None = None
    n: int | None = None
    r2: float | None = None


def _num(s: str) -> float:
    return float(s.replace("−", "-").replace("–", "-").replace(",", "").replace(" ", ""))


def _half_ulp(s: str) -> float:
    s = s.strip()
    return 0.5 * 10 ** -len(s.split(".", 1)[1]) if "." in s else 0.5


def star_legend(notes: list[str]) -> dict[str, float]:
    """The table's star legend from its notes: symbol -> p threshold ("* p < .05, ** p < .01")."""
    legend: dict[str, float] = {}
    for note in notes:
        for m in _LEGEND.finditer(note):
            thr = m.group("thr")
            val = float(thr.rstrip("% ")) / 100 if "%" in thr else float(thr)
            legend.setdefault(m.group("sym").lstrip("^"), val)
        for m in _LEGEND_LEVEL.finditer(note):
            legend.setdefault(m.group("sym"), float(m.group("thr")) / 100)
    return {k: v for k, v in legend.items() if 0 < v < 1}


def _reports_estimates(t: Table) -> bool:
    heads = " ".join(c.text for c in t.cells if c.header)
    cue = " ".join([t.caption or "", *t.footnotes, heads])
    strong = re.search(r"regress|coefficient|estimate|standard errors?|odds ratio|hazard ratio|logit|probit|\bOLS\b",
                       " ".join([t.caption or "", *t.footnotes]), re.I)
    # header cells "b" (or "B", "β", "Estimate", ...) and "SE" say the table reports estimates, whatever words a long
    # caption also holds ("the median of all observations"); "M" and "SE" are descriptives and stay out
    head_cells = [c.text.strip() for c in t.cells if c.header]
    b_se = any(_SE_COL.match(h) for h in head_cells) and any(_ESTIMATE_HEAD.match(h) for h in head_cells)
    return bool(_REGRESSION_CUE.search(cue)) and (bool(strong) or b_se or not _DESCRIPTIVE.search(t.caption or ""))


def _p_range(stars: str | None, legend: dict[str, float]) -> tuple[float, float] | None:
    """[lower, upper) p range the stars (or their absence) assert under the legend."""
    if not legend:
        return None
    thresholds = sorted(set(legend.values()), reverse=True)
    if not stars:
        return (thresholds[0], 1.0)
    if stars not in legend:
        return None
    upper = legend[stars]
    smaller = [t for t in thresholds if t < upper]
    return (max(smaller) if smaller else 0.0, upper)


def _p_bounds(zlo: float, z: float, zhi: float, df: float | None) -> tuple[float, float, float] | None:
    """(p, lowest p, highest p): normal p at z; the highest uses t with ``df`` (unknown df: 20) for zlo."""
    p = compute_p("z", z, None, None)
    plo = compute_p("z", zhi, None, None) if math.isfinite(zhi) else 0.0
    phi = compute_p("t", zlo, df or UNKNOWN_DF, None)
    if p is None or plo is None or phi is None:
        return None
    return p, plo, phi


def _z_p_range(est: str, second: str, *, is_stat: bool, df: float | None) -> tuple[float, float, float] | None:
    """(computed p, lowest p, highest p) from estimate and SE (or t/z), allowing for rounding and unknown df."""
    b, hb = abs(_num(est)), _half_ulp(est)
    x, hx = abs(_num(second)), _half_ulp(second)
    if is_stat:
        z, zlo, zhi = x, max(x - hx, 0.0), x + hx
    else:
        if x <= 0:
            return None
        z = b / x
        zlo = max(b - hb, 0.0) / (x + hx)
        zhi = (b + hb) / (x - hx) if x - hx > 0 else math.inf
    return _p_bounds(zlo, z, zhi, df)


def _ci_p_range(est: str, lo: str, hi: str, *, ratio: bool, df: float | None) -> tuple[float, float, float] | None:
    """(computed p, lowest p, highest p) from an estimate and its 95% CI (log scale for ratios)."""
    b, bl, bh = _num(est), _num(lo), _num(hi)
    if not bl <= b <= bh or bh <= bl:
        return None  # the CI does not hold the estimate (another scale): nothing to recompute
    if ratio:
        if min(b, bl, bh) <= 0:
            return None
        width, centre = math.log(bh) - math.log(bl), abs(math.log(b))
        se = width / (2 * 1.959964)
        z = centre / se
        return _p_bounds(z * 0.9, z, z * 1.1, df)
    hb, hl, hh = _half_ulp(est), _half_ulp(lo), _half_ulp(hi)
    se = (bh - bl) / (2 * 1.959964)
    se_min = max(bh - bl - hl - hh, 1e-12) / (2 * 1.959964)
    se_max = (bh - bl + hl + hh) / (2 * 1.959964)
    z = abs(b) / se
    return _p_bounds(max(abs(b) - hb, 0.0) / se_max, z, (abs(b) + hb) / se_min, df)


def table_statistics(t: Table) -> list[TableStat]:
    """Coefficients, model N and R² read from one table (empty when the table reports no estimates)."""
    if not t.cells or not _reports_estimates(t):
        return []
    legend = star_legend([*t.footnotes, t.caption or ""])
    notes = " ".join([*t.footnotes, t.caption or ""])
    paren_is_stat = _T_IN_PARENS.search(notes)
    # what a number in parentheses is: named in the notes or headers (SE, t, z), or only guessed to be an SE
    parens_named = bool(paren_is_stat or _SE_IN_PARENS.search(notes + " " + " ".join(c.text for c in t.cells if c.header)))
    stat_name = paren_is_stat.group(1).lower() if paren_is_stat else None
    grid: dict[tuple[int, int], TableCell] = {(c.row, c.col): c for c in t.cells}
    rows = {r.index + 1: r for r in t.rows}
    out: list[TableStat] = []
    body = [c for c in t.cells if not c.header and not c.stub]
    n_by_col: dict[int, int] = {}
    for c in body:
        mn = re.match(r"^\s*(\d[\d,]*)\s*$", c.text)
        if c.row_label and _N_ROW.match(c.row_label.strip()) and mn:
            n_by_col[c.col] = int(_num(mn.group(1)))
    last_head = {c.col: (c.column_path[-1] if c.column_path else "") for c in body}
    for c in sorted(body, key=lambda x: (x.row, x.col)):
        label = (c.row_label or "").strip()
        if not label and t.stub_column:
            continue  # a standard-error row (read with the estimate above it) or an unlabelled row
        col_name = " › ".join(c.column_path) or None
        row_id = f"{t.id}.r{c.row}"
        if label and _N_ROW.match(label):
            m = re.match(r"^\s*(\d[\d,]*)\s*$", c.text)
            if m:
                out.append(TableStat(kind="model_n", table_id=t.id, table_label=t.label, row_id=row_id, cell_ids=[c.id],
                                     row_label=label, column=col_name, text=c.text, value=_num(m.group(1)),
                                     n=int(_num(m.group(1)))))
            continue
        if label and _R2_ROW.match(label):
            m = re.match(rf"^\s*({_NUM})\s*$", c.text)
            if m and "." in m.group(1):
                out.append(TableStat(kind="model_r2", table_id=t.id, table_label=t.label, row_id=row_id, cell_ids=[c.id],
                                     row_label=label, column=col_name, text=c.text, value=_num(m.group(1)),
                                     r2=_num(m.group(1))))
            continue
        if _SE_COL.match(last_head.get(c.col, "")) or _STAT_COL.match(last_head.get(c.col, "")) \
                or _CI_COL.search(last_head.get(c.col, "")) or re.match(r"^p(-value)?$|^sig\.?$", last_head.get(c.col, ""), re.I):
            continue  # read beside the estimate's column
        if any(_DESCRIPTIVE_COL.match(h) for h in c.column_path):
            continue  # a column of means, SDs or counts
        if _DESCRIPTIVE_ROW.search(label):
            continue  # a row of means, SDs, medians or percentages: "59.88 (12.10)" is M (SD), not b (SE)
        m = _CELL.match(c.text)
        if not m or "." not in m.group("est"):
            continue
        cells = [c.id]
        texts = [c.text]
        second, third = m.group("second"), m.group("third")
        stars = m.group("stars") or m.group("s1")
        below = grid.get((c.row + 1, c.col))
        if second is None and below is not None and not (below.row_label or "").strip():
            mb = _PAREN_ONLY.match(below.text)
            if mb:
                second, third = mb.group("second"), mb.group("third")
                stars = stars or mb.group("stars")
                cells.append(below.id)
                texts.append(below.text)
        se: float | None = None
        stat_v: float | None = None
        ci_lo: float | None = None
        ci_hi: float | None = None
        stat_text: str | None = None
        kind_stat: str | None = None
        # beside: SE, t/z, p and CI columns right of the estimate
        p_text: str | None = None
        for col in range(c.col + 1, c.col + 5):
            nxt = grid.get((c.row, col))
            if nxt is None or nxt.row != c.row:
                break
            head = last_head.get(nxt.col, "")
            mn = re.match(rf"^\s*[(\[]?\s*({_NUM})\s*[)\]]?\s*$", nxt.text)
            mp = re.match(r"^\s*(?:p\s*)?([<>=≤≥]?)\s*(0?\.\d+|1(?:\.0+)?|0)\s*$", nxt.text)
            mci = re.match(rf"^\s*[(\[]?\s*({_NUM})\s*(?:[,;]|\s[-–−]\s|[–−]|(?<=\d)-|\bto\b)\s*({_NUM})\s*[)\]]?\s*$", nxt.text)
            if mn and _SE_COL.match(head) and second is None:
                second = mn.group(1)
            elif mn and _STAT_COL.match(head) and stat_v is None and (second is None or third is None):
                kind_stat = "z" if head.lower().startswith("z") else "t"
                stat_v = _num(mn.group(1))
                stat_text = mn.group(1)
            elif mp and re.match(r"^(p|p[- ]?values?|sig\.?|significance)$", head, re.I) and p_text is None:
                p_text = nxt.text
            elif mci and _CI_COL.search(head) and second is None:
                second, third = mci.group(1), mci.group(2)
            else:
                break
            cells.append(nxt.id)
            texts.append(nxt.text)
        ratio = bool(_RATIO.search(" ".join([*c.column_path, t.caption or ""])))
        if second is not None and third is not None:
            ci_lo, ci_hi = _num(second), _num(third)
        elif second is not None:
            if stat_name and stat_v is None:
                kind_stat, stat_v, stat_text = stat_name, _num(second), second
            else:
                se = _num(second)
        se_guessed = se is not None and not parens_named and not any(_SE_COL.match(last_head.get(x, "")) for x in
                                                                    range(c.col + 1, c.col + 5))
        est = m.group("est")
        value = _num(est)
        n_col = n_by_col.get(c.col)
        df = float(n_col - 2) if n_col and n_col > 3 else None
        computed = None
        prange_computed: tuple[float, float] | None = None
        r: tuple[float, float, float] | None = None
        if second is not None and third is not None:
            r = _ci_p_range(est, second, third, ratio=ratio, df=df)
        elif (stat_text is not None or second is not None) and not ratio:
            r = _z_p_range(est, stat_text or second or "", is_stat=stat_text is not None, df=df)
        if r:
            computed, lo_p, hi_p = r
            prange_computed = (lo_p, hi_p)
        star_range = _p_range(stars, legend)
        consistent = None
        p_cmp: str | None = None
        p_val: float | None = None
        p_lower: float | None = None
        if p_text is not None:
            mp = re.match(r"^\s*(?:p\s*)?([<>=≤≥]?)\s*(0?\.\d+|1(?:\.0+)?|0)\s*$", p_text)
            if mp:
                p_cmp, p_val = {"": "=", "≤": "<=", "≥": ">="}.get(mp.group(1), mp.group(1)), float(mp.group(2))
                if computed is not None:
                    lo_p, hi_p = prange_computed or (computed, computed)
                    hu = _half_ulp(mp.group(2))
                    if p_cmp in ("<", "<="):
                        consistent = lo_p <= p_val
                    elif p_cmp in (">", ">="):
                        consistent = hi_p >= p_val
                    else:
                        consistent = hi_p >= p_val - hu - 1e-12 and lo_p <= p_val + hu + 1e-12
        elif star_range is not None:
            if computed is not None:
                lo_p, hi_p = prange_computed or (computed * 0.9, computed * 1.1)
                consistent = hi_p >= star_range[0] and lo_p < star_range[1]
            if stars:
                p_cmp, p_val, p_lower = "<", star_range[1], star_range[0]
            else:
                p_cmp, p_val = ">=", star_range[0]
        significant = None
        if p_val is not None and p_cmp in ("=", "<", "<="):
            significant = p_val < 0.05 or (p_cmp != "=" and p_val <= 0.05)
        elif p_val is not None:
            significant = False
        elif stars and star_range is not None:
            significant = star_range[1] <= 0.05 + 1e-9
        elif computed is not None and not se_guessed:
            significant = computed < 0.05  # not from a number in parentheses the table never names (it may be an SD)
        out.append(TableStat(
            kind="coefficient", table_id=t.id, table_label=t.label,
            row_id=rows[c.row].id if c.row in rows else row_id, cell_ids=cells, row_label=label or None,
            column=col_name, text=" ".join(x.strip() for x in texts),
            estimate_type=("ratio" if ratio else "coefficient"), value=value, se=se, statistic=kind_stat,
            statistic_value=stat_v, ci_low=ci_lo, ci_high=ci_hi, stars=stars, p_comparison=p_cmp, p_value=p_val,
            p_lower=p_lower, computed_p=computed, consistent=consistent, significant=significant))
    # model-level N and R² for each column's coefficients
    r2_by_col = {int(s.cell_ids[0].rsplit(".c", 1)[1]): s.r2 for s in out if s.kind == "model_r2"}
    for s in out:
        if s.kind == "coefficient":
            col = int(s.cell_ids[0].rsplit(".c", 1)[1])
            s.n, s.r2 = n_by_col.get(col), r2_by_col.get(col)
    return out


def document_table_statistics(doc: Document) -> list[TableStat]:
    """Table statistics of every table in a Document."""
    return [s for t in doc.tables for s in table_statistics(t)]


def row_statistics(doc: Document, row_id: str) -> list[TableStat]:
    """Table statistics whose cells lie in one table row (``t2.r5``, its folded SE row included)."""
    tid = row_id.split(".")[0]
    table = next((t for t in doc.tables if t.id == tid), None)
    if table is None:
        return []
    return [s for s in table_statistics(table) if s.row_id == row_id]


# a column header naming a test with its degrees of freedom ("t(15)", "F(2, 36)", "χ2(1)") or a z column
_TEST_HEADER = re.compile(r"^\s*(?:(?P<test>t|F|χ2|χ²|chi2|X2)\s*\(\s*(?P<df>\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?)?)\s*\)"
                          r"|(?P<z>z))\s*$")
# a bare "t" or "χ2" column, read with the row's "df" column
_BARE_TEST_HEADER = re.compile(r"^\s*(?P<test>t|χ2|χ²|chi2)\s*$")
_DF_HEADER = re.compile(r"^\s*df\s*$", re.I)
_DF_CELL = re.compile(r"^\s*\d+(?:\.\d+)?\s*$")
_P_HEADER = re.compile(r"^\s*(?:p|p[- ]?values?|sig\.?)\s*$", re.I)
_P_CELL = re.compile(r"^\s*(?P<cmp>[<>≤≥=])?\s*(?P<p>0?\.\d+|1(?:\.0+)?)\s*$")
_NUM_CELL = re.compile(rf"^\s*{_NUM}\s*$")
# a cell holding a whole test without its p: "F(1, 167.44) = 1,253.72"
_TEST_CELL = re.compile(r"^\s*(?:t|F|χ2|χ²|z)\s*(?:\([^)]*\))?\s*=\s*[-−–]?\s*[\d,]*\.?\d+\s*$")


class RowTest(StrictModel):
    """A test a table row reports across its cells: the statistic (under a header naming its test and df,
    or written whole in a cell) and the p of the row's p column, as one text for the statistics engine."""

    text: str  # "t(15) = 5.754, p = .001"
    test_cell: str
    p_cell: str
    p_start: int  # where the p part starts in ``text``


def _column_cells(table: Table, row_cells: list[TableCell]) -> dict[int, tuple[str, TableCell]]:
    """Column -> (text, cell) of a row; a cell spanning k columns whose text is exactly k numbers (a grid
    merged on extraction: "5.754 .001 2.600") gives one number to each spanned column."""
    out: dict[int, tuple[str, TableCell]] = {}
    for c in row_cells:
        parts = c.text.split()
        if c.colspan > 1 and len(parts) == c.colspan and all(_NUM_CELL.match(p) for p in parts):
            for i, p in enumerate(parts):
                out[c.col + i] = (p, c)
        else:
            out[c.col] = (c.text, c)
    return out


def _column_headers(table: Table) -> dict[int, str]:
    """Column -> its lowest header text, from the body cells of one column (or the header cells)."""
    heads: dict[int, str] = {}
    for c in table.cells:
        if c.colspan == 1 and not c.header and c.column_path:
            heads.setdefault(c.col, c.column_path[-1])
    for c in table.cells:
        if c.header and c.colspan == 1:
            heads.setdefault(c.col, c.text)
    return heads


def row_tests(table: Table, row_id: str) -> list[RowTest]:
    """The tests a row reports across cells, each with the p of the nearest p column to its right (before
    the next test): a number under "t(15)" / "F(1, 30)" / "χ2(2)" / "z", a number under "t" with the row's one
    "df" cell, or a cell "F(1, 29.4) = 4.51". The df come from the header, the row or the cell, never from
    elsewhere."""
    row = next((r for r in table.rows if r.id == row_id), None)
    if row is None or row.header:
        return []
    cells = {c.id: c for c in table.cells}
    cols = _column_cells(table, [cells[cid] for cid in row.cell_ids if cid in cells])
    heads = _column_headers(table)
    tests: list[tuple[int, str, TableCell]] = []
    ps: dict[int, tuple[str, TableCell]] = {}
    dfs = [text.strip() for col, (text, _) in cols.items() if _DF_HEADER.match(heads.get(col, "")) and _DF_CELL.match(text)]
    for col, (text, cell) in sorted(cols.items()):
        head = heads.get(col, "")
        m = _TEST_HEADER.match(head)
        bare = _BARE_TEST_HEADER.match(head)
        if bare and len(dfs) == 1 and _NUM_CELL.match(text):  # "t" with the row's one "df" cell
            tests.append((col, f"{bare.group('test')}({dfs[0]}) = {text.strip()}", cell))
            continue
        if m and _NUM_CELL.match(text):
            name = "z" if m.group("z") else m.group("test")
            tests.append((col, f"{name}({m.group('df')}) = {text.strip()}" if m.group("df") else f"z = {text.strip()}", cell))
        elif _TEST_CELL.match(text):
            tests.append((col, text.strip(), cell))
        elif _P_HEADER.match(head) and _P_CELL.match(text):
            ps[col] = (text, cell)
    out: list[RowTest] = []
    starts = [c for c, _, _ in tests]
    for i, (col, text, cell) in enumerate(tests):
        nxt = starts[i + 1] if i + 1 < len(starts) else 10**6
        p_cols = [c for c in ps if col < c < nxt]
        if not p_cols:
            continue
        ptext, pcell = ps[min(p_cols)]
        pm = _P_CELL.match(ptext)
        assert pm is not None
        joined = f"{text}, p "
        out.append(RowTest(text=f"{joined}{pm.group('cmp') or '='} {pm.group('p')}", test_cell=cell.id,
                           p_cell=pcell.id, p_start=len(joined) - 2))
    return out
