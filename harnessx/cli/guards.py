"""Checks every command's every option gets, by the kind of its value, before the command runs.

A value no option means anything by is refused while click parses the command line, so before the
command imports anything heavy and before it writes anything, as a usage error naming the option the
user gave (exit 2):

- text and paths: an empty or blank value (`--model ''` is not "the default model"), a NUL byte or a
  line break (no file name, model or run name has one; the OS would refuse a NUL with a traceback);
- integers: a value above the option's declared `max`, or above `CEILING` where it declares none (a
  count of 10^30 is a typo, and some counts turn into work: cache keys, seeds, rows);
- floats: NaN and infinity (click's ranges let NaN through: every comparison with it is false).

`harden(command)` installs them on a command and the commands of a group (the root group calls it on
each command it loads), around each parameter's own conversion and callback.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import typer

CEILING = 2**31 - 1  # the largest integer an option takes when it declares no max of its own
FROM_USER = ("COMMANDLINE", "ENVIRONMENT")  # values the user gave (a default is the code's own)


def _kind(param: Any) -> type | None:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    for candidate in (annotation, *get_args(annotation)):
        if candidate in (str, Path, int, float):
            return candidate
    return None


def _text(value: str) -> str | None:
    if not value.strip():
        return "empty value"
    if "\x00" in value:
        return "contains a NUL byte"
    if "\n" in value or "\r" in value:
        return "contains a line break"
    return None


def _number(param: Any, kind: type, value: float) -> str | None:
    if kind is float and not math.isfinite(value):
        return f"{value} is not a finite number"
    if kind is int and getattr(param, "max", None) is None and abs(value) > CEILING:
        return f"{value} is out of range (expected at most {CEILING})"
    return None


def problem(param: Any, value: Any) -> str | None:
    """What is wrong with one value of this option by its kind alone, or None."""
    kind = _kind(param)
    if kind is None or value is None or isinstance(value, bool):
        return None
    if kind is str:
        return _text(str(value))
    if isinstance(value, int | float):
        return _number(param, kind, value)
    return None


def _guarded(param: Any) -> Callable[..., Any]:
    """The parameter's own `process_value`, with the checks around it: text before typer turns it into a
    value (`Path('')` would be `.`), numbers after."""
    own = param.process_value

    def process_value(ctx: Any, value: Any) -> Any:
        given = getattr(ctx.get_parameter_source(param.name), "name", None) in FROM_USER
        if given:
            for item in value if isinstance(value, list | tuple) else [value]:
                if isinstance(item, str) and _kind(param) in (str, Path) and (why := _text(item)) is not None:
                    raise typer.BadParameter(why, ctx=ctx, param=param)
        value = own(ctx, value)
        if given:
            for item in value if isinstance(value, list | tuple) else [value]:
                if (why := problem(param, item)) is not None:
                    raise typer.BadParameter(why, ctx=ctx, param=param)
        return value

    process_value.guarded = True  # type: ignore[attr-defined]
    return process_value


def harden(command: Any) -> Any:
    """Install the checks on every parameter of `command` (and of its subcommands, for a group)."""
    for param in getattr(command, "params", ()):
        if not getattr(param.process_value, "guarded", False) and _kind(param) is not None:
            param.process_value = _guarded(param)
    for sub in getattr(command, "commands", {}).values():
        harden(sub)
    return command
