"""What one Confident Fools rollout did, read from its trajectory only.

"Did it search" is whether the agent made at least one `web_search` tool call (never a vendor
flag); the answer is the first parseable `{choice, reason}` among the agent's final replies (those
with no tool call in the same step), as the paper keeps the first parseable output; retries are
the protocol's JSON-only requests the environment sent back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harnessx.cf.env import SEARCH_TOOL
from harnessx.cf.protocol import Answer, parse_answer
from harnessx.trajectory import Trajectory


@dataclass(frozen=True)
class TrialRead:
    queries: tuple[str, ...] = ()
    answer: Answer | None = None
    retries: int = 0
    finals: int = 0
    results: tuple[str, ...] = field(default_factory=tuple)

    @property
    def searched(self) -> bool:
        return bool(self.queries)


def read_trial(trajectory: Trajectory) -> TrialRead:
    calls = [e for e in trajectory.of_kind("tool_call") if e.author == "agent"]
    call_steps = {e.step for e in calls}
    queries = tuple(str(e.data.get("arguments", {}).get("query", "")) for e in calls if e.data.get("name") == SEARCH_TOOL)
    results = tuple(str(e.data.get("content", "")) for e in trajectory.of_kind("tool_result")
                    if e.data.get("name") == SEARCH_TOOL)
    finals = [e for e in trajectory.of_kind("message")
              if e.author == "agent" and e.step not in call_steps and e.data.get("role") in ("agent", "executor")]
    answer = next((a for a in (parse_answer(e.data.get("content")) for e in finals) if a is not None), None)
    retries = sum(1 for e in trajectory.of_kind("message") if e.author == "user" and e.data.get("role") == "user")
    return TrialRead(queries=queries, answer=answer, retries=retries, finals=len(finals), results=results)
