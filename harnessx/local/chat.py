"""A llama.cpp chat handler that gives models without native function calling real tool calls.

When a request offers `tools` (and `tool_choice` is not "none"), the handler describes the tools
in the system message, constrains decoding with a llama.cpp grammar built from
`call_schema(tools)` (the tool name as a constant per branch, its arguments by the tool's schema,
one branch for a plain final message) and returns OpenAI-style `tool_calls`. Tool turns in the
history (assistant `tool_calls`, `tool` results) are rewritten as the same JSON text, so that the
model's chat template (from the GGUF) sees its own format. Without tools the request goes to the
template's handler unchanged (a `response_format` JSON schema is still honoured there).

The in-process engine and `harnessx local serve` (chat format `harnessx-tools`) use this one
handler, so both paths behave alike.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from harnessx.models.toolcalls import call_schema, parse_tool_calls, tool_name, tools_instruction

CHAT_FORMAT = "harnessx-tools"
BASE_FORMAT = "chat_template.default"




def template_messages(messages: list[dict], tools: list[dict] | None) -> list[dict]:
    """Plain role/content messages for a chat template; tool turns become JSON text."""
    names: dict[str, str] = {}
    out: list[dict] = []
    for message in messages:
        role, content = message["role"], message.get("content")
        if isinstance(content, list):  # OpenAI content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        content = content or ""
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                fn = call["function"]
                names[call.get("id", "")] = fn["name"]
                args = fn.get("arguments") or "{}"
                calls.append(json.dumps({"tool": fn["name"], "arguments": json.loads(args) if isinstance(args, str) else args}))
            content = "\n".join(calls)
        elif role == "tool":
            role, content = "user", f"Tool result ({names.get(message.get('tool_call_id', ''), 'tool')}):\n{content}"
        out.append({"role": role, "content": content})
    if tools:
        block = tools_instruction(tools)
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{block}"}
        else:
            out.insert(0, {"role": "system", "content": block})
    return out


@functools.lru_cache(maxsize=64)
def _grammar(schema_json: str):
    from llama_cpp.llama_grammar import LlamaGrammar

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def grammar_for(tools: list[dict], allow_message: bool = True):
    """The llama.cpp grammar of one reply to `tools` (cached per tool set); without the message
    branch when a call is required (`tool_choice: "required"`)."""
    # key order matters: the grammar writes properties in schema order ("tool" before "arguments")
    return _grammar(json.dumps(call_schema(tools, allow_message=allow_message)))


def as_tool_calls(completion: dict, tools: list[dict], multiple: bool = False) -> dict:
    """Rewrite a constrained chat completion: a call object becomes `tool_calls`, the message branch
    becomes `content`. A reply cut off at max_tokens keeps its raw text and finish_reason `length`."""
    choice = completion["choices"][0]
    text = choice["message"].get("content") or ""
    parsed = parse_tool_calls(text, [tool_name(t) for t in tools], multiple=multiple)
    if parsed.calls:
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        choice["message"] = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{digest}_{i}", "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for i, c in enumerate(parsed.calls)]}
        choice["finish_reason"] = "tool_calls"
    elif parsed.malformed is None:
        choice["message"] = {"role": "assistant", "content": parsed.text}
    return completion


class ToolCallHandler:
    """A llama-cpp-python chat completion handler (see the module docstring)."""

    def __call__(self, *, llama: Any, messages: list[dict], tools: list[dict] | None = None,
                 tool_choice: Any = None, grammar: Any = None, stream: bool = False, **kwargs: Any) -> Any:
        base = llama._chat_handlers.get(BASE_FORMAT)
        if base is None:
            raise ValueError("the model's GGUF has no chat template")
        kwargs.pop("functions", None)
        kwargs.pop("function_call", None)
        offered = tools if tools and tool_choice != "none" else None
        if offered and isinstance(tool_choice, dict):  # a forced tool: only its branch
            offered = [t for t in offered if tool_name(t) == tool_choice["function"]["name"]] or offered
        msgs = template_messages(messages, offered)
        if not offered:
            return base(llama=llama, messages=msgs, grammar=grammar, stream=stream, **kwargs)
        kwargs.pop("response_format", None)
        required = tool_choice == "required" or isinstance(tool_choice, dict)
        completion = base(llama=llama, messages=msgs, grammar=grammar_for(offered, allow_message=not required),
                          stream=False, **kwargs)
        return as_tool_calls(completion, offered)


def register_chat_format() -> None:
    """Register the handler as chat format `harnessx-tools` (for llama.cpp's server)."""
    from llama_cpp import llama_chat_format

    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        CHAT_FORMAT, ToolCallHandler(), overwrite=True)
