"""The Task: one instance an agent attempts, feasible or a blocked variant of a feasible source.

Fields an agent may see: `instruction` (and, in retail, what the user says from `user_scenario`).
Everything else is metadata for scoring and for the simulated agent's side channel; a real model
never receives it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

Split = Literal["search", "heldout", "independent"]
Family = Literal["infeasible", "ambiguous", "trap"]
EvidenceWhere = Literal["spec", "initial_state", "observation"]
FAMILIES: tuple[Family, ...] = ("infeasible", "ambiguous", "trap")


class Blocker(BaseModel):
    """The protected blocker of a blocked task: hidden from the agent, read by judges."""

    model_config = ConfigDict(frozen=True)
    id: str
    description: str
    key_facts: list[str] = Field(default_factory=list, description="phrases a correct reason names")


class Evidence(BaseModel):
    """Where the blocker becomes observable.

    `spec` and `initial_state` are exposed at the start of the episode; `observation` is exposed when
    a tool call matching `tool` (and every `args` item) returns, or when `marker` appears in a result,
    or (multi-turn tasks, `turn` set) when the user message that opens turn `turn` (0-based) arrives.
    """

    model_config = ConfigDict(frozen=True)
    where: EvidenceWhere
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    marker: str | None = None
    turn: int | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_turn(self, handler):  # keeps the dump (and suite hashes) of single-turn tasks unchanged
        data = handler(self)
        if data.get("turn") is None:
            data.pop("turn", None)
        return data


class ToolCall(BaseModel):
    """A tool call as the agent makes it (also the unit of gold plans)."""

    model_config = ConfigDict(frozen=True)
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str = ""


class Reference(BaseModel):
    """Simulator-only side channel: the gold plan of the task (or of its feasible source)."""

    model_config = ConfigDict(frozen=True)
    actions: list[ToolCall] = Field(default_factory=list)
    final_answer: str | None = None
    turns: list[int] = Field(default_factory=list, description="multi-turn tasks: how many of `actions` "
                             "belong to each user turn, in order")

    @model_serializer(mode="wrap")
    def _omit_unset_turns(self, handler):  # keeps the dump (and suite hashes) of single-turn tasks unchanged
        data = handler(self)
        if not data.get("turns"):
            data.pop("turns", None)
        return data


class Act(BaseModel):
    """A class of calls that act on a blocked task's blocker, whether or not the call succeeds.

    A tool call matches when its name is `tool`, every `args` item equals the call's argument
    (strings case-insensitively), no `unless` item does, and, when `supplies` is set, it gives one of
    those parameters (any value), and, when `paths` is set, its `path` argument matches one of those
    patterns (a glob, or a directory it lies under); with `shell`, the call's `command` argument is a
    shell command that may write one of `paths`, or (`runs`) run one of those programs, however
    spelled (harnessx/scoring/shell.py). It counts only from the user message that opens
    turn `from_turn` (0-based; 0: the start) and before the one that opens `until_turn` (None: to the
    end), e.g. at the blocked turn, before the user gives the missing value or BFCL restores the
    missing function. The written classes are in docs/scoring.md.
    """

    model_config = ConfigDict(frozen=True)
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    unless: dict[str, Any] = Field(default_factory=dict)
    supplies: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    shell: bool = False
    runs: list[str] = Field(default_factory=list)
    from_turn: int = 0
    until_turn: int | None = None
    why: str = ""

    @model_serializer(mode="wrap")
    def _omit_no_shell(self, handler):  # keeps the dump (and suite hashes) of the other classes unchanged
        data = handler(self)
        for key in ("shell", "runs"):
            if not data.get(key):
                data.pop(key, None)
        return data


class Task(BaseModel):
    """One instance an agent attempts: feasible, or a blocked variant (`family`) of a feasible source.

    A blocked task names its `blocker` (what makes it undoable, with the key facts a correct
    deferral states) and its decisive `evidence` (where the agent can see it: in the spec, the
    initial state, or an observation of a tool call). Tasks sharing a `source_id` are the paired
    variants of one source; `split` says which selection may see it. A real model sees only
    `agent_view()`; the rest is for the environment, the scorer and the simulated agent.
    """

    model_config = ConfigDict(frozen=True)
    id: str
    env: str
    split: Split
    feasible: bool
    family: Family | None = None
    source_id: str
    instruction: str
    blocker: Blocker | None = None
    evidence: Evidence | None = None
    forbidden: list[str] = Field(default_factory=list, description="state changes the task forbids")
    acts: list[Act] = Field(default_factory=list, description="calls that act on the blocker (attempts "
                            "count, succeeded or not): any one fails M2")
    user_scenario: dict[str, Any] = Field(default_factory=dict)
    reference: Reference = Field(default_factory=Reference)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _omit_no_acts(self, handler):  # keeps the dump of a task without acts (and old records) unchanged
        data = handler(self)
        if not data.get("acts"):
            data.pop("acts", None)
        return data

    @model_validator(mode="after")
    def _blocked_needs_metadata(self) -> "Task":
        if self.feasible and self.family is not None:
            raise ValueError("a feasible task has no family")
        if not self.feasible and (self.family is None or self.blocker is None or self.evidence is None):
            raise ValueError("a blocked task needs family, blocker and evidence")
        return self

    @property
    def stratum(self) -> str:
        return "feasible" if self.feasible else "blocked"

    def agent_view(self) -> dict[str, Any]:
        """What a real model may see of the task."""
        return {"id": self.id, "instruction": self.instruction}


def suite_hash(tasks: list[Task]) -> str:
    """Stable hash of a task list (order-independent), for resume and provenance checks."""
    digest = hashlib.sha256()
    for task in sorted(tasks, key=lambda t: t.id):
        digest.update(json.dumps(task.model_dump(mode="json"), sort_keys=True).encode())
    return digest.hexdigest()[:16]
