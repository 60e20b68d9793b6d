"""`ray`: rollouts on a pool of Ray actors, on this machine or a Ray cluster.

Each actor keeps its suite (environments, a local model) and model client warm and runs up to
`per_worker` rollouts at a time; the runner keeps the cache, budget, accounting and progress.
Jobs and results cross the wire as JSON (harness, task, result, trajectory), so what comes back
is exactly what an in-process rollout would have produced. An actor that dies mid-rollout is
restarted by Ray and its rollout re-run elsewhere: only a finished rollout is ever returned, so a
dead attempt is never counted or scored. A rollout that raises (a bug) fails the evaluation.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from harnessx.agent.result import RolloutResult
from harnessx.envs.base import Suite
from harnessx.errors import InputError
from harnessx.executors.base import ExecutorError, RolloutJob
from harnessx.extras import missing_extra
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient, ensure_provider
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

MAX_DEFAULT_WORKERS = 8


class RolloutActor:
    """The body of one Ray actor: a suite and a model client, built once."""

    def __init__(self, suite_factory: Callable[[], Suite], model: ModelClient):
        self.suite, self.model = suite_factory(), model
        ensure_provider(model.model)  # offline providers register on import, in this process too

    async def run(self, harness_json: str, task_json: str, seed: int, key: str,
                  challenge: str | None) -> tuple[str, str]:
        from harnessx.agent.runtime import run_rollout

        harness, task = Harness.model_validate_json(harness_json), Task.model_validate_json(task_json)
        result, traj = await run_rollout(harness, task, self.suite.make_env(), self.model, seed, key, challenge)
        return result.model_dump_json(), traj.to_jsonl()

    def pid(self) -> int:
        return os.getpid()


def join_cluster(ray, address: str) -> None:
    """Connect to a running cluster; a refusal is one clear error naming the address and the fix."""
    try:
        ray.init(address=address, log_to_driver=False)
    except ConnectionError as exc:
        chain, cause = [], exc
        while cause is not None and len(chain) < 8:
            chain.append(cause)
            cause = cause.__cause__ or cause.__context__
        if any("AuthenticationError" in type(c).__name__ or "InvalidAuthToken" in str(c) for c in chain):
            raise InputError("--ray-address", f"the Ray cluster at {address} refused this process: it uses token "
                             "authentication (`ray start` turns it on)",
                             "RAY_AUTH_MODE=token with the cluster's token in ~/.ray/auth_token, RAY_AUTH_TOKEN_PATH "
                             "or RAY_AUTH_TOKEN") from exc
        raise InputError("--ray-address", f"no Ray cluster answered at {address}: {exc}",
                         "the address `ray start --head` printed (host:port), `auto` on a node, or ray://host:10001") from exc


class RayExecutor:
    name = "ray"

    def __init__(self, suite_factory: Callable[[], Suite], model: ModelClient, workers: int | None = None,
                 address: str | None = None, per_worker: int = 1, retries: int = 2, cpus_per_worker: float = 1.0):
        try:
            import ray
        except ImportError:
            raise missing_extra("--executor ray", "ray", "running rollouts on Ray") from None
        self.ray, self.retries = ray, retries
        self.owns_ray = False
        if not ray.is_initialized():
            if address:
                join_cluster(ray, address)
            else:  # a private local instance sized for the pool (CPUs are logical; rollouts mostly wait)
                n_cpus = max(workers or 0, os.cpu_count() or 1) * cpus_per_worker
                ray.init(address="local", num_cpus=n_cpus, include_dashboard=False, log_to_driver=False)
                self.owns_ray = True
        available = int(ray.cluster_resources().get("CPU", 1) // cpus_per_worker) or 1
        self.workers = workers or min(MAX_DEFAULT_WORKERS, available)
        actor = ray.remote(RolloutActor).options(num_cpus=cpus_per_worker, max_restarts=-1, max_task_retries=0,
                                                 max_concurrency=per_worker)
        started = time.monotonic()
        self.actors = [actor.remote(suite_factory, model) for _ in range(self.workers)]
        ray.get([a.pid.remote() for a in self.actors])  # every actor built its suite: setup errors surface now
        self.startup_s = time.monotonic() - started
        self.load = [0] * self.workers
        self.slots = self.workers * per_worker
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self.retried = 0  # attempts lost to a dead worker and run again
        self.down: set[int] = set()  # actors being restarted by Ray

    def _semaphore(self) -> asyncio.Semaphore:
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._semaphores:
            self._semaphores = {loop_id: asyncio.Semaphore(self.slots)}
        return self._semaphores[loop_id]

    async def run(self, job: RolloutJob) -> tuple[RolloutResult, Trajectory]:
        from ray.exceptions import RayActorError, WorkerCrashedError

        payload = (job.harness.model_dump_json(), job.task.model_dump_json(), job.seed, job.key, job.challenge)
        errors: list[str] = []
        async with self._semaphore():
            for _attempt in range(self.retries + 1):
                i = await self._pick()
                self.load[i] += 1
                try:
                    result_json, traj_jsonl = await self.actors[i].run.remote(*payload)
                except (RayActorError, WorkerCrashedError) as exc:  # the worker died: nothing of it is kept
                    errors.append(f"worker {i}: {type(exc).__name__}")
                    self.retried += 1
                    self._mark_down(i)
                    continue
                finally:
                    self.load[i] -= 1
                return RolloutResult.model_validate_json(result_json), Trajectory.from_jsonl(traj_jsonl)
        raise ExecutorError(f"rollout {job.key} ({job.task.id}, seed {job.seed}): Ray workers died on every one of "
                            f"{self.retries + 1} attempts ({'; '.join(errors)})")

    async def _pick(self) -> int:
        """The least busy live actor; while all are restarting, wait for one."""
        while True:
            live = [i for i in range(self.workers) if i not in self.down]
            if live:
                return min(live, key=self.load.__getitem__)
            await asyncio.sleep(0.1)

    def _mark_down(self, i: int) -> None:
        if i not in self.down:
            self.down.add(i)
            asyncio.get_running_loop().create_task(self._revive(i))

    async def _revive(self, i: int) -> None:
        """Ray restarts a dead actor; it takes jobs again once it answers."""
        from ray.exceptions import RayActorError

        for _ in range(600):
            try:
                await self.actors[i].pid.remote()
                break
            except RayActorError:
                await asyncio.sleep(0.5)
        self.down.discard(i)

    async def aclose(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        if self.owns_ray:
            self.ray.shutdown()
