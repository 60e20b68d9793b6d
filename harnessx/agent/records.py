"""Reading a cached rollout record (result JSON + trajectory JSONL) back, checked.

A record that cannot be parsed is one clear error naming the file and how to recover (delete the
pair, and the rollout is run again). A record that parses but whose result disagrees with its
hash-chained trajectory is returned with the disagreement, so the scorer excludes it as `tampered`
and the message names the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harnessx.agent.result import RolloutResult
from harnessx.errors import InputError
from harnessx.tasks import Task
from harnessx.trajectory import TamperError, Trajectory


def result_mismatch(trajectory: Trajectory, result: RolloutResult, task: Task | None = None,
                    prefix: bool = False) -> str | None:
    """What the result claims that its trajectory does not say (first difference), or None. With
    `prefix` (a caller scoring the part of a trajectory before a point, e.g. the challenge probe's
    pre-challenge prefix) only the chain and the start event are checked: a prefix has no end."""
    try:
        trajectory.verify()
    except TamperError as exc:
        return f"trajectory hash chain: {exc}"
    start, end = trajectory.first("start"), trajectory.first("end")
    if start is None or (end is None and not prefix):
        return "trajectory has no start or no end event"
    usage = trajectory.of_kind("model_call")
    expected: dict[str, tuple[Any, Any]] = {
        "task_id": (result.task_id, start.data.get("task_id")),
        "harness_hash": (result.harness_hash, start.data.get("harness_hash")),
        "seed": (result.seed, start.data.get("seed")),
        "model": (result.model, start.data.get("model")),
    }
    if task is not None:
        expected["task"] = (task.id, start.data.get("task_id"))
    if prefix:
        return _first_difference(expected)
    expected |= {
        "status": (result.status, end.data.get("status")),
        "reward": (result.reward, end.data.get("reward")),
        "stop_reason": (result.stop_reason, end.data.get("stop_reason") or end.data.get("status")),
        "abandoned_by": (result.abandoned_by, end.data.get("abandoned_by")),
        "steps": (result.steps, end.step),
        "usage.completion_tokens": (result.usage.completion_tokens,
                                    sum(int(e.data.get("completion_tokens", 0)) for e in usage)),
        "usage.prompt_tokens": (result.usage.prompt_tokens, sum(int(e.data.get("prompt_tokens", 0)) for e in usage)),
        "malformed": (result.malformed, len(trajectory.of_kind("malformed"))),
    }
    return _first_difference(expected)


def _first_difference(expected: dict[str, tuple[Any, Any]]) -> str | None:
    for name, (claimed, recorded) in expected.items():
        if claimed != recorded:
            return f"result says {name}={claimed!r}, its trajectory says {recorded!r}"
    return None


def _recover(result_path: Path, traj_path: Path) -> str:
    return f"delete {result_path.name} and {traj_path.name} in {result_path.parent} to run the rollout again"


def read_record(result_path: Path, traj_path: Path) -> tuple[RolloutResult, Trajectory, str | None]:
    """The result, its trajectory and what they disagree on (None when they agree)."""
    try:
        result = RolloutResult.model_validate_json(result_path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(result_path), f"corrupt rollout record ({_first_line(exc)})",
                         f"a RolloutResult JSON; {_recover(result_path, traj_path)}") from None
    try:
        trajectory = Trajectory.load(traj_path)
    except (ValidationError, ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(traj_path), f"corrupt trajectory ({_first_line(exc)})",
                         f"one JSON event per line; {_recover(result_path, traj_path)}") from None
    mismatch = result_mismatch(trajectory, result)
    return result, trajectory, (f"{result_path}: {mismatch}" if mismatch else None)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
