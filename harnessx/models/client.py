"""One client for every model call: LiteLLM, with retries, a timeout, and token/cost accounting.

Offline providers (`scripted/`, `sim/`, `local/`) are imported lazily on first use so they register
their LiteLLM custom handler; everything else is a LiteLLM model string (`openai/gpt-4.1-mini`, or
`openai/<name>` with `api_base` for an OpenAI-compatible server).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from typing import Any

import litellm
from pydantic import BaseModel, Field

from harnessx.errors import ModelCallError
from harnessx.models.defaults import DEFAULT_MODEL  # noqa: F401 - re-exported: callers import it from here
from harnessx.models.failures import classify
from harnessx.models.loopback import loopback_key
from harnessx.models.providers import identity_suffix
from harnessx.models.reasoning import reasoning_params
from harnessx.models.usage import Usage
from harnessx.models.toolcalls import call_schema, parse_tool_calls, tool_name
from harnessx.tasks import ToolCall

litellm.suppress_debug_info = True
litellm.drop_params = True

# Offline providers: model prefix -> module that registers it on import.
LAZY_PROVIDERS = {"sim": "harnessx.sim", "local": "harnessx.local"}


class ModelReply(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    queue_s: float = 0.0  # of latency_s: waiting for a shared model (local provider), not the model's time
    malformed: str | None = None  # why the output could not be used, if it could not
    retries: int = 0

    @property
    def model_s(self) -> float:
        """The model's own time: latency minus the wait for a shared model."""
        return max(0.0, self.latency_s - self.queue_s)


class ModelClient:
    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 temperature: float = 0.0, timeout_s: float = 120.0, max_retries: int = 3,
                 backoff_s: float = 1.0, extra: dict[str, Any] | None = None, top_p: float | None = None,
                 reasoning_effort: str | None = None):
        self.model, self.api_base = model, api_base
        self.api_key = loopback_key(model, api_base, api_key)  # a loopback server needs no key from the user
        self.temperature, self.top_p, self.timeout_s = temperature, top_p, timeout_s
        self.reasoning_effort = reasoning_effort  # harnessx.models.reasoning: a level or a thinking budget
        self.max_retries, self.backoff_s = max_retries, backoff_s
        self.extra = dict(extra or {})
        ensure_provider(model)

    @property
    def simulated(self) -> bool:
        return self.model.split("/", 1)[0] in ("sim", "scripted")

    @property
    def identity(self) -> str:
        """What a rollout key must hold about the model: name, server, default sampling and reasoning
        effort (each only when set, so keys made before a setting existed do not change)."""
        sampling = (f"|t={self.temperature:g}" if self.temperature else "") + (
            f"|top_p={self.top_p:g}" if self.top_p is not None else "") + (
            f"|reasoning={self.reasoning_effort}" if self.reasoning_effort else "")
        return self.model + identity_suffix(self.model) + (f"@{self.api_base}" if self.api_base else "") + sampling

    def describe(self) -> str:
        return self.model + (f" @ {self.api_base}" if self.api_base else "") + (" (simulated)" if self.simulated else "")

    async def complete(self, messages: list[dict], tools: list[dict] | None = None, *,
                       metadata: dict | None = None, max_tokens: int | None = None,
                       seed: int | None = None, text_tools: bool = False, tool_format: str | None = None,
                       temperature: float | None = None, top_p: float | None = None,
                       multiple_calls: bool = False, tool_choice: str | None = None,
                       reasoning_effort: str | None = None) -> ModelReply:
        """One call. `tool_format`: native (tools as the API's `tools`), constrained (schemas in the
        prompt, the reply constrained to `call_schema(tools)` by the server's guided decoding) or
        text (schemas in the prompt, calls parsed from free text); `text_tools=True` means text.
        `temperature` / `top_p` / `reasoning_effort` override the client's defaults for this call; `tool_choice`
        "required" asks for a call (no final-message branch), as in the OpenAI API."""
        fmt = tool_format or ("text" if text_tools else "native")
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": self.timeout_s,
                                  "temperature": self.temperature if temperature is None else temperature,
                                  "max_retries": 0, **self.extra}  # we retry, counted
        if (top_p := self.top_p if top_p is None else top_p) is not None:
            kwargs["top_p"] = top_p
        kwargs.update(reasoning_params(reasoning_effort or self.reasoning_effort))
        if tools and fmt == "native":
            kwargs["tools"] = tools
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
        elif tools and fmt == "constrained":
            kwargs.update(guided_params(call_schema(tools, allow_message=tool_choice != "required"), self.api_base))
        if metadata:
            kwargs["metadata"] = metadata
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if seed is not None:
            kwargs["seed"] = seed
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        start = time.perf_counter()
        response, retries = await self._call_with_retries(kwargs)
        latency = time.perf_counter() - start
        reply = parse_response(response, tool_format=fmt if tools else "native",
                               offered=[tool_name(t) for t in tools or []], multiple=multiple_calls)
        reply.usage.cost_usd = _cost(response)
        reply.latency_s, reply.retries = latency, retries
        timing = (getattr(response, "_hidden_params", None) or {}).get("harnessx_timing") or {}
        reply.queue_s = min(latency, float(timing.get("queue_s", 0.0)))
        return reply

    async def _call_with_retries(self, kwargs: dict) -> tuple[Any, int]:
        """Retry transient provider failures (waiting at least what Retry-After asks); any provider
        failure that persists is a ModelCallError with its kind, so the rollout is a model failure."""
        for attempt in range(self.max_retries + 1):
            try:
                return await litellm.acompletion(**kwargs), attempt
            except Exception as exc:  # noqa: BLE001 - classified below; a non-provider error re-raises
                failure = classify(exc)
                if failure is None:
                    raise
                where = f" at --api-base {self.api_base}" if self.api_base else ""
                if not failure.transient or attempt == self.max_retries:
                    tries = f" after {attempt + 1} tries" if failure.transient else ""
                    raise ModelCallError(f"model {self.model!r}{where} failed{tries} ({failure.kind}): "
                                         f"{failure.detail}", kind=failure.kind, detail=failure.detail) from None
                await asyncio.sleep(max(self.backoff_s * (2 ** attempt), failure.retry_after_s or 0.0))
        raise AssertionError("unreachable")


