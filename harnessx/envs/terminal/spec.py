"""The schema of a task directory's `task.toml` (TB2/Harbor keys plus the `[harnessx]` table) and
the loaded, runnable form of a task (`TaskSpec`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harnessx.envs.terminal.dockerfile import Recipe
from harnessx.envs.terminal.sandbox.base import Limits
from harnessx.tasks import Blocker, Evidence, Family, Split


def size_mb(value: str | int | float) -> int:
    """'2G' / '512M' / 2048 (MB) -> MB."""
    if isinstance(value, (int, float)):
        return int(value)
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", value, re.IGNORECASE)
    if not match:
        raise ValueError(f"not a size: {value!r}")
    factor = {"": 1 / 1024 / 1024, "K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}[match.group(2).upper()]
    return max(1, int(float(match.group(1)) * factor))


class Phase(BaseModel):
    model_config = ConfigDict(extra="allow")
    timeout_sec: float = Field(900.0, gt=0, allow_inf_nan=False)  # a phase with no time cannot be scored


class EnvironmentTable(BaseModel):
    model_config = ConfigDict(extra="allow")
    docker_image: str | None = None
    cpus: float = 1.0
    memory: str | int | None = None
    memory_mb: int | None = None
    storage: str | int | None = None
    storage_mb: int | None = None
    pids: int | None = Field(default=None, gt=0)  # harnessx: processes of one episode (default 1024)

    @field_validator("memory", "storage")
    @classmethod
    def _size(cls, value: str | int | None) -> str | int | None:
        if value is not None:
            size_mb(value)
        return value

    def limits(self) -> Limits:
        memory = self.memory_mb or (size_mb(self.memory) if self.memory is not None else 2048)
        storage = self.storage_mb or (size_mb(self.storage) if self.storage is not None else 10240)
        return Limits(cpus=self.cpus, memory_mb=memory, storage_mb=storage, pids=self.pids or Limits.pids)


class Check(BaseModel):
    """Mechanical check of a blocked variant: what the source's oracle does on it."""

    expect: Literal["fails", "forbidden"]


class HarnessxTable(BaseModel):
    """What TB2 does not have: split, variant family, protected blocker, evidence, forbidden
    changes (sandbox path globs), local setup steps and verifier preparation."""

    model_config = ConfigDict(extra="forbid")
    split: Split = "search"
    feasible: bool = True
    family: Family | None = None
    source_id: str | None = None
    blocker: Blocker | None = None
    evidence: Evidence | None = None
    forbidden: list[str] = Field(default_factory=list)
    setup: list[str] | None = None
    verifier_pre: list[str] | None = None
    test_files: list[str] = Field(default_factory=lambda: ["test_outputs.py"])
    check: Check | None = None


class TaskToml(BaseModel):
    model_config = ConfigDict(extra="allow")
    version: str = "1.0"
    metadata: dict = Field(default_factory=dict)
    verifier: Phase = Field(default_factory=Phase)
    agent: Phase = Field(default_factory=Phase)
    environment: EnvironmentTable = Field(default_factory=EnvironmentTable)
    harnessx: HarnessxTable | None = None


@dataclass
class TaskSpec:
    """A task directory, loaded: everything needed to build its workspace, run its oracle and verify."""

    id: str
    path: Path
    instruction: str
    config: TaskToml
    hx: HarnessxTable
    recipe: Recipe
    solution: str | None
    test_dir: Path
    verifier_pre: list[str] = field(default_factory=list)
    oracle_apt: list[str] = field(default_factory=list)
    oracle_pip: list[str] = field(default_factory=list)
    verifier_pip: list[str] = field(default_factory=list)

    @property
    def workdir(self) -> str:
        return self.recipe.workdir

    @property
    def limits(self) -> Limits:
        return self.config.environment.limits()

    def roots(self) -> list[str]:
        """Top-level sandbox directories the task writes into besides the fixed ones."""
        roots = {"/" + self.workdir.strip("/").split("/")[0]}
        for step in self.recipe.steps:
            if step.kind == "copy":
                dest = step.args[1] if step.args[1].startswith("/") else f"{step.cwd}/{step.args[1]}"
                roots.add("/" + dest.strip("/").split("/")[0])
        return sorted(roots)
