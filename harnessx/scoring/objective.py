"""Objective: what a search maximises, as one value per trial plus the strata it counts.

The acceptance rule only sees per-task values and strata, so every benchmark's objective (ASA's
`sa` and `joint`, FeasiGen's `fass`, KAPRO's `kas`, Confident Fools') works with it unchanged. An
objective either reads ASA's success (strict SA on blocked trials, native solve on feasible ones;
`value_key=None`) or one of the benchmark's own per-trial values in `TaskScore.values`.

A paper metric that is not a mean of per-trial values (KAPRO's KAS, a harmonic mean of two
aggregates) reaches the rule as per-trial values that its benchmark computes over the whole
evaluation (`Benchmark.evaluation_values`): their mean over the evaluation is the metric itself.
`applies` narrows the tasks an objective counts below its strata (e.g. CF's NAS: OK items only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harnessx.scoring.rate import MeanValue, Rate
from harnessx.scoring.scorecard import OBJECTIVES, Scorecard
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task


@dataclass(frozen=True)
class Objective:
    name: str
    strata: tuple[str, ...]          # the task strata the objective counts
    value_key: str | None = None     # None: ASA success; else the key in TaskScore.values
    description: str = ""
    applies: Callable[[Task], bool] | None = None  # which tasks (of its strata) measure it; None: all

    def tasks(self, tasks: list[Task]) -> list[Task]:
        return [t for t in tasks if t.stratum in self.strata and (self.applies is None or self.applies(t))]

    def trial_value(self, score: TaskScore) -> float | None:
        """One trial's value; None when the trial is invalid (excluded, never a zero)."""
        if not score.valid:
            return None
        if self.value_key is None:
            return float(score.success)
        return score.value(self.value_key)

    def rate(self, scorecard: Scorecard) -> Rate | MeanValue:
        """The aggregate over a scorecard: a k/n Rate for ASA objectives, a MeanValue otherwise."""
        if self.value_key is None or self.value_key in OBJECTIVES:  # a ladder rate (e.g. joint_clean)
            return scorecard.objective(self.value_key or self.name)
        return scorecard.values.get(self.value_key, MeanValue(0.0, 0))
