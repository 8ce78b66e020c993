"""The summary's context label names what the run resolved: the retriever and reranker specs of the
configuration, the trained model's folder and the head each stage reads, stage 1's hypothesis-likeness."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from claimtrace.evaluate.experiment import context_description, load_config, run_experiment
from claimtrace.evaluate.experiment.config import (
    PATH_FIELDS,
    ExperimentConfig,
    config_fingerprint,
    context_selector,
    row_fingerprint,
)
from claimtrace.evaluate.experiment.reports import spec_label
from claimtrace.extract.config import get_preset
from conftest import REPO, SAMPLE, ei_article
from test_experiment_resume import FINDING, HYP


def _retriever_folder(tmp_path: Path, name: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "manifest.json").write_text("{}", encoding="utf-8")  # labels resolve the folder; they load no model
    return d


def _cfg(tmp_path: Path, **kw: object) -> ExperimentConfig:
    return ExperimentConfig.model_validate({"dataset": "d.jsonl", "output": str(tmp_path / "out"), **kw})


def test_labels_follow_the_configuration(tmp_path: Path) -> None:
    folder = _retriever_folder(tmp_path, "my-retriever")
    opts = {"retriever": "bm25", "finetuned_model": str(folder)}
    hyp = _cfg(tmp_path, stages=["hypothesis"], extractor_options=opts)
    assert context_description(hyp, "rag-k5", "embedded") == "bm25 + hypothesis-likeness top-5"
    assert context_description(hyp, "finetuned-rerank", "embedded") == (
        "finetuned:my-retriever (hypothesis head) M=30 → hybrid-finetuned:my-retriever (hypothesis head) rescoring "
        "+ hypothesis-likeness → k=5")
    ev = _cfg(tmp_path, stages=["evidence"], extractor_options=opts)
    assert context_description(ev, "rag-rerank", "embedded") == (
        "bm25 M=30 → finetuned:my-retriever (evidence head) rescoring + evidence-likeness → k=5")
    both = _cfg(tmp_path, extractor_options={**opts, "reranker": "cross-encoder:/models/ce-small"})
    assert context_description(both, "rag-rerank", "embedded") == (
        "stage 1: bm25 M=30 → cross-encoder:ce-small + hypothesis-likeness → k=5; "
        "stage 2: bm25 M=30 → cross-encoder:ce-small + evidence-likeness → k=5")
    # the LLM extractor's rows use its own reranker
    llm = _cfg(tmp_path, stages=["evidence"], extractors=["embedded", "llm"], extractor_options=opts)
    assert context_description(llm, "rag-rerank", "llm") == "bm25 M=30 → RankGPT (LLM) + evidence-likeness → k=5"
    assert "finetuned (evidence head)" not in context_description(hyp, "finetuned-rerank", "embedded")
    # the label is built from the specs the runner's selector resolves, not from the YAML's words
    sel = context_selector(ev, "embedded")
    spec = sel.reranker_for(get_preset("rag-rerank"))
    assert spec == f"finetuned:{folder}" and spec_label(spec, "evidence", reranker=True) in (
        context_description(ev, "rag-rerank", "embedded"))
    assert spec_label("rescore:bm25", "evidence") == "bm25 rescoring"
    assert spec_label("dense", "evidence", reranker=True) == "dense (MiniLM) rescoring"
    assert spec_label("two-stage", "hypothesis") == "two-stage (hypothesis head)"


def test_run_summary_names_the_context_it_read(tmp_path: Path) -> None:
    data = tmp_path / "h.jsonl"
    data.write_text(json.dumps({"id": "h1", "doc": str(SAMPLE), "finding": FINDING, "hypothesis": HYP,
                                "hypothesis_units": ["p3.s1"]}) + "\n", encoding="utf-8")
    cfg_file = tmp_path / "exp.yaml"
    cfg_file.write_text(f"dataset: {data}\noutput: {tmp_path / 'out'}\npresets: [rag-rerank]\nstages: [hypothesis]\n"
                        "extractor_options:\n  reranker: dense\n", encoding="utf-8")
    summary = run_experiment(load_config(cfg_file), log=lambda m: None)
    (row,) = summary["table"]
    assert row["errors"] == 0
    assert row["context"] == "hybrid M=30 → dense (MiniLM) rescoring + hypothesis-likeness → k=5"
    assert row["context"] in (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")


def test_runner_records_paths_relative_to_the_repository(tmp_path: Path) -> None:
    # a checkout (a .git entry marks its root, as a worktree's .git file does) beside a shared-data folder
    repo, shared = tmp_path / "checkout", tmp_path / "shared"
    (repo / "bench" / "data").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")
    (shared / "data").mkdir(parents=True)
    item = {"id": "h1", "doc": str(SAMPLE), "finding": FINDING, "hypothesis": HYP, "hypothesis_units": ["p3.s1"]}
    (repo / "bench" / "data" / "h.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    (shared / "data" / "h.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    _retriever_folder(repo, "models")
    exp = repo / "bench" / "experiments"
    exp.mkdir()
    cfg_file = exp / "exp.yaml"
    cfg_file.write_text("dataset: ../data/h.jsonl\noutput: ../../docs/results/exp\npresets: [oracle]\n"
                        "stages: [hypothesis]\nextractor_options:\n  finetuned_model: ../../models\n", encoding="utf-8")
    cfg = load_config(cfg_file)
    assert Path(cfg.dataset).is_absolute()  # the run itself reads resolved paths
    log: list[str] = []
    run_experiment(cfg, log=log.append)
    out = repo / "docs" / "results" / "exp"
    conf = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert (conf["dataset"], conf["output"], conf["extractor_options"]["finetuned_model"]) == (
        "bench/data/h.jsonl", "docs/results/exp", "models")
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["dataset"] == "bench/data/h.jsonl"
    for f in ("config.json", "summary.json", "summary.md"):
        assert str(tmp_path) not in (out / f).read_text(encoding="utf-8"), f
    # a second run resumes every row
    run_experiment(load_config(cfg_file), log=log.append)
    assert "0 to run" in log[-2]
    # the checkout copied elsewhere (its items/ with it): the same fingerprints, every row still current
    moved = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(repo, moved)
    cfg2 = load_config(moved / "bench" / "experiments" / "exp.yaml")
    assert cfg2.dataset != cfg.dataset and row_fingerprint(cfg2, "embedded") == row_fingerprint(cfg, "embedded")
    assert config_fingerprint(cfg2) == conf["fingerprint"]
    run_experiment(cfg2, log=log.append)
    assert "0 to run" in log[-2] and "dropped" not in log[-2]
    # shared data beside the checkout is recorded as ../shared/...
    cfg_file.write_text(f"dataset: {shared / 'data' / 'h.jsonl'}\noutput: ../../docs/results/exp\n"
                        "presets: [oracle]\nstages: [hypothesis]\n", encoding="utf-8")
    run_experiment(load_config(cfg_file), log=log.append)
    assert json.loads((out / "config.json").read_text(encoding="utf-8"))["dataset"] == "../shared/data/h.jsonl"


def test_committed_experiment_results_record_no_absolute_paths() -> None:
    folders = sorted(p.parent for p in (REPO / "docs" / "results").glob("*/config.json"))
    assert len(folders) >= 5
    for folder in folders:
        conf = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        for keys in PATH_FIELDS:
            v: object = conf
            for k in keys:
                v = v.get(k) if isinstance(v, dict) else None
            assert not (isinstance(v, str) and Path(v).is_absolute()), (folder.name, keys, v)
        assert conf["output"] == folder.relative_to(REPO).as_posix()
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        assert not Path(summary["dataset"]).is_absolute()


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def test_each_configuration_reads_its_own_context() -> None:
    """Full text reads every paragraph, a top-k configuration k of them, the oracle the gold ones."""
    from claimtrace.documents import load_document
    from claimtrace.evaluate.experiment.config import ExperimentConfig
    from claimtrace.evaluate.experiment.runner import _Runner

    doc = load_document(ei_article("PMC1087200"))
    cfg = ExperimentConfig(dataset="unused.jsonl", output="unused", extractor_options={"retriever": "bm25"})
    query = "gametocyte carriage after co-artemether versus chloroquine plus sulphadoxine-pyrimethamine"
    every = [p.id for p in doc.paragraphs]
    gold = [every[5]]
    assert _Runner(cfg, "fulltext-zeroshot", "embedded").context_paragraphs(doc, query, gold) == every
    top5 = _Runner(cfg, "rag-k5", "embedded").context_paragraphs(doc, query, gold)
    assert len(top5) == 5 and set(top5) < set(every)
    assert _Runner(cfg, "oracle", "embedded").context_paragraphs(doc, query, gold) == gold


def test_config_specs_are_the_registry_spellings(tmp_path: Path) -> None:
    import pytest

    from claimtrace import specs
    from claimtrace.errors import InputError

    cfg = _cfg(tmp_path, extractors=["embedded", "llm"], llm={"reranker": "rescore:hybrid-finetuned:/m"},
               extractor_options={"retriever": " hybrid-finetuned:/m ", "reranker": "cross-encoder"})
    assert (cfg.extractor_options.retriever, cfg.extractor_options.reranker, cfg.llm.reranker) == (
        "hybrid-finetuned:/m", "cross-encoder", "rescore:hybrid-finetuned:/m")  # spelt back by the registry
    for section, key, bad, registry in (("extractor_options", "retriever", "magic", specs.RETRIEVERS),
                                        ("extractor_options", "reranker", "finetuned", specs.RERANKERS),
                                        ("llm", "reranker", "rescore:magic", specs.RETRIEVERS)):  # SPEC: a retriever
        f = tmp_path / f"{section}-{key}.yaml"
        f.write_text(f"dataset: d.jsonl\noutput: out\n{section}:\n  {key}: {bad}\n", encoding="utf-8")
        with pytest.raises(InputError, match=f"{section}.{key}: unknown .*expected {re.escape(registry.expected())}"):
            load_config(f)
    f = tmp_path / "extractor.yaml"
    f.write_text("dataset: d.jsonl\noutput: out\nextractors: [embedded, magic]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"extractors.1: unknown extractor 'magic' \(expected embedded or llm\)"):
        load_config(f)
