"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from harnessx.cli.boundary import describe
from harnessx.cli.numbers import in_range
from harnessx.envs.registry import DEFAULT_ENV, SUITES
from harnessx.errors import HarnessXError, InputError

console = Console()
err_console = Console(stderr=True)

ApiBaseOpt = typer.Option(None, "--api-base", help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")
ENVIRONMENTS = ", ".join(SUITES)  # every registered environment, for the --env help of every command
EnvOpt = typer.Option(DEFAULT_ENV, "--env", help=f"Environment: {ENVIRONMENTS}.")
Tau2DirOpt = typer.Option(None, "--tau2-dir", help="retail: a τ²-bench retail data folder (db.json, tasks.json, "
                          "split_tasks.json, policy.md) to build the suite over.")
TasksDirOpt = typer.Option(None, "--tasks-dir", help="terminal: a folder of Terminal-Bench 2.0 / Harbor task dirs; "
                           "feasigen: a suite built by `harnessx feasigen build`.")
SandboxOpt = typer.Option(None, "--sandbox", help="terminal: bwrap (default when present), unshare or docker.")
UserModeOpt = typer.Option(None, "--user-mode", help="retail: solo (default), scripted or llm.")
UserModelOpt = typer.Option(None, "--user-model", help="retail: LiteLLM model of the llm user simulator.")
BfclDirOpt = typer.Option(None, "--bfcl-dir", help="bfcl: another copy of BFCL's data folder (default: the "
                          "installed bfcl-eval package's).")
TemperatureOpt = typer.Option(0.0, "--temperature", min=0.0, max=2.0, callback=in_range(0, 2), help="Task-agent sampling temperature (a "
                              "harness's own `temperature` switch wins). At 0 a deterministic model repeats itself: "
                              "epochs are then copies, and the paired test counts each task once.")


def _reasoning_effort(value: str | None) -> str | None:
    from harnessx.models.reasoning import check_reasoning_effort

    try:
        return check_reasoning_effort(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


ReasoningEffortOpt = typer.Option(None, "--reasoning-effort", callback=_reasoning_effort, help="Task-agent "
                                  "reasoning effort: minimal, low, medium or high (LiteLLM's reasoning_effort), or a "
                                  "thinking budget in tokens (>= 1024); default: unset, no option sent (a harness's "
                                  "`reasoning_effort` switch wins). Part of every rollout key when set.")
TopPOpt = typer.Option(None, "--top-p", min=0.0, max=1.0, callback=in_range(0, 1), help="Task-agent nucleus sampling (a harness's `top_p` wins).")

# Which suite option belongs to which environment (keyword of the suite's constructor).
PATH_OPTIONS = ("tau2_dir", "tasks_dir", "bfcl_dir")
SUITE_OPTIONS = {"tau2_dir": "retail", "user_mode": "retail", "user_model": "retail",
                 "tasks_dir": ("terminal", "feasigen"), "sandbox": ("terminal", "feasigen"),
                 "bfcl_dir": "bfcl"}


def suite_kwargs(env: str, **options: Any) -> dict[str, Any]:
    """The suite options the user set; an option that belongs to another environment is an error."""
    given = {k: str(Path(v).resolve()) if k in PATH_OPTIONS else v for k, v in options.items() if v is not None}
    for key in given:
        envs = SUITE_OPTIONS[key] if isinstance(SUITE_OPTIONS[key], tuple) else (SUITE_OPTIONS[key],)
        if env not in envs:
            raise InputError(f"--{key.replace('_', '-')}", f"applies to --env {'/'.join(envs)}, not {env!r}")
    return given


def open_suite(env: str, **options: Any):
    """The environment's suite with the options the user set."""
    from harnessx.envs.registry import get_suite

    return get_suite(env, **suite_kwargs(env, **options))


def friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print a HarnessXError as one line and exit with its code (2: bad input; 3: nothing was scored),
    instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except HarnessXError as exc:
            typer.echo(f"error: {describe(exc)}", err=True)  # one line, however long
            sys.exit(exc.exit_code)

    return wrapper
