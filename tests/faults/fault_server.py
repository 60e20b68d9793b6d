"""A loopback OpenAI-compatible endpoint that injects faults: each request takes the next planned
reply (status, headers, body), then the last one repeats. Counts requests; loopback only."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text: str = "OK") -> bytes:
    return json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "fault",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}).encode()


OK = (200, {}, completion())
RATE_LIMITED = (429, {"Retry-After": "1"}, b'{"error": {"message": "slow down", "type": "rate_limit"}}')
SERVER_ERROR = (500, {}, b'{"error": {"message": "boom", "type": "server_error"}}')
MALFORMED = (200, {}, b'{"id": "c1", "choices": [')          # truncated JSON body
NOT_JSON = (200, {}, b"<html>gateway</html>")                 # malformed body
UNAUTHORIZED = (401, {}, b'{"error": {"message": "invalid api key", "type": "auth"}}')
HANG = "hang"                                                  # never answers (until the server closes)


class FaultServer:
    def __init__(self, plan: list):
        self.plan, self.requests, self.times = list(plan), 0, []
        self.closing = threading.Event()  # a hanging request is held until the server closes
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                outer.times.append(time.monotonic())
                step = outer.plan[min(outer.requests, len(outer.plan) - 1)]
                outer.requests += 1
                if step == HANG:
                    outer.closing.wait()
                    return
                status, headers, body = step
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FaultServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port() -> int:
    """A loopback port with nothing listening."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
