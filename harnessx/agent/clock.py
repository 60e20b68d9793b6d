"""Time accounting for one rollout: the agent's own time, apart from waiting for a shared model.

A rollout's wall time includes waits for a model that other rollouts are using (the local model
generates one call at a time), so it grows with `--concurrency`. Limits such as `time_limit_s`
apply to the agent's own time instead: wall time minus those waits, i.e. model time plus tool time
plus the harness's own work. The trajectory's `end` event records all four.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class AgentClock:
    started: float = field(default_factory=time.monotonic)
    queue_s: float = 0.0  # waiting for the model (another rollout's generation)
    model_s: float = 0.0  # the model's own time in calls
    tool_s: float = 0.0  # executing tool calls in the environment

    def model_call(self, latency_s: float, queue_s: float) -> None:
        self.queue_s += queue_s
        self.model_s += max(0.0, latency_s - queue_s)

    def tool_call(self, seconds: float) -> None:
        self.tool_s += seconds

    def wall_s(self) -> float:
        return time.monotonic() - self.started

    def agent_s(self) -> float:
        """Wall time minus waits for the model: what the agent's time limit counts."""
        return max(0.0, self.wall_s() - self.queue_s)

    def record(self) -> dict[str, float]:
        return {"queue_s": round(self.queue_s, 4), "model_s": round(self.model_s, 4),
                "tool_s": round(self.tool_s, 4), "agent_s": round(self.agent_s(), 4)}
