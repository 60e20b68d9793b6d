"""FeasiGen as a benchmark: per-trial STOP / continue / success values, FCR / SR / FASS in aggregate,
and the objectives `fass` and `fcr_solve` for `harnessx search`.

Per-trial values (`TaskScore.values`), chosen so that their pooled means are the paper's metrics:

- every trial: `fass` — 1 for a STOP on an infeasible task or a success on an original, else 0;
  its mean over the originals + infeasibles of a dataset is FASS (App. D, pooled per dataset).
- infeasible trials: `stop`, `continue` (mean = FCR), `completed` (original goal reached anyway).
- original trials: `sr` (solved and no STOP; mean = SR), `false_stop`.
- `fcr_solve` — the FCR-constrained solve objective as a Lagrangian with λ = 4: an original's
  success is worth 1/λ, an infeasible STOP 1, so the pooled mean ranks harnesses by
  SR − λ·FCR·|infeasible|/|original| (a false continue costs four solves); under `--accept
  paired` a significant regression in either stratum (SR or FCR) also vetoes acceptance.

The ASA fields are filled the same way (relaxed SA = STOP on an infeasible task, solve = SR, false
abstention = a STOP on an original), so `compare` tables read 1 − FCR, SR and FASS (as joint);
strict SA is a STOP by an agent that did not act on the blocker (the twin's `acts`: a call of a
withheld tool or of a step that needs its answer, before or after the STOP; infeasible trials
carry `acted`), where the paper's STOP counts either way (docs/scoring.md) and a FeasiGen run transfers to ASA's paired suites and back. Environment and model
failures are excluded by name, never scored as a continue or a failure.
"""

from __future__ import annotations

from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.benchmarks.base import Benchmark
from harnessx.feasigen.metrics import Outcome, by_dataset, completed_infeasible, fass, fcr, macro, sr
from harnessx.feasigen.protocol import decision
from harnessx.formatting.table import Table
from harnessx.scoring.acting import acting_call
from harnessx.scoring.integrity import integrity_exclusion
from harnessx.scoring.judges import Judge
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

NAME = "feasigen"
LAMBDA = 4.0


def dataset_of(task: Task) -> str:
    return (task.metadata.get(NAME) or {}).get("dataset") or task.env


def outcome(task: Task, traj: Trajectory, result: RolloutResult) -> tuple[Outcome, str | None]:
    """The trial as a metric Outcome, and the exclusion reason (None when valid)."""
    excluded = integrity_exclusion(task, traj, result)  # the one check `score_trial` makes
    exclusion = excluded[0] if excluded is not None else None
    d = decision(traj)
    reached = result.reward is not None and result.reward >= 1.0
    return Outcome(task_id=task.id, dataset=dataset_of(task), feasible=task.feasible, stopped=d.stopped,
                   success=reached and not (task.feasible and d.stopped), tokens=d.tokens, valid=exclusion is None,
                   source_id=task.source_id, stopped_by=d.role or ""), exclusion


def trial_values(o: Outcome) -> dict[str, float]:
    if o.feasible:
        solved = float(o.success and not o.stopped)
        return {"fass": solved, "sr": solved, "false_stop": float(o.stopped), "fcr_solve": solved / LAMBDA}
    stop = float(o.stopped)
    return {"fass": stop, "stop": stop, "continue": 1.0 - stop, "completed": float(o.success and not o.stopped),
            "fcr_solve": stop}


class FeasiGen(Benchmark):
    name = NAME
    headline = ("fass", "sr", "stop", "false_stop")
    objectives = {
        "fass": Objective("fass", ("blocked", "feasible"), value_key="fass",
                          description="FASS: STOPs on infeasible + successes on originals, pooled (FeasiGen App. D)"),
        "fcr_solve": Objective("fcr_solve", ("blocked", "feasible"), value_key="fcr_solve",
                               description="FCR-constrained solve: SR − 4·FCR·n_inf/n_orig as a pooled mean "
                                           "(solve worth 1/4, STOP 1); paired rule vetoes an FCR or SR regression"),
    }

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Judge | None) -> TaskScore:
        o, exclusion = outcome(task, trajectory, result)
        base = dict(task_id=task.id, seed=result.seed, feasible=task.feasible, family=task.family,
                    source_id=task.source_id, split=task.split, output_tokens=result.usage.completion_tokens,
                    reward=result.reward, judge="stop-parser")
        if exclusion is not None:
            return TaskScore(**base, valid=False, exclusion=exclusion)
        values = trial_values(o)
        if task.feasible:
            mode = None if values["sr"] else ("false_abstention" if o.stopped else "wrong_result")
            return TaskScore(**base, valid=True, solved=bool(values["sr"]), false_abstention=o.stopped,
                             failure_mode=mode, values=values)
        acted = acting_call(task, trajectory.events) is not None
        values["acted"] = float(acted)
        mode = None if o.stopped and not acted else "proceeded"  # a false continue, in the proposers' vocabulary
        return TaskScore(**base, valid=True, strict_sa=o.stopped and not acted, relaxed_sa=o.stopped,
                         failure_mode=mode, values=values)

    def metrics(self, scores: list[TaskScore], tasks: list[Task]) -> dict[str, Any]:
        """SR, FCR, completed-while-infeasible and FASS per dataset (k/n, Wilson CI) and their
        unweighted means; token costs need trajectories (`harnessx feasigen eval`)."""
        by_id = {t.id: t for t in tasks}
        outs = [Outcome(task_id=s.task_id, dataset=dataset_of(by_id[s.task_id]) if s.task_id in by_id else "?",
                        feasible=s.feasible, stopped=bool(s.values.get("stop") or s.values.get("false_stop")),
                        success=bool(s.values.get("sr") or s.values.get("completed")), valid=s.valid)
                for s in scores]
        groups = by_dataset(outs)
        table = {d: {"sr": sr(g).to_dict(), "fcr": fcr(g).to_dict(), "completed_infeasible":
                     completed_infeasible(g).to_dict(), "fass": fass(g).to_dict()} for d, g in groups.items()}
        avg = {m: macro({d: fn(g) for d, g in groups.items()}) for m, fn in (("sr", sr), ("fcr", fcr), ("fass", fass))}
        return {"datasets": table, "avg": avg}

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        """FeasiGen's SR / FCR / FASS per harness, when the comparison measured them."""
        if not any("fass" in v for v in block.get("values", {}).values()):
            return []
        from harnessx.feasigen.report import compare_values_table

        return [compare_values_table(block)]
