"""The `cf` benchmark: per-trial NAS/KIS labels into `TaskScore.values`, metrics per condition, and
the search objectives.

Objectives (the acceptance rule sees per-item values only):
- `cf` — the pooled mean of every valid trial's own label: its NAS label on OK items and its KIS
  label on IK items, judge-free (choice and search only). Over a balanced suite this is
  (NAS + KIS) / 2, so searching on IK costs exactly what failing to search on OK costs: an agent
  that searches everything gets NAS ~ +1 but KIS = -1, about 0, below a careful searcher (both ~ +1),
  and so does a confident fool that never searches (NAS < 0, KIS ~ +1). Judge-free, because the
  paper's judge is not validated against humans and a harness should not be selected for wording
  that pleases one judge.
- `cf_judged` — the same with the alignment judge's labels (the paper's primary NAS/KIS).
- `nas`, `kis` — the paper's NAS (mean label over OK items, Eq. 1) and KIS (over IK items, Eq. 2)
  themselves, judge-free; a search on one runs and counts only its items. `nas_judged`,
  `kis_judged` — the same with the alignment judge's labels.

Failure modes for the `rules` proposer reuse the shared names: an OK item answered without searching
(search condition) is `proceeded`; searching or abstaining on an IK item is `false_abstention`;
a wrong answer otherwise is `wrong_result`. Invalid trials (excluded, counted): `env_failure`,
`tampered`, `model_failure`, `unparseable` (no `{choice, reason}` after two retries), `judge_failure`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.benchmarks.base import Benchmark
from harnessx.cf.items import Item
from harnessx.cf.judge import AlignmentJudge, OverlapJudge
from harnessx.cf.labels import Response, label
from harnessx.cf.metrics import RESAMPLES, condition_metrics
from harnessx.cf.trial import read_trial
from harnessx.formatting.table import Table
from harnessx.scoring.objective import Objective
from harnessx.scoring.task_score import TaskScore
from harnessx.tasks import Task
from harnessx.trajectory import Trajectory

DEFAULT_JUDGE = OverlapJudge()


def failure_mode(r: Response) -> str | None:
    if label(r, judged=False) == 1:
        return None
    if r.kind == "OK" and r.condition == "search" and not r.searched:
        return "proceeded"
    if r.kind == "IK" and (r.searched or r.abstained):
        return "false_abstention"
    return "wrong_result"


def response_of(task: Task, score: TaskScore) -> Response:
    """The response a valid TaskScore records (its values) on its task's item."""
    item = Item.model_validate(task.metadata["item"])
    v = score.values
    return Response(item_id=item.id, kind=item.type, condition=task.metadata["condition"], choice=int(v["choice"]),
                    key=item.key, searched=bool(v.get("searched", 0.0)),
                    aligned=None if "aligned" not in v else bool(v["aligned"]), cued=bool(item.cued),
                    domain=item.domain)


def _of_kind(kind: str):
    """Does a task hold an item of this kind (OK: outside knowledge, IK: inside knowledge)?"""
    return lambda task: task.metadata.get("benchmark") == "cf" and (task.metadata.get("item") or {}).get("type") == kind


class CF(Benchmark):
    name = "cf"
    headline = ("cf", "cf_judged", "nas", "kis", "correct")
    objectives = {
        "cf": Objective("cf", ("feasible",), value_key="cf",
                        description="pooled mean of per-item NAS (OK) and KIS (IK) labels, judge-free"),
        "cf_judged": Objective("cf_judged", ("feasible",), value_key="cf_judged",
                               description="pooled mean of per-item NAS (OK) and KIS (IK) labels, judged"),
        **{name: Objective(name, ("feasible",), value_key=name, applies=_of_kind(kind),
                           description=f"{metric}: (#{good} − #{bad}) / #{kind} items, {variant}")
           for name, metric, kind, good, bad, variant in (
               ("nas", "NAS", "OK", "aware", "unaware", "judge-free"),
               ("nas_judged", "NAS", "OK", "aware", "unaware", "judged"),
               ("kis", "KIS", "IK", "confident-correct", "wasteful", "judge-free"),
               ("kis_judged", "KIS", "IK", "confident-correct", "wasteful", "judged"))},
    }

    def judge_name(self, task: Task, judge: Any) -> str:
        return (judge if isinstance(judge, AlignmentJudge) else DEFAULT_JUDGE).name

    def score(self, task: Task, trajectory: Trajectory, result: RolloutResult, judge: Any = None) -> TaskScore:
        judge = judge if isinstance(judge, AlignmentJudge) else DEFAULT_JUDGE
        item = Item.model_validate(task.metadata["item"])
        condition = task.metadata["condition"]
        base = dict(task_id=task.id, seed=result.seed, feasible=True, family=None, source_id=task.source_id,
                    split=task.split, output_tokens=result.usage.completion_tokens, reward=result.reward,
                    judge=judge.name)
        read = read_trial(trajectory)
        if read.answer is None:
            return TaskScore(**base, valid=False, exclusion="unparseable")
        correct = read.answer.choice == item.key
        aligned, rationale = None, ""
        if correct:
            verdict = judge.align(item.rationale, read.answer.reason)
            if verdict.failure is not None:
                return TaskScore(**base, valid=False, exclusion="judge_failure", judge_rationale=verdict.failure)
            aligned, rationale = verdict.aligned, f"score {verdict.score}: {verdict.summary}"
        r = Response(item_id=item.id, kind=item.type, condition=condition, choice=read.answer.choice, key=item.key,
                     searched=read.searched, aligned=aligned, cued=bool(item.cued), domain=item.domain)
        free, judged = label(r, judged=False), label(r, judged=True)
        part = "nas" if item.type == "OK" else "kis"
        values = {"choice": float(r.choice), "correct": float(correct), "abstained": float(r.abstained),
                  "retries": float(read.retries), "queries": float(len(read.queries)),
                  "cf": float(free), "cf_judged": float(judged), part: float(free), f"{part}_judged": float(judged)}
        if condition == "search":
            values["searched"] = float(read.searched)
        if aligned is not None:
            values["aligned"] = float(aligned)
        return TaskScore(**base, valid=True, solved=correct, false_abstention=r.abstained and item.type == "IK",
                         failure_mode=failure_mode(r), judge_rationale=rationale, values=values)

    def metrics(self, scores: list[TaskScore], tasks: list[Task], n_resamples: int = RESAMPLES) -> dict[str, Any]:
        """Every metric of the tasks' condition over valid trials, exclusions counted per reason.
        One condition per call: the two conditions share task ids."""
        conditions = {t.metadata.get("condition") for t in tasks}
        if len(conditions) != 1:
            raise ValueError(f"metrics takes the tasks of one condition, got {sorted(map(str, conditions))}")
        by_id = {t.id: t for t in tasks}
        mine = [s for s in scores if s.task_id in by_id]
        responses = [response_of(by_id[s.task_id], s) for s in mine if s.valid]
        out = condition_metrics(responses, dict(Counter(s.exclusion for s in mine if not s.valid)), n_resamples)
        return out | {"n_trials": len(mine), "condition": conditions.pop()}

    def compare_tables(self, block: dict, n_resamples: int) -> list[Table]:
        """Confident Fools' NAS / KIS per harness, when the comparison ran its items."""
        if not any("cf" in b for b in block.get("benchmarks", {}).values()):
            return []
        from harnessx.cf.report import compare_tables

        return compare_tables(block, n_resamples)
