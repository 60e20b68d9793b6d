"""Commands registered by name and imported when they run.

A command module pulls in what its command needs (LiteLLM, MLflow, Optuna, DSPy, pandas...): seconds
of CPU. The root group knows each command by its module and its one-line help, so `harnessx --help`
lists every command without importing any of them; running a command (or asking for its own
`--help`) imports its module and calls its `register(app)`, as an eager import would have.
"""

from __future__ import annotations

import importlib
import importlib.util
from difflib import get_close_matches
from typing import ClassVar

import typer
from typer.core import TyperCommand, TyperGroup

try:  # the click that typer drives: recent typer versions carry their own copy
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - typer before it vendored click
    from click.exceptions import UsageError

from harnessx.cli.guards import harden
from harnessx.cli.helptext import reflow_help
from harnessx.errors import NotLandedError

NOT_LANDED = " (not landed yet)"  # round brackets: rich markup would swallow square ones


def _landed(module: str) -> bool:
    """Whether the command's module exists, found without importing it."""
    return importlib.util.find_spec(module) is not None


def _not_landed(name: str, help_text: str) -> TyperCommand:
    """A command whose module has not landed yet: it says so, whatever arguments it is given."""
    from harnessx.cli.common import friendly_errors

    holder = typer.Typer()

    @holder.command(name, help=help_text + NOT_LANDED,
                    context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    @friendly_errors
    def _cmd() -> None:
        raise NotLandedError(f"`harnessx {name}` has not landed yet in this version.")

    return typer.main.get_group(holder).commands[name]


def load_command(name: str, module: str, help_text: str) -> TyperCommand:
    """Import the command's module and build its click command through the module's `register(app)`."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return _not_landed(name, help_text)
    holder = typer.Typer()
    mod.register(holder)
    return reflow_help(harden(typer.main.get_group(holder).commands[name]))


class LazyGroup(TyperGroup):
    """The root group: `lazy` maps a command name to (module, first paragraph of its help), in the order
    the help lists them; a name mapped to None is a command defined on the app itself."""

    lazy: ClassVar[dict[str, tuple[str, str] | None]] = {}
    stubs = True  # list lazy commands in the root help by their registered help, without importing them

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._listing = False

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return [*self.lazy, *(name for name in self.commands if name not in self.lazy)]

    def get_command(self, ctx: typer.Context, cmd_name: str) -> TyperCommand | TyperGroup | None:
        if cmd_name in self.commands or not self.lazy.get(cmd_name):
            return self.commands.get(cmd_name)
        module, help_text = self.lazy[cmd_name]
        if self._listing and self.stubs:
            return TyperCommand(name=cmd_name, help=help_text if _landed(module) else help_text + NOT_LANDED)
        self.commands[cmd_name] = load_command(cmd_name, module, help_text)
        return self.commands[cmd_name]

    def format_help(self, ctx: typer.Context, formatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(self, ctx: typer.Context, args: list[str]):
        try:
            return self._click_resolve_command(ctx, args)
        except UsageError as exc:  # suggest among every command, imported or not
            matches = get_close_matches(args[0], self.list_commands(ctx)) if self.suggest_commands and args else []
            if matches:
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {', '.join(repr(m) for m in matches)}?"
            raise


def lazy_group(commands: dict[str, tuple[str, str] | None]) -> type[LazyGroup]:
    """The root group class for `typer.Typer(cls=...)` over these commands."""
    return type("HarnessXGroup", (LazyGroup,), {"lazy": commands})
