"""The console script: one-line errors and exit status 2 for bad input."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


def test_version() -> None:
    res = run("--version")
    assert res.returncode == 0
    assert res.stdout.startswith("claimtrace ")


def test_missing_file_is_one_line_exit_2(tmp_path) -> None:
    res = run("parse", str(tmp_path / "nope.pdf"))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0
    assert "no such file" in res.stderr
    assert "Traceback" not in res.stderr


def test_local_llm_status_is_not_fooled_by_another_server(tmp_path) -> None:
    """`scripts/local-llm.sh status` checks that the port holds the llama server with our GGUF, not any process."""
    import http.server
    import json
    import os
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # an OpenAI-compatible server with another model
            body = json.dumps({"object": "list", "data": [{"id": "gpt-something", "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        env = {**os.environ, "CLAIMTRACE_LLM_PORT": str(srv.server_address[1]), "CLAIMTRACE_LLM_STATUS_TIMEOUT": "10"}
        res = subprocess.run([str(REPO / "scripts" / "local-llm.sh"), "status"], capture_output=True, text=True,
                             env=env, timeout=60)
    finally:
        srv.shutdown()
        srv.server_close()
    assert res.returncode == 1
    assert "not by the local llama server" in res.stdout
    env["CLAIMTRACE_LLM_PORT"] = str(srv.server_address[1])  # now closed: nothing listens
    res = subprocess.run([str(REPO / "scripts" / "local-llm.sh"), "status"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert res.returncode == 1 and res.stdout.strip() == "down"


def test_the_command_table_is_the_app() -> None:
    """``COMMANDS`` (what ``--help`` lists without importing) names every command, its module and its help."""
    import inspect

    import typer

    from claimtrace.cli import COMMANDS, load_commands

    app = load_commands()
    seen: dict[str, tuple[str, str]] = {}
    for ci in app.registered_commands:
        assert ci.callback is not None
        name = ci.name or ci.callback.__name__.replace("_", "-")
        doc = ci.help or inspect.getdoc(ci.callback) or ""
        seen[name] = (ci.callback.__module__.removeprefix("claimtrace.cli."), doc.split("\n\n")[0])
    for gi in app.registered_groups:
        assert gi.name and gi.typer_instance is not None
        info = gi.typer_instance.info
        help_text = info.help if isinstance(info.help, str) else ""
        seen[gi.name] = (gi.name, help_text)
    assert {n: tuple(e) for n, e in COMMANDS.items()} == seen
    assert isinstance(app, typer.Typer)


def test_help_imports_no_command_module_and_stats_only_its_own() -> None:
    code = ("import sys; from claimtrace.cli import main; sys.argv = ['claimtrace'] + sys.argv[1:]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('claimtrace.')), file=sys.stderr)")
    res = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, cwd=REPO)
    loaded = eval(res.stderr.strip().splitlines()[-1])
    assert "stats" in res.stdout and "evaluate" in res.stdout
    assert not [m for m in loaded if m.startswith(("claimtrace.cli.", "claimtrace.stats", "claimtrace.documents"))
                and m != "claimtrace.cli.common"], loaded
    page = REPO / "bench" / "data" / "startup_page.txt"
    res = subprocess.run([sys.executable, "-c", code, "stats", str(page)], capture_output=True, text=True, cwd=REPO)
    loaded = eval(res.stderr.strip().splitlines()[-1])
    assert "t(46)" in res.stdout or "2.41" in res.stdout
    assert "claimtrace.cli.stats" in loaded
    assert not [m for m in loaded if m.startswith(("claimtrace.retrieval", "claimtrace.llm", "claimtrace.conclude",
                                                   "claimtrace.graph", "claimtrace.corpus", "claimtrace.cli.run"))]
