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
    name: str

    async def run(self, job: RolloutJob) -> tuple[RolloutResult, Trajectory]: ...

    async def aclose(self) -> None: ...


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
