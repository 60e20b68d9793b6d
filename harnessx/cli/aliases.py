"""One name per meaning: the option names that were renamed, still accepted under their old names.

Every command names the MLflow store `--tracking-uri`, the rollouts it has in flight `--concurrency`
and the task-agent model `--model`; a Ray pool's size is `--ray-actors` and the rollouts a queue
search runs itself are `--local-rollouts`. The old spellings are hidden aliases for one release: a
command built with `aliased(...)` rewrites them to the new name before parsing, and says so once on
stderr. `RENAMED` is the table docs/install.md shows; tests/test_flag_names.py checks both ways.
"""

from __future__ import annotations

from typing import ClassVar

import typer
from typer.core import TyperCommand

# command path -> {old option: new option}
RENAMED: dict[str, dict[str, str]] = {
    "search": {"--mlflow-uri": "--tracking-uri"},
    "export": {"--mlflow-uri": "--tracking-uri"},
    "worker": {"--slots": "--concurrency"},
    "feasigen build": {"--system": "--model"},
    "feasigen eval": {"--system": "--model"},
}
# `search --workers` meant two things; the new name depends on --executor (see search_cmd.workers_alias)
SPLIT = {"search": {"--workers": {"ray": "--ray-actors", "queue": "--local-rollouts"}}}


def renamed_note(old: str, new: str) -> str:
    return f"note: {old} is now {new}; the old name is accepted until the next release."


def rewrite(args: list[str], renames: dict[str, str]) -> tuple[list[str], list[tuple[str, str]]]:
    """`args` with every old option name (`--old v` or `--old=v`) spelled the new way, and the renames
    made; nothing after `--` is touched."""
    out: list[str] = []
    made: list[tuple[str, str]] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:], made
        name, eq, value = arg.partition("=")
        if name in renames:
            out.append(renames[name] + eq + value)
            made.append((name, renames[name]))
        else:
            out.append(arg)
    return out, made


class AliasedCommand(TyperCommand):
    """A command that accepts its renamed options under their old names (`renames`)."""

    renames: ClassVar[dict[str, str]] = {}

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        args, made = rewrite(args, self.renames)
        for old, new in dict(made).items():
            typer.echo(renamed_note(old, new), err=True)
        return super().parse_args(ctx, args)


def aliased(command_path: str) -> type[AliasedCommand]:
    """The command class for `app.command(..., cls=aliased("feasigen eval"))`."""
    return type("AliasedCommand", (AliasedCommand,), {"renames": RENAMED[command_path]})
