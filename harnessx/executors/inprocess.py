"""`asyncio`: rollouts run in this process's event loop (the default executor)."""

from __future__ import annotations

from harnessx.agent.result import RolloutResult
from harnessx.agent.runtime import run_rollout
from harnessx.envs.base import Suite
from harnessx.executors.base import RolloutJob
from harnessx.models.client import ModelClient
from harnessx.trajectory import Trajectory


class InProcessExecutor:
    name = "asyncio"

    def __init__(self, suite: Suite, model: ModelClient, planner_model: ModelClient | None = None):
        self.suite, self.model, self.planner_model = suite, model, planner_model

    async def run(self, job: RolloutJob) -> tuple[RolloutResult, Trajectory]:
        return await run_rollout(job.harness, job.task, self.suite.make_env(), self.model, job.seed, job.key,
                                 job.challenge, self.planner_model)

    async def aclose(self) -> None:
        pass
