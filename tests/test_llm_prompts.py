"""Prompt files: packaged, versioned, declared variables, strict rendering; ledger records and costs."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from claimtrace.llm import (
    LLMClient,
    ModelPrice,
    PromptError,
    get_invocation,
    list_prompts,
    load_prompt,
    load_prompt_file,
    load_settings,
)
from llm_fault_server import FaultServer


class StatFields(BaseModel):
    """Schema for the packaged statistic_fields prompt."""

    test: str
    df: str
    statistic: str
    p: str


def test_packaged_prompt_loads_and_renders() -> None:
    assert "statistic_fields" in list_prompts()
    p = load_prompt("statistic_fields")
    assert (p.name, p.version, p.variables) == ("statistic_fields", "1", ["sentence"])
    msgs = p.render({"sentence": "r(40) = .31, p = .04"})
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[1]["content"] == "Sentence: r(40) = .31, p = .04"
    assert "Example answer" in msgs[0]["content"]


def test_missing_and_unexpected_variables_are_named() -> None:
    p = load_prompt("statistic_fields")
    with pytest.raises(PromptError, match="missing variables: sentence"):
        p.render({})
    with pytest.raises(PromptError, match="unexpected variables: paper"):
        p.render({"sentence": "x", "paper": "y"})


def test_unknown_prompt_lists_available() -> None:
    with pytest.raises(PromptError, match=r"no packaged prompt named 'nope'.*statistic_fields"):
        load_prompt("nope")


def test_undeclared_template_variable_is_refused_at_load(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text("name: bad\nversion: 2\nvariables: [a]\nuser: '{{ a }} and {{ b }}'\n")
    with pytest.raises(PromptError, match="undeclared variables: b"):
        load_prompt_file(f)


def test_markdown_prompt_with_front_matter_and_loops(tmp_path: Path) -> None:
    f = tmp_path / "rank.md"
    f.write_text(
        "---\nname: rank\nversion: 3\nvariables: [query, passages]\nsystem: You rank passages.\n---\n"
        "Query: {{ query }}\n{% for p in passages %}[{{ loop.index }}] {{ p }}\n{% endfor %}"
    )
    p = load_prompt_file(f)
    msgs = p.render({"query": "q", "passages": ["a", "b"]})
    assert msgs[0] == {"role": "system", "content": "You rank passages."}
    assert msgs[1]["content"] == "Query: q\n[1] a\n[2] b"
    assert p.ref == "rank@3"


def test_str_format_engine(tmp_path: Path) -> None:
    f = tmp_path / "f.yaml"
    f.write_text("name: f\nversion: 1\nengine: format\nvariables: [x]\nuser: 'value {x}'\n")
    assert load_prompt_file(f).render({"x": 5})[0]["content"] == "value 5"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name: n\nuser: hi\n", "has no 'version'"),
        ("name: n\nversion: 1\n", "needs a 'user' template"),
        ("name: n\nversion: 1\nuser: '{% if %}'\n", "Jinja2 syntax error"),
        ("- a\n- b\n", "expected a mapping"),
    ],
)
def test_malformed_prompt_files(tmp_path: Path, text: str, reason: str) -> None:
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(PromptError, match=reason):
        load_prompt_file(f)


def test_ledger_records_invocations_and_estimates_cost(tmp_path: Path) -> None:
    with FaultServer() as srv:
        settings = load_settings(base_url=srv.url, model="priced-model", cache_dir=tmp_path, env={},
                                 prices={"priced-model": ModelPrice(input_per_million=1000.0,
                                                                    output_per_million=2000.0)})
        with LLMClient(settings) as client:
            res = client.structured("statistic_fields", {"sentence": "t(98) = 2.45, p = .016"}, StatFields,
                                    task="extraction")
            again = client.structured("statistic_fields", {"sentence": "t(98) = 2.45, p = .016"}, StatFields,
                                      task="extraction")
            summary = client.summary()
            run_id = client.run_id
        sent = srv.chat_requests[0]
    assert again.cached
    # the fault server counts whitespace tokens: check the ledger adds up what the server reported
    prompt_tokens = sum(len(m["content"].split()) for m in sent.messages)
    completion_tokens = 8
    assert summary.calls == 1 and summary.cache_hits == 1 and summary.failures == 0
    assert (summary.prompt_tokens, summary.completion_tokens) == (prompt_tokens, completion_tokens)
    assert summary.cost_usd == pytest.approx((prompt_tokens * 1000.0 + completion_tokens * 2000.0) / 1e6)
    assert summary.by_model["priced-model"].calls == 1
    # traceable from the id alone, in a later process (only the cache dir is needed)
    inv = get_invocation(res.invocation_ids[0], cache_dir=tmp_path)
    assert inv is not None and inv.run_id == run_id
    assert (inv.prompt_name, inv.prompt_version, inv.task) == ("statistic_fields", "1", "extraction")
    assert inv.messages == sent.messages
    assert inv.raw_response == srv.default_content
    assert inv.parsed == {"test": "t", "df": "98", "statistic": "2.45", "p": ".016"}
    assert inv.prompt_tokens == prompt_tokens and not inv.cached and inv.error is None
    hit = get_invocation(again.invocation_ids[0], cache_dir=tmp_path)
    assert hit is not None and hit.cached and hit.parsed == inv.parsed
    assert get_invocation("inv_unknown", cache_dir=tmp_path) is None
