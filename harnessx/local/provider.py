"""The `local/<name>` LiteLLM provider: a llama.cpp model generating in a worker thread.

The model has no native function calling of its own; when `tools` are passed, the chat handler
(harnessx.local.chat) describes them to the model, constrains decoding to a call of an offered tool
or a plain message, and returns OpenAI-style `tool_calls`. A `response_format` JSON schema (the
harness switch `tool_format: constrained`) is honoured by grammar too. The response's hidden
params carry `harnessx_timing`: seconds waiting for the model (`queue_s`) and generating (`model_s`).
"""

from __future__ import annotations

import asyncio

import litellm
from litellm import CustomLLM, ModelResponse

from harnessx.local.engine import Generation, get_model
from harnessx.local.weights import ModelUnavailable
from harnessx.models.providers import held_until_started, register_handler

PREFIX = "local"


class LocalHandler(CustomLLM):
    """Serves `local/<name>`; the async path keeps the event loop free while the model runs."""

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                   headers={}, timeout=None, client=None):
        return respond(model, messages, optional_params)

    def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                    api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                    headers={}, timeout=None, client=None):
        return held_until_started(lambda: asyncio.to_thread(respond, model, messages, optional_params))


def respond(model: str, messages: list[dict], params: dict) -> ModelResponse:
    """Generate with local model `model`; llama.cpp's failures become LiteLLM's exception types."""
    try:
        local = get_model(model)
    except ModelUnavailable as exc:
        raise litellm.NotFoundError(str(exc), model=model, llm_provider=PREFIX) from None
    try:
        gen = local.chat(messages,
                         max_tokens=params.get("max_tokens"), temperature=float(params.get("temperature") or 0.0),
                         seed=params.get("seed"), top_p=params.get("top_p"), tools=params.get("tools"),
                         tool_choice=params.get("tool_choice"), response_format=params.get("response_format"))
    except ValueError as exc:
        if "context window" not in str(exc):
            raise
        raise litellm.ContextWindowExceededError(str(exc), model=model, llm_provider=PREFIX) from None
    return to_model_response(f"{PREFIX}/{model}", gen)


def to_model_response(model: str, gen: Generation) -> ModelResponse:
    message: dict = {"role": "assistant", "content": gen.text or None}
    if gen.tool_calls:
        message["tool_calls"] = list(gen.tool_calls)
    response = ModelResponse(
        model=model,
        choices=[{"index": 0, "message": message, "finish_reason": gen.finish_reason}],
        usage={"prompt_tokens": gen.prompt_tokens, "completion_tokens": gen.completion_tokens,
               "total_tokens": gen.prompt_tokens + gen.completion_tokens},
    )
    response._hidden_params["response_cost"] = 0.0  # a local model costs nothing; spares a price lookup
    response._hidden_params["harnessx_timing"] = {"queue_s": gen.queue_s, "model_s": gen.seconds}
    return response


def register() -> None:
    register_handler(PREFIX, LocalHandler())
