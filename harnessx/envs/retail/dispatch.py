"""Run one tool call the way τ² does: arguments in, the agent's observation string out.

Results are serialised like τ² (`json.dumps(model_dump())`, strings passed through); any failure
becomes an `Error: <message>` observation. Missing or unexpected arguments get Python's own
call-error wording, as τ² surfaces them; wrongly typed arguments get a plain error instead of a crash.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from pydantic import BaseModel

from harnessx.envs.retail.schema import RetailDB
from harnessx.envs.retail.store import Store
from harnessx.envs.retail.tools import TOOL_NAMES, RetailTools
from harnessx.tasks import ToolCall

TOOL_ERRORS = (ValueError, TypeError, ZeroDivisionError, OverflowError, SyntaxError, RecursionError, MemoryError)


def _quoted(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def argument_error(name: str, arguments: dict[str, Any]) -> str | None:
    """The call error Python would raise for these keyword arguments, or a type error, or None."""
    params = inspect.signature(getattr(RetailTools, name)).parameters
    expected = [p for p in params if p != "self"]
    for key in arguments:
        if key not in expected:
            return f"RetailTools.{name}() got an unexpected keyword argument '{key}'"
    missing = [p for p in expected if p not in arguments]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        return f"RetailTools.{name}() missing {len(missing)} required positional argument{plural}: {_quoted(missing)}"
    for key in expected:
        wanted = params[key].annotation
        value = arguments[key]
        if wanted == "list[str]" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return f"argument '{key}' must be a list of strings"
        if wanted == "str" and not isinstance(value, str):
            return f"argument '{key}' must be a string"
    return None


def serialise(result: str | BaseModel) -> str:
    return result if isinstance(result, str) else json.dumps(result.model_dump(), default=str)


def run_tool(tools: RetailTools, name: str, arguments: Any) -> tuple[bool, str]:
    """(ok, observation) for one call; never raises for bad input."""
    if name not in TOOL_NAMES:
        return False, f"Error: Tool '{name}' not found."
    if not isinstance(arguments, dict):
        return False, "Error: tool arguments must be a JSON object"
    problem = argument_error(name, arguments)
    if problem is not None:
        return False, f"Error: {problem}"
    try:
        return True, serialise(getattr(tools, name)(**arguments))
    except TOOL_ERRORS as exc:
        return False, f"Error: {exc}"


def replay(db: RetailDB, actions: list[ToolCall], patches: list[dict] = ()) -> tuple[Store, list[tuple[bool, str]]]:
    """Run `actions` on a fresh copy of the (patched) database; a failing call does not stop the rest."""
    store = Store(db, patches)
    tools = RetailTools(store)
    return store, [run_tool(tools, a.name, a.arguments) for a in actions]
