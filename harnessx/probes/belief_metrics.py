"""Belief quality over reports of one or more harnesses (digest §1.7).

- AUROC of P(feasible) against the feasible label on each harness's valid support (n_A: its
  parseable reports).
- Brier and ECE₁₀ on n_C: the (task, seed) items every compared harness reported validly (with
  one harness, n_C = n_A).
- 95% percentile intervals from a seeded bootstrap that resamples source ids, so a blocked task and
  its feasible source stay together; paired differences (each harness minus the first) use the
  same resamples for both harnesses, on the matched n_C items.
- A reliability table (10 equal-width bins, 1.0 in the last) on the n_C items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from harnessx.probes.belief import BeliefReport
from harnessx.stats import auroc, bootstrap_ci, brier, ece10

METRICS: dict[str, Callable[[Sequence[float], Sequence[int]], float]] = {"auroc": auroc, "brier": brier,
                                                                         "ece10": ece10}


def _ci(statistic: Callable[[np.ndarray], float], n: int, clusters: list[str], n_resamples: int,
        seed: int) -> dict:
    if n == 0:
        return {"value": None, "ci": None, "n": 0}
    try:
        value, lo, hi = bootstrap_ci(statistic, n, clusters=clusters, n_resamples=n_resamples, seed=seed)
    except ValueError:  # undefined on every resample (e.g. one class only)
        return {"value": None, "ci": None, "n": n}
    return {"value": None if np.isnan(value) else value, "ci": [lo, hi], "n": n}


def _metric_ci(name: str, reports: list[BeliefReport], n_resamples: int, seed: int) -> dict:
    p = np.array([r.p for r in reports], dtype=float)
    y = np.array([int(r.feasible) for r in reports])
    fn = METRICS[name]
    return _ci(lambda idx: fn(p[idx], y[idx]), len(reports), [r.source_id for r in reports], n_resamples, seed)


def _paired_ci(name: str, first: list[BeliefReport], second: list[BeliefReport], n_resamples: int,
               seed: int) -> dict:
    pa, pb = (np.array([r.p for r in rs], dtype=float) for rs in (first, second))
    y = np.array([int(r.feasible) for r in first])
    fn = METRICS[name]
    return _ci(lambda idx: fn(pa[idx], y[idx]) - fn(pb[idx], y[idx]), len(first),
               [r.source_id for r in first], n_resamples, seed)


def reliability(reports: list[BeliefReport]) -> list[dict]:
    """Per bin k (edges k/10, (k+1)/10; 1.0 falls in the last): count, mean P(feasible), feasible share."""
    p = np.array([r.p for r in reports], dtype=float)
    y = np.array([float(r.feasible) for r in reports])
    bins = np.minimum((p * 10).astype(int), 9) if p.size else np.array([], dtype=int)
    rows = []
    for k in range(10):
        members = bins == k
        n = int(members.sum())
        rows.append({"bin": [k / 10, (k + 1) / 10], "n": n, "mean_p": float(p[members].mean()) if n else None,
                     "feasible_share": float(y[members].mean()) if n else None})
    return rows


def belief_summary(by_label: dict[str, list[BeliefReport]], n_resamples: int = 10_000, seed: int = 0) -> dict:
    """Metrics per harness (keyed by label, first = reference) and paired differences vs the first."""
    valid = {label: {r.key: r for r in reports if r.valid} for label, reports in by_label.items()}
    common = sorted(set.intersection(*(set(v) for v in valid.values()))) if valid else []
    harnesses = {}
    for label, reports in by_label.items():
        matched = [valid[label][k] for k in common]
        harnesses[label] = {
            "n_reports": len(reports), "n_invalid": len(reports) - len(valid[label]),
            "n_A": len(valid[label]), "n_C": len(common),
            "auroc": _metric_ci("auroc", list(valid[label].values()), n_resamples, seed),
            "brier": _metric_ci("brier", matched, n_resamples, seed),
            "ece10": _metric_ci("ece10", matched, n_resamples, seed),
            "reliability": reliability(matched),
        }
    labels = list(by_label)
    differences = []
    for label in labels[1:]:
        first, second = [valid[label][k] for k in common], [valid[labels[0]][k] for k in common]
        differences.append({"first": label, "second": labels[0], "n": len(common),
                            **{m: _paired_ci(m, first, second, n_resamples, seed) for m in METRICS}})
    return {"n_resamples": n_resamples, "seed": seed, "harnesses": harnesses, "differences": differences}
