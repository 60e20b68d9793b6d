"""Paired differences between two harnesses on the same rollouts (task, seed), first minus second.

Items are the rollouts valid for both harnesses and in the metric's stratum. The percentile CI
comes from the seeded bootstrap over source ids (`clusters`): a blocked task and the feasible task
it was made from are drawn together, with all their seeds.
"""

from __future__ import annotations

from harnessx.comparison.metrics import METRICS, flag
from harnessx.evaluation import Evaluation
from harnessx.stats import paired_bootstrap_ci


def paired_difference(first: Evaluation, second: Evaluation, metric: str, n_resamples: int = 10_000,
                      seed: int = 0) -> dict:
    other = {(s.task_id, s.seed): s for s in second.scores}
    a, b, clusters = [], [], []
    for score in first.scores:
        match = other.get((score.task_id, score.seed))
        x, y = flag(metric, score), flag(metric, match) if match else None
        if x is not None and y is not None:
            a.append(float(x))
            b.append(float(y))
            clusters.append(score.source_id)
    if not a:
        return {"diff": None, "ci": None, "n": 0, "n_sources": 0}
    diff, lo, hi = paired_bootstrap_ci(a, b, clusters=clusters, n_resamples=n_resamples, seed=seed)
    return {"diff": diff, "ci": [lo, hi], "n": len(a), "n_sources": len(set(clusters))}


def paired_differences(first: Evaluation, second: Evaluation, n_resamples: int = 10_000, seed: int = 0) -> dict:
    return {m: paired_difference(first, second, m, n_resamples, seed) for m in METRICS}
