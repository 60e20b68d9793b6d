"""A harness as an OpenAI Agents SDK `Agent` (the `agents` package; `pip install 'harnessx[openai-agents]'`).

`harness_agent(harness, tools)` builds the agent your stack runs with `agents.Runner`: the harness's
rendered system prompt as `instructions`, your function tools followed by the harness's deferral tool
(a call to it ends the run: `StopAtTools`), and the harness's sampling switches as `ModelSettings`.
For a planner-executor harness it is the executor; `planner_agent` is the planner (no tools), whose
final output goes into the executor's first message (`EXECUTOR_MESSAGE`). The loop is the SDK's: the
harness's self-check and end-report messages and its harness-control step are not applied (the
`--format openai` export lists them for a loop that wants them). Nothing here calls a model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harnessx.harness.openai_format import render_for
from harnessx.harness.render import EXECUTOR_MESSAGE

EFFORTS = ("minimal", "low", "medium", "high")


def _sdk() -> Any:
    try:
        import agents
    except ImportError as exc:
        raise ImportError("the OpenAI Agents SDK is not installed: pip install 'harnessx[openai-agents]'") from exc
    return agents


def _schema(tool: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                             "parameters": tool.params_json_schema}}


def deferral_tool(name: str, schema: dict[str, Any], description: str) -> Any:
    """The harness's deferral tool as a `FunctionTool`: it returns the deferral as JSON (category,
    blocker, rationale), which the run's final output then is."""
    agents = _sdk()

    async def defer(_context: Any, arguments: str) -> str:
        return json.dumps({"deferred": True, **json.loads(arguments or "{}")})

    return agents.FunctionTool(name=name, description=description, params_json_schema=schema,
                               on_invoke_tool=defer, strict_json_schema=False)


def model_settings(harness: Any) -> Any:
    """The harness's sampling switches as `ModelSettings` (unset switches left to the model's defaults;
    a thinking budget in tokens has no Responses-API equivalent and is left out)."""
    agents = _sdk()
    sw = harness.switches
    settings: dict[str, Any] = {"max_tokens": sw.max_output_tokens}
    if sw.temperature is not None:
        settings["temperature"] = sw.temperature
    if sw.top_p is not None:
        settings["top_p"] = sw.top_p
    if sw.reasoning_effort in EFFORTS:
        from openai.types.shared import Reasoning

        settings["reasoning"] = Reasoning(effort=sw.reasoning_effort)
    return agents.ModelSettings(**settings)


def harness_agent(harness: Any, tools: Sequence[Any] = (), model: Any = None, name: str | None = None) -> Any:
    """An `agents.Agent` running this harness with your `FunctionTool`s (e.g. made by `@function_tool`).

    Args:
        harness: a `harnessx.Harness` (e.g. `Harness.load("harness.yaml")`).
        tools: your tools, as the SDK's `FunctionTool` objects.
        model: the SDK's model name or `Model` object; None: the SDK's default.
        name: the agent's name; default: the harness's.
    """
    agents = _sdk()
    rendered = render_for(harness, [_schema(t) for t in tools], "tool")
    own = [deferral_tool(t.name, t.parameters, t.description) for t in rendered.tools[len(tools):]]
    split = harness.switches.topology == "planner-executor"
    return agents.Agent(
        name=name or harness.name, instructions=rendered.executor_system if split else rendered.system,
        tools=[*tools, *own], model=model, model_settings=model_settings(harness),
        tool_use_behavior=agents.StopAtTools(stop_at_tool_names=[t.name for t in own]) if own else "run_llm_again")


def planner_agent(harness: Any, tools: Sequence[Any] = (), model: Any = None) -> Any | None:
    """The planner of a planner-executor harness (no tools; None for a single-agent harness). Run it on
    the task, then the executor on `EXECUTOR_MESSAGE.format(task=..., plan=<the planner's output>)`."""
    if harness.switches.topology != "planner-executor":
        return None
    agents = _sdk()
    rendered = render_for(harness, [_schema(t) for t in tools], "tool")
    return agents.Agent(name=f"{harness.name}-planner", instructions=rendered.planner_system, tools=[], model=model,
                        model_settings=model_settings(harness))


__all__ = ["EXECUTOR_MESSAGE", "deferral_tool", "harness_agent", "model_settings", "planner_agent"]
