"""The `local/<name>` LiteLLM provider: a llama.cpp model generating in a worker thread.

The model has no native function calling: tool schemas passed as `tools` are not shown to it (a
warning says so once). Harnesses give it tools with the switch `tool_format: text`, which puts the
schemas in the system prompt and parses calls from the reply.
"""

from __future__ import annotations

import asyncio
import logging

import litellm
from litellm import CustomLLM, ModelResponse

from harnessx.local.engine import Generation, get_model
from harnessx.local.weights import ModelUnavailable
from harnessx.models.providers import register_handler

PREFIX = "local"
log = logging.getLogger(__name__)
_warned_tools = False


class LocalHandler(CustomLLM):
    """Serves `local/<name>`; the async path keeps the event loop free while the model runs."""

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                   headers={}, timeout=None, client=None):
        return respond(model, messages, optional_params)

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                          api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                          headers={}, timeout=None, client=None):
        return await asyncio.to_thread(respond, model, messages, optional_params)


def respond(model: str, messages: list[dict], params: dict) -> ModelResponse:
    """Generate with local model `model`; llama.cpp's failures become LiteLLM's exception types."""
    global _warned_tools
    if params.get("tools") and not _warned_tools:
        _warned_tools = True
        log.warning("local/%s has no native function calling; use the harness switch tool_format: text", model)
    try:
        local = get_model(model)
    except ModelUnavailable as exc:
        raise litellm.NotFoundError(str(exc), model=model, llm_provider=PREFIX) from None
    try:
        gen = local.chat(plain_messages(messages), max_tokens=params.get("max_tokens"),
                         temperature=float(params.get("temperature") or 0.0), seed=params.get("seed"))
    except ValueError as exc:
        if "context window" not in str(exc):
            raise
        raise litellm.ContextWindowExceededError(str(exc), model=model, llm_provider=PREFIX) from None
    return to_model_response(f"{PREFIX}/{model}", gen)


def plain_messages(messages: list[dict]) -> list[dict]:
    """Role and text only: chat templates concatenate `content`, so it must be a string."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):  # OpenAI content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        out.append({"role": message["role"], "content": content or ""})
    return out


def to_model_response(model: str, gen: Generation) -> ModelResponse:
    response = ModelResponse(
        model=model,
        choices=[{"index": 0, "message": {"role": "assistant", "content": gen.text}, "finish_reason": gen.finish_reason}],
        usage={"prompt_tokens": gen.prompt_tokens, "completion_tokens": gen.completion_tokens,
               "total_tokens": gen.prompt_tokens + gen.completion_tokens},
    )
    response._hidden_params["response_cost"] = 0.0  # a local model costs nothing; spares a price lookup
    return response


def register() -> None:
    register_handler(PREFIX, LocalHandler())
