"""The mechanical check of a masked task: replay the original's gold actions in the masked
environment (masked calls are refused, the rest run) and score the original goal.

A task passes when the goal is *not* reached, i.e. no remaining tool performed the masked
operation on that task: reward < 1 with the environment's `verify_goal` hook. It also records
what each gold action returned on the unmasked environment (for the query-grounded flag).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from harnessx.envs.base import MASKED_TOOLS, AbandonSpec, Suite
from harnessx.tasks import Task


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    reward: float | None
    refused: list[str] = field(default_factory=list)  # gold calls the mask refused
    error: str | None = None                          # the environment failed: not checked

    def to_dict(self) -> dict:
        return asdict(self)


async def replay(suite: Suite, task: Task) -> tuple[float, list[str], list[bool]]:
    """Run the task's gold actions in a fresh episode: (reward, observations, error flags)."""
    env = suite.make_env()
    try:
        await env.reset(task, AbandonSpec(mode="none"))
        observations, errors = [], []
        for action in task.reference.actions:
            outcome = await env.execute(action)
            observations.append(outcome.observation)
            errors.append(outcome.error)
        return await env.verify(), observations, errors
    finally:
        await env.cleanup()


async def mechanical_check(suite: Suite, infeasible: Task) -> CheckResult:
    masked = set(infeasible.metadata.get(MASKED_TOOLS) or ())
    try:
        reward, observations, _ = await replay(suite, infeasible)
    except Exception as exc:  # noqa: BLE001 - an environment that cannot run is recorded, never a pass
        return CheckResult(False, None, error=f"{type(exc).__name__}: {exc}"[:500])
    refused = [a.name for a, obs in zip(infeasible.reference.actions, observations)
               if a.name in masked and "is not available" in obs]
    return CheckResult(reward < 1.0, reward, refused)
