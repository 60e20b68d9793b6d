"""The benchmark protocol (DESIGN, wave 2: one pipeline that every benchmark plugs into).

A benchmark's tasks come from a suite in `envs/registry` (so `--env` picks them everywhere) and
carry `metadata["benchmark"] = <name>`; its rollouts run through the one runtime; this protocol
adds what differs: the per-trial scorer, the aggregate metrics, the objectives a search may
maximise and the tables a comparison report shows for it. ASA's paired suites are the benchmark `asa` (the default for tasks without the key).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from harnessx.agent.result import RolloutResult
from harnessx.formatting.table import Table
from harnessx.scoring.judges import Judge
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory


@runtime_checkable
class Benchmark(Protocol):
    """A benchmark may derive from this class to inherit the defaulted members (`headline`,
    `judge_name`); `score`, `metrics` and `compare_tables` it must define."""

    name: str
    objectives: dict[str, Objective]
    # the metrics a search summarises per round and in its provenance: Scorecard rate names or keys of
    # the per-trial `values` (a search over this benchmark's tasks reports these, in this order)
    headline: tuple[str, ...] = ()

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        """One valid trial (never an excluded one: `registry.score_trial` names an environment or model
        failure and a tampered rollout before a benchmark sees it): its gates and `values`, or invalid
        for a reason of the benchmark's own (a judge failure, an unparseable answer)."""
        ...

    def judge_name(self, task: Task, judge: Judge | None) -> str:
        """The judge this benchmark scores `task` with (recorded on each of its TaskScores)."""
        return judge.name if judge is not None else ""

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        """The benchmark's aggregate metrics, each with its valid n and an interval (JSON-able)."""
        ...

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        """The benchmark's own tables for one split of a comparison (`harnessx compare`): empty when
        the block holds none of its values. `harnessx.report` adds them after the generic table."""
        ...


class EvaluationValues(Protocol):
    """Optional for a benchmark: per-trial values that depend on the whole evaluation (a metric that
    is not a mean of per-trial values, decomposed so that the values' mean over the evaluation is it)."""

    def evaluation_values(self, scores: list[TaskScore], tasks: list[Task]) -> list[TaskScore]:
        """`scores` (this benchmark's and others', in order) with those values added to its own trials."""
        ...
