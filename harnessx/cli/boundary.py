"""The CLI's one error boundary: an input or OS failure is one line on stderr and exit 2, never a traceback.

Every command runs inside `BoundaryGroup.invoke`, so what any command raises passes here: a usage
error (an unknown option, a number out of its range), a `HarnessXError` (the message already names file, field and expectation), an `OSError` (named by its
file: a name too long, a read-only or full folder, a directory where a file was expected), a decode
error (not UTF-8, not JSON/YAML/CSV) and a `RecursionError` (a file nested too deeply to parse).
Programming errors are not caught: they stay tracebacks, to be reported.
"""

from __future__ import annotations

import csv
import errno
import json
import sys
from typing import Any

import typer
import yaml
from typer.core import TyperGroup

from harnessx.errors import HarnessXError
from harnessx.io_write import os_expected

UsageError = typer.BadParameter.__base__  # an unknown option, a value out of range (typer's own click)
DECODE_ERRORS = (UnicodeError, json.JSONDecodeError, yaml.YAMLError, csv.Error, RecursionError)


def _oneline(text: str, limit: int = 600) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(exc: BaseException) -> str | None:
    """The one line for an error the boundary handles, or None for one it lets through."""
    if isinstance(exc, UsageError):
        ctx = getattr(exc, "ctx", None)
        return _oneline(exc.format_message() + (f" (see {ctx.command_path} -h)" if ctx is not None else ""))
    if isinstance(exc, HarnessXError):
        return _oneline(str(exc))
    if isinstance(exc, OSError):
        if exc.errno == errno.EPIPE:
            return None  # stdout closed early (`| head`): click handles it
        names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
        where = " -> ".join(names) if names else "a file or connection"
        expected = os_expected(exc)
        return _oneline(f"{where}: {exc.strerror or exc}" + (f" (expected {expected})" if expected else ""))
    if isinstance(exc, RecursionError):
        return "an input file is nested too deeply to read (expected a file of ordinary depth)"
    if isinstance(exc, UnicodeDecodeError):
        return _oneline(f"an input is not UTF-8 text ({exc.reason} at byte {exc.start}) (expected UTF-8 text)")
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return _oneline(f"{mark.name}: not valid YAML ({exc.problem} at line {mark.line + 1} column "
                        f"{mark.column + 1}) (expected YAML)")
    if isinstance(exc, json.JSONDecodeError):
        return _oneline(f"an input is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}) "
                        "(expected JSON)")
    if isinstance(exc, DECODE_ERRORS):
        return _oneline(f"an input cannot be decoded ({exc.__class__.__name__}: {exc})")
    return None


def report(exc: BaseException) -> None:
    line = describe(exc)
    if line is None:
        raise exc
    typer.echo(f"error: {line}", err=True)
    sys.exit(2)


class BoundaryGroup(TyperGroup):
    """The root command group: every subcommand (nested groups included) runs inside its invoke."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (UsageError, HarnessXError, OSError, *DECODE_ERRORS) as exc:
            report(exc)
