"""Token and cost accounting of model calls (no model library needed to read or add it up)."""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(prompt_tokens=self.prompt_tokens + other.prompt_tokens,
                     completion_tokens=self.completion_tokens + other.completion_tokens,
                     cost_usd=self.cost_usd + other.cost_usd, calls=self.calls + other.calls)
