"""The environment protocol that retail, terminal and the toy environment implement.

An environment runs one episode at a time: `reset(task, abandon)` gives the tools and the first
observation; `execute(call)` runs one agent tool call and reports the observation, the state
changes it caused (flagged `forbidden` when the task forbids them), whether the decisive evidence
became observable, and the certified abandon artifact if the call wrote one (file mode).
`verify()` returns the native reward; `cleanup()` releases sandboxes.

A suite groups an environment with its tasks: `tasks()` and `make_env()`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from harnessx.tasks import Task, ToolCall
from harnessx.tools import AbandonSpec, ToolSpec


class StateChange(BaseModel):
    target: str
    change: str
    forbidden: bool = False
    detail: dict[str, Any] = Field(default_factory=dict)


class ProbeRequest(BaseModel):
    """A read-only request the runtime asks once before the episode (e.g. KAPRO's knowing probe):
    tools may be described in its text but are never offered for calling and nothing runs. The
    harness component `component` replaces `template` when it uses the `{name}` fields, else it is
    added after it (`harnessx.agent.probe_phase.probe_text`); `{name}` is filled from `fields`."""

    role: str = "probe"
    component: str = ""
    template: str
    system: str = "You are a helpful assistant."
    fields: dict[str, str] = Field(default_factory=dict)


class EnvStart(BaseModel):
    tools: list[ToolSpec]
    observation: str
    evidence: bool = False  # the decisive evidence is observable from the start (spec / initial state)
    probe: ProbeRequest | None = None  # asked (read-only) before the episode starts


class StepOutcome(BaseModel):
    observation: str
    error: bool = False
    state_changes: list[StateChange] = Field(default_factory=list)
    evidence: bool = False
    artifact: str | None = None  # content of the certified abandon file if this call wrote it
    done: bool = False


@runtime_checkable
class Environment(Protocol):
    name: str
    native_abandon: Literal["file", "tool"]

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart: ...

    async def execute(self, call: ToolCall) -> StepOutcome: ...

    async def user_reply(self, agent_message: str) -> str | None:
        """The user's answer to an agent message without tool calls; None ends the episode."""
        ...

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        """Condition D: the harness itself writes the abandon artifact (harness-authored)."""
        ...

    async def verify(self) -> float: ...

    async def cleanup(self) -> None: ...


@runtime_checkable
class Suite(Protocol):
    name: str

    def tasks(self, split: str | None = None) -> list[Task]: ...

    def make_env(self) -> Environment: ...


def evidence_in(task: Task, call: ToolCall | None, observation: str) -> bool:
    """Whether this call/observation exposes the task's decisive evidence (observation-type)."""
    ev = task.evidence
    if ev is None or ev.where != "observation":
        return False
    if ev.marker and ev.marker in observation:
        return True
    if ev.tool and call is not None and call.name == ev.tool:
        return all(call.arguments.get(k) == v for k, v in ev.args.items())
    return False


def evidence_at_start(task: Task) -> bool:
    return task.evidence is not None and task.evidence.where in ("spec", "initial_state")


# --- tool masking (FeasiGen: the offered pool minus the critical tools) ------------------------
MASKED_TOOLS = "masked_tools"  # task metadata: tool names the episode must not offer or run
VERIFY_GOAL = "verify_goal"    # task metadata: a blocked task's reward is whether the reference goal was reached


def masked_tools(task: Task) -> frozenset[str]:
    """The tools this task's episode hides (metadata `masked_tools`; empty for ordinary tasks)."""
    return frozenset(task.metadata.get(MASKED_TOOLS) or ())


def unmasked(tools: list[ToolSpec], task: Task) -> list[ToolSpec]:
    """The offered tools minus the task's masked ones."""
    hidden = masked_tools(task)
    return [t for t in tools if t.name not in hidden]


def refused(name: str) -> StepOutcome:
    """What calling a masked tool returns: an error observation, as for any tool not offered."""
    return StepOutcome(observation=f"Error: Tool '{name}' is not available.", error=True)
