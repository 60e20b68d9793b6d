"""What an episode offers the agent: tool specs, and how the harness lets it certify a deferral.

Both the harness (rendering its abandon tool) and every environment (its tools) speak these, so
they sit below both.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ToolSpec(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def openai(self) -> dict[str, Any]:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}


class AbandonSpec(BaseModel):
    """How the harness lets the agent certify a deferral in this episode."""

    mode: Literal["none", "file", "tool", "stop"]
    file: str = "infeasible.md"
    tool: str = "defer_task"
    stop_token: str = "STOP:"
