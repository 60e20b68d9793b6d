"""A worker of the rollout queue: claims rollouts, runs them on its own executor, answers them.

Used by `harnessx worker runs/<name>` (on any machine that reaches the storage) and by the search
process's own slots. A claimed rollout keeps its heartbeat while it runs; the answer is refused by
the storage if the rollout was failed as stale meanwhile (it then counts as `dropped`). A job this
worker cannot run as the search would (its suite or model gives another rollout key) is failed
with that reason, which the search raises: never run on a different setup, never retried.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from harnessx.agent.keys import rollout_key
from harnessx.executors.base import Executor, ExecutorError, RolloutJob
from harnessx.executors.rollout_queue import Claimed, RolloutQueue
from harnessx.harness.model import Harness
from harnessx.tasks import Task


@dataclass
class WorkerStats:
    done: int = 0        # rollouts answered
    dropped: int = 0     # answers refused: the rollout had been failed as stale and retried elsewhere
    failed: int = 0      # rollouts this worker could not run (reported to the search)
    busy_s: float = 0.0  # time spent running rollouts


class QueueWorker:
    def __init__(self, queue: RolloutQueue, executor: Executor, tasks: dict[str, Task], model: str,
                 slots: int = 1, stale_check_s: float | None = 5.0):
        self.queue, self.executor, self.tasks, self.model = queue, executor, tasks, model
        self.slots, self.stale_check_s = slots, stale_check_s
        self.stats = WorkerStats()

    async def serve(self, until_done: bool = False, idle_exit_s: float | None = None) -> WorkerStats:
        """Work until cancelled; or, with `until_done`, until the search has finished and nothing waits;
        or until idle for `idle_exit_s` seconds."""
        loops = [self._slot(until_done, idle_exit_s) for _ in range(self.slots)]
        stale = asyncio.create_task(self._stale_loop()) if self.stale_check_s else None
        try:
            await asyncio.gather(*loops)
        finally:
            if stale is not None:
                stale.cancel()
        return self.stats

    async def _slot(self, until_done: bool, idle_exit_s: float | None) -> None:
        idle_since = time.monotonic()
        while True:
            claimed = await asyncio.to_thread(self.queue.claim)
            if claimed is not None:
                await self._work(claimed)
                idle_since = time.monotonic()
                continue
            if until_done and await asyncio.to_thread(self.queue.done):
                return
            if idle_exit_s is not None and time.monotonic() - idle_since > idle_exit_s:
                return
            await asyncio.sleep(self.queue.settings.poll_s)

    def job(self, attrs: dict) -> RolloutJob:
        task = self.tasks.get(attrs["task_id"])
        if task is None:
            raise ExecutorError(f"task {attrs['task_id']!r} is not in this worker's suite")
        harness = Harness.model_validate_json(attrs["harness"])
        key = rollout_key(harness, task, attrs["seed"], self.model, attrs.get("challenge"))
        if key != attrs["key"]:
            raise ExecutorError(f"this worker's task {task.id!r} or model {self.model!r} differs from the search's "
                                f"(rollout key {key} != {attrs['key']})")
        return RolloutJob(harness, task, attrs["seed"], key, attrs.get("challenge"))

    async def _work(self, claimed: Claimed) -> None:
        try:
            job = self.job(claimed.attrs)
        except ExecutorError as exc:
            self.stats.failed += 1
            await asyncio.to_thread(self.queue.fail, claimed.trial_id, str(exc))
            return
        beat = asyncio.create_task(self._beat(claimed.trial_id))
        started = time.monotonic()
        try:
            result, traj = await self.executor.run(job)
        except Exception as exc:  # a bug or a broken executor: the search raises it, nothing is scored
            self.stats.failed += 1
            await asyncio.to_thread(self.queue.fail, claimed.trial_id, f"{type(exc).__name__}: {exc}")
            return
        finally:
            beat.cancel()
            self.stats.busy_s += time.monotonic() - started
        if await asyncio.to_thread(self.queue.complete, claimed.trial_id, result, traj):
            self.stats.done += 1
        else:
            self.stats.dropped += 1

    async def _beat(self, trial_id: int) -> None:
        while True:
            await asyncio.to_thread(self.queue.heartbeat, trial_id)
            await asyncio.sleep(self.queue.settings.heartbeat_s)

    async def _stale_loop(self) -> None:
        while True:
            await asyncio.sleep(self.stale_check_s)
            await asyncio.to_thread(self.queue.fail_stale)
