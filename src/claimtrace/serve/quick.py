"""Quick check: an uploaded PDF or JATS/TEI file, parsed, checked and traced with the embedded defaults.

The upload is checked before anything is written: its size, that its name's type matches its content
(a ``.pdf`` must be a PDF, an ``.xml``/``.nxml`` must be JATS or TEI), and that the documents layer
reads it (the same readers and errors as the CLI). Only then is it saved, as a one-paper run in its
own results store ``RESULTS_DIR/quick/<paper_id>/`` (the uploaded file under ``source/``), made by the
corpus runner with one worker that the server loads once.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from claimtrace.corpus.runner import run_corpus
from claimtrace.corpus.work import CorpusItem, RunSettings, Worker, sha256_of
from claimtrace.documents.builder import content_hash
from claimtrace.documents.readers import read_bytes, sniff_format
from claimtrace.errors import InputError
from claimtrace.settings import DEFAULT_MAX_UPLOAD  # noqa: F401  (its home is the serve section)

#: file name suffix -> the formats its content may have
ALLOWED = {".pdf": ("pdf",), ".xml": ("jats", "tei"), ".nxml": ("jats",), ".tei": ("tei",)}
QUICK_DIR = "quick"
_NAMES = {"pdf": "a PDF", "jats": "JATS XML", "tei": "TEI XML"}


def check_upload(name: str, data: bytes, max_bytes: int) -> Any:
    """The Document of an upload, or an InputError (size, type, content); writes nothing."""

    safe = Path(name or "upload").name
    suffix = Path(safe).suffix.lower()
    if suffix not in ALLOWED:
        raise InputError(safe, f"unsupported file type {suffix or '(none)'}; upload a .pdf, .xml or .nxml file")
    if len(data) > max_bytes:
        raise InputError(safe, f"file is {len(data):,} bytes, over the upload limit of {max_bytes:,} bytes")
    if not data.strip():
        raise InputError(safe, "empty file")
    fmt = sniff_format(data, safe)
    if fmt not in ALLOWED[suffix]:
        want = " or ".join(_NAMES[f] for f in ALLOWED[suffix])
        raise InputError(safe, f"the file is named {suffix} but its content is not {want} (it reads as {fmt})")
    return read_bytes(data, safe, fmt=fmt)


class QuickCheck:
    """Runs uploads as one-paper stores, with one embedded-extractor worker loaded on first use."""

    def __init__(self, root: Path) -> None:
        """Quick checks of the results folder ``root`` go under ``root/quick``."""
        self.root = root / QUICK_DIR
        self._lock = threading.Lock()
        self._worker: Any = None

    def _get_worker(self) -> Any:
        if self._worker is None:
            self._worker = Worker(RunSettings())
        return self._worker

    def warm(self) -> None:
        """Load the worker's models now (the server does this in the background at start)."""
        with self._lock:
            self._get_worker()

    def run(self, name: str, data: bytes, max_bytes: int) -> str:
        """Check, save and run an upload; returns its paper_id."""

        check_upload(name, data, max_bytes)

        pid = content_hash(data)
        out = self.root / pid
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name)[:120] or "upload"
        src = out / "source" / safe
        with self._lock:
            worker = self._get_worker()
            src.parent.mkdir(parents=True, exist_ok=True)
            if not src.is_file():
                tmp = src.with_name(f".{src.name}.tmp")
                tmp.write_bytes(data)
                tmp.replace(src)
            assert sha256_of(src) == pid
            run_corpus([CorpusItem(path=str(src.resolve()))], out, RunSettings(), workers=1,
                       corpus_name=f"quick check: {safe}", worker=worker)
        return pid

    def stores(self) -> dict[str, Path]:
        """paper_id -> its one-paper store, for every quick check made."""
        if not self.root.is_dir():
            return {}
        return {p.name: p for p in self.root.iterdir()
                if p.is_dir() and re.fullmatch(r"[0-9a-f]{64}", p.name) and (p / "manifest.json").is_file()}
