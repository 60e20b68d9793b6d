"""Tool calls written as JSON text: the schema that constrains them and the parser that reads them.

One reply format serves the `text` and `constrained` tool formats and the local provider's native
tool calls: a call is `{"tool": "<name>", "arguments": {...}}`, a plain final message is
`{"message": "..."}` (or, unconstrained, any text without a JSON object).

`call_schema(tools)` is the JSON schema of one reply (tool name as a constant per branch, the
arguments by that tool's own schema, one branch for the final message); llama.cpp turns it into a
grammar, vLLM-style servers take it as guided JSON. `parse_tool_calls` reads the first balanced
JSON object of a reply (and the ones after it when several calls are allowed); a cut-off object, an
object that is not a call, and a call to a tool that was not offered are malformed, with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from harnessx.tasks import ToolCall

MESSAGE_KEY = "message"
# Length bounds the grammar adds where a schema sets none, so that a small model's reply closes
# before max_tokens instead of repeating itself inside a string.
MAX_STRING = 80
MAX_MESSAGE = 200
_DECODER = json.JSONDecoder(strict=False)  # raw control characters inside strings (grammars allow them)


def tool_name(tool: dict) -> str:
    """The name of an OpenAI-style tool schema (`{"type": "function", "function": {...}}`) or a bare one."""
    return (tool.get("function") or tool)["name"]


def call_schema(tools: Iterable[dict], allow_message: bool = True) -> dict:
    """JSON schema of one reply: a call to one of `tools` (OpenAI-style schemas) or a final message."""
    branches = []
    for tool in tools:
        fn = tool.get("function") or tool
        params = bounded(dict(fn.get("parameters") or {"type": "object", "properties": {}}))
        params.setdefault("type", "object")
        branches.append({"type": "object", "properties": {"tool": {"const": fn["name"]}, "arguments": params},
                         "required": ["tool", "arguments"]})
    if allow_message:
        branches.append({"type": "object", "properties": {MESSAGE_KEY: {"type": "string", "maxLength": MAX_MESSAGE}},
                         "required": [MESSAGE_KEY]})
    if not branches:
        raise ValueError("a call schema needs at least one tool or the message branch")
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def bounded(schema: dict) -> dict:
    """`schema` with `maxLength` on every string that has no length bound of its own."""
    schema = dict(schema)
    if schema.get("type") == "string" and "maxLength" not in schema and "enum" not in schema:
        schema["maxLength"] = MAX_STRING
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: bounded(v) if isinstance(v, dict) else v for k, v in schema["properties"].items()}
    if isinstance(schema.get("items"), dict):
        schema["items"] = bounded(schema["items"])
    return schema


def tools_instruction(tools: Iterable[dict]) -> str:
    """The prompt block that describes OpenAI-style `tools` and the one-JSON-object reply format
    (the `constrained` harness format and the local provider's native tools use the same words)."""
    lines = ["You can call these tools. Every reply is one JSON object: "
             '{"tool": "<name>", "arguments": {...}} to call a tool, or {"message": "<text>"} when you are done.',
             "Tools:"]
    for tool in tools:
        fn = tool.get("function") or tool
        lines.append(f"- {fn['name']}: {fn.get('description', '')} Parameters: {json.dumps(fn.get('parameters', {}))}")
    return "\n".join(lines)


@dataclass
class ParsedReply:
    """What a JSON-text reply says: tool calls, or a final message, or why it cannot be used."""

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""  # the final message (the `message` field when the reply used that branch)
    malformed: str | None = None


def _objects(text: str) -> Iterable[tuple[object, int, int]]:
    """Every complete JSON value that starts at a `{`, in order, as (value, start, end); a `{` that
    does not start valid JSON is skipped (prose braces), so scanning resumes after it."""
    pos = text.find("{")
    while pos != -1:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        yield value, pos, end
        pos = text.find("{", end)


def _unclosed(text: str) -> bool:
    """Whether a `{` in `text` opens an object that never closes (a reply cut off mid-JSON)."""
    depth, in_string, escaped = 0, False, False
    for ch in text[text.find("{"):] if "{" in text else "":
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
    return depth > 0


def _as_call(obj: object, index: int) -> ToolCall | str:
    """A ToolCall, or the reason `obj` is not one."""
    if not isinstance(obj, dict):
        return "the JSON is not an object"
    name = obj.get("tool", obj.get("name"))
    args = obj.get("arguments", obj.get("parameters", {}))
    if not isinstance(name, str) or not name:
        return "the JSON object lacks a string 'tool'"
    if not isinstance(args, dict):
        return f"tool call {name!r}: 'arguments' is not an object"
    return ToolCall(name=name, arguments=args, id=f"text_{index}")


def parse_tool_calls(text: str, offered: Iterable[str] | None = None, multiple: bool = False) -> ParsedReply:
    """Read tool calls from a reply; see the module docstring for the rules.

    `offered`: the tool names the agent was given (None: any name). `multiple`: read every call
    object in the reply, not only the first.
    """
    names = set(offered) if offered is not None else None
    calls: list[ToolCall] = []
    for obj, _start, _end in _objects(text):
        if not calls and isinstance(obj, dict) and set(obj) == {MESSAGE_KEY} and isinstance(obj[MESSAGE_KEY], str):
            return ParsedReply(text=obj[MESSAGE_KEY])
        call = _as_call(obj, len(calls))
        if isinstance(call, str):
            if calls:
                break  # later prose or data after the calls: the calls stand
            if not isinstance(obj, dict) or not ({"tool", "name", "arguments"} & set(obj)):
                continue  # a JSON value that is not trying to be a call (e.g. data quoted in prose)
            return ParsedReply(text=text, malformed=f"text tool call: {call}")
        if names is not None and call.name not in names:
            return ParsedReply(text=text, malformed=f"unknown tool {call.name!r} (offered: {', '.join(sorted(names))})")
        calls.append(call)
        if not multiple:
            break
    if calls:
        return ParsedReply(calls=calls, text=text)
    if _unclosed(text):
        return ParsedReply(text=text, malformed="text tool call is cut off (a JSON object is never closed)")
    if '"tool"' in text and "{" in text:
        return ParsedReply(text=text, malformed="text tool call is not valid JSON")
    return ParsedReply(text=text)  # plain text: a final message, not a malformed call
