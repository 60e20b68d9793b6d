"""Evaluate one harness on a task set: rollouts (concurrent, cached) scored into a Scorecard.

This is the inner evaluation that search, `harnessx eval`, `compare`, the probes and the benchmarks'
own commands share. It sits with the benchmarks (it only needs the runner and their scoring), so a
benchmark's own runner uses it without importing up the layers; `harnessx.evaluation` re-exports it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from harnessx.agent.result import RolloutResult
from harnessx.agent.runner import ProgressFn, Runner
from harnessx.harness.model import Harness
from harnessx.benchmarks.registry import score_trial, with_evaluation_values
from harnessx.scoring.scored import require_scored
from harnessx.scoring import Judge, Scorecard, TaskScore
from harnessx.scoring.concurrent import score_all
from harnessx.tasks import Task


@dataclass(frozen=True)
class Evaluation:
    harness: Harness
    tasks: tuple[Task, ...]
    seeds: tuple[int, ...]
    results: tuple[RolloutResult, ...]
    scores: tuple[TaskScore, ...]
    scorecard: Scorecard
    exclusions: tuple[dict, ...] = ()  # every excluded rollout: task, seed, why, detail (file and field)

    def per_task_success(self, value_key: str | None = None) -> dict[str, float]:
        """Mean per-task value over valid seeds: ASA success (strict SA or solve) by default, or the
        benchmark value `value_key` (an objective's); tasks with no valid value are absent."""
        by_task: dict[str, list[float]] = defaultdict(list)
        for score in self.scores:
            if not score.valid:
                continue
            value = float(score.success) if value_key is None else score.value(value_key)
            if value is not None:
                by_task[score.task_id].append(float(value))
        return {task_id: sum(v) / len(v) for task_id, v in by_task.items()}

    @property
    def cost_usd(self) -> float:
        return sum(r.usage.cost_usd for r in self.results if not r.cached)

    @property
    def tokens(self) -> int:
        return sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in self.results)


async def evaluate(runner: Runner, harness: Harness, tasks: list[Task], seeds: list[int],
                   judge: Judge | None = None, progress: ProgressFn | None = None) -> Evaluation:
    results = await runner.run_many(harness, tasks, seeds, progress=progress)
    by_id = {t.id: t for t in tasks}
    # a model judge's calls run concurrently, at most the runner's concurrency at once; else in order
    scores = await score_all(lambda r: score_trial(by_id[r.task_id], runner.trajectory(r), r, judge), results,
                             runner.concurrency, concurrent=judge is not None)
    scores = with_evaluation_values(list(scores), tasks)  # e.g. KAPRO's per-trial share of Avg KAS
    return Evaluation(harness=harness, tasks=tuple(tasks), seeds=tuple(seeds), results=tuple(results),
                      scores=tuple(scores), scorecard=Scorecard.from_scores(scores),
                      exclusions=tuple(exclusion_records(runner, results, scores)))


def exclusion_records(runner: Runner, results: list[RolloutResult], scores: list[TaskScore]) -> list[dict]:
    """One named record per excluded rollout; a tampered cached record names its file; a model or
    environment failure that its benchmark did not describe gets the trajectory's error."""
    tampered = runner.cache.tampered if runner.cache is not None else {}

    def detail(r: RolloutResult, s: TaskScore) -> str | None:
        if s.exclusion == "tampered":
            return tampered.get(r.key, s.exclusion_detail)
        if not s.exclusion_detail and r.exclusion is not None:
            errors = runner.trajectory(r).of_kind("error")
            return str(errors[-1].data.get("detail", ""))[:500] if errors else s.exclusion_detail
        return s.exclusion_detail

    return [{"task_id": s.task_id, "seed": s.seed, "exclusion": s.exclusion, "detail": detail(r, s)}
            for r, s in zip(results, scores) if not s.valid]


def require_evaluated(command: str, evaluations: Iterable[Evaluation]) -> None:
    """`require_scored` over every evaluation a command ran."""
    evaluations = list(evaluations)
    require_scored(command, sum(len(e.scores) for e in evaluations), [x for e in evaluations for x in e.exclusions])
