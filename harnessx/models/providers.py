"""Offline model providers, registered with LiteLLM's custom-provider API so that they take the
same code path as a real model: messages and tool schemas in, an assistant message out.

A provider is a prefix (`scripted/…`, `sim/…`) mapped to a `Responder`: a callable that gets the
model name after the prefix, the messages, the tool schemas and the call's metadata, and returns an
assistant message dict (`content`, optional `tool_calls` as `[{"name", "arguments"}]`, optional
`usage` and `latency_s`).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import litellm
from litellm import CustomLLM, ModelResponse
from litellm.utils import custom_llm_setup

from harnessx.errors import InputError

T = TypeVar("T")
Responder = Callable[[str, list[dict], list[dict], dict], dict]
_RESPONDERS: dict[str, Responder] = {}


class _Handler(CustomLLM):
    """Dispatches `prefix/name` to the responder registered for `prefix`."""

    def __init__(self, prefix: str):
        super().__init__()
        self.prefix = prefix

    def _respond(self, model: str, messages: list, optional_params: dict, litellm_params: dict | None) -> tuple[ModelResponse, float]:
        metadata = (litellm_params or {}).get("metadata") or {}
        reply = _RESPONDERS[self.prefix](model, messages, optional_params.get("tools") or [], metadata)
        return _to_model_response(model, reply), float(reply.get("latency_s", 0.0))

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                   headers={}, timeout=None, client=None):
        return self._respond(model, messages, optional_params, litellm_params)[0]

    def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                    api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                    headers={}, timeout=None, client=None):
        async def call() -> ModelResponse:
            response, latency = self._respond(model, messages, optional_params, litellm_params)
            if latency > 0:
                await asyncio.sleep(latency)
            return response

        return held_until_started(call)


_UNSTARTED: dict[object, Coroutine] = {}


def held_until_started(make: Callable[[], Awaitable[T]]) -> Coroutine[Any, Any, T]:
    """The coroutine a custom handler's `acompletion` returns, held until it starts.

    LiteLLM builds that coroutine in an executor thread and awaits it afterwards; a rollout cancelled
    in between (Ctrl-C, a crash) drops it unstarted. Holding it lets exit close it, instead of Python
    warning "coroutine ... was never awaited" over a call that never ran."""
    key = object()

    async def run() -> T:
        _UNSTARTED.pop(key, None)
        return await make()

    _UNSTARTED[key] = coroutine = run()
    return coroutine


@atexit.register
def close_unstarted() -> int:
    """Close the offline calls that were cancelled before they began; returns how many."""
    pending = list(_UNSTARTED.values())
    _UNSTARTED.clear()
    for coroutine in pending:
        coroutine.close()
    return len(pending)


def _to_model_response(model: str, reply: dict) -> ModelResponse:
    calls = [{"id": c.get("id") or f"call_{uuid.uuid4().hex[:8]}", "type": "function",
              "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(c["arguments"], str)
                           else json.dumps(c["arguments"])}}
             for c in reply.get("tool_calls") or []]
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if calls:
        message["tool_calls"] = calls
    usage = reply.get("usage") or {}
    prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    response = ModelResponse(
        model=model,
        choices=[{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        usage={"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    )
    # Offline models cost nothing; stamping the cost spares LiteLLM a price-table lookup per call.
    response._hidden_params["response_cost"] = 0.0
    return response


def register_provider(prefix: str, responder: Responder) -> None:
    """Make `prefix/<name>` a LiteLLM model string answered by `responder`.

    After this call `--model prefix/<name>` takes the path of a real model (LiteLLM, tool calls,
    retries, usage accounting). Registering a prefix again replaces its responder.

    Args:
        prefix: the provider prefix, e.g. `sim`; it must not be one of LiteLLM's own providers.
        responder: called as `responder(name, messages, tools, metadata)` for every model call,
            with the model name after the prefix, the OpenAI-style messages and tool schemas, and
            the call's metadata. It returns an assistant message dict: `content` (str or None),
            optionally `tool_calls` as `[{"name", "arguments"}]`, `usage` (`prompt_tokens`,
            `completion_tokens`) and `latency_s` (slept without blocking). It is called synchronously
            on the event loop that runs every concurrent rollout, so it must not block for long,
            and it should be deterministic given the messages and `metadata["harnessx"]["seed"]`:
            rollouts are cached by key, and a responder whose behaviour lives in a file registers
            that file's identity (`register_identity`).
    """
    _RESPONDERS[prefix] = responder
    register_handler(prefix, _Handler(prefix))


def register_handler(prefix: str, handler: CustomLLM) -> None:
    """Make `prefix/<name>` a LiteLLM model string served by a LiteLLM custom handler."""
    existing = [p for p in (litellm.custom_provider_map or []) if p["provider"] != prefix]
    litellm.custom_provider_map = existing + [{"provider": prefix, "custom_handler": handler}]
    custom_llm_setup()


_IDENTITIES: dict[str, Callable[[str], str]] = {}


def register_identity(prefix: str, identity: Callable[[str], str]) -> None:
    """`identity(name)` says what a rollout key must hold about `prefix/<name>` beyond its name: an
    offline model whose behaviour lives in a file (a simulated profile) names that file's contents,
    so that editing it never serves the old behaviour's rollouts from a cache."""
    _IDENTITIES[prefix] = identity


def identity_suffix(model: str) -> str:
    prefix, _, name = model.partition("/")
    return f"#{_IDENTITIES[prefix](name)}" if prefix in _IDENTITIES and name else ""


def is_registered(prefix: str) -> bool:
    return prefix in _RESPONDERS


_PREFLIGHTS: dict[str, Callable[[str], None]] = {}


def register_preflight(prefix: str, check: Callable[[str], None]) -> None:
    """`check(name)` is the pre-flight of an offline `prefix/<name>` model: it raises (an InputError
    naming the file and field) when the model cannot answer, without a call. A prefix with no check
    registered gets one tiny real call (harnessx.models.preflight)."""
    _PREFLIGHTS[prefix] = check


def preflight_check(prefix: str) -> Callable[[str], None] | None:
    return _PREFLIGHTS.get(prefix)


# --- scripted provider (tests) -------------------------------------------------------------------
_SCRIPTS: dict[str, Callable[[list[dict], list[dict], dict], dict]] = {}


def register_script(name: str, script: Callable[[list[dict], list[dict], dict], dict]) -> str:
    """Register a scripted model; returns its LiteLLM model string `scripted/<name>`."""
    _SCRIPTS[name] = script
    if not is_registered("scripted"):
        register_provider("scripted", _scripted)
    return f"scripted/{name}"


def _check_script(name: str) -> None:
    if name not in _SCRIPTS:
        raise InputError("--model", f"no scripted model {name!r} is registered")


register_preflight("scripted", _check_script)


def _scripted(model: str, messages: list[dict], tools: list[dict], metadata: dict) -> dict:
    if model not in _SCRIPTS:
        raise litellm.exceptions.NotFoundError(f"no scripted model {model!r}", model=model, llm_provider="scripted")
    return _SCRIPTS[model](messages, tools, metadata)