def ensure_provider(model: str) -> None:
    prefix = model.split("/", 1)[0]
    if prefix in LAZY_PROVIDERS:
        try:
            importlib.import_module(LAZY_PROVIDERS[prefix])
        except ModuleNotFoundError as exc:
            raise ModelCallError(f"model {model!r}: provider {prefix!r} is not available ({exc.name} missing)") from None


def guided_params(schema: dict, api_base: str | None) -> dict[str, Any]:
    """Request options that constrain the reply to `schema`: llama.cpp (in-process and its server)
    reads `response_format` with a `schema`; vLLM-style servers also get `guided_json`."""
    params: dict[str, Any] = {"response_format": {"type": "json_object", "schema": schema}}
    if api_base:
        params["extra_body"] = {"guided_json": schema}
    return params


def parse_response(response: Any, text_tools: bool = False, tool_format: str | None = None,
                   offered: list[str] | None = None, multiple: bool = False) -> ModelReply:
    """Turn a LiteLLM response into text + tool calls; unusable output is marked, never raised."""
    fmt = tool_format or ("text" if text_tools else "native")
    choice = response.choices[0].message
    text = choice.content or ""
    usage = Usage(prompt_tokens=getattr(response.usage, "prompt_tokens", 0) or 0,
                  completion_tokens=getattr(response.usage, "completion_tokens", 0) or 0, calls=1)
    calls: list[ToolCall] = []
    malformed = None
    for i, call in enumerate(getattr(choice, "tool_calls", None) or []):
        try:
            args = json.loads(call.function.arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments are not an object")
            calls.append(ToolCall(name=call.function.name, arguments=args, id=call.id or f"call_{i}"))
        except (ValueError, TypeError) as exc:
            malformed = f"tool call {call.function.name!r}: unparseable arguments ({exc})"
    if fmt in ("text", "constrained") and not calls and malformed is None:
        parsed = parse_tool_calls(text, offered or None, multiple=multiple)
        calls, malformed, text = parsed.calls, parsed.malformed, parsed.text
    elif not calls and malformed is None and offered and text.lstrip().startswith("{"):
        # a native reply that is JSON text: a server (or the local handler) that could not turn it
        # into tool_calls; read it with the text parser so that a cut-off call is never an answer
        parsed = parse_tool_calls(text, offered, multiple=multiple)
        calls, malformed, text = parsed.calls, parsed.malformed, parsed.text
        if malformed and getattr(response.choices[0], "finish_reason", None) == "length":
            malformed = f"tool call cut off at max_tokens ({malformed})"
    return ModelReply(text=text, tool_calls=calls, usage=usage, malformed=malformed)


def parse_text_tool_call(text: str) -> tuple[list[ToolCall], str | None]:
    """The first `{"tool": ..., "arguments": {...}}` call in free text and why it is malformed, if it
    is (harnessx.models.toolcalls.parse_tool_calls, any tool name)."""
    parsed = parse_tool_calls(text)
    return parsed.calls, parsed.malformed


def _cost(response: Any) -> float:
    stamped = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    if stamped is not None:
        return float(stamped)
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown model prices: cost is unknown, recorded as 0
        return 0.0

