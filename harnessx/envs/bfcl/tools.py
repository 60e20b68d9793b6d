"""Tool schemas from BFCL's function docs, and the tool pool of a task (what FeasiGen masks from)."""

from __future__ import annotations

from typing import Any

from harnessx.envs.base import ToolSpec

# BFCL's doc types -> JSON Schema types (BFCL's own OpenAI conversion maps them the same way)
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}


def json_schema(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: json_schema(v) for k, v in node.items()}
        if isinstance(out.get("type"), str):
            out["type"] = _TYPES.get(out["type"], out["type"])
        return out
    if isinstance(node, list):
        return [json_schema(v) for v in node]
    return node


def tool_spec(doc: dict) -> ToolSpec:
    params = json_schema(doc.get("parameters") or {"type": "object", "properties": {}})
    return ToolSpec(name=doc["name"], description=doc.get("description", ""), parameters=params)
