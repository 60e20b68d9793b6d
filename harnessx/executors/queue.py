"""`queue`: the search enqueues its rollouts in the Optuna RDB storage; workers run them.

The search process stays the one writer that decides rounds (ledger, acceptance, Optuna and MLflow
records); this executor only moves rollouts. Whichever worker is free claims the next rollout:
`harnessx worker runs/<name>` processes on any machine that reaches the storage, and, unless
`workers=0`, slots of this process itself (so a search with no worker attached still finishes).
A rollout already answered in the queue (a resumed search) is taken from it, not enqueued again.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from harnessx.agent.keys import rollout_model_id
from harnessx.agent.result import RolloutResult
from harnessx.envs.base import Suite
from harnessx.executors.base import ExecutorError, RolloutJob
from harnessx.executors.inprocess import InProcessExecutor
from harnessx.executors.rollout_queue import QueueSettings, RolloutQueue, answer
from harnessx.executors.worker import QueueWorker
from harnessx.models.client import ModelClient
from harnessx.trajectory import Trajectory
from optuna.trial import TrialState


class QueueExecutor:
    name = "queue"

    def __init__(self, suite: Suite, model: ModelClient, storage: str, queue_name: str, config: dict[str, Any],
                 workers: int = 1, settings: QueueSettings | None = None):
        self.queue = RolloutQueue(storage, queue_name, settings)
        self.queue.publish(config)
        self.local_slots = workers
        self.local = InProcessExecutor(suite, model)
        self.tasks, self.model_name = {t.id: t for t in suite.tasks()}, rollout_model_id(model, suite)
        self._waiting: dict[str, asyncio.Future] = {}
        self._known_keys: set[str] | None = None
        self._poller: asyncio.Task | None = None
        self._worker_task: asyncio.Task | None = None
        self._loop_id: int | None = None
        self._stale_checked = float("-inf")

    async def run(self, job: RolloutJob) -> tuple[RolloutResult, Trajectory]:
        self._start()
        if job.key in self._waiting:  # the same rollout already requested: share its answer
            return await asyncio.shield(self._waiting[job.key])
        future = asyncio.get_running_loop().create_future()
        self._waiting[job.key] = future
        try:
            if not await asyncio.to_thread(self._known, job.key):
                await asyncio.to_thread(self.queue.enqueue, job)
            return await asyncio.shield(future)
        finally:
            self._waiting.pop(job.key, None)

    def _known(self, key: str) -> bool:
        """Whether the queue already holds a live or answered trial for this rollout (a resumed search);
        otherwise it is marked as enqueued now."""
        if self._known_keys is None:
            live = (TrialState.WAITING, TrialState.RUNNING, TrialState.COMPLETE)
            self._known_keys = {t.user_attrs.get("key") for t in self.queue.trials() if t.state in live}
        known = key in self._known_keys
        self._known_keys.add(key)
        return known

    def _start(self) -> None:
        """One poller (and the local worker slots) per event loop."""
        loop_id = id(asyncio.get_running_loop())
        if self._loop_id == loop_id:
            return
        self._loop_id = loop_id
        self._poller = asyncio.create_task(self._poll())
        if self.local_slots > 0:
            worker = QueueWorker(self.queue, self.local, self.tasks, self.model_name, slots=self.local_slots)
            self._worker_task = asyncio.create_task(worker.serve())

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.queue.settings.poll_s)
            if not self._waiting:
                continue
            try:
                trials = await asyncio.to_thread(self._check)
            except Exception as exc:  # the storage went away: every waiting rollout fails loudly
                self._settle_all(ExecutorError(f"rollout queue {self.queue.name}: {type(exc).__name__}: {exc}"))
                continue
            self._settle(trials)

    def _check(self):
        """The queue's trials; stale workers are looked for once per heartbeat interval, not every poll."""
        now = time.monotonic()
        if now - self._stale_checked >= self.queue.settings.heartbeat_s:
            self._stale_checked = now
            self.queue.fail_stale()
        return self.queue.trials()

    def _settle(self, trials) -> None:
        attempts: dict[str, list] = {}
        for trial in trials:  # sorted by number: a key's last trial is its newest attempt
            key = trial.user_attrs.get("key")
            if key in self._waiting:
                attempts.setdefault(key, []).append(trial)
        for key, tries in attempts.items():
            future = self._waiting[key]
            if future.done():
                continue
            answered = next((t for t in tries if t.state == TrialState.COMPLETE), None)
            last = tries[-1]
            where = f"rollout {key} ({last.user_attrs.get('task_id')}, seed {last.user_attrs.get('seed')})"
            if answered is not None:
                future.set_result(answer(answered))
            elif last.state == TrialState.FAIL and "error" in last.user_attrs:
                future.set_exception(ExecutorError(f"{where} failed on worker {last.system_attrs.get('worker')}: "
                                                   f"{last.user_attrs['error']}"))
            elif last.state == TrialState.FAIL and self.queue.exhausted(last):
                future.set_exception(ExecutorError(f"{where}: its worker stopped beating on every one of "
                                                   f"{self.queue.settings.max_retry + 1} attempts"))

    def _settle_all(self, exc: Exception) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(exc)

    async def aclose(self) -> None:
        for task in (self._poller, self._worker_task):
            if task is not None:
                task.cancel()
        await asyncio.gather(*(t for t in (self._poller, self._worker_task) if t), return_exceptions=True)
        self._loop_id = None
        await asyncio.to_thread(self.queue.finish)
