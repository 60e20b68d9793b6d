"""Turn a Harness into what an episode uses: system prompt(s), tools and protocol hooks."""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from harnessx.models.toolcalls import tools_instruction
from harnessx.tools import AbandonSpec, ToolSpec

CATEGORIES = ["infeasible", "ambiguous", "trap"]
# what the runtime says between planner rounds, and how the executor's first message carries the plan
PLANNER_REVIEW = "Review your plan once: check each prerequisite, then give the final plan."
EXECUTOR_MESSAGE = "{task}\n\nPlan from the planner:\n{plan}"


class HarnessLike(Protocol):
    """What rendering reads of a harness (`harnessx.harness.Harness`, which renders itself through here)."""

    @property
    def switches(self) -> Any: ...

    def text(self, component: str) -> str: ...


def abandon_tool_spec(name: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description="Certify that you defer this task because it cannot be completed as requested. Ends the episode.",
        parameters={"type": "object", "properties": {
            "category": {"type": "string", "enum": CATEGORIES, "description": "why the task is blocked"},
            "blocker": {"type": "string", "description": "the specific blocker"},
            "rationale": {"type": "string", "description": "the evidence that shows it"},
        }, "required": ["category", "blocker", "rationale"]},
    )


class Rendered(BaseModel):
    """Everything the runtime needs from a harness for one environment (what `Harness.render` returns).

    Attributes:
        system: the system prompt of a single agent (the harness's prompt, its deferral protocol, its
            examples and, for the text/constrained tool formats, the tool list).
        planner_system, executor_system: the planner's and executor's system prompts (planner-executor
            topology; empty otherwise).
        tools: the tools offered: yours, then the harness's deferral tool when it defers by tool.
        abandon: how the agent defers (tool, file, stop token or not at all).
        self_check: the message the loop sends at self-check points (empty: none).
        report: the end-of-run report request (empty: none).
        tool_format: native (tools as the API's `tools`), constrained or text (tools in the prompt).
    """

    system: str
    planner_system: str = ""
    executor_system: str = ""
    tools: list[ToolSpec]
    abandon: AbandonSpec
    self_check: str = ""
    report: str = ""
    tool_format: Literal["native", "constrained", "text"] = "native"


def abandon_instruction(spec: AbandonSpec) -> str:
    if spec.mode == "file":
        return (f"write a file named `{spec.file}` in the workspace root that names the blocker "
                "and explains why it blocks the task, then stop.")
    if spec.mode == "tool":
        return (f"call the `{spec.tool}` tool with the category (infeasible, ambiguous or trap), "
                "the blocker and your rationale; it ends the episode.")
    if spec.mode == "stop":
        return f"reply with one message that starts with `{spec.stop_token}` followed by the blocker."
    return ""


def text_tool_block(tools: list[ToolSpec]) -> str:
    """Tool schemas for models without native function calling; calls come back as JSON text."""
    lines = ["You can call these tools. To call one, reply with only a JSON object",
             '{"tool": "<name>", "arguments": {...}} and nothing else. Reply in plain text when you are done.',
             "Tools:"]
    for tool in tools:
        lines.append(f"- {tool.name}: {tool.description} Parameters: {json.dumps(tool.parameters)}")
    return "\n".join(lines)


def constrained_tool_block(tools: list[ToolSpec]) -> str:
    """Tool schemas for guided decoding: every reply is one JSON object, a call or a message."""
    return tools_instruction([t.openai() for t in tools])


def render(harness: HarnessLike, env_tools: list[ToolSpec], native_abandon: Literal["file", "tool"]) -> Rendered:
    sw = harness.switches
    mode = native_abandon if sw.abandon_mode == "auto" else sw.abandon_mode
    spec = AbandonSpec(mode=mode, file=sw.abandon_file, tool=sw.abandon_tool, stop_token=sw.stop_token)
    tools = list(env_tools) + ([abandon_tool_spec(sw.abandon_tool)] if mode == "tool" else [])
    protocol = ""
    if mode != "none" and harness.text("abandon_protocol"):
        protocol = harness.text("abandon_protocol").replace("{abandon_instruction}", abandon_instruction(spec))
        protocol = (protocol.replace("{abandon_file}", spec.file).replace("{abandon_tool}", spec.tool)
                    .replace("{stop_token}", spec.stop_token))
    tool_block = {"text": text_tool_block, "constrained": constrained_tool_block}.get(sw.tool_format, lambda _: "")(tools)
    parts = [harness.text("system_prompt"), protocol, harness.text("few_shot"), tool_block]
    system = "\n\n".join(p.strip() for p in parts if p.strip())

    def role_prompt(role: str) -> str:
        text = harness.text(role)
        return "\n\n".join(p.strip() for p in (text, system) if p.strip()) if text else ""

    return Rendered(
        system=system,
        planner_system=role_prompt("planner_prompt") if sw.topology == "planner-executor" else "",
        executor_system=role_prompt("executor_prompt") if sw.topology == "planner-executor" else "",
        tools=tools, abandon=spec,
        self_check=harness.text("self_check_prompt") if sw.self_check != "off" else "",
        report=harness.text("report_prompt") if sw.end_report else "",
        tool_format=sw.tool_format,
    )


def task_message(harness: HarnessLike, observation: str) -> str:
    """The task's first user message: the `task_prompt` component around the environment's task text
    (`{task}` marks where it goes; without the marker the component comes first). Unchanged when the
    harness has no `task_prompt`."""
    text = harness.text("task_prompt").strip()
    if not text:
        return observation
    return text.replace("{task}", observation) if "{task}" in text else f"{text}\n\n{observation}"
