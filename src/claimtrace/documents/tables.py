"""Tables as grids: place raw cells (with row/column spans), resolve header rows and the stub column,
give every cell its row label and column header path, and render each row as a retrieval unit.

Readers (JATS, TEI, HTML, PDF) hand ``RawTable`` objects to ``DocumentBuilder.add_table``; the builder
calls ``build_table`` with the table's offset into ``Document.tables_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimtrace.documents.model import BBox, Table, TableCell, TableRow

SEP = " › "
#: a number in a cell: sign, digits with thousands commas or a decimal point, an exponent ("1.2e-5",
#: "1.2 × 10−3"), a percent sign; not a digit inside a word ("T1", "Model1")
_NUMBER = re.compile(r"(?<![A-Za-z\d.])[-−–+]?(?>\d[\d,]*(?:\.\d*)?|\.\d+)"
                     r"(?:\s*(?:[eE][-−–+]?\d+|[×x·]\s*10\^?\s*[-−–+]?\d+))?\s*%?")
#: what may stand between and around the numbers of a numeric cell: brackets, list and range separators,
#: ±, a count slash ("14/9"), comparisons ("<0.001"), stars and footnote symbols. Not ":" ("18:1" names a
#: fatty acid, "12:30" a time) and not a bare "to" ("1 to 2" names a comparison): those are labels.
_BETWEEN = frozenset(" \t\n\u00a0\u2009\u202f()[]{},;/±<>≤≥=~≈–−-—*†‡§¶")
#: footnote letters a–d after a number or its bracket ("0.12a", "3 (6.3)b", "1.4 ± 0.5a,b"), and "to" in a
#: bracketed range ("2.1 (1.3 to 3.8)")
_MARKER = re.compile(r"(?<=[\x00)\]}*†‡§¶])\s?[a-d]{1,2}(?:,\s?[a-d]{1,2})*(?![A-Za-z])"
                     r"|(?<=\x00)\s*to\s*(?=[-−–+]?\x00\s*[)\]])")
#: a comparison or a slash: in the first column it names a category ("<65", "≥65 <70", "> 4000", "20/200"),
#: so such a cell counts as a label when deciding whether that column is the stub
_BIN = re.compile(r"[<>≤≥/]")
_EMPTYISH = frozenset(["", "-", "–", "—", "−", "…", "...", "NA", "n/a", "N/A", "."])
#: a row that only holds parenthesised or bracketed numbers (standard errors, t values, CIs below an estimate)
_PAREN = re.compile(r"^[(\[]\s*[-−–+]?\s*(\d[\d,]*\.?\d*|\.\d+)(\s*[,;–−-]\s*[-−–+]?\s*(\d[\d,]*\.?\d*|\.\d+))?\s*[)\]][\s*†‡§]*$")


@dataclass
class RawCell:
    """A cell as a reader finds it: text, spans, and whether the markup calls it a header cell."""

    text: str
    rowspan: int = 1
    colspan: int = 1
    header: bool = False
    bbox: BBox | None = None


def cell_span(value: str | None) -> int:
    """A cell's row or column span from its markup attribute: a whole number of at least 1 (1 when absent or bad)."""
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


@dataclass
class RawTable:
    """A table as a reader finds it, before the grid is resolved."""

    rows: list[list[RawCell]]
    label: str | None = None
    caption: str | None = None
    footnotes: list[str] = field(default_factory=list)
    section: str | None = None
    header_rows: int | None = None  # rows the markup puts in a header (thead), when it says
    page: int | None = None
    bbox: BBox | None = None
    reader: str | None = None


def is_numeric(text: str) -> bool:
    """Whether a cell holds numbers only (estimates, SEs, counts, "20.7 ± 25.3", "14/9", "<0.001"), not a label."""
    t = text.strip().replace("\x00", "")  # NUL marks the numbers below
    if not t:
        return False
    marked = _NUMBER.sub("\x00", t)
    if "\x00" not in marked:
        return False
    rest = _MARKER.sub("", marked).replace("\x00", "")
    return all(ch in _BETWEEN for ch in rest)


def _place(rows: list[list[RawCell]]) -> tuple[list[tuple[int, int, RawCell]], int, int]:
    """Place cells on a grid (the HTML table algorithm): (row, col, cell), row count, column count."""
    taken: set[tuple[int, int]] = set()
    placed: list[tuple[int, int, RawCell]] = []
    n_cols = 0
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            rs, cs = max(1, min(cell.rowspan, 1000)), max(1, min(cell.colspan, 1000))
            rs = min(rs, len(rows) - r)
            for dr in range(rs):
                for dc in range(cs):
                    taken.add((r + dr, c + dc))
            placed.append((r, c, RawCell(cell.text, rs, cs, cell.header, cell.bbox)))
            c += cs
        n_cols = max(n_cols, c, *(cc + 1 for rr, cc in taken if rr == r))
    return placed, len(rows), n_cols


def _header_rows(grid: list[list[str]], marked: int | None, th_rows: list[bool]) -> int:
    """How many leading rows are column headers: the markup's count (thead), then any rows of labels only
    that follow before the data (a second header row the markup left in the body)."""
    n = marked or 0
    for r, row in enumerate(grid):
        if r < n:
            continue
        body = row[1:] if len(row) > 1 else row
        filled = [t for t in body if t.strip() not in _EMPTYISH]
        if th_rows[r] or (filled and not any(is_numeric(t) for t in filled)):
            n += 1
            continue
        break
    if n >= len(grid) and not marked:  # a table of labels only: the first row heads it
        n = 1 if len(grid) > 1 else 0
    n = min(n, len(grid))
    return n


