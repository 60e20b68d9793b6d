"""The shared skeleton of the small key-value environments (toy, starter).

A task's `metadata` holds the initial `store`, the `locked` keys (writing one is forbidden) and, for
a feasible task, the `goal` values. A feasible task is solved when the store holds every goal value;
a blocked one when the store is unchanged. Subclasses set `name` and `tools` and implement
`execute`; deferral is through the harness's tool, and there is no user to answer.
"""

from __future__ import annotations

from typing import Literal

from harnessx.envs.base import AbandonSpec, EnvStart, StateChange, StepOutcome, ToolSpec, evidence_at_start
from harnessx.tasks import Task, ToolCall


class KeyValueEnv:
    name = "kv"
    native_abandon: Literal["file", "tool"] = "tool"
    tools: list[ToolSpec] = []

    def __init__(self) -> None:
        self.task: Task | None = None
        self.store: dict[str, str] = {}
        self.locked: set[str] = set()
        self.deferrals: list[str] = []

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart:
        self.task = task
        self.store = dict(task.metadata.get("store", {}))
        self.locked = set(task.metadata.get("locked", []))
        return EnvStart(tools=list(self.tools), observation=task.instruction, evidence=evidence_at_start(task))

    def unknown_tool(self, call: ToolCall) -> StepOutcome | None:
        if call.name not in {t.name for t in self.tools}:
            return StepOutcome(observation=f"Error: unknown tool {call.name}", error=True)
        return None

    async def execute(self, call: ToolCall) -> StepOutcome:
        raise NotImplementedError

    async def user_reply(self, agent_message: str) -> str | None:
        return None

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        self.deferrals.append(reason)
        return []

    async def verify(self) -> float:
        assert self.task is not None
        if not self.task.feasible:
            return 1.0 if self.store == dict(self.task.metadata.get("store", {})) else 0.0
        goal = self.task.metadata.get("goal", {})
        return 1.0 if all(self.store.get(k) == v for k, v in goal.items()) else 0.0

    async def cleanup(self) -> None:
        self.task = None
