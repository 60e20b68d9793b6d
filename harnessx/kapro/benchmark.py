"""The `kapro` benchmark: per-trial values (J_know, J_act, over/under, C_KA, quadrant, pass,
calls) in `TaskScore.values`, the aggregate KAPRO metrics, and the objectives `kas` and
`kas_pass` for `harnessx search`.

Search value vs KAS. KAS is the harmonic mean of two *aggregates*, which no per-task value
reproduces. The acceptance rule sees per-task values only, so `kas` maximises `kas_task` = the
per-task harmonic mean 2·J_know·J_act/(J_know + J_act) (0 if either is 0). Its mean is a lower
bound of KAS (the harmonic mean is jointly concave, so mean(kas_task) ≤ KAS by Jensen), equal to
it when knowing and acting agree task by task, and it rises with either J; it also rewards
knowing and acting being right on the *same* task, which is what KAPRO probes. Every report prints
the real KAS (from the aggregates) next to it. `kas_pass` = mean of (kas_task + pass) / 2.
"""

from __future__ import annotations

from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.formatting.table import Table
from harnessx.kapro.items import item_of
from harnessx.kapro.metrics import Trial, kapro_metrics, trial_values
from harnessx.kapro.protocol import read_rollout
from harnessx.kapro.sets import kas
from harnessx.scoring.judges import Judge
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

JUDGE = "kapro-answer-match"


class Kapro:
    name = "kapro"
    objectives = {
        "kas": Objective("kas", ("feasible",), value_key="kas_task",
                         description="KAPRO: per-task harmonic mean of J_know and J_act (a lower bound of KAS)"),
        "kas_pass": Objective("kas_pass", ("feasible",), value_key="kas_pass",
                              description="KAPRO: mean of (per-task KAS value + pass) / 2"),
    }

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        base = dict(task_id=task.id, seed=result.seed, feasible=True, family=None, source_id=task.source_id,
                    split=task.split, output_tokens=result.usage.completion_tokens, reward=result.reward,
                    judge=JUDGE)
        if result.status in ("env_failure", "model_failure"):
            return TaskScore(**base, valid=False, exclusion=result.status)
        if not trajectory.is_authentic():
            return TaskScore(**base, valid=False, exclusion="tampered")
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
