"""The executor seam: where the runner's rollouts actually run.

The runner owns everything a search relies on — the rollout cache, the concurrency budget, cost
and call accounting, progress — and hands each uncached rollout to an executor as a `RolloutJob`.
An executor returns the rollout's result and trajectory, or raises; it never caches, scores or
counts. Nothing above the runner knows which executor ran a rollout.

Executors: `asyncio` (in-process, the default), `ray` (a pool of Ray actors, local or a cluster),
`queue` (a shared queue of rollouts in the search's Optuna RDB storage, worked by
`harnessx worker` processes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from harnessx.agent.result import RolloutResult
from harnessx.errors import HarnessXError
from harnessx.harness.model import Harness
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory


class ExecutorError(HarnessXError):
    """An executor could not run a rollout (workers kept dying, a worker's setup differs)."""


@dataclass(frozen=True)
class RolloutJob:
    """One rollout to run: the runner has already keyed it and checked the cache."""

    harness: Harness
    task: Task
    seed: int
    key: str
    challenge: str | None = None


@runtime_checkable
class Executor(Protocol):
    """The seam of an executor: runs the rollouts the runner hands it, one `RolloutJob` per call.

    The runner calls `run` concurrently (up to `--concurrency` at once) for each rollout it did not
    find in the cache, and `aclose` when it is done. An executor never
    caches, scores, counts cost or decides what to run: the runner does, the same way for every
    executor, so a rollout's result never depends on where it ran.

    Attributes:
        name: the `--executor` name (`asyncio`, `ray`, `queue`).
    """

    name: str

    async def run(self, job: RolloutJob) -> tuple[RolloutResult, Trajectory]:
        """Run one rollout: the job's harness on its task with its seed (and challenge, if any).

        Returns:
            The rollout's result and its authenticated trajectory, exactly as
            `harnessx.agent.runtime.run_rollout` returns them for that job. An environment or model
            failure is a result with that status, not an exception; raise `ExecutorError` only when
            the executor itself cannot run the job (its workers keep dying, a worker's setup
            differs from this process's).
        """
        ...

    async def aclose(self) -> None:
        """Release the executor's workers and connections. Called when the runner is done with it: a
        search calls it on its way out, after a failure too."""
        ...


@dataclass
class ExecutorConfig:
    """What to build: `kind` and the options of that kind (others are ignored).

    workers:      ray: actors in the pool (default: the cluster's CPUs, at most 8);
                  queue: rollouts this process works itself besides deciding (0: decide only).
    ray_address:  ray: None starts a local Ray; `auto` joins a running cluster; `ray://host:port`.
    storage:      queue: the Optuna RDB URL (postgresql://…) shared with the workers.
    queue_name:   queue: name of the study holding the rollout queue.
    """

    kind: str = "asyncio"
    workers: int | None = None
    ray_address: str | None = None
    storage: str | None = None
    queue_name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # kind-specific tuning (heartbeat, retries)
