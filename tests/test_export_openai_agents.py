"""The OpenAI Agents SDK target (`harnessx[openai-agents]`), offline: the Agent a harness builds
carries the rendered prompt, the user's tools then the deferral tool (which ends the run), and the
harness's sampling switches; a planner-executor harness gives an executor and a planner. No model is called."""

from __future__ import annotations

import asyncio
import json

import pytest

agents = pytest.importorskip("agents", reason="the OpenAI Agents SDK extra (harnessx[openai-agents]) is not installed")

from harnessx.harness import load_preset  # noqa: E402
from harnessx.harness.openai_agents import EXECUTOR_MESSAGE, harness_agent, planner_agent  # noqa: E402


@agents.function_tool
def get(key: str) -> str:
    """Read the value of a key."""
    return "old"


def test_a_single_agent_harness_is_an_agent_with_its_prompt_tools_and_settings():
    harness = load_preset("A1").with_switches(temperature=0.3, reasoning_effort="low", max_output_tokens=512)
    agent = harness_agent(harness, [get], model="gpt-4o-mini")
    assert isinstance(agent, agents.Agent) and agent.name == harness.name and agent.model == "gpt-4o-mini"
    rendered = harness.render([{"name": get.name, "description": get.description, "parameters": get.params_json_schema}])
    assert agent.instructions == rendered.system and "defer_task" in agent.instructions
    assert [t.name for t in agent.tools] == ["get", "defer_task"]
    assert agent.tool_use_behavior.get("stop_at_tool_names") == ["defer_task"]  # deferring ends the run
    settings = agent.model_settings
    assert (settings.temperature, settings.max_tokens, settings.reasoning.effort) == (0.3, 512, "low")
    defer = agent.tools[1]
    args = json.dumps({"category": "infeasible", "blocker": "no key z", "rationale": "get returned nothing"})
    assert json.loads(asyncio.run(defer.on_invoke_tool(None, args))) == {"deferred": True, **json.loads(args)}
    assert planner_agent(harness, [get]) is None


def test_a_harness_without_a_deferral_tool_adds_none():
    agent = harness_agent(load_preset("A1").with_switches(abandon_mode="stop"), [get])
    assert [t.name for t in agent.tools] == ["get"] and agent.tool_use_behavior == "run_llm_again"
    assert "STOP:" in agent.instructions


def test_a_planner_executor_harness_gives_an_executor_and_a_toolless_planner():
    harness = load_preset("planner-executor")
    executor, planner = harness_agent(harness, [get]), planner_agent(harness, [get])
    rendered = harness.render([{"name": "get", "description": get.description, "parameters": get.params_json_schema}])
    assert executor.instructions == rendered.executor_system and planner.instructions == rendered.planner_system
    assert planner.tools == [] and [t.name for t in executor.tools] == ["get", "defer_task"]
    assert "{task}" in EXECUTOR_MESSAGE and "{plan}" in EXECUTOR_MESSAGE


class Scripted(agents.models.interface.Model):
    """An offline model for the SDK's Runner: replies with the given tool calls, in order."""

    def __init__(self, calls):
        self.calls, self.seen = list(calls), []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
                           **_):
        from openai.types.responses import ResponseFunctionToolCall

        self.seen.append((system_instructions, [t.name for t in tools]))
        name, args = self.calls.pop(0)
        call = ResponseFunctionToolCall(type="function_call", call_id=f"c{len(self.seen)}", name=name,
                                        arguments=json.dumps(args))
        return agents.items.ModelResponse(output=[call], usage=agents.usage.Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def test_the_sdk_runner_ends_the_run_at_the_deferral_with_it_as_the_output():
    agents.set_tracing_disabled(True)  # nothing leaves the machine
    deferral = {"category": "infeasible", "blocker": "no key z", "rationale": "get found nothing"}
    model = Scripted([("get", {"key": "z"}), ("defer_task", deferral), ("get", {"key": "never asked"})])
    harness = load_preset("A1")
    result = agents.Runner.run_sync(harness_agent(harness, [get], model=model), "Copy the value of z into b.")
    assert json.loads(result.final_output) == {"deferred": True, **deferral}
    assert len(model.seen) == 2 and model.calls  # the run stopped at the deferral: no third model call
    rendered = harness.render([{"name": "get", "description": get.description, "parameters": get.params_json_schema}])
    assert model.seen[0] == (rendered.system, ["get", "defer_task"])
