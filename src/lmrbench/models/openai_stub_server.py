"""A small HTTP server that speaks the OpenAI chat-completions protocol and plays scripted answers.

For tests and benchmarks of the real HTTP client path, on loopback only. Each scripted step is one of:
text, tool calls, malformed tool-call JSON, an HTTP error status, a delay, a truncated answer, or a connection
closed without any answer (a provider outage as the client sees it).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted reply."""

    content: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw JSON arguments)
    status: int = 200
    delay_s: float = 0.0
    finish_reason: str | None = None
    prompt_tokens: int = 11
    completion_tokens: int = 7
    close: bool = False  # hang up without answering: the client sees the connection closed


class StubServer:
    """Serves scripted replies in order (the last one repeats), or `default` for every call."""

    def __init__(self, script: list[Reply] | None = None, default: Reply | None = None) -> None:
        self.script = list(script or [])
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self.default is not None:
                return self.default
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = server._next(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.close:
                    self.close_connection = True
                    return
                if reply.status != 200:
                    payload = {"error": {"message": f"scripted {reply.status}", "type": "server_error",
                                         "code": reply.status}}
                    self._send(reply.status, payload)
                    return
                self._send(200, _completion(body, reply))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer, and no traceback on stderr

        return Handler


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
             for i, (n, a) in enumerate(reply.tool_calls)]
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if calls:
        message["tool_calls"] = calls
    finish = reply.finish_reason or ("tool_calls" if calls else "stop")
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": body.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
    }
