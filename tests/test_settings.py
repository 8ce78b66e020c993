"""The one Settings object: its sources' order with a real TOML file and real environment variables, presets
as data, and the spec registry that the CLI, the API and the builders share."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace import specs
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.settings import Settings

TOML = """
[llm]
base_url = "http://file-host:1/v1"
model = "file-model"
timeout = 33

[retrieval]
retriever = "hybrid-finetuned:/models/ft"
reranker = "rescore:bm25"
k = 8

[serve]
host = "0.0.0.0"
"""


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    f = tmp_path / "claimtrace.toml"
    f.write_text(TOML, encoding="utf-8")
    return f


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith("CLAIMTRACE_"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_defaults_without_any_source(clean_env: pytest.MonkeyPatch) -> None:
    s = Settings()
    assert s.llm.model is None and not s.llm.configured() and s.llm.source == "defaults"
    assert isinstance(s.retrieval.retriever, specs.DefaultRetriever)
    assert isinstance(s.retrieval.reranker, specs.NoReranker)
    assert (s.retrieval.k, s.retrieval.m, s.serve.port, s.corpus.steps) == (5, 30, 8765, ["parse", "stats", "traces"])


def test_file_then_old_env_names_then_nested_env_then_explicit(settings_file: Path,
                                                               clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CLAIMTRACE_SETTINGS", str(settings_file))
    s = Settings()  # the real environment: the file named by CLAIMTRACE_SETTINGS
    assert (s.llm.model, s.llm.timeout, s.retrieval.k, s.serve.host) == ("file-model", 33, 8, "0.0.0.0")
    assert s.retrieval.retriever == specs.HybridFinetunedRetriever(arg="/models/ft")
    assert s.retrieval.reranker == specs.RescoreReranker(arg=specs.BM25Retriever())
    assert Settings.load().llm.source == f"settings file {settings_file}"

    clean_env.setenv("CLAIMTRACE_LLM_MODEL", "old-env-model")  # an old name beats the file
    clean_env.setenv("CLAIMTRACE_RETRIEVAL__K", "9")
    s = Settings.load()
    assert (s.llm.model, s.llm.base_url, s.retrieval.k, s.llm.source) == (
        "old-env-model", "http://file-host:1/v1", 9, "environment")

    clean_env.setenv("CLAIMTRACE_LLM__MODEL", "nested-env-model")  # the nested name beats the old one
    clean_env.setenv("CLAIMTRACE_RETRIEVAL__RERANKER", "cross-encoder:/models/ce")  # a spec as its spelling
    s = Settings.load()
    assert s.llm.model == "nested-env-model" and s.retrieval.reranker == specs.CrossEncoderReranker(arg="/models/ce")

    s = Settings.load(llm={"model": "flag-model", "base_url": None}, retrieval={"k": 3})  # explicit beats all
    assert (s.llm.model, s.llm.base_url, s.retrieval.k, s.llm.source) == (
        "flag-model", "http://file-host:1/v1", 3, "command-line flags")


def test_an_explicit_file_beats_the_environment_variable(tmp_path: Path, settings_file: Path,
                                                         clean_env: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("llm:\n  model: yaml-model\nextract:\n  similarity: dense\n", encoding="utf-8")
    clean_env.setenv("CLAIMTRACE_SETTINGS", str(settings_file))
    s = Settings.load(settings_file=other)
    assert (s.llm.model, s.extract.similarity, s.retrieval.k) == ("yaml-model", "dense", 5)


def test_old_offline_and_serve_names(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CLAIMTRACE_OFFLINE", "yes")
    clean_env.setenv("CLAIMTRACE_SERVE_NO_WARM", "1")
    clean_env.setenv("CLAIMTRACE_LLM_BASE_URL", "http://h:1/v1")
    s = Settings()
    assert s.llm.offline and not s.llm.configured() and s.serve.warm_quick is False
    clean_env.setenv("CLAIMTRACE_OFFLINE", "0")  # not a true value: no setting
    assert not Settings().llm.offline


@pytest.mark.parametrize(("text", "message"), [
    ("[retrieval]\nreranker = 'magic'", "invalid setting 'retrieval.reranker': unknown reranker 'magic'"),
    ("[retrieval]\nk = 0", "invalid setting 'retrieval.k'"),
    ("[extract]\nconfig = 'nope'", "unknown context configuration 'nope'"),
    ("[serve]\nhots = 'x'", "invalid setting 'serve.hots'"),
    ("[llm]\nmodle = 'x'", "invalid LLM setting 'modle'"),
])
def test_bad_values_are_one_line_input_errors(tmp_path: Path, clean_env: pytest.MonkeyPatch, text: str,
                                              message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as info:
        Settings.load(settings_file=f)
    assert "\n" not in str(info.value)


def test_a_bad_environment_value_is_an_input_error(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CLAIMTRACE_RETRIEVAL__UNITS", "chapter")
    with pytest.raises(InputError, match=re.escape("invalid setting 'retrieval.units'")):
        Settings.load()


def test_presets_are_data_under_the_other_sources(settings_file: Path, clean_env: pytest.MonkeyPatch) -> None:
    s = Settings.from_preset("rag-rerank")
    assert (s.extract.config, s.retrieval.k, s.retrieval.m) == ("rag-rerank", 5, 30)
    from claimtrace.extract.config import PRESETS

    for name, preset in PRESETS.items():  # the same k and M as the extraction layer's presets
        s = Settings.from_preset(name)
        assert s.extract.config == name
        assert s.retrieval.k == (preset.k or 5) and s.retrieval.m == (preset.candidates or 30)
    assert Settings.from_preset("rag-k20", settings_file=settings_file).retrieval.k == 8  # the file wins
    with pytest.raises(ClaimtraceError, match="unknown context configuration 'nope'"):
        Settings.from_preset("nope")


def test_settings_dump_writes_spellings_back(settings_file: Path, clean_env: pytest.MonkeyPatch) -> None:
    s = Settings.load(settings_file=settings_file)
    dumped = s.model_dump(mode="json")["retrieval"]
    assert (dumped["retriever"], dumped["reranker"]) == ("hybrid-finetuned:/models/ft", "rescore:bm25")


# ---------------------------------------------------------------------------------------------- the registry
@pytest.mark.parametrize("registry", [specs.RETRIEVERS, specs.RERANKERS, specs.EXTRACTORS])
def test_every_spelling_parses_and_prints_back(registry: specs.SpecRegistry[specs.Spec]) -> None:
    for spelling in registry.spellings():
        text = spelling.replace("DIR", "models/x").replace("PATH", "models/ce").replace("SPEC", "hybrid-finetuned:m")
        spec = registry.parse(text)
        assert str(spec) == text and registry.parse(spec.to_dict()) == spec


@pytest.mark.parametrize("bad", ["magic", "finetuned", "finetuned:", "bm25:x", "BM25 "])
def test_unknown_spellings_name_the_choices(bad: str) -> None:
    with pytest.raises(ClaimtraceError, match=r"unknown retriever .*expected default, two-stage, bm25"):
        specs.RETRIEVERS.parse(bad.strip() if bad != "BM25 " else "BM25")


def test_every_registered_retriever_has_a_builder() -> None:
    from claimtrace.retrieval.pipeline import get_retriever, retriever_builders

    assert set(retriever_builders()) == set(specs.RETRIEVERS)
    assert type(get_retriever(specs.BM25Retriever())).__name__ == "BM25Retriever"


def test_rerankers_build_from_specs() -> None:
    from claimtrace.retrieval.rerank import NoReranker, RetrieverReranker, get_reranker

    assert isinstance(get_reranker(None), NoReranker) and isinstance(get_reranker("none"), NoReranker)
    rescore = get_reranker("rescore:bm25")
    assert isinstance(rescore, RetrieverReranker) and rescore.spec == "bm25"
    with pytest.raises(ClaimtraceError, match=r"unknown reranker 'magic' .*rescore:SPEC"):
        get_reranker("magic")


def test_cli_help_lists_the_registry() -> None:
    out = subprocess.run([sys.executable, "-m", "claimtrace", "retrieve", "--help"], capture_output=True,
                         text=True, env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"}, check=True).stdout
    flat = re.sub(r"-\s+", "-", " ".join(out.split()))  # rich wraps at hyphens
    for spelling in specs.RETRIEVERS.spellings() + specs.RERANKERS.spellings():
        assert spelling in flat


# ---------------------------------------------------------------------------------------------- the public API
def test_api_takes_a_settings_object(tmp_path: Path, clean_env: pytest.MonkeyPatch) -> None:
    import claimtrace

    sample = Path(__file__).resolve().parents[1] / "examples" / "PMC1821024.nxml"
    f = tmp_path / "s.toml"
    f.write_text("[retrieval]\nretriever = 'bm25'\nk = 2\n", encoding="utf-8")
    s = claimtrace.Settings.load(settings_file=f)
    paper = claimtrace.Paper(sample)
    hits = claimtrace.retrieve(paper, "blood pressure", settings=s)
    assert len(hits) == 2
    assert len(paper.retrieve("blood pressure", k=3, settings=s)) == 3  # an explicit argument wins
    same = paper.retrieve("blood pressure", k=2, retriever=specs.BM25Retriever())  # a typed spec
    assert [h.unit_id for h in same] == [h.unit_id for h in hits]
    with pytest.raises(ClaimtraceError, match="unknown retriever 'magic'"):
        paper.retrieve("blood pressure", retriever="magic")  # type: ignore[arg-type]


def test_cli_reads_file_then_environment_then_options(tmp_path: Path) -> None:
    import json

    sample = Path(__file__).resolve().parents[1] / "examples" / "PMC1821024.nxml"
    f = tmp_path / "s.toml"
    f.write_text("[retrieval]\nretriever = 'bm25'\nk = 2\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")}

    def run(*extra: str, **more_env: str) -> dict[str, object]:
        res = subprocess.run([sys.executable, "-m", "claimtrace", "retrieve", str(sample), "-q", "blood pressure",
                              "--json", "--settings", str(f), *extra], capture_output=True, text=True,
                             env={**env, **more_env})
        assert res.returncode == 0, res.stderr
        out: dict[str, object] = json.loads(res.stdout)
        return out

    assert (run()["retriever"], run()["k"]) == ("bm25", 2)
    assert run(CLAIMTRACE_RETRIEVAL__K="3")["k"] == 3
    assert run("-k", "1", CLAIMTRACE_RETRIEVAL__K="3")["k"] == 1
    bad = subprocess.run([sys.executable, "-m", "claimtrace", "retrieve", str(sample), "-q", "x", "--settings",
                          str(f)], capture_output=True, text=True, env={**env, "CLAIMTRACE_RETRIEVAL__RERANKER": "x"})
    assert bad.returncode == 2 and "invalid setting 'retrieval.reranker'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_extract_reads_its_section_from_file_then_environment_then_options(tmp_path: Path) -> None:
    import json

    sample = Path(__file__).resolve().parents[1] / "examples" / "PMC1821024.nxml"
    f = tmp_path / "s.toml"
    f.write_text("[extract]\nconfig = 'rag-k5'\nmax_evidence_sentences = 1\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")}

    def configuration(*extra: str, **more_env: str) -> object:
        res = subprocess.run([sys.executable, "-m", "claimtrace", "extract", str(sample), "--json", "--offline",
                              *extra], capture_output=True, text=True, env={**env, **more_env}, timeout=300)
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)["traces"][0]["configuration"]

    assert configuration() == "fulltext-zeroshot"  # the embedded extractor's own default
    assert configuration("--settings", str(f)) == "rag-k5"
    assert configuration("--settings", str(f), CLAIMTRACE_EXTRACT__CONFIG="rag-k10") == "rag-k10"
    assert configuration("--settings", str(f), "--config", "rag-k20", CLAIMTRACE_EXTRACT__CONFIG="rag-k10") == "rag-k20"
    bad = subprocess.run([sys.executable, "-m", "claimtrace", "extract", str(sample), "--offline"], capture_output=True,
                         text=True, env={**env, "CLAIMTRACE_EXTRACT__CONFIG": "nope"}, timeout=120)
    assert bad.returncode == 2 and "invalid setting 'extract.config'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_run_reads_its_corpus_section_from_file_then_environment_then_options(tmp_path: Path) -> None:
    import json

    sample = Path(__file__).resolve().parents[1] / "examples" / "PMC1821024.nxml"
    corpus = tmp_path / "papers.txt"
    corpus.write_text(f"{sample}\n", encoding="utf-8")
    f = tmp_path / "s.toml"
    f.write_text("[corpus]\nsteps = ['parse', 'stats']\nalpha = 0.01\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")}

    def settings(name: str, *extra: str, **more_env: str) -> dict[str, object]:
        out = tmp_path / name
        res = subprocess.run([sys.executable, "-m", "claimtrace", "run", str(corpus), "--out", str(out), "--workers",
                              "1", *extra], capture_output=True, text=True, env={**env, **more_env}, timeout=300)
        assert res.returncode == 0, res.stderr
        written: dict[str, object] = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["settings"]
        return written

    plain = settings("defaults")
    assert (plain["steps"], plain["alpha"]) == (["parse", "stats", "traces"], 0.05)
    from_file = settings("file", "--settings", str(f))
    assert (from_file["steps"], from_file["alpha"]) == (["parse", "stats"], 0.01)
    from_env = settings("env", "--settings", str(f), CLAIMTRACE_CORPUS__STEPS="parse")
    assert (from_env["steps"], from_env["alpha"]) == (["parse"], 0.01)
    from_flag = settings("flag", "--settings", str(f), "--steps", "parse,stats", CLAIMTRACE_CORPUS__STEPS="parse")
    assert from_flag["steps"] == ["parse", "stats"]
    bad = subprocess.run([sys.executable, "-m", "claimtrace", "run", str(corpus), "--out", str(tmp_path / "bad")],
                         capture_output=True, text=True, env={**env, "CLAIMTRACE_CORPUS__EXTRACTOR": "magic"},
                         timeout=120)
    assert bad.returncode == 2 and "invalid setting 'corpus.extractor'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()  # checked before anything is written
