"""llama.cpp's OpenAI-compatible server for a local model, bound to loopback only.

`serve()` starts llama.cpp's server (`python -m harnessx.local.serve_main`, which adds the
constrained tool-call chat format of harnessx.local.chat) as a child process, waits until it answers, yields
the running server, and stops it on exit. Clients use it as
`ModelClient("openai/<name>", api_base=server.url)`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from harnessx.local.chat import CHAT_FORMAT
from harnessx.local.engine import N_CTX, THREADS
from harnessx.local.weights import INSTALL_HINT, ModelUnavailable, gguf_path

HOST = "127.0.0.1"


class ServerError(RuntimeError):
    """The server did not come up (exited, or did not answer in time)."""


@dataclass(frozen=True)
class LocalServer:
    name: str
    port: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL, for `--api-base`."""
        return f"http://{HOST}:{self.port}/v1"


def claim_port(port: int) -> int:
    """`port` if nothing listens on it (0: any free port); a busy port would answer for another server."""
    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            raise ServerError(f"port {port} on {HOST} is in use") from None
        return sock.getsockname()[1]


def command(name: str, port: int) -> list[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelUnavailable(f"the llama.cpp server needs llama-cpp-python[server]: {INSTALL_HINT}")
    return [sys.executable, "-m", "harnessx.local.serve_main", "--model", str(gguf_path(name)), "--model_alias", name,
            "--host", HOST, "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", str(THREADS),
            "--n_threads_batch", str(THREADS), "--chat_format", CHAT_FORMAT]


@contextlib.contextmanager
def serve(name: str = "smollm2", port: int = 0, startup_timeout_s: float = 120.0,
          output: IO | None = None) -> Iterator[LocalServer]:
    """Run the server for local model `name` on 127.0.0.1:`port` (0 = a free port) until exit.

    The server's output goes to `output` (default: a temporary file, quoted if startup fails).
    """
    port = claim_port(port)
    with contextlib.ExitStack() as stack:
        log = output or stack.enter_context(tempfile.TemporaryFile("w+"))
        process = subprocess.Popen(command(name, port), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        server = LocalServer(name=name, port=port, process=process)
        try:
            _wait_ready(server, startup_timeout_s, log if output is None else None)
            yield server
        finally:
            stop(process)


def _wait_ready(server: LocalServer, timeout_s: float, log: IO | None) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise ServerError(f"llama.cpp server exited with code {server.process.returncode}{_tail(log)}")
        try:
            with urllib.request.urlopen(f"{server.url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise ServerError(f"llama.cpp server did not answer on {server.url} within {timeout_s:.0f}s{_tail(log)}")


def _tail(log: IO | None, lines: int = 15) -> str:
    if log is None:
        return ""
    log.flush()
    log.seek(0)
    return ":\n" + "\n".join(log.read().splitlines()[-lines:])


def stop(process: subprocess.Popen, grace_s: float = 10.0) -> None:
    """SIGTERM (uvicorn shuts down cleanly), then SIGKILL if it has not exited after `grace_s`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
