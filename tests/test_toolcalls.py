"""The JSON-text tool-call format: its schema, the tolerant parser, and the local chat handler's
conversions (no model needed)."""

from __future__ import annotations

import json

from conftest import require

from harnessx.local.chat import as_tool_calls, template_messages
from harnessx.models.client import parse_response
from harnessx.models.toolcalls import call_schema, parse_tool_calls

TOOLS = [{"type": "function", "function": {"name": "get", "description": "Read a key.", "parameters": {
    "type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}}},
         {"type": "function", "function": {"name": "put", "description": "Write a key.", "parameters": {
             "type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
             "required": ["key", "value"]}}}]
OFFERED = ["get", "put"]


def test_first_balanced_object_wins_over_a_later_object_and_stray_braces():
    text = 'Sure. {"tool": "get", "arguments": {"key": "k1"}} and then {"tool": "put", "arguments": {}} }'
    parsed = parse_tool_calls(text, OFFERED)
    assert parsed.malformed is None
    assert [(c.name, c.arguments) for c in parsed.calls] == [("get", {"key": "k1"})]


def test_several_calls_when_allowed():
    text = '{"tool": "get", "arguments": {"key": "a"}}\n{"tool": "put", "arguments": {"key": "a", "value": "b"}}'
    parsed = parse_tool_calls(text, OFFERED, multiple=True)
    assert [c.name for c in parsed.calls] == ["get", "put"] and [c.id for c in parsed.calls] == ["text_0", "text_1"]


def test_cut_off_json_is_malformed_not_a_final_answer():
    parsed = parse_tool_calls('{"tool": "put", "arguments": {"key": "k1", "val', OFFERED)
    assert parsed.calls == [] and "cut off" in parsed.malformed


def test_unknown_tool_is_malformed_with_the_offered_names():
    parsed = parse_tool_calls('{"tool": "delete", "arguments": {"key": "k1"}}', OFFERED)
    assert parsed.calls == [] and parsed.malformed == "unknown tool 'delete' (offered: get, put)"


def test_raw_control_characters_inside_strings_are_tolerated():
    parsed = parse_tool_calls('{"tool": "put", "arguments": {"key": "a\tb", "value": "line\nbreak"}}', OFFERED)
    assert parsed.malformed is None and parsed.calls[0].arguments == {"key": "a\tb", "value": "line\nbreak"}


def test_prose_braces_and_plain_text_are_a_final_message():
    assert parse_tool_calls("Done. The set {a, b} is complete.", OFFERED).malformed is None
    assert parse_tool_calls("All set.", OFFERED).text == "All set."


def test_message_branch_is_the_final_text():
    parsed = parse_tool_calls('{"message": "k1 is now blue."}', OFFERED)
    assert parsed.calls == [] and parsed.malformed is None and parsed.text == "k1 is now blue."


def test_call_schema_has_one_branch_per_tool_and_a_message_branch():
    schema = call_schema(TOOLS)
    branches = schema["anyOf"]
    assert [b["properties"]["tool"]["const"] for b in branches[:2]] == OFFERED
    assert branches[1]["properties"]["arguments"]["required"] == ["key", "value"]
    assert branches[2]["required"] == ["message"]
    assert "anyOf" not in call_schema(TOOLS[:1], allow_message=False)


def test_the_grammar_from_the_schema_compiles():
    require("llama-cpp")
    from harnessx.local.chat import grammar_for

    assert grammar_for(TOOLS) is grammar_for(TOOLS)  # built once per tool set


def test_constrained_completion_becomes_openai_tool_calls():
    completion = {"choices": [{"message": {"role": "assistant", "content": '{"tool": "put", "arguments": '
                                                                            '{"key": "k", "value": "v"}}'},
                               "finish_reason": "stop"}]}
    message = as_tool_calls(completion, TOOLS)["choices"][0]
    assert message["finish_reason"] == "tool_calls"
    call = message["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "put"
    assert json.loads(call["function"]["arguments"]) == {"key": "k", "value": "v"}
    final = as_tool_calls({"choices": [{"message": {"content": '{"message": "hi"}'}, "finish_reason": "stop"}]}, TOOLS)
    assert final["choices"][0]["message"] == {"role": "assistant", "content": "hi"}


def test_tool_turns_are_rewritten_for_a_chat_template():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Read k."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get", "arguments": '{"key": "k"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "v"}]
    out = template_messages(messages, TOOLS)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].startswith("Be brief.") and "- put: Write a key." in out[0]["content"]
    assert json.loads(out[2]["content"]) == {"tool": "get", "arguments": {"key": "k"}}
    assert out[3]["content"] == "Tool result (get):\nv"


class _Msg:
    def __init__(self, content):
        self.content, self.tool_calls = content, None


class _Choice:
    def __init__(self, content, finish):
        self.message, self.finish_reason = _Msg(content), finish


class _Response:
    def __init__(self, content, finish="stop"):
        self.choices, self.usage = [_Choice(content, finish)], None


def test_client_parses_constrained_and_flags_a_cut_off_native_reply():
    reply = parse_response(_Response('{"tool": "get", "arguments": {"key": "k"}}'), tool_format="constrained",
                           offered=OFFERED)
    assert [c.name for c in reply.tool_calls] == ["get"] and reply.malformed is None
    cut = parse_response(_Response('{"tool": "put", "argu', "length"), tool_format="native", offered=OFFERED)
    assert cut.tool_calls == [] and "cut off" in cut.malformed
    prose = parse_response(_Response("All done.", "length"), tool_format="native", offered=OFFERED)
    assert prose.malformed is None


def test_the_grammar_writes_the_tool_name_before_the_arguments():
    """Properties are generated in schema order: a grammar from a key-sorted schema would make the
    model write its arguments before choosing the tool (and pick the message branch instead)."""
    require("llama-cpp")
    from harnessx.local.chat import grammar_for

    gbnf = grammar_for(TOOLS)._grammar  # the grammar the local model is constrained by
    rule = next(line for line in gbnf.splitlines() if "-tool-kv" in line and "-arguments-kv" in line)
    assert rule.index("-tool-kv") < rule.index("-arguments-kv")
