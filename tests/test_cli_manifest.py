"""One manifest schema: every batch command reads ``doc`` (a path) and/or ``text`` (the text itself)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO, SAMPLE

TEXT = ("Methods\n\nWe measured reaction time in an n-back task.\n\n"
        "Results\n\nDeprived participants were slower than rested ones, t(28) = 2.20, p = .03.")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


def test_batch_commands_take_doc_or_text(tmp_path: Path) -> None:
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"id": "by-text", "text": TEXT, "query": "were deprived participants slower"}) + "\n"
                        + json.dumps({"id": "by-doc", "doc": str(SAMPLE), "query": "pain"}) + "\n")
    for cmd in (["stats"], ["retrieve", "-k", "1"], ["graph"]):
        out = tmp_path / f"{cmd[0]}.jsonl"
        res = run(*cmd, "--batch", str(manifest), "--out", str(out))
        assert res.returncode == 0, (cmd, res.stderr)
        rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
        assert set(rows) == {"by-text", "by-doc"} and all(r["error"] is None for r in rows.values()), cmd
    stats = {r["id"]: r for r in map(json.loads, (tmp_path / "stats.jsonl").read_text().splitlines())}
    assert [(r["test"], r["df1"]) for r in stats["by-text"]["results"]] == [("t", 28.0)]
    hits = {r["id"]: r for r in map(json.loads, (tmp_path / "retrieve.jsonl").read_text().splitlines())}
    assert "slower" in hits["by-text"]["hits"][0]["text"] and hits["by-doc"]["doc"] == str(SAMPLE)


def test_conclude_reads_doc_lists_and_the_older_docs_field(tmp_path: Path) -> None:
    manifest = tmp_path / "m.jsonl"
    q = {"intervention": "hydrotherapy", "comparator": "land exercise", "outcome": "feeling much better"}
    manifest.write_text(json.dumps({"id": "a", "doc": [str(SAMPLE)], **q}) + "\n"
                        + json.dumps({"id": "b", "doc": str(SAMPLE), **q}) + "\n"
                        + json.dumps({"id": "c", "docs": [str(SAMPLE)], **q}) + "\n")  # as ei_eval.py writes
    out = tmp_path / "out.jsonl"
    res = run("conclude", "--batch", str(manifest), "--out", str(out), "--method", "offline")
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c"] and all(r["error"] is None for r in rows)
    assert len({r["label"] for r in rows}) == 1
