"""``claimtrace graph`` and ``claimtrace evaluate graph`` through the console script."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EMPIRIGRAPH_GOLD, REPO


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True,
                          cwd=REPO, input=stdin, env={"PATH": "/usr/bin:/bin", "HOME": str(REPO)})


def _abstract(task_id: int) -> str:
    raw = json.loads(EMPIRIGRAPH_GOLD.read_text())
    return next(t["data"]["AB"] for t in raw if t["id"] == task_id)


def test_graph_stdin_json_png(tmp_path) -> None:
    png = tmp_path / "g.png"
    res = run("graph", "-", "--json", "--png", str(png), stdin=_abstract(97))
    assert res.returncode == 0, res.stderr
    g = json.loads(res.stdout)
    assert g["schema_version"] == "1.0" and g["method"] == "offline"
    assert any(e["type"] == "moderation" for e in g["edges"])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_graph_file_and_mermaid(tmp_path) -> None:
    f = tmp_path / "abstract.md"
    f.write_text("# A study\n\n## Abstract\n\n" + _abstract(100) + "\n\n## Introduction\n\nSome body text.\n")
    res = run("graph", str(f), "--mermaid")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("flowchart LR") and "hierarchy" in res.stdout


def test_graph_bad_input() -> None:
    res = run("graph", "-", stdin="   ")
    assert res.returncode == 2 and res.stderr.strip().startswith("error:")
    res = run("graph", "-", "--method", "staged", stdin="Stress predicted sleep.")
    assert res.returncode == 2 and "no LLM configured" in res.stderr and "Traceback" not in res.stderr
    res = run("graph", "-", "--method", "bogus", stdin="x")
    assert res.returncode == 2 and "unknown method" in res.stderr


def test_graph_batch(tmp_path) -> None:
    items = tmp_path / "in.jsonl"
    items.write_text(json.dumps({"id": "97", "text": _abstract(97)}) + "\n" + json.dumps({"id": "bad"}) + "\n")
    out = tmp_path / "out.jsonl"
    res = run("graph", "--batch", str(items), "--out", str(out))
    assert res.returncode == 1
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["97", "bad"]
    assert rows[0]["error"] is None and rows[0]["edges"]
    assert "text" in rows[1]["error"]
    # the batch output is a valid --pred for the evaluator
    ev = run("evaluate", "graph", "--pred", str(out), "--gold", str(EMPIRIGRAPH_GOLD), "--json")
    assert ev.returncode == 0, ev.stderr
    data = json.loads(ev.stdout)
    assert data["missing_pred"] == ["7", "100", "106", "112"]
    assert 0 < data["micro_f1"] < 1


def test_evaluate_gold_vs_gold() -> None:
    gold = str(EMPIRIGRAPH_GOLD)
    res = run("evaluate", "graph", "--pred", gold, "--gold", gold, "--agreement", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["mode"] == "agreement"
    assert data["micro_f1"] == 1.0 and data["macro_f1"] == 1.0
    assert set(data["per_type"]) == {"directional", "correlational", "moderation", "hierarchy"}
    assert data["no_status"]["micro_f1"] == 1.0 and "per_type" in data["no_status"]


def test_evaluate_errors(tmp_path) -> None:
    gold = str(EMPIRIGRAPH_GOLD)
    res = run("evaluate", "graph", "--pred", str(tmp_path / "none.json"), "--gold", gold)
    assert res.returncode == 2 and "no such file" in res.stderr
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "zzz", "variables": [], "edges": []}) + "\n"
                     + json.dumps({"id": "yyy", "variables": [], "edges": []}) + "\n")
    res = run("evaluate", "graph", "--pred", str(other), "--gold", gold)
    assert res.returncode == 2 and "no predicted graph id matches" in res.stderr
