"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from harnessx.cli import checks
from harnessx.cli.boundary import describe
from harnessx.cli.numbers import in_range
from harnessx.envs.registry import DEFAULT_ENV, SUITES
from harnessx.errors import HarnessXError, InputError, one_of

console = Console()
err_console = Console(stderr=True)

ApiBaseOpt = typer.Option(None, "--api-base", help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")
ENVIRONMENTS = ", ".join(SUITES)  # every registered environment, for the --env help of every command
EnvOpt = typer.Option(DEFAULT_ENV, "--env", help=f"Environment: {ENVIRONMENTS} (entry points of harnessx.environments, "
                      "a benchmark's suite, or an import path package.module:Class).")
AcceptOptionOpt = typer.Option(None, "--accept-option", metavar="NAME=VALUE", help="A setting of the --accept rule "
                               "(repeatable), e.g. confirm=unseen, move_p=0.3, gate=0 for default (docs/search.md lists "
                               "them); config.json records them and --resume must repeat them.")
Tau2DirOpt = typer.Option(None, "--tau2-dir", help="retail: a τ²-bench retail data folder (db.json, tasks.json, "
                          "split_tasks.json, policy.md) to build the suite over.")
TasksDirOpt = typer.Option(None, "--tasks-dir", help="terminal: a folder of Terminal-Bench 2.0 / Harbor task dirs; "
                           "mcp: a folder holding mcp.yaml (the server and the task file), or that file "
                           "(a benchmark suite that reads a folder takes it too: see --data).")
SandboxOpt = typer.Option(None, "--sandbox", callback=checks.sandbox, help="terminal: bwrap (default when present), unshare or docker.")
UserModeOpt = typer.Option(None, "--user-mode", callback=checks.user_mode, help="retail: solo (default), scripted or llm.")
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

DataOpt = typer.Option(None, "--data", help="A benchmark suite's own data, KEY=VALUE, repeatable; the keys "
                       "per --env are listed by `harnessx tasks data`.")

# Which suite option belongs to which environment (keyword of the suite's constructor); a benchmark's
# suites take their data options (`--data`, and the flags they alias) and the shared options they declare.
PATH_OPTIONS = ("tau2_dir", "tasks_dir", "bfcl_dir")
SUITE_OPTIONS = {"tau2_dir": "retail", "user_mode": "retail", "user_model": "retail",
                 "tasks_dir": ("terminal", "mcp"), "sandbox": "terminal", "bfcl_dir": "bfcl"}


def _envs_taking(key: str) -> tuple[str, ...]:
    from harnessx.benchmarks.registry import get_benchmark, suites

    own = SUITE_OPTIONS.get(key, ())
    envs = own if isinstance(own, tuple) else (own,)
    for suite, (bench_name, _) in suites().items():
        bench = get_benchmark(bench_name)
        if key in bench.suite_options or any(option.option == key for option in bench.data):
            envs += (suite,)
    return envs


def parse_data(env: str, data: list[str] | None) -> dict[str, str]:
    """`--data KEY=VALUE` items -> the suite's keywords, each value checked by its benchmark."""
    from harnessx.benchmarks.registry import data_options

    if not data:
        return {}
    known = data_options(env)
    out: dict[str, str] = {}
    for item in data:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError("--data", f"{item!r} is not KEY=VALUE", one_of(sorted(known)) if known else None)
        if key not in known:
            raise InputError("--data", f"--env {env} has no data option {key!r}",
                             one_of(sorted(known)) if known else "no --data for this environment")
        option = known[key]
        if option.option in out:
            raise InputError("--data", f"{key} given twice")
        out[option.option] = option.parse(value)
    return out


def suite_kwargs(env: str, data: list[str] | None = None, **options: Any) -> dict[str, Any]:
    """The suite options the user set (`--data` items included); an option that belongs to another
    environment, or set twice to different values, is an error."""
    given = {k: str(Path(v).resolve()) if k in PATH_OPTIONS else v for k, v in options.items() if v is not None}
    for key in given:
        envs = _envs_taking(key)
        if env not in envs:
            raise InputError(f"--{key.replace('_', '-')}", f"applies to --env {'/'.join(envs)}, not {env!r}")
    return with_data(env, given, data)


def with_data(env: str, given: dict[str, Any], data: list[str] | None) -> dict[str, Any]:
    """`given` suite options plus the `--data` items; an option set twice to different values is an error."""
    out = dict(given)
    for key, value in parse_data(env, data).items():
        if out.get(key) is not None and value not in (out[key], str(Path(out[key]).resolve())):
            raise InputError("--data", f"{key} is set twice, to {out[key]!r} and {value!r}")
        out[key] = value
    return out


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
