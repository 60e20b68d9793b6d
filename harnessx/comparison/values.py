"""Benchmark values in a comparison (e.g. KAPRO's J_know, J_act, per-task KAS value, pass): each
harness's means with n and CI, and paired differences on the same (task, seed) trials, so
`compare` shows a benchmark objective next to ASA's metrics for any harness."""

from __future__ import annotations

from harnessx.benchmarks.registry import DEFAULT_BENCHMARK, get_benchmark
from harnessx.evaluation import Evaluation
from harnessx.stats import paired_bootstrap_ci


def values_block(evaluation: Evaluation) -> dict:
    return {k: v.to_dict() for k, v in evaluation.scorecard.values.items()}


def benchmark_blocks(evaluation: Evaluation) -> dict:
    """Each non-ASA benchmark's own aggregate metrics (e.g. KAPRO's KAS with its bootstrap CI)."""
    names = sorted({t.metadata.get("benchmark", DEFAULT_BENCHMARK) for t in evaluation.tasks} - {DEFAULT_BENCHMARK})
    out = {}
    for name in names:
        tasks = [t for t in evaluation.tasks if t.metadata.get("benchmark") == name]
        ids = {t.id for t in tasks}
        out[name] = get_benchmark(name).metrics([s for s in evaluation.scores if s.task_id in ids], tasks)
    return out


def value_differences(first: Evaluation, second: Evaluation, n_resamples: int, seed: int) -> dict:
    other = {(s.task_id, s.seed): s for s in second.scores if s.valid}
    out = {}
    for key in sorted(set(first.scorecard.values) & set(second.scorecard.values)):
        a, b, clusters = [], [], []
        for score in first.scores:
            match = other.get((score.task_id, score.seed))
            if score.valid and match and key in score.values and key in match.values:
                a.append(score.values[key])
                b.append(match.values[key])
                clusters.append(score.source_id)
        if a:
            diff, lo, hi = paired_bootstrap_ci(a, b, clusters=clusters, n_resamples=n_resamples, seed=seed)
            out[key] = {"diff": diff, "ci": [lo, hi], "n": len(a), "n_sources": len(set(clusters))}
    return out
