"""Word manuscripts (.docx) with python-docx: paragraph styles give the title and the headings, and the
text then goes through the plain-text reader's rules (an "Abstract" heading marks the abstract, section
headings, excluded back matter). Tables are kept as excluded blocks. Offsets index the text the reader
assembles from the paragraphs (blocks joined by blank lines), not the ZIP bytes.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from typing import Any

from claimtrace.documents.model import Document, ExcludedKind, SourceFormat
from claimtrace.errors import InputError

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.I)


def is_docx(data: bytes) -> bool:
    """Whether ZIP bytes hold a Word document (``word/document.xml``)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return "word/document.xml" in zf.namelist()
    except zipfile.BadZipFile:
        return False


def _markdown_blocks(doc: Any) -> tuple[list[str], list[tuple[ExcludedKind, str]]]:
    """Markdown-style blocks (``#`` title, ``##`` headings) and the tables' text, in document order."""
    from docx.table import Table

    blocks: list[str] = []
    tables: list[tuple[ExcludedKind, str]] = []
    for item in doc.iter_inner_content():
        if isinstance(item, Table):
            rows = [" | ".join(c.text.strip() for c in row.cells) for row in item.rows]
            text = "\n".join(r for r in rows if r.strip(" |"))
            if text:
                tables.append(("table", text))
            continue
        text = " ".join(item.text.split())
        if not text:
            continue
        style = (item.style.name if item.style is not None else "") or ""
        m = _HEADING_STYLE.match(style)
        if style.lower() == "title":
            blocks.append(f"# {text}")
        elif m:
            blocks.append("#" * min(int(m.group(1)) + 1, 6) + f" {text}")
        else:
            blocks.append(text)
    return blocks, tables


@dataclass
class DocxReader:
    """Reader for Word .docx manuscripts."""

    format: SourceFormat = "docx"

    def read(self, data: bytes, path: str) -> Document:
        """Parse .docx bytes into a Document."""
        import docx

        from claimtrace.documents.readers.text import TextReader

        try:
            doc = docx.Document(io.BytesIO(data))
        except (zipfile.BadZipFile, KeyError, ValueError) as exc:
            raise InputError(path, f"corrupt .docx file ({exc})") from None
        blocks, tables = _markdown_blocks(doc)
        if not blocks:
            raise InputError(path, "no text found in the .docx file")
        title = (doc.core_properties.title or "").strip()
        if title and not blocks[0].startswith("# "):
            blocks.insert(0, f"# {title}")
        reader = TextReader(format="markdown")
        return reader.parse_text("\n\n".join(blocks) + "\n", path, data, source_format="docx", excluded=tables)


def get_reader(fmt: SourceFormat) -> DocxReader:
    """Reader factory used by the registry."""
    return DocxReader(format=fmt)
