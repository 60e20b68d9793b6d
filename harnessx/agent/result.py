"""What one rollout produces besides its trajectory."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from harnessx.models.usage import Usage

Status = Literal["ok", "env_failure", "model_failure", "malformed_limit"]
# Not the agent's doing: the environment or the model provider failed. Excluded, counted and named.
EXCLUDED = ("env_failure", "model_failure")


class RolloutResult(BaseModel):
    key: str
    task_id: str
    harness_hash: str
    seed: int
    model: str
    status: Status
    reward: float | None
    usage: Usage
    steps: int
    duration_s: float
    stop_reason: str
    abandoned_by: str | None = None  # "agent" / "harness" / None
    malformed: int = 0
    cached: bool = False

    @property
    def valid(self) -> bool:
        """Environment and model failures are excluded from denominators; everything else is scored."""
        return self.status not in EXCLUDED

    @property
    def exclusion(self) -> str | None:
        """Why this rollout is excluded (its status), or None when it is scored."""
        return None if self.valid else self.status
