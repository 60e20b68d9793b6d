"""The BFCL API classes as the environment state: instances built from an entry's initial config,
calls run on them by name, and snapshots of their public attributes (what BFCL's state check reads).
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
from typing import Any

from harnessx.envs.bfcl.data import Entry, require_bfcl
from harnessx.tasks import ToolCall

REFUSED = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")  # BFCL refuses these too


def build_instances(entry: Entry) -> dict[str, Any]:
    """Fresh instances of the entry's API classes, loaded with its initial config."""
    require_bfcl()
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES

    instances = {}
    for name in entry.involved_classes:
        instance = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)()
        if name not in STATELESS_CLASSES:
            instance._load_scenario(copy.deepcopy(entry.initial_config.get(name, {})), long_context=entry.long_context)
        instances[name] = instance
    return instances


def method_owner(instances: dict[str, Any]) -> dict[str, str]:
    """Public method name -> class name (later classes win, as in BFCL's own mapping)."""
    owner = {}
    for class_name, instance in instances.items():
        for method, _ in inspect.getmembers(instance, predicate=inspect.ismethod):
            if not method.startswith("_"):
                owner[method] = class_name
    return owner


def snapshot(instance: Any) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in vars(instance).items() if not k.startswith("_")}


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def result_text(value: Any) -> str:
    """A call's result as BFCL renders it for the model (str as is, dicts as JSON, else str())."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def call_method(instance: Any, call: ToolCall) -> tuple[bool, str]:
    """(ok, observation) of one call; a failing call gives BFCL's `Error during execution: ...`."""
    if call.name in REFUSED:
        return False, f"Error during execution: Function call {call.name} is not allowed."
    try:
        return True, result_text(getattr(instance, call.name)(**call.arguments))
    except Exception as exc:  # the API classes raise anything on bad input; BFCL reports it the same way
        return False, f"Error during execution: {exc}"


def call_string(call: ToolCall) -> str:
    """The call in BFCL's decoded form, `name(key=value, ...)`, which its checker executes."""
    return f"{call.name}({', '.join(f'{k}={v!r}' for k, v in call.arguments.items())})"


def parse_call(text: str, instances: dict[str, Any]) -> ToolCall:
    """A ground-truth call string as a ToolCall with keyword arguments (positional ones named by the
    method's signature)."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain function call: {text!r}")
    name = node.func.id
    args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
    if node.args:
        owner = method_owner(instances)
        params = [p for p in inspect.signature(getattr(instances[owner[name]], name)).parameters]
        for param, value in zip(params, node.args):
            args[param] = ast.literal_eval(value)
    return ToolCall(name=name, arguments=args)
