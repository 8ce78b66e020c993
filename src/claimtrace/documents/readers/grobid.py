"""A GROBID server as the PDF reader: the PDF goes to ``/api/processFulltextDocument``, its TEI to the TEI reader.

GROBID is asked for sentence segmentation and for coordinates (``teiCoordinates``), so paragraphs keep
their pages and boxes on the PDF page for provenance. The Document's source is the PDF (its id is the
PDF's hash, its format ``pdf``); ``metadata`` says ``pdf_reader: grobid`` and GROBID's version. The HTTP
client is the standard library's (``urllib``): one POST per paper, with a timeout; a busy server (503)
is asked again a few times. An unreachable server, a timeout or an error answer is one line
(:class:`GrobidError`, exit status 2 on the command line).
"""

from __future__ import annotations

import re
import secrets
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from claimtrace.documents.model import Document, SourceFormat
from claimtrace.errors import ClaimtraceError

ENDPOINT = "/api/processFulltextDocument"
#: the elements GROBID gives coordinates for (paragraphs, sentences, headings, figures and tables,
#: formulas, notes, references)
TEI_COORDINATES = ("p", "s", "head", "figure", "formula", "note", "biblStruct")
#: how often a busy server (HTTP 503) is asked again, and the longest wait between two tries (seconds)
BUSY_RETRIES = 4
BUSY_MAX_WAIT = 10.0


class GrobidError(ClaimtraceError):
    """The GROBID server cannot be reached, timed out, or answered with an error."""

    def __init__(self, path: str, url: str, reason: str) -> None:
        super().__init__(f"{path}: GROBID server {url}: {reason}")


def _multipart(fields: list[tuple[str, str]], file_field: str, filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body (text fields, then one file) and its Content-Type."""
    boundary = f"claimtrace-{secrets.token_hex(12)}"
    parts: list[bytes] = []
    for name, value in fields:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    safe = re.sub(r'[^A-Za-z0-9._-]', "_", filename) or "paper.pdf"
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{safe}"\r\n'
                 "Content-Type: application/pdf\r\n\r\n".encode())
    parts.append(data)
    parts.append(f"\r\n--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def process_fulltext(pdf: bytes, path: str, url: str, *, timeout: float = 300.0) -> bytes:
    """GROBID's TEI of a PDF (``processFulltextDocument`` with sentences and coordinates)."""
    endpoint = url.rstrip("/") + ENDPOINT
    fields = [("segmentSentences", "1"), *(("teiCoordinates", c) for c in TEI_COORDINATES)]
    body, ctype = _multipart(fields, "input", Path(path).name, pdf)
    request = urllib.request.Request(endpoint, data=body, method="POST",
                                     headers={"Content-Type": ctype, "Accept": "application/xml"})
    for attempt in range(BUSY_RETRIES + 1):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as resp:
                status, tei = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            if exc.code == 503 and attempt < BUSY_RETRIES:
                time.sleep(_busy_wait(exc.headers.get("Retry-After"), attempt))
                continue
            raise GrobidError(path, url, f"answered HTTP {exc.code} {exc.reason}{_detail(exc)}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError | socket.timeout):
                raise GrobidError(path, url, f"no answer within {timeout:g} s") from None
            raise GrobidError(path, url, f"unreachable ({getattr(reason, 'strerror', None) or reason})") from None
        except TimeoutError:
            raise GrobidError(path, url, f"no answer within {timeout:g} s") from None
        except (ConnectionError, OSError) as exc:
            raise GrobidError(path, url, f"connection failed ({exc.strerror or type(exc).__name__})") from None
        if status == 204 or not tei.strip():
            raise GrobidError(path, url, "found no text in this PDF (empty answer)")
        if status != 200:
            raise GrobidError(path, url, f"answered HTTP {status}")
        return tei
    raise GrobidError(path, url, "busy (HTTP 503) on every try")  # pragma: no cover - the loop returns or raises


def _busy_wait(retry_after: str | None, attempt: int) -> float:
    try:
        wait = float(retry_after) if retry_after else 2.0 ** attempt
    except ValueError:
        wait = 2.0 ** attempt
    return min(max(wait, 0.0), BUSY_MAX_WAIT)


def _detail(exc: urllib.error.HTTPError) -> str:
    """The start of an error answer's body, one line (GROBID says what went wrong there)."""
    try:
        text = exc.read(400).decode("utf-8", "replace")
    except OSError:
        return ""
    text = " ".join(re.sub(r"<[^>]+>", " ", text).split())[:200]
    return f": {text}" if text else ""


_VERSION = re.compile(rb'<application[^>]*\bident="GROBID"[^>]*>|<application[^>]*>', re.I)


def grobid_version(tei: bytes) -> str | None:
    """The GROBID version a TEI names in its ``<application>`` element."""
    for m in _VERSION.finditer(tei[:20000]):
        tag = m.group(0)
        if b"grobid" in tag.lower():
            v = re.search(rb'\bversion="([^"]+)"', tag)
            if v:
                return v.group(1).decode("ascii", "replace")
    return None


@dataclass
class GrobidReader:
    """Reads a PDF through a GROBID server and the TEI reader."""

    url: str
    timeout: float = 300.0
    format: SourceFormat = "pdf"

    def read(self, data: bytes, path: str) -> Document:
        """Send the PDF to GROBID and read the TEI it returns (pages and boxes kept)."""
        from claimtrace.documents.readers.tei import TeiReader
        from claimtrace.errors import InputError

        tei = process_fulltext(data, path, self.url, timeout=self.timeout)
        meta = {"pdf_reader": "grobid", "grobid_url": self.url}
        if version := grobid_version(tei):
            meta["grobid_version"] = version
        try:
            return TeiReader().read_tei(tei, path, source=data, fmt="pdf", metadata=meta)
        except InputError as exc:
            raise GrobidError(path, self.url, f"its TEI is unusable ({exc.reason})") from None
