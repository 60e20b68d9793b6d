"""`harnessx local serve` answers a request with tools with native OpenAI `tool_calls`, used through
LiteLLM's `openai/<name>` with `api_base` on loopback (the same path as vLLM or Ollama)."""

from __future__ import annotations

import pytest

from harnessx.models.client import ModelClient

pytestmark = [pytest.mark.realmodel, pytest.mark.slow,
              pytest.mark.requires("local-server")]

TOOLS = [{"type": "function", "function": {
    "name": "get_user_details", "description": "Get a customer's profile.",
    "parameters": {"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]}}},
    {"type": "function", "function": {
        "name": "cancel_pending_order", "description": "Cancel a pending order.",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
                       "required": ["order_id", "reason"]}}}]
ASK = [{"role": "system", "content": "You complete the user's request by calling one tool."},
       {"role": "user", "content": "Show me the profile of user mia_garcia_4516."}]


async def test_served_model_returns_native_tool_calls_naming_an_offered_tool_and_plain_text_without_tools():
    from harnessx.local.server import serve

    with serve("smollm2") as server:
        client = ModelClient("openai/smollm2", api_base=server.url, api_key="local", max_retries=0)
        for seed in (0, 1):
            reply = await client.complete(ASK, TOOLS, max_tokens=96, seed=seed, tool_choice="required")
            # native tool_calls parsed by LiteLLM from the server's OpenAI response, not text we parsed
            assert reply.malformed is None and len(reply.tool_calls) == 1, reply
            call = reply.tool_calls[0]
            assert call.name in {"get_user_details", "cancel_pending_order"} and isinstance(call.arguments, dict)
            assert call.id.startswith("call_")
        plain = await client.complete([{"role": "user", "content": "Say hello."}], max_tokens=12, seed=0)
        assert plain.text and not plain.tool_calls