def build_table(raw: RawTable, index: int, offset: int) -> Table:
    """Resolve a raw table into a ``Table`` (id ``t{index+1}``) whose offsets start at ``offset``."""
    tid = f"t{index + 1}"
    placed, n_rows, n_cols = _place([[c for c in row] for row in raw.rows])
    grid = [[""] * n_cols for _ in range(n_rows)]
    owner: dict[tuple[int, int], int] = {}
    for i, (r, c, cell) in enumerate(placed):
        for dr in range(cell.rowspan):
            for dc in range(cell.colspan):
                grid[r + dr][c + dc] = cell.text
                owner[(r + dr, c + dc)] = i
    th_rows = [bool(row) and all(c.header for c in row) for row in raw.rows] + [False] * (n_rows - len(raw.rows))
    n_head = _header_rows(grid, raw.header_rows, th_rows) if n_rows else 0
    body = grid[n_head:]
    # the stub: the first column, when its body cells are labels rather than numbers
    first = [row[0] for row in body if row and row[0].strip()]
    stub = bool(first) and n_cols > 1 and sum(not is_numeric(t) or bool(_BIN.search(t)) for t in first) >= 0.5 * len(first)

    col_paths: list[list[str]] = []
    for c in range(n_cols):
        path: list[str] = []
        for r in range(n_head):
            t = grid[r][c].strip()
            if t and (not path or path[-1] != t):
                path.append(t)
        col_paths.append(path)

    # text: a tab between cells (a spanning cell written once, at its top-left), a newline between rows
    lines: list[str] = []
    cell_pos: dict[int, tuple[int, int]] = {}
    line_starts: list[int] = []
    pos = offset
    for r in range(n_rows):
        parts: list[str] = []
        line_starts.append(pos)
        col_pos = pos
        for c in range(n_cols):
            oi = owner.get((r, c))
            text = ""
            if oi is not None and placed[oi][0] == r and placed[oi][1] == c:
                text = placed[oi][2].text
                cell_pos[oi] = (col_pos, col_pos + len(text))
            parts.append(text)
            col_pos += len(text) + 1
        line = "\t".join(parts)
        lines.append(line)
        pos += len(line) + 1
    text = "\n".join(lines)

    group: list[str | None] = [None] * n_rows
    current: str | None = None
    for r in range(n_head, n_rows):
        row = grid[r]
        label = row[0].strip() if stub else ""
        rest = [t for t in row[1:] if t.strip() not in _EMPTYISH]
        if stub and label and not rest and n_cols > 2:
            current = label  # a group heading row ("Model 1", "Controls")
            group[r] = None
        else:
            group[r] = current

    cells: list[TableCell] = []
    for i, (r, c, cell) in enumerate(placed):
        start, end = cell_pos.get(i, (line_starts[r], line_starts[r]))
        head = r < n_head
        row_label = None
        if not head and stub and c > 0:
            row_label = grid[r][0].strip() or None
        cells.append(TableCell(
            id=f"{tid}.r{r + 1}.c{c + 1}", row=r + 1, col=c + 1, rowspan=cell.rowspan, colspan=cell.colspan,
            text=cell.text, header=head, stub=stub and c == 0 and not head, row_label=row_label,
            column_path=[] if head else col_paths[c], start=start, end=end, bbox=cell.bbox))
    by_row: dict[int, list[TableCell]] = {}
    for cell_ in cells:
        by_row.setdefault(cell_.row, []).append(cell_)

    name = raw.label or f"Table {index + 1}"
    rows: list[TableRow] = []
    folded_into: set[int] = set()
    r = 0
    while r < n_rows:
        rc = sorted(by_row.get(r + 1, []), key=lambda x: x.col)
        head = r < n_head
        label = grid[r][0].strip() if stub and grid[r] else ""
        used = [x for x in rc if x.text.strip()]
        parts = []
        if head:
            rendered = f"{name}{SEP}" + " | ".join(x.text.strip() for x in used)
        else:
            data = [x for x in used if not (stub and x.col == 1) and x.text.strip() not in _EMPTYISH]
            # a standard-error (or t, CI) row below: no label, only bracketed numbers; fold it in
            folded: list[TableCell] = []
            if r + 1 < n_rows and label and not grid[r + 1][0].strip():
                nd = [x for x in sorted(by_row.get(r + 2, []), key=lambda x: x.col)
                      if x.text.strip() and not (stub and x.col == 1)]
                if nd and all(_PAREN.match(x.text.strip()) for x in nd):
                    folded = nd
            extra = {x.col: x for x in folded}
            for x in data:
                v = x.text.strip()
                if x.col in extra:
                    v = f"{v} {extra.pop(x.col).text.strip()}"
                hdr = SEP.join(x.column_path)
                parts.append(f"{hdr}: {v}" if hdr else v)
            parts.extend(x.text.strip() for x in extra.values())
            grp = group[r]
            prefix = [name] + ([grp] if grp and grp != label else []) + ([label] if label else [])
            rendered = SEP.join(prefix) + (": " + "; ".join(parts) if parts else "")
            used = used + folded
            if folded:
                folded_into.add(r + 1)
        if r in folded_into:  # a standard-error row already rendered with the estimates above it
            r += 1
            continue
        if used or head:
            rows.append(TableRow(id=f"{tid}.r{r + 1}", index=r, header=head, label=label or None, group=group[r],
                                 text=rendered, cell_ids=[x.id for x in used],
                                 start=line_starts[r], end=line_starts[r] + len(lines[r])))
        r += 1
    return Table(id=tid, index=index, label=raw.label, caption=raw.caption, footnotes=raw.footnotes,
                 section=raw.section, n_rows=n_rows, n_cols=n_cols, header_rows=n_head, stub_column=stub,
                 cells=cells, rows=rows, text=text, start=offset, end=offset + len(text), page=raw.page,
                 bbox=raw.bbox, reader=raw.reader)
