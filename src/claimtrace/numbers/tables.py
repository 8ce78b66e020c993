"""Table cells of a JATS article (or rct-numeric fragment): a grid per ``<table-wrap>``, spans expanded.

Written before the Document had tables: numbers need the cells (row label, column header, cell text),
and this reads them from the source XML with the project's safe parser. The Document now has a table
model with cells (issue 13, ``Document.tables``); this module should be replaced by reading those.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from claimtrace.documents.builder import clean_text
from claimtrace.documents.readers._xml import local, parse_xml
from claimtrace.documents.readers.jats import inline_text, is_fragment, wrap_fragment


class Cell(BaseModel):
    """One cell: its text, position in the expanded grid and whether it is a header cell."""

    text: str
    row: int
    col: int
    header: bool = False


class Table(BaseModel):
    """A table: label, caption, footnotes, header rows and the grid of body rows."""

    id: str
    label: str | None = None
    caption: str = ""
    foot: str = ""
    n_header_rows: int = 0
    rows: list[list[Cell]] = Field(default_factory=list)

    def column_header(self, col: int) -> str:
        """The header text of a column (all header rows joined)."""
        parts: list[str] = []
        for row in self.rows[: self.n_header_rows]:
            if col < len(row) and row[col].text and (not parts or parts[-1] != row[col].text):
                parts.append(row[col].text)
        return " ".join(parts)

    def body_rows(self) -> list[list[Cell]]:
        """The rows below the header."""
        return self.rows[self.n_header_rows:]


def read_tables(path: str | Path) -> list[Table]:
    """The tables of a JATS file (article or fragment); an empty list for other formats."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError:
        return []
    head = data[:4096].lower()
    if b"<table" not in data or not (is_fragment(data) or b"<article" in head or b"jats" in head):
        return []
    root = parse_xml(wrap_fragment(data), str(p), recover=True)
    tables: list[Table] = []
    for i, wrap in enumerate(el for el in root.iter() if local(el.tag) == "table-wrap"):
        table_el = next((el for el in wrap.iter() if local(el.tag) == "table"), None)
        if table_el is None:
            continue
        label = wrap.find("label")
        caption = wrap.find("caption")
        foot = wrap.find("table-wrap-foot")
        t = Table(id=wrap.get("id") or f"table{i + 1}",
                  label=clean_text(inline_text(label)) if label is not None else None,
                  caption=clean_text(" ".join(inline_text(x) for x in caption.iter() if local(x.tag) in ("title", "p")))
                  if caption is not None else "",
                  foot=clean_text(" ".join(inline_text(x) for x in foot.iter() if local(x.tag) == "p"))
                  if foot is not None else "")
        _grid(table_el, t)
        if t.rows:
            tables.append(t)
    return tables


def _grid(table_el: object, t: Table) -> None:
    from lxml import etree

    assert isinstance(table_el, etree._Element)
    trs: list[tuple[etree._Element, bool]] = []
    for tr in table_el.iter():
        if local(tr.tag) != "tr":
            continue
        parent = tr.getparent()
        trs.append((tr, parent is not None and local(parent.tag) == "thead"))
    if not trs:
        return
    pending: dict[tuple[int, int], str] = {}  # (row, col) filled by a rowspan from above
    grid: list[list[Cell]] = []
    for r, (tr, is_head) in enumerate(trs):
        row: list[Cell] = []
        col = 0
        for td in tr:
            if local(td.tag) not in ("td", "th"):
                continue
            while (r, col) in pending:
                row.append(Cell(text=pending.pop((r, col)), row=r, col=col, header=is_head))
                col += 1
            text = clean_text(inline_text(td))
            span = _int(td.get("colspan"))
            rspan = _int(td.get("rowspan"))
            for _ in range(span):
                row.append(Cell(text=text, row=r, col=col, header=is_head or local(td.tag) == "th"))
                for rr in range(1, rspan):
                    pending[(r + rr, col)] = text
                col += 1
        while (r, col) in pending:
            row.append(Cell(text=pending.pop((r, col)), row=r, col=col, header=is_head))
            col += 1
        grid.append(row)
    n_head = sum(1 for _, h in trs if h)
    if n_head == 0 and len(grid) > 1:
        n_head = 1  # no <thead>: the first row names the columns
    # drop rule-only rows (<hr/>) from the header count but keep positions
    t.rows = grid
    t.n_header_rows = n_head


def _int(v: str | None) -> int:
    try:
        return max(1, min(int(v or 1), 50))
    except ValueError:
        return 1
