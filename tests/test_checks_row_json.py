"""The JSON of a check row on a real psychsci paper: ``Location`` and ``CheckRow`` keep their keys, their order and
their strictness."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from claimtrace.checks import CheckRow, Location
from claimtrace.documents import load_document
from conftest import REPO, shared_path

LOCATION_KEYS = ["scope", "unit_id", "start", "end", "page", "section"]
ROW_KEYS = ["check", "severity", "message", "guidance", "location", "text", "data"]


def test_check_rows_of_a_real_paper_keep_their_json() -> None:
    paper = shared_path("documents", "psychsci") / "0956797614527830.xml"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    res = subprocess.run([sys.executable, "-m", "claimtrace", "check", str(paper), "--json"], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["rows"]
    located = [r for r in rows if r["location"] is not None]
    assert located, "a real paper gives rows that point into it"
    doc = load_document(paper)
    spans = 0
    for r in rows:
        assert list(r) == ROW_KEYS
        assert CheckRow.model_validate(r).model_dump(mode="json") == r  # the model writes what it reads, unchanged
        loc = r["location"]
        if loc is None:
            continue
        assert list(loc) == LOCATION_KEYS
        if loc["start"] is not None and loc["scope"] == "body":
            assert 0 <= loc["start"] < loc["end"] <= len(doc.body_text)
            spans += 1
    assert spans > 0


def test_location_refuses_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        Location.model_validate({"scope": "body", "offset": 3})
