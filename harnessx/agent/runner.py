"""Run many rollouts concurrently under one budget, cached by (harness, task, seed, model).

A cached rollout is read back from disk instead of paying for its model calls again, so a
repeated or resumed evaluation costs nothing for the rollouts it already finished.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from harnessx import failpoints
from harnessx.agent.keys import rollout_key, rollout_model_id
from harnessx.agent.records import read_record
from harnessx.agent.shared_cache import RootHold
from harnessx.agent.result import RolloutResult
from harnessx.envs.base import Suite
from harnessx.executors import Executor, ExecutorConfig, RolloutJob, make_executor
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

ProgressFn = Callable[[RolloutResult], None]


class RolloutCache:
    """One JSON result and one JSONL trajectory per key, written atomically.

    With `shared` (harnessx.agent.shared_cache), a rollout missing here is taken from the cache that
    every command of a runs directory shares, and a new one is written to both: a run directory
    stays self-contained, and no command pays again for a rollout another already ran. Until
    `close()`, it holds the runs directory (a shared lock), so `harnessx gc` waits for it."""

    def __init__(self, root: str | Path, shared: str | Path | None = None):
        self.root = Path(root)  # created by the first rollout written, so a reader leaves nothing behind
        self.tampered: dict[str, str] = {}  # key -> "<file>: what the result and its trajectory disagree on"
        self.shared = RolloutCache(shared) if shared is not None and Path(shared).resolve() != self.root.resolve() else None
        self.hold = RootHold(Path(shared).parent) if shared is not None else None

    def close(self) -> None:
        """Let go of the runs directory (a `gc` may run); the cache stays readable."""
        if self.hold is not None:
            self.hold.release()

    def _paths(self, key: str) -> tuple[Path, Path]:
        sub = self.root / key[:2]
        return sub / f"{key}.json", sub / f"{key}.jsonl"

    def get(self, key: str) -> RolloutResult | None:
        result_path, traj_path = self._paths(key)
        if not (result_path.is_file() and traj_path.is_file()) and self.shared is not None:
            copy_rollout(self.shared._paths(key), (result_path, traj_path))
        if not (result_path.is_file() and traj_path.is_file()):
            return None
        result, _, mismatch = read_record(result_path, traj_path)  # corrupt: one clear error naming the file
        if mismatch:
            self.tampered[key] = mismatch  # scored as `tampered` (excluded); the message names the file
        return result.model_copy(update={"cached": True})

    def trajectory(self, key: str) -> Trajectory:
        return Trajectory.load(self._paths(key)[1])

    def put(self, result: RolloutResult, traj: Trajectory) -> None:
        result_path, traj_path = self._paths(result.key)
        traj.save(traj_path)  # trajectory first: a result file implies its trajectory exists
        tmp = result_path.with_suffix(".json.tmp")
        text = result.model_dump_json()
        failpoints.hit("rollout.put", torn=lambda: tmp.write_text(text[: len(text) // 2]))
        try:
            tmp.write_text(text)
            tmp.replace(result_path)
        finally:  # a full disk leaves no half-written .tmp behind
            tmp.unlink(missing_ok=True)
        if self.shared is not None:
            copy_rollout((result_path, traj_path), self.shared._paths(result.key))


def copy_rollout(source: tuple[Path, Path], target: tuple[Path, Path]) -> None:
    """Put a cached rollout (result, trajectory) in another cache if the source has both; trajectory
    first. A hard link where the filesystem allows it (the run directory and the shared cache then
    hold one copy of the bytes: rollout files are only ever replaced, never written in place), else a
    copy; either appears whole under its name or not at all."""
    (src_result, src_traj), (dst_result, dst_traj) = source, target
    if not (src_result.is_file() and src_traj.is_file()):
        return
    dst_traj.parent.mkdir(parents=True, exist_ok=True)
    for src, dst in ((src_traj, dst_traj), (src_result, dst_result)):
        tmp = dst.with_suffix(dst.suffix + ".tmp")
        try:
            tmp.unlink(missing_ok=True)
            try:
                os.link(src, tmp)
            except OSError:  # another filesystem, or one without hard links
                shutil.copyfile(src, tmp)
            tmp.replace(dst)
        finally:
            tmp.unlink(missing_ok=True)


class Runner:
    """Evaluates harnesses on tasks. `model_calls` counts calls actually paid for."""

    def __init__(self, suite: Suite, model: ModelClient, cache: RolloutCache | None = None,
                 concurrency: int = 8, cache_failures: bool = False, planner_model: ModelClient | None = None,
                 executor: str | ExecutorConfig | Executor | None = None):
        self.suite, self.model, self.cache = suite, model, cache
        self.planner_model = planner_model  # a planner-executor harness plans with it (None: `model` does)
        self.model_id = rollout_model_id(model, suite, planner_model)
        # where uncached rollouts run (asyncio, ray, queue)
        self.executor = make_executor(executor, suite, model, planner_model=planner_model)
        self.concurrency = concurrency
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        self.cache_failures = cache_failures
        self.model_calls = 0
        self.cache_hits = 0
        self.trajectories: dict[str, Trajectory] = {}  # kept in memory when there is no cache

    async def run_one(self, harness: Harness, task: Task, seed: int, challenge: str | None = None) -> RolloutResult:
        key = rollout_key(harness, task, seed, self.model_id, challenge)  # model, server, sampling
        if self.cache and (hit := self.cache.get(key)) is not None:
            self.cache_hits += 1
            return hit
        async with self._semaphore():
            failpoints.hit("rollout.run")
            result, traj = await self.executor.run(RolloutJob(harness, task, seed, key, challenge))
        self.model_calls += result.usage.calls
        if self.cache and (result.valid or (result.status == "env_failure" and self.cache_failures)):
            self.cache.put(result, traj)
            self.trajectories.pop(key, None)  # an earlier failed try of this key is superseded
        else:
            self.trajectories[key] = traj
        return result

    async def aclose(self) -> None:
        await self.executor.aclose()
        if self.cache is not None:
            self.cache.close()

    def _semaphore(self) -> asyncio.Semaphore:
        """One concurrency budget per event loop (a Runner may serve several `asyncio.run`s)."""
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._semaphores:
            self._semaphores = {loop_id: asyncio.Semaphore(self.concurrency)}
        return self._semaphores[loop_id]

    def trajectory(self, result: RolloutResult) -> Trajectory:
        if result.key in self.trajectories:
            return self.trajectories[result.key]
        if self.cache is None:
            raise KeyError(result.key)
        return self.cache.trajectory(result.key)

    async def run_many(self, harness: Harness, tasks: Iterable[Task], seeds: Iterable[int],
                       progress: ProgressFn | None = None, challenge: str | None = None) -> list[RolloutResult]:
        seeds = list(seeds)

        async def one(task: Task, seed: int) -> RolloutResult:
            result = await self.run_one(harness, task, seed, challenge)
            if progress:
                progress(result)
            return result

        return list(await asyncio.gather(*(one(t, s) for t in tasks for s in seeds)))


def dump_results(results: list[RolloutResult], path: str | Path) -> None:
    Path(path).write_text("".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in results))
