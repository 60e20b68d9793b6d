"""The `kapro` benchmark: per-trial values (J_know, J_act, over/under, C_KA, quadrant, pass,
calls) in `TaskScore.values`, the aggregate KAPRO metrics, and the objectives `kas` and
`kas_pass` for `harnessx search`.

`kas` is the paper's Avg KAS (per-subspace harmonic mean of the aggregate Acc_know and Acc_act,
weighted by valid counts), computed on each candidate's evaluation: `evaluation_values` gives
every trial its share `kas_avg`, whose mean over the evaluation is Avg KAS (harnessx/kapro/objective.py).
`kas_pass` = (Avg KAS + pass rate) / 2. `kas_task`, the per-task harmonic mean of J_know and J_act,
stays a reported value (its mean is at most KAS); no objective uses it.
"""

from __future__ import annotations

from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.benchmarks.base import Benchmark
from harnessx.formatting.table import Table
from harnessx.kapro.items import item_of
from harnessx.kapro.metrics import Trial, kapro_metrics, trial_values
from harnessx.kapro.objective import with_kas_shares
from harnessx.kapro.protocol import read_rollout
from harnessx.kapro.sets import kas
from harnessx.scoring.judges import Judge
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

JUDGE = "kapro-answer-match"


class Kapro(Benchmark):
    name = "kapro"
    headline = ("j_know", "j_act", "c_ka", "pass", "kas_avg")
    objectives = {
        "kas": Objective("kas", ("feasible",), value_key="kas_avg",
                         description="KAPRO: Avg KAS (harmonic mean of aggregate Acc_know and Acc_act per "
                                     "subspace, weighted by valid n)"),
        "kas_pass": Objective("kas_pass", ("feasible",), value_key="kas_avg_pass",
                              description="KAPRO: (Avg KAS + pass rate) / 2"),
    }

    def evaluation_values(self, scores: list[TaskScore], tasks: list[Task]) -> list[TaskScore]:
        """Each valid KAPRO trial's share of Avg KAS (`kas_avg`, `kas_avg_pass`) on this evaluation."""
        subspace_of = {t.id: item_of(t).subspace for t in tasks if t.metadata.get("benchmark") == "kapro"}
        return with_kas_shares(scores, subspace_of)

    def judge_name(self, task: Task, judge: Judge | None) -> str:
        return JUDGE

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        base = dict(task_id=task.id, seed=result.seed, feasible=True, family=None, source_id=task.source_id,
                    split=task.split, output_tokens=result.usage.completion_tokens, reward=result.reward,
                    judge=JUDGE)
        reading = read_rollout(trajectory)
        item = item_of(task)
        passed = result.reward is not None and result.reward >= 1.0
        values = trial_values(reading.know, reading.act, set(item.required), passed, reading.calls)
        if reading.know is None:
            return TaskScore(**base, valid=False, exclusion="knowing_unparsed", values=values,
                             judge_rationale=reading.know_problem or "")
        ok = values["j_know"] == 1.0 and values["j_act"] == 1.0
        return TaskScore(**base, valid=True, solved=passed, false_abstention=False, values=values,
                         failure_mode=None if ok and passed else "wrong_result")

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        return kapro_metrics(trials_of(scores, tasks))

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        """KAPRO's values and real KAS, when the comparison measured them."""
        if not any("j_know" in v for v in block.get("values", {}).values()):
            return []
        from harnessx.kapro.tables import compare_values_table

        return [compare_values_table(block)]


def trials_of(scores: list[TaskScore], tasks: list[Task]) -> list[Trial]:
    by_id = {t.id: item_of(t) for t in tasks}
    return [Trial(task_id=s.task_id, subspace=by_id[s.task_id].subspace, hop=by_id[s.task_id].hop, valid=s.valid,
                  values=dict(s.values), exclusion=s.exclusion) for s in scores if s.task_id in by_id]


def real_kas(values: dict) -> float | None:
    """KAS from a scorecard's `values` (aggregate j_know and j_act means), None without them."""
    jk, ja = values.get("j_know"), values.get("j_act")
    get = lambda v: v.get("value") if isinstance(v, dict) else getattr(v, "value", None)  # noqa: E731
    if jk is None or ja is None or get(jk) is None or get(ja) is None:
        return None
    return kas(get(jk), get(ja))
