"""Seeded percentile bootstrap over items or clusters (e.g. blocked–feasible source pairs).

`bootstrap_ci` resamples indices and hands them to the statistic, so any statistic over aligned
arrays works (a mean, an AUROC, a paired difference of two harnesses on the same resample). With
`clusters`, whole clusters are drawn with replacement and all their members kept together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Statistic = Callable[[np.ndarray], float]


def cluster_groups(n: int, clusters: Sequence | None = None) -> list[np.ndarray]:
    """Item indices per cluster; without clusters every item is its own cluster."""
    if clusters is None:
        return [np.array([i]) for i in range(n)]
    if len(clusters) != n:
        raise ValueError(f"clusters has {len(clusters)} labels for {n} items")
    labels = np.asarray(clusters)
    return [np.flatnonzero(labels == c) for c in np.unique(labels)]


def resample_indices(groups: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """One bootstrap draw: as many clusters as there are, with replacement, members kept together."""
    return np.concatenate([groups[g] for g in rng.integers(0, len(groups), size=len(groups))])


def bootstrap_ci(statistic: Statistic, n: int, *, clusters: Sequence | None = None, n_resamples: int = 10_000,
                 confidence: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """(point estimate, lower, upper): percentile CI of `statistic(indices)` over n items.

    Resamples where the statistic is undefined (NaN, e.g. an AUROC with one class) are dropped.
    """
    groups, rng = cluster_groups(n, clusters), np.random.default_rng(seed)
    draws = np.array([statistic(resample_indices(groups, rng)) for _ in range(n_resamples)], dtype=float)
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        raise ValueError("the statistic is undefined on every resample")
    alpha = (1 - confidence) / 2
    lower, upper = np.quantile(draws, [alpha, 1 - alpha])
    return float(statistic(np.arange(n))), float(lower), float(upper)


def paired_bootstrap_ci(first: Sequence[float], second: Sequence[float], *, clusters: Sequence | None = None,
                        n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """Percentile CI of mean(first − second) on matched items (first minus second)."""
    diff = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    return bootstrap_ci(lambda idx: float(diff[idx].mean()), diff.size, clusters=clusters,
                        n_resamples=n_resamples, confidence=confidence, seed=seed)
