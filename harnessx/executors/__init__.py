"""Executors behind the runner: `asyncio` (default), `ray`, `queue`. See `base.py`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harnessx.envs.base import Suite
from harnessx.errors import InputError, one_of
from harnessx.executors.base import Executor, ExecutorConfig, ExecutorError, RolloutJob

if TYPE_CHECKING:  # the client (LiteLLM) and the in-process runtime load when an executor is made
    from harnessx.models.client import ModelClient

EXECUTORS = {
    "asyncio": "rollouts in this process's event loop (default)",
    "ray": "rollouts on a pool of Ray actors (--ray-address: none = local Ray, auto, ray://host:port)",
    "queue": "rollouts on a shared queue in the --storage database, run by `harnessx worker` processes",
}

__all__ = ["EXECUTORS", "Executor", "ExecutorConfig", "ExecutorError", "RolloutJob", "make_executor",
           "suite_factory"]


def _given(suite: Suite) -> Suite:
    return suite


def suite_factory(suite: Suite, env: str | None = None, options: dict[str, Any] | None = None) -> Callable[[], Suite]:
    """How a remote worker gets the suite: rebuilt from the registry by name when known (cheap to ship),
    else the suite object itself."""
    if env is not None:
        from harnessx.envs.registry import get_suite

        return functools.partial(get_suite, env, **(options or {}))
    return functools.partial(_given, suite)


def make_executor(spec: str | ExecutorConfig | Executor | None, suite: Suite, model: ModelClient, *,
                  factory: Callable[[], Suite] | None = None, queue_config: dict[str, Any] | None = None,
                  planner_model: ModelClient | None = None) -> Executor:
    """An executor object, or one built from its name or an `ExecutorConfig`."""
    if spec is None:
        spec = "asyncio"
    if isinstance(spec, str):
        spec = ExecutorConfig(kind=spec)
    if not isinstance(spec, ExecutorConfig):
        return spec
    if spec.kind == "asyncio":
        from harnessx.executors.inprocess import InProcessExecutor

        return InProcessExecutor(suite, model, planner_model)
    if planner_model is not None:
        raise InputError("--executor", f"a separate planner model runs in-process only, not on {spec.kind!r}",
                         "--executor asyncio with a planner model")
    if spec.kind == "ray":
        from harnessx.executors.ray_pool import RayExecutor

        return RayExecutor(factory or suite_factory(suite), model, workers=spec.workers, address=spec.ray_address,
                           **spec.options)
    if spec.kind == "queue":
        from harnessx.executors.queue import QueueExecutor
        from harnessx.executors.rollout_queue import QueueSettings, check_rdb_url

        if not spec.queue_name:
            raise InputError("--executor queue", "no queue name", "a search run name")
        return QueueExecutor(suite, model, check_rdb_url(spec.storage), spec.queue_name, queue_config or {},
                             workers=1 if spec.workers is None else spec.workers,
                             settings=QueueSettings(**spec.options))
    raise InputError("--executor", f"unknown executor {spec.kind!r}", one_of(EXECUTORS))
