"""Plain text and Markdown: headings become sections, an "Abstract" heading marks the abstract,
blank lines separate paragraphs. Paragraphs keep ``source_start``/``source_end`` into the decoded text.

Encodings: a byte-order mark decides UTF-8/16/32; otherwise UTF-8 when the bytes are valid UTF-8;
otherwise charset-normalizer's detection, with Windows-1252 (the superset of Latin-1 that older
Western corpora use) preferred whenever it reads the bytes at least as cleanly as the detected one.
The encoding is recorded in ``Document.source.encoding``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimtrace.documents.builder import DocumentBuilder
from claimtrace.documents.model import Document, ExcludedKind, SourceFormat
from claimtrace.documents.sections import excluded_heading
from claimtrace.errors import InputError

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# plain-text heading: a short line in capitals or "1. Introduction"-style, alone in its block
_TXT_HEADING = re.compile(r"^(?:[0-9]+(?:\.[0-9]+)*\.?\s+)?[A-Z][A-Za-z0-9 ,&/\-:()']{1,80}$")
_ABSTRACT = re.compile(r"^\s*(abstract|summary)\s*:?\s*$", re.I)
_STRUCTURED_LABEL = re.compile(
    r"^(BACKGROUND|OBJECTIVES?|AIMS?|PURPOSE|INTRODUCTION|METHODS?|METHODS AND FINDINGS|DESIGN|SETTING|PARTICIPANTS|"
    r"INTERVENTIONS?|MAIN OUTCOME MEASURES?|MEASUREMENTS|RESULTS?|FINDINGS|CONCLUSIONS?|INTERPRETATION|"
    r"CONCLUSIONS AND RELEVANCE|SIGNIFICANCE|TRIAL REGISTRATION|CONTEXT)\s*[:.]\s*", re.I)


# longest BOM first: the UTF-32-LE mark starts with the UTF-16-LE one
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"), (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"),
)


def bom_encoding(data: bytes) -> str | None:
    """The encoding named by a byte-order mark at the start of ``data``, if any."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def decode_text(data: bytes, path: str = "") -> tuple[str, str]:
    """Decode text bytes; returns (text, encoding). Raises InputError for bytes that are not text."""
    bom = bom_encoding(data)
    if bom is not None:
        marks = {"utf-8": 3, "utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4}
        try:
            return data[marks[bom]:].decode(bom), bom
        except UnicodeDecodeError as exc:
            raise InputError(path, f"invalid {bom} text after its byte-order mark (byte {exc.start})") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        raise InputError(path, "unsupported format (binary file that is not a PDF)")
    from charset_normalizer import from_bytes
    from charset_normalizer.md import mess_ratio

    best = from_bytes(data).best()
    if best is None:
        raise InputError(path, "unsupported format (binary file that is not a PDF)")
    detected = str(best)
    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        return detected, best.encoding
    if mess_ratio(western, 1.0) <= mess_ratio(detected, 1.0):
        return western, "cp1252"
    return detected, best.encoding


@dataclass
class TextReader:
    """Reader for plain text and Markdown."""

    format: SourceFormat = "text"

    def read(self, data: bytes, path: str) -> Document:
        """Parse text/Markdown bytes into a Document."""
        text, encoding = decode_text(data, path)
        return self.parse_text(text, path, data, encoding=encoding)

    def parse_text(self, text: str, path: str, data: bytes, *, encoding: str | None = None,
                   source_format: SourceFormat | None = None,
                   excluded: list[tuple[ExcludedKind, str]] | None = None) -> Document:
        """Build a Document from decoded text (``data``: the source bytes the id is computed from)."""
        if not text.strip():
            raise InputError(path, "empty file")
        b = DocumentBuilder(path, source_format or self.format, data, encoding=encoding)
        for ex_kind, ex_text in excluded or []:
            b.add_excluded(ex_kind, ex_text)
        section: str | None = None
        in_abstract = False
        in_excluded: str | None = None
        seen_heading = False
        for start, end in _blocks(text):
            block = text[start:end]
            first_line = block.strip().split("\n", 1)[0]
            heading = self._heading(first_line, block)
            if heading is not None:
                rest_offset = block.find(first_line) + len(first_line)
                if self.format == "markdown" and _MD_HEADING.match(first_line) and _MD_HEADING.match(first_line).group(1) == "#" and b.title is None and not seen_heading:  # type: ignore[union-attr]
                    b.title = heading
                    seen_heading = True
                    block_rest = block[rest_offset:]
                    if not block_rest.strip():
                        continue
                seen_heading = True
                in_abstract = bool(_ABSTRACT.match(heading))
                kind = excluded_heading(heading)
                in_excluded = kind
                section = None if in_abstract else heading
                block_rest = block[rest_offset:]
                if not block_rest.strip():
                    continue
                start, block = start + rest_offset, block_rest
            if in_abstract:
                m = _STRUCTURED_LABEL.match(block.strip())
                if m:
                    b.add_abstract(block.strip()[m.end():], label=m.group(1).upper())
                else:
                    b.add_abstract(block)
            elif in_excluded:
                b.add_excluded(in_excluded, block, section=section)  # type: ignore[arg-type]
            else:
                lead = len(block) - len(block.lstrip())
                b.add_paragraph(block, section, source_start=start + lead, source_end=start + len(block.rstrip()))
        if b.paragraph_count == 0 and not b._abstract:
            raise InputError(path, "no text found")
        return b.build()

    def _heading(self, line: str, block: str) -> str | None:
        m = _MD_HEADING.match(line)
        if m:
            return m.group(2).strip() or None
        if "\n" not in block.strip() and _TXT_HEADING.match(line.strip()) and not line.strip().endswith("."):
            words = line.split()
            if len(words) <= 8 and (line.strip().isupper() or _known_heading(line)):
                return line.strip().rstrip(":")
        return None


def _known_heading(line: str) -> bool:
    from claimtrace.documents.sections import section_kind

    return section_kind(line) != "other" or excluded_heading(line) is not None or bool(_ABSTRACT.match(line))


def _blocks(text: str) -> list[tuple[int, int]]:
    """Blocks separated by blank lines; Markdown headings are blocks of their own."""
    out: list[tuple[int, int]] = []
    for m in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", text):
        s, e = m.start(), m.end()
        # split off heading lines inside a block
        pos = s
        for hm in re.finditer(r"(?m)^#{1,6}\s.*$", text[s:e]):
            hs, he = s + hm.start(), s + hm.end()
            if hs > pos and text[pos:hs].strip():
                out.append((pos, hs))
            out.append((hs, he))
            pos = he
        if pos < e and text[pos:e].strip():
            out.append((pos, e))
    return out


def get_reader(fmt: SourceFormat) -> TextReader:
    """Reader factory used by the registry."""
    return TextReader(format=fmt)
