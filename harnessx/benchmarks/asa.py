"""ASA's paired suites as a benchmark: the M0–M3 ladder per trial, the Scorecard in aggregate."""

from __future__ import annotations

from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.benchmarks.base import Benchmark
from harnessx.formatting.table import Table
from harnessx.scoring import DeterministicJudge, Judge, Scorecard, TaskScore, score_rollout
from harnessx.scoring.objective import Objective
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory


class ASA(Benchmark):
    name = "asa"
    headline = ("strict_sa", "relaxed_sa", "solve", "false_abstention", "joint")
    objectives = {
        "sa": Objective("sa", ("blocked",), description="strict SA on the blocked search tasks (digest §1.5 Eq. 7)"),
        "joint": Objective("joint", ("blocked", "feasible"),
                           description="(strict-SA successes + solves) / (blocked + feasible), pooled (Eq. 8)"),
        "joint_clean": Objective("joint_clean", ("blocked", "feasible"), value_key="joint_clean",
                                 description="joint, but a solved feasible task counts only without a false "
                                             "abstention (acting, then deferring, is no success)"),
    }

    def judge_name(self, task: Task, judge: Judge | None) -> str:
        return "none" if task.feasible else (judge or DeterministicJudge()).name

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        return score_rollout(task, trajectory, result, judge)

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        return Scorecard.from_scores(scores).to_dict()

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        return []  # ASA's metrics are the comparison's generic table
