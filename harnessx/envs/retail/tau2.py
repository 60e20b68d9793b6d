"""Load τ²-bench's own retail files (`db.json`, `tasks.json`, `split_tasks.json`, `policy.md`).

Everything is validated on load; a malformed file raises `InputError` naming the file and field.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harnessx.envs.retail.dispatch import replay
from harnessx.envs.retail.schema import RetailDB
from harnessx.envs.retail.tools import TOOL_NAMES
from harnessx.errors import InputError
from harnessx.io_read import read_text
from harnessx.tasks import Reference, Task, ToolCall
from harnessx.validation import validate

FILES = ("db.json", "tasks.json", "split_tasks.json", "policy.md")


class Tau2Instructions(BaseModel):
    model_config = ConfigDict(extra="allow")
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str | None = None


class Tau2Scenario(BaseModel):
    model_config = ConfigDict(extra="allow")
    persona: str | None = None
    instructions: Tau2Instructions | str


class Tau2Action(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _known_tool(cls, value: str) -> str:
        if value not in TOOL_NAMES:
            raise ValueError(f"unknown retail tool {value!r}")
        return value


class Tau2Criteria(BaseModel):
    model_config = ConfigDict(extra="allow")
    actions: list[Tau2Action] = Field(default_factory=list)


class Tau2Task(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    user_scenario: Tau2Scenario
    evaluation_criteria: Tau2Criteria


class Tau2Data(BaseModel):
    """τ²'s retail domain: database, tasks, splits (`train`, `test`, `base`) and policy text."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    db: RetailDB
    tasks: list[Tau2Task]
    splits: dict[str, list[str]]
    policy: str


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InputError(str(path), "file not found", "a τ²-bench retail data directory")
    text = read_text(path, "a τ²-bench retail data directory")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(str(path), f"cannot parse: {exc}") from None


def load_tau2_db(path: str | Path) -> RetailDB:
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", "a mapping")
    return validate(RetailDB, data, str(path))


def load_tau2_tasks(path: str | Path) -> list[Tau2Task]:
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list):
        raise InputError(str(path), f"top level is {type(data).__name__}", "a list of tasks")
    tasks, first = [], {}
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path} [task {index}]", f"is {type(item).__name__}", "an object")
        task = validate(Tau2Task, item, f"{path} [task {index}]")
        if task.id in first:  # one of the two would be silently dropped by every lookup by id
            raise InputError(f"{path} [task {index}]", f"field 'id' = {task.id!r} repeats task {first[task.id]}'s",
                             "a unique id per task")
        first[task.id] = index
        tasks.append(task)
    return tasks


def load_tau2_splits(path: str | Path, task_ids: set[str]) -> dict[str, list[str]]:
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), f"top level is {type(data).__name__}", "a mapping of split -> task ids")
    for split, ids in data.items():
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise InputError(str(path), f"field '{split}' is not a list of task id strings")
        unknown = sorted(set(ids) - task_ids)
        if unknown:
            raise InputError(str(path), f"field '{split}' names unknown task ids {unknown[:5]}")
    return data


@lru_cache(maxsize=4)
def _load(directory: str) -> Tau2Data:
    root = Path(directory)
    if not root.is_dir():
        raise InputError("--tau2-dir", f"{root} is not a directory", f"a folder holding {', '.join(FILES)}")
    tasks = load_tau2_tasks(root / "tasks.json")
    policy_path = root / "policy.md"
    policy = read_text(policy_path, "the agent policy in Markdown") if policy_path.is_file() else ""
    if not policy.strip():
        raise InputError(str(policy_path), "missing or empty", "the agent policy in Markdown")
    return Tau2Data(db=load_tau2_db(root / "db.json"), tasks=tasks,
                    splits=load_tau2_splits(root / "split_tasks.json", {t.id for t in tasks}),
                    policy=policy)


def load_tau2(directory: str | Path) -> Tau2Data:
    """Load and validate a τ² retail directory (cached per resolved path)."""
    return _load(str(Path(directory).resolve()))


def _instruction(task: Tau2Task) -> str:
    spec = task.user_scenario.instructions
    if isinstance(spec, str):
        return spec
    return " ".join(p.strip() for p in (spec.reason_for_call, spec.known_info, spec.task_instructions)
                    if p and p.strip() not in ("", "."))


def tau2_tasks_as_feasible(data: Tau2Data) -> list[Task]:
    """τ²'s tasks as feasible tasks (`tau2-<id>`): train -> search, test -> heldout, others independent."""
    split_of = {tid: "search" for tid in data.splits.get("train", [])}
    split_of.update({tid: "heldout" for tid in data.splits.get("test", [])})
    tasks = []
    for task in data.tasks:
        spec = task.user_scenario.instructions
        scenario = {"reason_for_call": spec} if isinstance(spec, str) else spec.model_dump()
        actions = [ToolCall(name=a.name, arguments=a.arguments) for a in task.evaluation_criteria.actions]
        task_id = f"tau2-{task.id}"
        tasks.append(Task(
            id=task_id, env="retail", split=split_of.get(task.id, "independent"), feasible=True,
            source_id=task_id, instruction=_instruction(task), user_scenario=scenario,
            reference=Reference(actions=actions),
            metadata={"template": "tau2", "patches": [], "tau2_id": task.id, "gold_errors_expected": True,
                      "needs_write": replay(data.db, actions)[0].changed()}))
    return tasks
