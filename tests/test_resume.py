"""claimtrace.resume: the one resume helper (batch commands; the experiment runner can pass a fingerprint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimtrace.batch import run_batch
from claimtrace.errors import InputError
from claimtrace.resume import ResumableOutput, finished_keys


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_finished_rows_are_kept_failed_and_cut_lines_dropped(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"id": "a", "v": 1, "error": None}) + "\n"
                   + json.dumps({"id": "b", "error": "boom"}) + "\n"
                   + json.dumps({"id": "a", "v": 2, "error": None}) + "\n"  # a duplicate: the last one counts
                   + '{"id": "c", "v"')  # cut by an interrupted run
    sink = ResumableOutput(out)
    assert sink.start() == {"a"}
    assert _rows(out) == [{"id": "a", "v": 2, "error": None}]
    with sink:
        sink.write({"id": "b", "v": 3, "error": None})
    assert finished_keys(out) == {"a", "b"}


def test_a_changed_fingerprint_makes_rows_stale(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    with ResumableOutput(out, fingerprint="cfg-1") as sink:
        sink.start()
        sink.write({"id": "x", "error": None})
    assert _rows(out)[0]["fingerprint"] == "cfg-1"
    assert ResumableOutput(out, fingerprint="cfg-1").start() == {"x"}
    changed = ResumableOutput(out, fingerprint="cfg-2")
    assert changed.start() == set() and changed.stale == 1
    assert out.read_text() == ""  # the stale row is gone, so it is redone and not mixed in


def test_run_batch_resumes_and_retries_failures(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    calls: list[str] = []

    def fn(item: dict) -> dict:
        calls.append(item["id"])
        if item["id"] == "2" and len(calls) < 4:
            raise InputError(None, "not yet")
        return {"n": int(item["id"]) * 10}

    items = [{"id": str(i)} for i in range(1, 4)]
    first = run_batch(items, fn, out=out, progress=False)
    assert first == {"done": 2, "skipped": 0, "failed": 1}
    second = run_batch(items, fn, out=out, progress=False)
    assert second == {"done": 1, "skipped": 2, "failed": 0}
    assert calls == ["1", "2", "3", "2"]
    rows = sorted(_rows(out), key=lambda r: r["id"])
    assert [(r["id"], r["n"], r["error"]) for r in rows] == [("1", 10, None), ("2", 20, None), ("3", 30, None)]


def test_a_folder_is_not_an_output_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        ResumableOutput(tmp_path).start()
