"""A harness rendered for another agent stack: the OpenAI chat-completions shape.

`openai_export(harness, tools)` is what `harnessx export RUN --format openai` writes: the rendered
system prompt, the tools as OpenAI function schemas (the harness's abandon tool among them), the
planner/executor prompts and the switches that change how an agent loop runs, with the harness's
provenance and certified claim. Every field is explained in docs/export.md; nothing in it needs
HarnessX to be read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from harnessx.harness.render import EXECUTOR_MESSAGE, PLANNER_REVIEW, HarnessLike, Rendered, abandon_instruction, render
from harnessx.tools import ToolSpec

FORMAT = "harnessx.openai/1"
ToolLike = ToolSpec | dict[str, Any]


def tool_specs(tools: Iterable[ToolLike]) -> list[ToolSpec]:
    """Tools in any of the shapes stacks use: a `ToolSpec`, an OpenAI tool
    (`{"type": "function", "function": {...}}`), or a bare function (`{"name", "description",
    "parameters"}`). A malformed one is a ValueError naming its position and field."""
    out: list[ToolSpec] = []
    for i, tool in enumerate(tools):
        if isinstance(tool, ToolSpec):
            out.append(tool)
            continue
        if not isinstance(tool, dict):
            raise ValueError(f"tools[{i}]: a {type(tool).__name__}; expected a ToolSpec or an OpenAI tool object")
        body = tool.get("function", tool) if tool.get("type", "function") == "function" else None
        if not isinstance(body, dict):
            raise ValueError(f"tools[{i}].type: {tool.get('type')!r}; expected 'function'")
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"tools[{i}].name: missing; expected the function's name")
        parameters = body.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            raise ValueError(f"tools[{i}] ({name}).parameters: expected a JSON schema of type 'object'")
        out.append(ToolSpec(name=name, description=str(body.get("description", "")), parameters=parameters))
    names = [t.name for t in out]
    if dupes := sorted({n for n in names if names.count(n) > 1}):
        raise ValueError(f"tools: {dupes} given twice; expected distinct tool names")
    return out


def render_for(harness: HarnessLike, tools: Iterable[ToolLike] = (),
               native_abandon: Literal["file", "tool"] = "tool") -> Rendered:
    """The harness rendered for these tools. `native_abandon` is how the agent defers when the harness
    leaves it to the environment (`abandon_mode: auto`): a tool call (agent stacks) or a file."""
    specs = tool_specs(tools)
    if any(t.name == harness.switches.abandon_tool for t in specs) and harness.switches.abandon_mode in ("auto", "tool") \
            and native_abandon == "tool":
        raise ValueError(f"tools: {harness.switches.abandon_tool!r} is the harness's own deferral tool; rename yours")
    return render(harness, specs, native_abandon)


def openai_export(harness: Any, tools: Iterable[ToolLike] = (), native_abandon: Literal["file", "tool"] = "tool",
                  claim: dict[str, Any] | None = None) -> dict[str, Any]:
    """The export document (JSON-ready) of a `Harness` for these tools."""
    sw = harness.switches
    r = render_for(harness, tools, native_abandon)
    split = sw.topology == "planner-executor"
    provenance = dict(harness.provenance)
    return {
        "format": FORMAT,
        "harness": {"name": harness.name, "hash": harness.hash},
        "system": r.system,
        "tools": [t.openai() for t in r.tools],
        "tool_choice": "auto",
        "tool_format": r.tool_format,
        "first_user_message": harness.text("task_prompt") or "{task}",
        "abandon": {"mode": r.abandon.mode, "tool": r.abandon.tool if r.abandon.mode == "tool" else None,
                    "file": r.abandon.file if r.abandon.mode == "file" else None,
                    "stop_token": r.abandon.stop_token if r.abandon.mode == "stop" else None,
                    "instruction": abandon_instruction(r.abandon) or None},
        "topology": sw.topology,
        "planner": {"system": r.planner_system, "rounds": sw.planner_rounds, "review_message": PLANNER_REVIEW,
                    "tools": []} if split else None,
        "executor": {"system": r.executor_system, "max_turns": sw.executor_max_turns,
                     "first_user_message": EXECUTOR_MESSAGE} if split else None,
        "self_check": {"when": sw.self_check, "every_k_turns": sw.self_check_k if sw.self_check == "every-k" else None,
                       "message": r.self_check} if r.self_check else None,
        "end_report": {"message": r.report} if r.report else None,
        "harness_control": sw.harness_control,
        "sampling": {k: v for k, v in (("temperature", sw.temperature), ("top_p", sw.top_p),
                                       ("reasoning_effort", sw.reasoning_effort)) if v is not None},
        "max_tokens": sw.max_output_tokens,
        "limits": {"max_steps": sw.max_steps, "max_total_tokens": sw.max_total_tokens, "time_limit_s": sw.time_limit_s},
        "switches": sw.model_dump(mode="json"),
        "provenance": provenance,
        "claim": claim if claim is not None else provenance.get("claim"),
    }
