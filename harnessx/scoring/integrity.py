"""A rollout is scored only if its result agrees with its authenticated trajectory.

The result file beside a cached trajectory is a convenience, not a source of truth: anything a score
reads from it (reward, status, stop reason, who abandoned, steps, tokens, and which task, harness,
seed and model it belongs to) must equal what the hash-chained trajectory recorded. A broken chain
or any disagreement is `tampered` and excluded; otherwise a provider or environment failure is
excluded under its status (`model_failure`, `env_failure`).
"""

from __future__ import annotations

from harnessx.agent.records import result_mismatch
from harnessx.agent.result import RolloutResult
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory


def integrity_exclusion(task: Task, trajectory: Trajectory, result: RolloutResult,
                        prefix: bool = False) -> tuple[str, str] | None:
    """(exclusion, detail): `tampered` and what disagrees, or the result's own exclusion
    (`env_failure`, `model_failure`) and the trajectory's error; None when the rollout is scored."""
    if (mismatch := result_mismatch(trajectory, result, task, prefix)) is not None:
        return "tampered", mismatch
    if result.exclusion is None:
        return None
    if task.metadata.get("load_error"):  # a task directory that could not be loaded: named, never scored
        return "invalid_task", str(task.metadata["load_error"])[:500]
    errors = trajectory.of_kind("error")
    detail = str(errors[-1].data.get("detail", "")) if errors else ""
    return result.exclusion, detail[:500]
