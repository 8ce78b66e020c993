"""Gold claim traces on fresh social-science papers (``documents/pdf-twins``), stored as offsets.

The articles are their publishers' and authors', so ``fresh.jsonl`` holds no article text: every finding,
hypothesis and evidence string is a location ``{"block", "start", "end", "sha1"}`` in the plain rendering of the
paper's GROBID TEI (``documents/pdf-twins/NAME.tei.xml``) by ``../shared/data/traces/render.py``, the rendering
the annotator read. ``load_fresh`` rebuilds the verbatim records (the keys of ``psychsci-dev.jsonl``) and checks
every string's sha1. The format and helpers are those of ``bench/data/traces-extra/load.py``.

    python bench/data/traces-fresh/load_fresh.py --check                  # load everything, print counts
    python bench/data/traces-fresh/load_fresh.py --build VERBATIM.jsonl   # verbatim annotations -> offsets file
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OFFSETS = HERE / "fresh.jsonl"
DEFAULT_SHARED = HERE.parents[3] / "shared"


@functools.cache
def extra() -> Any:
    """``bench/data/traces-extra/load.py`` (offsets, sha1s, the rendering's blocks) as a module."""
    spec = importlib.util.spec_from_file_location("ct_traces_extra", HERE.parent / "traces-extra" / "load.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError("bench/data/traces-extra/load.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tei_of(shared_dir: str | Path, paper: str) -> Path:
    """The GROBID TEI of a fresh paper."""
    return Path(extra().data_dir(shared_dir)) / "documents" / "pdf-twins" / f"{paper}.tei.xml"


def pdf_of(shared_dir: str | Path, paper: str) -> Path:
    """The PDF of a fresh paper (the TEI's twin)."""
    return Path(extra().data_dir(shared_dir)) / "documents" / "pdf-twins" / f"{paper}.pdf"


def blocks(shared_dir: str | Path, paper: str) -> dict[str, str]:
    """The rendering of a fresh paper's TEI, as ``{block id: text}``."""
    out: dict[str, str] = extra().blocks_of_tei(shared_dir, tei_of(shared_dir, paper))
    return out


def load_fresh(shared_dir: str | Path, path: str | Path = OFFSETS) -> list[dict[str, Any]]:
    """The verbatim fresh traces (keys of psychsci-dev.jsonl, plus ``annotator``), rebuilt from the offsets."""
    out: list[dict[str, Any]] = extra().load_extra(shared_dir, path, blocks=blocks)
    return out


def skipped(path: str | Path = OFFSETS) -> list[dict[str, Any]]:
    """The papers recorded as skipped, with their reasons."""
    out: list[dict[str, Any]] = extra().skipped(path)
    return out


def build(verbatim: str | Path, shared_dir: str | Path, path: str | Path = OFFSETS) -> int:
    """Convert the verbatim annotation file to the offsets file; returns the number of lines written."""
    n: int = extra().build(verbatim, shared_dir, path, blocks=blocks)
    return n


def main(argv: list[str] | None = None) -> int:
    """The command line: ``--check`` or ``--build VERBATIM``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="load every trace, verify sha1s, print counts")
    ap.add_argument("--build", metavar="VERBATIM", help="write the offsets file from a verbatim jsonl")
    ap.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared tree (default ../shared)")
    a = ap.parse_args(argv)
    if not (Path(extra().data_dir(a.shared)) / "documents" / "pdf-twins").is_dir():
        print(f"error: no documents/pdf-twins under {a.shared}", file=sys.stderr)
        return 2
    try:
        if a.build:
            print(f"wrote {build(a.build, a.shared)} lines to {OFFSETS}", file=sys.stderr)
        print(json.dumps(extra().counts(load_fresh(a.shared), skipped())))
    except (ValueError, OSError, KeyError, ImportError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
