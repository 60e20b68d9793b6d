"""Benchmarks found by discovery, and what the core asks of all of them.

Discovery: the entry-point group `harnessx.benchmarks` (`NAME = "module:Class"`, a `Benchmark` subclass
whose `name` is NAME), HarnessX's own declared in its pyproject.toml like any other package's (see
harnessx/plugins.py). A task's `metadata["benchmark"]` may also be an import path `package.module:Class`.

Listing names imports nothing; what needs the benchmarks themselves (their suites, objectives, tables)
imports each benchmark module (light by contract, see `base.py`); scoring code is imported when a
benchmark first scores.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from harnessx.benchmarks.base import Benchmark, DataOption
from harnessx.errors import InputError, one_of
from harnessx.plugins import Registry, is_import_path, subclass_of

if TYPE_CHECKING:
    from harnessx.agent.result import RolloutResult
    from harnessx.formatting.table import Table
    from harnessx.scoring.judges import Judge
    from harnessx.scoring.objective import Objective
    from harnessx.scoring.task_score import TaskScore
    from harnessx.tasks import Task
    from harnessx.trajectory import Trajectory

DEFAULT_BENCHMARK = "asa"
PLUGINS = Registry("harnessx.benchmarks", "benchmark", "benchmark", "a named subclass of "
                   "harnessx.benchmarks.base.Benchmark", subclass_of("harnessx.benchmarks.base:Benchmark"))


def _load(spec: str) -> type[Benchmark]:
    cls: type[Benchmark] = PLUGINS.load(spec)  # type: ignore[assignment]
    if not cls.name or (not is_import_path(spec) and cls.name != spec):
        where = spec if is_import_path(spec) else PLUGINS.entry(spec).where(PLUGINS.group)
        raise InputError("benchmark", f"{where} names its benchmark {cls.name!r}", f"the name {spec!r}"
                         if not is_import_path(spec) else "a non-empty Benchmark.name")
    return cls


@cache
def _discovered() -> dict[str, type[Benchmark]]:
    return {name: _load(name) for name in names()}


def names() -> list[str]:
    """Every registered benchmark, ASA first, then by name (nothing imported): the order of report
    tables and CLI groups."""
    return sorted(PLUGINS.names(), key=lambda name: (name != DEFAULT_BENCHMARK, name))


class _Names:
    """`BENCHMARKS`: the registered names, iterable and testable with `in` (discovered on first use)."""

    def __iter__(self):
        return iter(names())

    def __contains__(self, name: object) -> bool:
        return name in names()

    def __len__(self) -> int:
        return len(names())


BENCHMARKS = _Names()


@cache
def get_benchmark(name: str) -> Benchmark:
    """The benchmark registered as `name`, or named by an import path."""
    if is_import_path(name):
        return _load(name)()
    if name not in names():
        raise InputError("benchmark", f"unknown benchmark {name!r}", one_of(names()))
    return _discovered()[name]()


def all_benchmarks() -> list[Benchmark]:
    return [get_benchmark(name) for name in names()]


def benchmark_of(task: Task) -> Benchmark:
    """The benchmark that scores this task (`metadata["benchmark"]`, ASA by default)."""
    return get_benchmark(task.metadata.get("benchmark", DEFAULT_BENCHMARK))


def suites() -> dict[str, tuple[str, str]]:
    """Every benchmark's suites: suite name -> (benchmark name, "module:Class")."""
    out: dict[str, tuple[str, str]] = {}
    for bench in all_benchmarks():
        for suite, target in bench.suites.items():
            if suite in out:
                raise TypeError(f"suite {suite!r} is provided by benchmarks {out[suite][0]!r} and {bench.name!r}")
            out[suite] = (bench.name, target)
    return out


def data_options(suite: str) -> dict[str, DataOption]:
    """The `--data` keys the benchmark providing `suite` accepts (empty for other suites)."""
    owner = suites().get(suite)
    return {o.key: o for o in get_benchmark(owner[0]).data} if owner else {}


def cli_groups() -> dict[str, tuple[str, str]]:
    """Command groups the benchmarks add to `harnessx`: name -> (module, one-line help)."""
    return {b.name: (b.cli, b.help) for b in all_benchmarks() if b.cli}


def simulators() -> list[str]:
    """The simulated-agent hook modules of every benchmark that has them."""
    return [b.simulator for b in all_benchmarks() if b.simulator]


def score_trial(task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None = None) -> TaskScore:
    """The one exclusion check, before any benchmark sees the rollout: a result that disagrees with its
    hash-chained trajectory is `tampered`, an environment or model failure is excluded under its status,
    a task that could not be loaded is `invalid_task`; each named with its detail and never scored."""
    from harnessx.scoring.integrity import integrity_exclusion
    from harnessx.scoring.task_score import TaskScore

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
        scores = get_benchmark(name).evaluation_values(scores, tasks)
    return scores


@cache
def _all_objectives() -> tuple[tuple[str, Objective], ...]:
    out: dict[str, Objective] = {}
    for bench in all_benchmarks():
        for key, objective in bench.objectives.items():
            if key in out:
                raise RuntimeError(f"objective {key!r} is declared by two benchmarks")
            out[key] = objective
    return tuple(out.items())


def objective_names() -> list[str]:
    """Every benchmark's objective names, as `objectives()` lists them, without importing the scoring."""
    return [key for bench in _discovered().values() for key in bench.objective_names]


def objectives() -> dict[str, Objective]:
    """Every objective of every benchmark, by name (names are unique across benchmarks)."""
    return dict(_all_objectives())


def compare_tables(block: dict, n_resamples: int) -> list[Table]:
    """Every benchmark's own tables for one split of a comparison, in registry order."""
    return [table for bench in all_benchmarks() for table in bench.compare_tables(block, n_resamples)]
