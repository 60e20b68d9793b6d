"""A KAPRO item: one task of the knowing/acting protocol (the KAware reader is `kaware.py`).

The required set T is the P1 tools only: the sub-question annotations' P1 tools, or, without
annotations, every target tool of a P1 item (T = ∅ on internal items, whose offered tools are a
temptation). Tool names keep the part after `::`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harnessx.tasks import Reference, Task, ToolCall

Subspace = Literal["external", "hybrid", "internal"]
Hop = Literal["single-hop", "parallel", "multi-hop"]
BOUNDARY = {"P1": "external", "P2": "hybrid", "P3": "internal"}
HOP_ALIASES = {"single": "single-hop", "single-hop": "single-hop", "singlehop": "single-hop", "1": "single-hop",
               "parallel": "parallel", "multi": "multi-hop", "multi-hop": "multi-hop", "multihop": "multi-hop",
               "sequential": "multi-hop"}


class Step(BaseModel):
    """One sub-question with the tool it is about and its boundary (P1 needs the tool)."""

    model_config = ConfigDict(frozen=True)
    subquestion: str = ""
    tool: str
    boundary: Literal["P1", "P3"]


class KaproItem(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    split: Literal["search", "heldout", "independent"] = "heldout"
    task: str
    subspace: Subspace
    hop: Hop
    server: str = ""
    tools: list[dict[str, Any]] = Field(description="offered tools, OpenAI function blocks")
    required: list[str] = Field(description="T: the P1 tools")
    responses: dict[str, list[str]] = Field(default_factory=dict, description="replayed output per tool name")
    arguments: dict[str, dict[str, Any]] = Field(default_factory=dict)
    answer: str = ""
    facts: list[str] = Field(default_factory=list, description="strings a correct answer contains (offline judge)")
    steps: list[Step] = Field(default_factory=list)
    dependency: dict[str, Any] = Field(default_factory=dict)
    distractors: list[str] = Field(default_factory=list)

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.tools]

    def to_task(self) -> Task:
        actions = [ToolCall(name=t, arguments=self.arguments.get(t, {})) for t in self.required]
        return Task(id=self.id, env="kapro", split=self.split, feasible=True, source_id=self.id,
                    instruction=self.task, reference=Reference(actions=actions, final_answer=self.answer),
                    metadata={"benchmark": "kapro", "kapro": self.model_dump(mode="json"),
                              "sim_extra": {"kapro": {"subspace": self.subspace, "hop": self.hop,
                                                      "required": list(self.required), "facts": list(self.facts),
                                                      "distractors": list(self.distractors)}}})


def item_of(task: Task) -> KaproItem:
    return KaproItem.model_validate(task.metadata["kapro"])


def short_name(tool: str) -> str:
    return tool.split("::", 1)[1] if "::" in tool else tool
