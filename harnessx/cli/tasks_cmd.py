"""`harnessx tasks list|show|build|data`: inspect and regenerate task suites."""

from __future__ import annotations

import json
from collections import Counter

import typer
from rich.markup import escape

from harnessx.cli import checks
from harnessx.cli.common import (DataOpt, EnvOpt, SandboxOpt, TasksDirOpt, Tau2DirOpt, console, friendly_errors,
                                 open_suite)
from harnessx.errors import InputError
from harnessx.formatting.table import Table
from harnessx.io_write import write_atomic

tasks_app = typer.Typer(no_args_is_help=True, help="List, show and build task suites.")


@tasks_app.command("list")
@friendly_errors
def list_tasks(env: str = EnvOpt, split: str = typer.Option(None, callback=checks.paired_split, help="search, heldout or independent"),
               limit: int = typer.Option(0, min=0, help="show at most this many rows (0 = all)"),
               tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt, data: list[str] = DataOpt) -> None:
    """List tasks with split, family and source; counts per split and family at the end."""
    tasks = open_suite(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir, data=data).tasks(split)
    rows = [[escape(task.id), "-", "[red]INVALID[/]", escape(str(task.metadata["load_error"]))]
            if task.metadata.get("load_error") else
            [escape(task.id), task.split, task.family or "feasible", escape(task.source_id)]
            for task in tasks[: limit or None]]
    console.print(Table("", ["id", "split", "kind", "source"], rows).rich())  # ids whole, whatever the width
    invalid = [t for t in tasks if t.metadata.get("load_error")]
    tasks = [t for t in tasks if not t.metadata.get("load_error")]
    for task in invalid:
        console.print(f"invalid task {task.id}: {task.metadata['load_error']}", highlight=False, markup=False)
    counts = Counter((t.split, t.family or "feasible") for t in tasks)
    for (sp, kind), n in sorted(counts.items()):
        console.print(f"{sp:12} {kind:11} {n}")
    console.print(f"total {len(tasks)}" + (f" valid, {len(invalid)} invalid (not scored)" if invalid else ""))


@tasks_app.command("show")
@friendly_errors
def show_task(task_id: str, env: str = EnvOpt, tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt,
              data: list[str] = DataOpt) -> None:
    """Show one task in full, protected blocker included (it is never shown to the agent)."""
    matches = [t for t in open_suite(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir, data=data).tasks()
               if t.id == task_id]
    if not matches:
        raise InputError("task id", f"no task {task_id!r} in environment {env!r}")
    console.print_json(json.dumps(matches[0].model_dump(mode="json")))


@tasks_app.command("build")
@friendly_errors
def build_tasks(env: str = EnvOpt, out: str = typer.Option(None, help="write the suite as JSONL here"),
                tau2_dir: str = Tau2DirOpt, tasks_dir: str = TasksDirOpt, sandbox: str = SandboxOpt,
                data: list[str] = DataOpt) -> None:
    """Regenerate the suite (deterministic) and optionally write it out."""
    suite = open_suite(env, tau2_dir=tau2_dir, tasks_dir=tasks_dir, sandbox=sandbox, data=data)
    tasks = suite.tasks()
    if out:
        write_atomic(out, "".join(task.model_dump_json() + "\n" for task in tasks))
    console.print(f"{env}: {len(tasks)} tasks" + (f" written to {out}" if out else ""))


@tasks_app.command("data")
@friendly_errors
def data_keys() -> None:
    """The --data keys each benchmark suite takes (KEY, the flag it aliases, what it expects)."""
    from harnessx.benchmarks.registry import data_options, suites

    for suite in suites():
        for key, option in data_options(suite).items():
            alias = f" (also {option.alias})" if option.alias else ""
            console.print(f"--env {suite:12} --data {key}=...{alias}: {option.help}", highlight=False, markup=False,
                          soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")
