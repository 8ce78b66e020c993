"""Tables as grids: place raw cells (with row/column spans), resolve header rows and the stub column,
give every cell its row label and column header path, and render each row as a retrieval unit.

Readers (JATS, TEI, HTML, PDF) hand ``RawTable`` objects to ``DocumentBuilder.add_table``; the builder
calls ``build_table`` with the table's offset into ``Document.tables_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimtrace.documents.model import BBox, Table, TableCell, TableRow, TableRowGroup
from claimtrace.patterns import bind_lazy, lazy

SEP = " › "
#: a number in a cell: sign, digits with thousands commas or a decimal point, an exponent ("1.2e-5",
#: "1.2 × 10−3"), a percent sign; not a digit inside a word ("T1", "Model1")
_NUMBER = lazy(r"(?<![A-Za-z\d.])[-−–+]?(?>\d[\d,]*(?:\.\d*)?|\.\d+)"
                     r"(?:\s*(?:[eE][-−–+]?\d+|[×x·]\s*10\^?\s*[-−–+]?\d+))?\s*%?")
#: what may stand between and around the numbers of a numeric cell: brackets, list and range separators,
#: ±, a count slash ("14/9"), comparisons ("<0.001"), stars and footnote symbols. Not ":" ("18:1" names a
#: fatty acid, "12:30" a time) and not a bare "to" ("1 to 2" names a comparison): those are labels.
_BETWEEN = frozenset(" \t\n\u00a0\u2009\u202f()[]{},;/±<>≤≥=~≈–−-—*†‡§¶")
#: footnote letters a–d after a number or its bracket ("0.12a", "3 (6.3)b", "1.4 ± 0.5a,b"), and "to" in a
#: bracketed range ("2.1 (1.3 to 3.8)")
_MARKER = lazy(r"(?<=[\x00)\]}*†‡§¶])\s?[a-d]{1,2}(?:,\s?[a-d]{1,2})*(?![A-Za-z])"
                     r"|(?<=\x00)\s*to\s*(?=[-−–+]?\x00\s*[)\]])")
#: a comparison or a slash: in the first column it names a category ("<65", "≥65 <70", "> 4000", "20/200"),
#: so such a cell counts as a label when deciding whether that column is the stub
_BIN = lazy(r"[<>≤≥/]")
_EMPTYISH = frozenset(["", "-", "–", "—", "−", "…", "...", "NA", "n/a", "N/A", "."])
#: a row that only holds parenthesised or bracketed numbers (standard errors, t values, CIs below an estimate)
_PAREN = lazy(r"^[(\[]\s*[-−–+]?\s*(\d[\d,]*\.?\d*|\.\d+)(\s*[,;–−-]\s*[-−–+]?\s*(\d[\d,]*\.?\d*|\.\d+))?\s*[)\]][\s*†‡§]*$")


@dataclass
class RawCell:
    """A cell as a reader finds it: text, spans, and whether the markup calls it a header cell."""

    text: str
    rowspan: int = 1
    colspan: int = 1
    header: bool = False
    bbox: BBox | None = None
    indent: bool = False  # the source indents the cell's text (leading em spaces, a padding): a row under a heading


#: a cell's text that the source indents: it begins with a typographic space (em/en/thin space, no-break space)
_INDENT_CHARS = lazy(r"^[\u00a0\u2000-\u200a\u202f\u3000]")
_INDENT_STYLE = lazy(r"(?:padding-left|text-indent|margin-left)\s*:\s*0*[1-9]", re.I)


def indented(text: str, style: str | None = None) -> bool:
    """Whether a cell as the source gives it (before cleaning) is indented: leading typographic spaces, or a style
    with a left padding, text indent or left margin."""
    return bool(_INDENT_CHARS.match(text.lstrip(" \t\r\n"))) or bool(style and _INDENT_STYLE.search(style))


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
            placed.append((r, c, RawCell(cell.text, rs, cs, cell.header, cell.bbox, cell.indent)))
            c += cs
        n_cols = max(n_cols, c, *(cc + 1 for rr, cc in taken if rr == r))
    return placed, len(rows), n_cols


def _header_rows(grid: list[list[str]], marked: int | None, th_rows: list[bool],
                 spanning: list[bool] | None = None) -> int:
    """How many leading rows are column headers: the markup's count (thead), then any rows of labels only
    that follow before the data (a second header row the markup left in the body). ``spanning``: rows that one
    cell fills whole; after a marked header such a row heads the body rows under it ("Kellgren and Lawrence
    grade" over its grades), not the columns; so it does after an unmarked header row that does not span."""
    n = marked or 0
    for r, row in enumerate(grid):
        if r < n:
            continue
        # (unmarked: a spanning row after a header row that does not span heads the body too; a spanning row
        # above the column labels, "Treatment groups" over its groups, stays a header)
        if (spanning is not None and spanning[r] and not th_rows[r]
                and (marked or (n > 0 and not spanning[n - 1]))):
            break
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
    # rows that one cell fills whole (a heading written across the table: "Kellgren and Lawrence grade", "Women")
    spanning = [n_cols > 1 and all(owner.get((r, c)) == owner.get((r, 0)) is not None for c in range(n_cols))
                for r in range(n_rows)]
    n_head = _header_rows(grid, raw.header_rows, th_rows, spanning) if n_rows else 0
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
        # (a cell spanning from the stub across the data columns is the label alone: no data)
        rest = [t for c, t in enumerate(row[1:], 1) if t.strip() not in _EMPTYISH and owner.get((r, c)) != owner.get((r, 0))]
        if stub and label and not rest and n_cols > 2:
            current = label  # a group heading row ("Model 1", "Controls")
            group[r] = None
        else:
            group[r] = current
    spans = _row_groups(placed, grid, n_head, n_rows, stub, group) if stub and n_cols > 2 else []
    for kind, head_r, members, glabel in spans:
        if kind != "span":  # rows under a heading row carry its label (and the sub-table's above it)
            outer = group[head_r]
            for m in members:
                group[m] = f"{outer}{SEP}{glabel}" if outer else glabel

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
    core: dict[int, str] = {}  # a body row's rendering without the table name and group: "label: parts"
    folded_into: set[int] = set()
    # a body row with data and an empty stub cell continues the labelled row above it (a stub cell the markup
    # did not span down: "STD duration" over its visits, a variable's row of test statistics under its means):
    # it is rendered with that label, as a rowspan would give it
    above: dict[int, str] = {}
    last_label = ""
    for rr in range(n_head, n_rows):
        lab = grid[rr][0].strip() if stub and grid[rr] else ""
        if lab:
            last_label = lab if any(t.strip() not in _EMPTYISH for t in grid[rr][1:]) and not spanning[rr] else ""
        elif last_label and any(t.strip() not in _EMPTYISH for t in grid[rr][1:]):
            above[rr] = last_label
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
            cont = above.get(r, "") if not label else ""
            prefix = [name] + ([grp] if grp and grp != label else []) + ([label] if label else [cont] if cont else [])
            rendered = SEP.join(prefix) + (": " + "; ".join(parts) if parts else "")
            core[r] = (f"{label}: " if label and parts else label) + "; ".join(parts)
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
    by_index = {x.index: x for x in rows}
    groups: list[TableRowGroup] = []
    for kind, head_r, members, glabel in spans:
        members = [m for m in members if m in by_index]  # a folded standard-error row is rendered with its estimate
        if not members or head_r not in by_index:
            continue
        outer = group[head_r] if kind != "span" else None
        gprefix = SEP.join([name] + ([outer] if outer else []) + [glabel])
        head_part = core.get(head_r, "").split(": ", 1)[1] if kind != "span" and ": " in core.get(head_r, "") else ""
        member_rows = members if kind == "span" else [head_r, *members]
        text_ = gprefix + (f": {head_part}" if head_part else "") + " | " + " | ".join(
            core.get(m, "").removeprefix(glabel).lstrip(": ") if kind == "span" else core.get(m, "") for m in members)
        last = max(member_rows) + (1 if max(member_rows) + 1 in folded_into else 0)
        groups.append(TableRowGroup(
            id=f"{tid}.g{len(groups) + 1}", label=glabel, heading=f"{tid}.r{head_r + 1}" if kind != "span" else None,
            row_ids=[f"{tid}.r{m + 1}" for m in member_rows], text=text_,
            cell_ids=[c for m in member_rows for c in by_index[m].cell_ids],
            start=line_starts[member_rows[0]], end=line_starts[last] + len(lines[last])))
    return Table(id=tid, index=index, label=raw.label, caption=raw.caption, footnotes=raw.footnotes,
                 section=raw.section, n_rows=n_rows, n_cols=n_cols, header_rows=n_head, stub_column=stub,
                 cells=cells, rows=rows, groups=groups, text=text, start=offset, end=offset + len(text),
                 page=raw.page, bbox=raw.bbox, reader=raw.reader)


def _filled(placed: list[tuple[int, int, RawCell]], r: int) -> set[int]:
    """The data columns (not the stub) that row ``r``'s own cells fill (a cell spanning down from above not counted)."""
    out: set[int] = set()
    for rr, c, cell in placed:
        if rr == r and c > 0 and cell.text.strip() not in _EMPTYISH:
            out.update(range(c, c + cell.colspan))
    return out


def _row_groups(placed: list[tuple[int, int, RawCell]], grid: list[list[str]], n_head: int, n_rows: int,
                stub: bool, group: list[str | None]) -> list[tuple[str, int, list[int], str]]:
    """The row groups of a table with a stub: (kind, heading row, member rows, label), rows 0-based.

    - ``heading``: a sub-table heading row (a label and no data: ``group`` already names it) and the rows under it,
      up to the next such heading;
    - ``indent``: a row whose next rows have indented labels (the source's em spaces or padding) and those rows;
    - ``fill``: a row that fills fewer data columns than the rows below it, none of the same ones (a variable's
      row holding only its p-value, its levels' rows holding the counts), and at least two such rows below;
    - ``span``: the rows one stub cell spans (rowspan), the cell's text the label.
    """
    if not stub:
        return []
    indent = [False] * n_rows
    stub_cell: dict[int, RawCell] = {}
    for r, c, cell in placed:
        if c == 0:
            stub_cell[r] = cell
            indent[r] = cell.indent
    label = [grid[r][0].strip() if grid[r] else "" for r in range(n_rows)]
    is_heading = [r >= n_head and bool(label[r]) and not _filled(placed, r) and group[r] is None
                  and any(group[k] == label[r] for k in range(r + 1, n_rows)) for r in range(n_rows)]
    out: list[tuple[str, int, list[int], str]] = []
    for r in range(n_head, n_rows):
        if is_heading[r]:
            members = []
            for k in range(r + 1, n_rows):
                if is_heading[k]:
                    break
                members.append(k)
            if members:
                out.append(("heading", r, members, label[r]))
            continue
        if not label[r] or indent[r] or r + 1 >= n_rows:
            continue
        if indent[r + 1] and label[r + 1]:
            members = []
            for k in range(r + 1, n_rows):
                if not (indent[k] and label[k]) or is_heading[k]:
                    break
                members.append(k)
            out.append(("indent", r, members, label[r]))
            continue
        head = _filled(placed, r)
        members = []
        for k in range(r + 1, n_rows):
            fk = _filled(placed, k)
            if not label[k] or is_heading[k] or not fk or fk & head or len(fk) <= len(head):
                break
            members.append(k)
        if len(members) >= 2:
            out.append(("fill", r, members, label[r]))
    for r, cell in stub_cell.items():
        if r >= n_head and cell.rowspan > 1 and cell.text.strip():
            out.append(("span", r, list(range(r, r + cell.rowspan)), cell.text.strip()))
    out.sort(key=lambda x: (x[2][0] if x[0] == "span" else x[1]))
    return out


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
