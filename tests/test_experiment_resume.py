"""`experiment` resume: rows of another configuration are dropped and redone; other changes keep them."""

from __future__ import annotations

import json
from pathlib import Path

from claimtrace.evaluate.experiment import load_config, run_experiment
from claimtrace.evaluate.experiment.config import config_fingerprint, row_fingerprint
from conftest import SAMPLE

HYP = ("In this randomised controlled trial we set out to compare individualised exercises whilst immersed in a "
       "heated pool to similar exercises on land for their effect on overall improvement in health, physical "
       "function and quality of life in people with rheumatoid arthritis.")
FINDING = ("Significantly more patients treated with hydrotherapy (40/46, 87%) were much better or very much better "
           "than the patients treated with land exercise (19/40, 47.5%), p < 0.001 Fisher's exact test.")


def _setup(tmp_path: Path, extra: str = "") -> Path:
    data = tmp_path / "h.jsonl"
    data.write_text(json.dumps({"id": "h1", "doc": str(SAMPLE), "finding": FINDING, "hypothesis": HYP,
                                "hypothesis_units": ["p3.s1"]}) + "\n", encoding="utf-8")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"dataset: {data}\noutput: {tmp_path / 'out'}\npresets: [oracle]\nstages: [hypothesis]\n{extra}",
                   encoding="utf-8")
    return cfg


def _run(cfg: Path) -> tuple[list[str], list[dict]]:
    log: list[str] = []
    run_experiment(load_config(cfg), log=log.append)
    rows = [json.loads(x) for x in (cfg.parent / "out" / "items" / "oracle__embedded.jsonl").read_text().splitlines()]
    return log, rows


def test_changed_configuration_redoes_stale_rows_and_keeps_others(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    log, rows = _run(cfg)
    assert "1 to run" in log[0] and len(rows) == 1
    first_fp = rows[0]["fingerprint"]
    assert first_fp == row_fingerprint(load_config(cfg), "embedded")
    # more workers, another name, an extra configuration: what decides the oracle rows is unchanged
    cfg2 = _setup(tmp_path, "workers: 2\nname: renamed\ntransitions_base: oracle\n")
    log, rows = _run(cfg2)
    assert "0 to run" in log[0] and "dropped" not in log[0]
    assert [r["fingerprint"] for r in rows] == [first_fp]
    # another τ changes every hypothesis score: the row is stale, dropped and redone
    cfg3 = _setup(tmp_path, "tau: 0.5\n")
    log, rows = _run(cfg3)
    assert "1 to run" in log[0] and "1 rows of another configuration dropped" in log[0]
    assert len(rows) == 1 and rows[0]["fingerprint"] != first_fp
    assert rows[0]["hypothesis"]["f1"] == 1.0
    # --report-only leaves out rows of another configuration
    summary = run_experiment(load_config(_setup(tmp_path)), log=lambda m: None, report_only=True)
    assert [e["items"] for e in summary["table"]] == [0]


def test_rows_written_before_fingerprints_are_kept_when_the_configuration_is_the_same(tmp_path: Path) -> None:
    cfg = _setup(tmp_path)
    _, rows = _run(cfg)
    items = tmp_path / "out" / "items" / "oracle__embedded.jsonl"
    # as an earlier version wrote them: no fingerprint in the rows, the whole-config one in config.json
    items.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "fingerprint"}) + "\n" for r in rows))
    conf = json.loads((tmp_path / "out" / "config.json").read_text())
    assert conf["fingerprint"] == config_fingerprint(load_config(cfg))
    log, again = _run(cfg)
    assert "0 to run" in log[0]
    assert again[0]["fingerprint"] == rows[0]["fingerprint"]
    # the same legacy rows under another configuration are not trusted
    items.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "fingerprint"}) + "\n" for r in rows))
    log, _ = _run(_setup(tmp_path, "tau: 0.5\n"))
    assert "1 to run" in log[0]


def test_each_extractor_runs_its_own_presets_and_reranker() -> None:
    from claimtrace.evaluate.experiment.config import ExperimentConfig, presets_for, reranker_for

    cfg = ExperimentConfig(dataset="d.jsonl", output="out", presets=["rag-k5"], extractors=["embedded", "llm"],
                           llm={"presets": ["rag-k10"]})
    assert presets_for(cfg, "embedded") == ["rag-k5"] and presets_for(cfg, "llm") == ["rag-k10"]
    assert reranker_for(cfg, "llm") == "llm" and reranker_for(cfg, "embedded") is None
    same = ExperimentConfig(dataset="d.jsonl", output="out", presets=["rag-k5"], extractors=["llm"])
    assert presets_for(same, "llm") == ["rag-k5"]
    # the LLM block decides the LLM rows only
    other_llm = ExperimentConfig(dataset="d.jsonl", output="out", presets=["rag-k5"], llm={"model": "m2"})
    assert row_fingerprint(cfg, "embedded") == row_fingerprint(other_llm, "embedded")
    assert row_fingerprint(cfg, "llm") != row_fingerprint(other_llm, "llm")
