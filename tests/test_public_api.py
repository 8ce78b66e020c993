"""The public Python API: the README's example runs as a doctest, and the API has typed returns."""

from __future__ import annotations

import doctest
import inspect
import re
import typing

import pytest

import claimtrace
from conftest import REPO

API = ["load_document", "analyze_statistics", "analyze_text", "retrieve", "extract_traces", "build_graph",
       "conclude", "evaluate_hypotheses", "evaluate_evidence", "evaluate_retrieval", "evaluate_graphs"]


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
    assert {"load_document", "analyze_statistics", "retrieve", "extract_traces", "build_graph", "conclude"} <= used


@pytest.mark.parametrize("name", API)
def test_public_functions_are_exported_documented_and_typed(name: str) -> None:
    fn = getattr(claimtrace, name)
    assert name in claimtrace.__all__
    assert (fn.__doc__ or "").strip(), name
    hints = typing.get_type_hints(fn, globalns=vars(inspect.getmodule(fn)) | _model_names())
    assert hints.get("return") not in (None, typing.Any), name


def _model_names() -> dict[str, object]:
    from claimtrace.conclude.model import ConcludeResult
    from claimtrace.evaluate.evidence import EvidenceScore
    from claimtrace.evaluate.metrics import PRF
    from claimtrace.extract.model import ClaimTrace
    from claimtrace.graph.model import EmpiricalGraph
    from claimtrace.graph.scores import GraphEvaluation
    from claimtrace.llm import LLMClient
    from claimtrace.retrieval.units import Hit
    from claimtrace.stats.model import DocumentStat

    return {"ConcludeResult": ConcludeResult, "EvidenceScore": EvidenceScore, "PRF": PRF, "ClaimTrace": ClaimTrace,
            "GraphEvaluation": GraphEvaluation, "EmpiricalGraph": EmpiricalGraph, "LLMClient": LLMClient,
            "Hit": Hit, "DocumentStat": DocumentStat}
