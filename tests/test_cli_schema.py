"""``claimtrace schema`` exports the JSON Schemas of every output object, and they validate real output."""

from __future__ import annotations

import json
import subprocess
import sys

from claimtrace.cli.schema import SCHEMAS
from conftest import REPO, SAMPLE


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


def test_schemas_written_with_schema_version(tmp_path) -> None:
    res = run("schema", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    for name in SCHEMAS:
        schema = json.loads((tmp_path / f"{name}.schema.json").read_text())
        assert schema["type"] == "object"
        if name != "statistic":  # a record inside `claimtrace stats` output, which carries schema_version
            assert "schema_version" in schema["properties"], name
        else:
            assert {"test", "df1", "value", "p_value", "consistent"} <= set(schema["properties"])


def test_document_schema_matches_a_parsed_document() -> None:
    schema = json.loads(run("schema", "document", "--json").stdout)
    doc = json.loads(run("parse", str(SAMPLE), "--json").stdout)
    assert set(doc) == set(schema["properties"])
    assert set(schema["required"]) <= set(doc)


def test_unknown_schema_is_one_line_exit_2() -> None:
    res = run("schema", "nope")
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "unknown schema" in res.stderr
