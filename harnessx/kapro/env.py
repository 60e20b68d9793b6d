"""The KAPRO replay environment and suite (digest §2.3).

An episode offers only the item's tools (its `tool_doc`, plus distractors when asked) and first
asks the knowing probe (read-only: the tools are listed in the text, nothing runs). The acting run
is ordinary function calling: each tool call is answered by replaying the item's `tool_response`
keyed by tool name (the i-th call of a tool gets its i-th response, repeating the last); an
unknown tool gets the empty string. The episode ends on a message without tool calls; the
harness's step limit is the round cap (the KAPRO preset sets the paper's 10). `verify()` is the
deterministic answer match on the final message (the offline pass judge).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Literal

from harnessx.envs.base import AbandonSpec, EnvStart, ProbeRequest, StateChange, StepOutcome, ToolSpec
from harnessx.kapro.items import KaproItem, item_of
from harnessx.kapro.judge import answer_matches
from harnessx.tasks import Task, ToolCall

KNOWING_PROMPT = (
    "Role: You are an agent responsible for evaluating if a user's task requires tools.\n"
    "Task: {task}\n"
    "Available Tools: {tool_info}\n"
    "Instructions: Assess each tool's necessity according to task specifications. Set a tool to true if its "
    "functionality is essential for task completion. Set a tool to false if internal capabilities are sufficient.\n"
    "Output Format: Return a valid JSON object ONLY in the following format:\n"
    '{"tool_decisions": {"ToolA": true, "ToolB": false, ...}}')
MAX_DISTRACTORS = 10


def knowing_request(item: KaproItem) -> ProbeRequest:
    """The paper's Call Agent Prompt (001 §E.3); the harness's `knowing_prompt` replaces it."""
    return ProbeRequest(role="knowing", component="knowing_prompt", template=KNOWING_PROMPT,
                        fields={"task": item.task, "tool_info": json.dumps(item.tools)})


class KaproEnv:
    name = "kapro"
    native_abandon: Literal["file", "tool"] = "tool"

    def __init__(self) -> None:
        self.item: KaproItem | None = None
        self.calls: Counter[str] = Counter()
        self.final: str = ""

    async def reset(self, task: Task, abandon: AbandonSpec) -> EnvStart:
        self.item, self.calls, self.final = item_of(task), Counter(), ""
        tools = [ToolSpec(name=t["function"]["name"], description=t["function"].get("description", ""),
                          parameters=t["function"].get("parameters") or {"type": "object", "properties": {}})
                 for t in self.item.tools]
        return EnvStart(tools=tools, observation=self.item.task, probe=knowing_request(self.item))

    async def execute(self, call: ToolCall) -> StepOutcome:
        assert self.item is not None
        replies = self.item.responses.get(call.name) or [""]
        text = replies[min(self.calls[call.name], len(replies) - 1)]
        self.calls[call.name] += 1
        return StepOutcome(observation=text)

    async def user_reply(self, agent_message: str) -> str | None:
        self.final = agent_message
        return None

    async def harness_abandon(self, reason: str) -> list[StateChange]:
        return []

    async def verify(self) -> float:
        assert self.item is not None
        return 1.0 if answer_matches(self.final, self.item.facts or [self.item.answer]) else 0.0

    async def cleanup(self) -> None:
        self.item = None


def with_distractors(items: list[KaproItem], n: int, pool: dict[str, tuple[str, dict]], seed: int = 0) -> list[KaproItem]:
    """Up to n (at most 10) extra tools per item: the same server's first, then others at random
    (digest §2.3 noise experiment). `pool`: tool name -> (server, block). Seeded per item."""
    n = min(max(n, 0), MAX_DISTRACTORS)
    if n == 0:
        return items
    out = []
    for item in items:
        rng = random.Random(f"{seed}:{item.id}")
        have = set(item.tool_names)
        same = sorted(t for t, (server, _) in pool.items() if server == item.server and t not in have)
        other = sorted(t for t, (server, _) in pool.items() if server != item.server and t not in have)
        rng.shuffle(same)
        rng.shuffle(other)
        extra = (same + other)[:n]
        tools = item.tools + [pool[t][1] for t in extra]
        rng.shuffle(tools)
        out.append(item.model_copy(update={"id": f"{item.id}+d{n}", "tools": tools, "distractors": extra}))
    return out
