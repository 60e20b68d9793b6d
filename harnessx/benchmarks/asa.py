"""ASA's paired suites as a benchmark: the M0–M3 ladder per trial, the Scorecard in aggregate.

ASA provides no suite of its own: the environments' paired suites (retail, terminal, bfcl, toy,
starter) carry no `benchmark` key, and a task without one is ASA's.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from harnessx.benchmarks.base import Benchmark

if TYPE_CHECKING:
    from harnessx.agent.result import RolloutResult
    from harnessx.formatting.table import Table
    from harnessx.scoring import Judge, TaskScore
    from harnessx.scoring.objective import Objective
    from harnessx.tasks import Task
    from harnessx.trajectory import Trajectory


class ASA(Benchmark):
    name = "asa"
    headline = ("strict_sa", "relaxed_sa", "solve", "false_abstention", "joint")
    objective_names = ("sa", "joint", "joint_clean")

    @cached_property
    def objectives(self) -> dict[str, Objective]:
        from harnessx.scoring.objective import Objective

        return {
            "sa": Objective("sa", ("blocked",), description="strict SA on the blocked search tasks (digest §1.5 Eq. 7)"),
            "joint": Objective("joint", ("blocked", "feasible"),
                               description="(strict-SA successes + solves) / (blocked + feasible), pooled (Eq. 8)"),
            "joint_clean": Objective("joint_clean", ("blocked", "feasible"), value_key="joint_clean",
                                     description="joint, but a solved feasible task counts only without a false "
                                                 "abstention (acting, then deferring, is no success)"),
        }

    def judge_name(self, task: Task, judge: Judge | None) -> str:
        from harnessx.scoring import DeterministicJudge

        return "none" if task.feasible else (judge or DeterministicJudge()).name

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        from harnessx.scoring import score_rollout

        return score_rollout(task, trajectory, result, judge)

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        from harnessx.scoring import Scorecard

        return Scorecard.from_scores(scores).to_dict()

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        return []  # ASA's metrics are the comparison's generic table


BENCHMARK = ASA
