"""The public Python API: the README's example runs as a doctest, and the API has typed returns."""

from __future__ import annotations

import doctest
import inspect
import io
import json
import re
import subprocess
import sys
import typing
import warnings
from pathlib import Path
from typing import Any

import pytest

import claimtrace
from claimtrace.cli import main
from claimtrace.cli.stats import records
from conftest import REPO, SAMPLE, shared_path

TDCS = REPO / "examples" / "PMC1090588.nxml"  # the README example

API = ["load_document", "analyze_statistics", "analyze_text", "retrieve", "extract_traces", "build_graph",
       "conclude_study", "extract_numbers", "run_corpus", "evaluate_hypotheses", "evaluate_evidence",
       "evaluate_retrieval", "evaluate_graphs"]


def test_readme_api_example_runs_as_a_doctest(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- api:start -->\n```python\n(.*?)```\n<!-- api:end -->", readme, re.S)
    assert m, "README.md has no <!-- api:start --> python block"
    monkeypatch.chdir(REPO)
    test = doctest.DocTestParser().get_doctest(m.group(1), {}, "README.md (Python API)", "README.md", 0)
    assert len(test.examples) >= 15
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    used = set(re.findall(r"\bct\.(\w+)\(", m.group(1)))
    assert {"load_document", "analyze_statistics", "analyze_text", "retrieve", "extract_traces", "build_graph",
            "conclude_study", "Paper", "extract_numbers", "run_corpus"} <= used


@pytest.mark.parametrize("name", API)
def test_public_functions_are_exported_documented_and_typed(name: str) -> None:
    fn = getattr(claimtrace, name)
    assert name in claimtrace.__all__
    assert (fn.__doc__ or "").strip(), name
    hints = typing.get_type_hints(fn, globalns=vars(inspect.getmodule(fn)) | _model_names())
    assert hints.get("return") not in (None, typing.Any), name


def _model_names() -> dict[str, object]:
    from claimtrace.conclude.model import ConcludeResult, Method
    from claimtrace.corpus.runner import RunSummary
    from claimtrace.evaluate.evidence import EvidenceScore
    from claimtrace.extract.model import ClaimTrace
    from claimtrace.graph.model import EmpiricalGraph
    from claimtrace.graph.scores import GraphEvaluation
    from claimtrace.llm import LLMClient, LLMSettings
    from claimtrace.metrics import PRF
    from claimtrace.numbers.model import NumbersResult
    from claimtrace.retrieval.units import Hit
    from claimtrace.settings import Settings
    from claimtrace.stats.model import DocumentStat

    return {"Settings": Settings, "ConcludeResult": ConcludeResult, "EvidenceScore": EvidenceScore, "PRF": PRF, "ClaimTrace": ClaimTrace,
            "GraphEvaluation": GraphEvaluation, "EmpiricalGraph": EmpiricalGraph, "LLMClient": LLMClient,
            "Hit": Hit, "DocumentStat": DocumentStat, "NumbersResult": NumbersResult, "RunSummary": RunSummary,
            "LLMSettings": LLMSettings, "Method": Method}


STATCHECK_PAPERS = ["Paper1", "Paper2", "Paper3", "Paper4_multiplepages"]


def _cli_json(argv: list[str], stdin: str | None, capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(sys, "argv", ["claimtrace", *argv])
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0
    return dict(json.loads(capsys.readouterr().out))


def test_analyze_text_and_stats_on_stdin_agree_on_the_statcheck_papers(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The API and ``claimtrace stats -`` give the same verdicts on the same text (PDF and HTML text)."""
    compared = 0
    for name in STATCHECK_PAPERS:
        for suffix in (".htm", ".pdf"):
            doc = claimtrace.load_document(shared_path("statistics", "statcheck-test-papers", name + suffix))
            text = doc.abstract_text + "\n\n" + doc.body_text
            cli = _cli_json(["stats", "-", "--json"], text, capsys, monkeypatch)["results"]
            api = records(claimtrace.analyze_text(text))
            assert cli == api, f"{name}{suffix}"
            compared += len(api)
    assert compared >= 20


@pytest.mark.parametrize("name", STATCHECK_PAPERS)
def test_analyze_statistics_and_stats_on_a_file_agree(name: str, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = shared_path("statistics", "statcheck-test-papers", name + ".pdf")
    cli = _cli_json(["stats", str(path), "--json"], None, capsys, monkeypatch)["results"]
    assert cli == records(claimtrace.analyze_statistics(path))
    assert cli == records(claimtrace.Paper(path).statistics())


def test_analyze_text_scopes_one_tailed_to_its_sentence_and_reads_a_stated_n() -> None:
    """The two bugs of the old wrapper: a "one-tailed" anywhere counted for every result, a stated N was ignored."""
    text = ("Study 1 used a one-tailed test, t(20) = 1.80, p = .04. In Study 2 the groups differed, "
            "t(20) = 1.80, p = .04. A sample of N = 120 students took part. Scores correlated, r = .25, p = .006.")
    first, second, r = claimtrace.analyze_text(text)
    assert first.one_tailed and first.consistent is True
    assert not second.one_tailed and second.consistent is False and second.decision_error is True
    assert r.test == "r" and r.consistent is True


def test_paper_keeps_one_parsed_document_for_repeated_calls() -> None:
    paper = claimtrace.Paper(TDCS)
    assert paper.title.startswith("Bifrontal transcranial direct current stimulation")
    assert paper.statistics() is paper.statistics()  # computed once
    first = paper.retrieve("reaction time in the working memory task", k=2, retriever="bm25")
    again = paper.retrieve("reaction time in the working memory task", k=2, retriever="bm25")
    assert [h.unit_id for h in first] == [h.unit_id for h in again] and len(paper._pipes) == 1
    assert claimtrace.analyze_statistics(paper) is paper.statistics()
    assert [h.unit_id for h in claimtrace.retrieve(paper, "reaction time", k=1, retriever="bm25")] \
        == [h.unit_id for h in paper.retrieve("reaction time", k=1, retriever="bm25")]


def test_bad_options_are_one_line_errors() -> None:
    with pytest.raises(claimtrace.ClaimtraceError, match="alpha"):
        claimtrace.analyze_text("t(20) = 2.1, p = .05", alpha=2)
    with pytest.raises(claimtrace.ClaimtraceError, match="engine"):
        claimtrace.run_corpus(SAMPLE.parent, "/nonexistent-out", engine="spark")  # type: ignore[arg-type]


def test_conclude_name_is_the_subpackage_and_the_old_function_warns() -> None:
    import claimtrace.conclude as sub
    from claimtrace import api

    assert claimtrace.conclude is sub and callable(claimtrace.conclude_study)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = api.conclude([TDCS], intervention="bifrontal tDCS", comparator="sham stimulation",
                           outcome="reaction time")
    assert res.method == "offline" and any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_conclude_study_takes_any_registered_retriever() -> None:
    from claimtrace import specs
    from claimtrace.errors import ClaimtraceError

    def study(papers: list[Path], retriever: Any) -> Any:
        return claimtrace.conclude_study(papers, intervention="bifrontal tDCS", comparator="sham stimulation",
                                         outcome="reaction time", retriever=retriever)

    lexical = study([TDCS], "bm25")
    trained = study([TDCS], specs.TrainedRetriever())  # a typed spec
    spelt = study([TDCS], "trained")  # the CLI's spelling
    assert trained.model_dump() == spelt.model_dump()
    assert trained.retrieval is not None and lexical.retrieval is not None
    assert trained.retrieval.units_per_paper and trained.quotes and all(q.located for q in trained.quotes)
    with pytest.raises(ClaimtraceError, match=r"unknown retriever 'magic' \(expected default, two-stage, bm25"):
        study([REPO / "no-such-paper.pdf"], "magic")


def test_import_claimtrace_loads_no_layer_until_a_name_is_used() -> None:
    code = ("import sys, claimtrace; loaded = sorted(m for m in sys.modules if m.startswith('claimtrace.'));"
            "print(loaded); claimtrace.__version__; print('claimtrace.documents' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(REPO)).stdout.splitlines()
    assert out[0] == "['claimtrace.errors']" and out[1] == "False"


def test_version_comes_from_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert claimtrace.__version__ == version("claimtrace-sci")


# ------------------------------------------------------------------ one home for the choices (claimtrace.types)
def _literal_args(tp: Any) -> tuple[Any, ...]:
    """The values of the Literal inside a hint (``Sequence[Step] | None`` -> the steps)."""
    if typing.get_origin(tp) is typing.Literal:
        return typing.get_args(tp)
    for arg in typing.get_args(tp):
        if found := _literal_args(arg):
            return found
    return ()


def test_api_settings_and_cli_take_their_choices_from_claimtrace_types() -> None:
    from claimtrace import specs, types
    from claimtrace.cli import graph as graph_cli
    from claimtrace.retrieval import units
    from claimtrace.settings import CorpusSettings, RetrievalSettings

    def hints(fn: Any) -> dict[str, Any]:
        return typing.get_type_hints(fn, globalns=vars(inspect.getmodule(fn)) | _model_names())

    run = hints(claimtrace.run_corpus)
    assert _literal_args(run["steps"]) == types.STEPS and "checks" in types.STEPS
    assert _literal_args(run["extractor"]) == types.EXTRACTOR_NAMES == specs.EXTRACTORS.kinds()
    assert _literal_args(run["graph_method"]) == types.GRAPH_METHODS == graph_cli.METHODS
    assert _literal_args(run["engine"]) == types.ENGINES
    assert _literal_args(hints(claimtrace.build_graph)["method"]) == types.GRAPH_METHODS
    corpus = typing.get_type_hints(CorpusSettings)
    assert _literal_args(corpus["steps"]) == types.STEPS and _literal_args(corpus["graph_method"]) == types.GRAPH_METHODS
    retrieve = hints(claimtrace.retrieve)
    assert _literal_args(retrieve["units"]) == types.UNIT_KINDS == typing.get_args(units.UnitKind)
    assert _literal_args(typing.get_type_hints(RetrievalSettings)["units"]) == types.UNIT_KINDS
    assert _literal_args(retrieve["task"]) == types.TASKS
    assert units.parse_units(",".join(types.UNIT_KINDS)) == list(types.UNIT_KINDS)  # what --units accepts
    # the plain names are the registered kinds that need no argument
    plain_retrievers = tuple(c.kind_name() for c in specs.RETRIEVERS if c.metavar is None)
    plain_rerankers = tuple(c.kind_name() for c in specs.RERANKERS if c.metavar is None or c.optional_arg)
    assert (plain_retrievers, plain_rerankers) == (types.RETRIEVER_NAMES, types.RERANKER_NAMES)


@pytest.mark.parametrize(("flag", "kwargs"), [
    (["--extractor", "magic"], {"extractor": "magic"}),
    (["--graph-method", "telepathy"], {"graph_method": "telepathy"}),
    (["--steps", "parse,dance"], {"steps": ["parse", "dance"]}),
    (["--engine", "spark"], {"engine": "spark"}),
    (["--config", "no-such-config"], {"config": "no-such-config"}),
])
def test_run_and_run_corpus_give_the_same_one_line_error(flag: list[str], kwargs: dict[str, Any], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad value is checked by the same code on both paths (the corpus settings section), before any write."""
    import os

    for name in [k for k in os.environ if k.startswith("CLAIMTRACE_")]:
        monkeypatch.delenv(name)
    with pytest.raises(claimtrace.ClaimtraceError) as api_err:
        claimtrace.run_corpus(SAMPLE, tmp_path / "api", **kwargs)
    monkeypatch.setattr(sys, "argv", ["claimtrace", "run", str(SAMPLE), "--out", str(tmp_path / "cli"), *flag])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    assert capsys.readouterr().err == f"error: {api_err.value}\n"
    assert "\n" not in str(api_err.value)
    assert not (tmp_path / "api").exists() and not (tmp_path / "cli").exists()


def test_run_corpus_takes_the_checks_step_and_its_section(tmp_path: Path) -> None:
    """``steps`` takes every step of the CLI (``checks`` too); options not given come from ``settings.corpus``."""
    from claimtrace.settings import Settings

    settings = Settings.load(env={}, corpus={"alpha": 0.01})
    summary = claimtrace.run_corpus(SAMPLE, tmp_path / "out", steps=["checks", "stats"], workers=1, settings=settings)
    assert summary.ok == 1 and summary.failed == 0
    written = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))["settings"]
    assert written["steps"] == ["parse", "stats", "checks"] and written["alpha"] == 0.01


def test_retrieve_takes_several_unit_kinds_as_the_cli_does() -> None:
    paper = claimtrace.Paper(TDCS)
    hits = paper.retrieve("reaction time", k=3, retriever="bm25", units=["sentence", "table-row"])
    assert hits and all(h.unit_id for h in hits)
    with pytest.raises(claimtrace.ClaimtraceError, match=r"invalid setting 'retrieval\.units'"):
        paper.retrieve("reaction time", units="chapter")  # type: ignore[arg-type]


def test_graph_and_build_graph_give_the_same_error_for_an_unknown_method(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(claimtrace.ClaimtraceError) as api_err:
        claimtrace.build_graph(SAMPLE, method="telepathy")  # type: ignore[arg-type]
    monkeypatch.setattr(sys, "argv", ["claimtrace", "graph", str(SAMPLE), "--method", "telepathy"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2 and capsys.readouterr().err == f"error: {api_err.value}\n"
    assert "needs an LLM" not in str(api_err.value)  # the method is checked before the LLM
