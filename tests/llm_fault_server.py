"""A small OpenAI-compatible HTTP server on loopback that misbehaves on cue (for the LLM layer's tests).

Not a mock of claimtrace code: it is a real HTTP server that the real openai SDK talks to. Each
request to ``/v1/chat/completions`` takes the next scripted action (``push``), or else asks the
``responder`` callable, or else answers ``default_content``. It can also forward to a real upstream
server (``upstream=``) while counting requests.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Action = dict[str, Any]


@dataclass
class Seen:
    """One request the server received."""

    path: str
    body: dict[str, Any]
    t: float
    status: int = 0

    @property
    def response_format(self) -> dict[str, Any] | None:
        """The request's response_format."""
        return self.body.get("response_format")

    @property
    def messages(self) -> list[dict[str, str]]:
        """The request's messages."""
        return list(self.body.get("messages") or [])


@dataclass
class FaultServer:
    """Start with ``with FaultServer() as srv:``; ``srv.url`` is the /v1 base URL."""

    default_content: str = '{"test": "t", "df": "98", "statistic": "2.45", "p": ".016"}'
    responder: Callable[[dict[str, Any]], Action] | None = None
    upstream: str | None = None
    reject_json_schema: bool = False  # behave like llama.cpp's server: 500 on response_format json_schema
    reject_response_format: bool = False  # 400 on any response_format
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    requests: list[Seen] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    def __post_init__(self) -> None:
        self._script: deque[Action] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # ---------------------------------------------------------------- control
    def push(self, *actions: Action) -> None:
        """Queue actions for the next requests, in order."""
        with self._lock:
            self._script.extend(actions)

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:PORT/v1."""
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[Seen]:
        """Requests to /chat/completions only."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def __enter__(self) -> FaultServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server._handle(self, "GET")

            def do_POST(self) -> None:
                server._handle(self, "POST")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()

    # ---------------------------------------------------------------- serving
    def _next_action(self, body: dict[str, Any]) -> Action:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.responder is not None:
            return self.responder(body)
        return {}

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        seen = Seen(path=h.path, body=body, t=time.monotonic())
        with self._lock:
            self.requests.append(seen)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.upstream is not None:
                status, headers, payload = self._forward(h, method, raw)
            elif method == "GET" and h.path.endswith("/models"):
                status, headers, payload = 200, {}, {
                    "object": "list",
                    "data": [{"id": m, "object": "model", "owned_by": "test"} for m in self.models],
                }
            else:
                status, headers, payload = self._chat(body)
            seen.status = status
            if status < 0:  # drop the connection without an answer
                h.close_connection = True
                return
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _forward(self, h: BaseHTTPRequestHandler, method: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
        assert self.upstream is not None
        req = urllib.request.Request(
            self.upstream.rstrip("/") + h.path.removeprefix("/v1"),
            data=raw if method == "POST" else None,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=600) as resp:
                return resp.status, {}, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, {}, exc.read()

    def _chat(self, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        rf = body.get("response_format")
        if self.reject_response_format and rf:
            return 400, {}, {"error": {"message": "response_format is not supported by this server", "type": "invalid_request_error"}}
        if self.reject_json_schema and rf and rf.get("type") == "json_schema":
            # what llama_cpp.server 0.3.36 answers (HTTP 500 with a validation error)
            return 500, {}, {"error": {"message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                                       "'msg': \"Input should be 'text' or 'json_object'\"}]", "type": "internal_server_error"}}
        action = self._next_action(body)
        if action.get("sleep"):
            time.sleep(float(action["sleep"]))
        if action.get("drop"):
            return -1, {}, b""
        if "status" in action and action["status"] != 200:
            payload = action.get("body") or {"error": {"message": action.get("message", f"error {action['status']}")}}
            return int(action["status"]), dict(action.get("headers") or {}), payload
        if "raw_body" in action:
            return 200, {}, action["raw_body"].encode()
        content = action.get("content", self.default_content)
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages") or [])
        return 200, dict(action.get("headers") or {}), {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": action.get("finish_reason", "stop"),
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(content.split()),
                "total_tokens": prompt_tokens + len(content.split()),
            },
        }
