"""Benchmarks by name, imported lazily (like environments), and the objectives they declare."""

from __future__ import annotations

import importlib
from functools import cache

from harnessx.agent.result import RolloutResult
from harnessx.benchmarks.base import Benchmark
from harnessx.errors import InputError
from harnessx.formatting.table import Table
from harnessx.scoring.integrity import integrity_exclusion
from harnessx.scoring.judges import Judge
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

DEFAULT_BENCHMARK = "asa"
BENCHMARKS = {
    "asa": "harnessx.benchmarks.asa:ASA",
    "kapro": "harnessx.kapro.benchmark:Kapro",
    "cf": "harnessx.cf.benchmark:CF",
    "feasigen": "harnessx.feasigen.benchmark:FeasiGen",
}


@cache
def get_benchmark(name: str) -> Benchmark:
    if name not in BENCHMARKS:
        raise InputError("benchmark", f"unknown benchmark {name!r}", f"one of {sorted(BENCHMARKS)}")
    module_name, attr = BENCHMARKS[name].split(":")
    return getattr(importlib.import_module(module_name), attr)()


def benchmark_of(task: Task) -> Benchmark:
    """The benchmark that scores this task (`metadata["benchmark"]`, ASA by default)."""
    return get_benchmark(task.metadata.get("benchmark", DEFAULT_BENCHMARK))


def score_trial(task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None = None) -> TaskScore:
    """The one exclusion check, before any benchmark sees the rollout: a result that disagrees with its
    hash-chained trajectory is `tampered`, an environment or model failure is excluded under its status,
    a task that could not be loaded is `invalid_task`; each named with its detail and never scored."""
    benchmark = benchmark_of(task)
    if (excluded := integrity_exclusion(task, trajectory, result)) is not None:
        exclusion, detail = excluded
        return TaskScore(task_id=task.id, seed=result.seed, feasible=task.feasible, family=task.family,
                         source_id=task.source_id, split=task.split, output_tokens=result.usage.completion_tokens,
                         reward=result.reward, judge=benchmark.judge_name(task, judge), valid=False,
                         exclusion=exclusion, exclusion_detail=detail)
    return benchmark.score(task, trajectory, result, judge)


def with_evaluation_values(scores: list[TaskScore], tasks: list[Task]) -> list[TaskScore]:
    """Each benchmark of these tasks adds its evaluation-level per-trial values (`evaluation_values`)."""
    for name in sorted({t.metadata.get("benchmark", DEFAULT_BENCHMARK) for t in tasks}):
        hook = getattr(get_benchmark(name), "evaluation_values", None)
        if hook is not None:
            scores = hook(scores, tasks)
    return scores


@cache
def _all_objectives() -> tuple[tuple[str, Objective], ...]:
    out: dict[str, Objective] = {}
    for name in BENCHMARKS:
        for key, objective in get_benchmark(name).objectives.items():
            if key in out:
                raise RuntimeError(f"objective {key!r} is declared by two benchmarks")
            out[key] = objective
    return tuple(out.items())


def objectives() -> dict[str, Objective]:
    """Every objective of every benchmark, by name (names are unique across benchmarks)."""
    return dict(_all_objectives())


def compare_tables(block: dict, n_resamples: int) -> list[Table]:
    """Every benchmark's own tables for one split of a comparison, in registry order."""
    return [table for name in BENCHMARKS for table in get_benchmark(name).compare_tables(block, n_resamples)]
