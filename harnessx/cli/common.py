"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console

from harnessx.errors import HarnessXError

console = Console()
err_console = Console(stderr=True)

DEFAULT_MODEL = "sim/baseline"

ModelOpt = typer.Option(DEFAULT_MODEL, "--model", help="Task-agent model: any LiteLLM model string, "
                        "`sim/<profile>` (offline simulated agent) or `local/smollm2`.")
ApiBaseOpt = typer.Option(None, "--api-base", help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")
EnvOpt = typer.Option("retail", "--env", help="Environment: retail, terminal or toy.")


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print a HarnessXError as one line and exit 2, instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except HarnessXError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
            sys.exit(2)

    return wrapper
