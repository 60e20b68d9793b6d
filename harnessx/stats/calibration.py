"""Belief-quality metrics of P(feasible) against the feasibility label: AUROC, Brier, ECE₁₀."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata


def _arrays(probs: Sequence[float], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    p, y = np.asarray(probs, dtype=float), np.asarray(labels, dtype=float)
    if p.shape != y.shape or p.size == 0:
        raise ValueError(f"need equal, non-empty probabilities and labels (got {p.size} and {y.size})")
    return p, y


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Area under the ROC curve = Mann–Whitney U / (n₁·n₀), ties counted ½; NaN with one class."""
    s, y = _arrays(scores, labels)
    pos, neg = s[y == 1], s[y == 0]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    # U from average ranks (ties count ½): the same statistic as scipy's mannwhitneyu, without its
    # p-value, so thousands of bootstrap resamples stay fast
    u = rankdata(s)[y == 1].sum() - pos.size * (pos.size + 1) / 2
    return float(u / (pos.size * neg.size))


def brier(probs: Sequence[float], labels: Sequence[int]) -> float:
    p, y = _arrays(probs, labels)
    return float(np.mean((p - y) ** 2))


def ece10(probs: Sequence[float], labels: Sequence[int]) -> float:
    """Expected calibration error over 10 equal-width bins; 1.0 falls in the last bin, empty bins skipped."""
    p, y = _arrays(probs, labels)
    bins = np.minimum((p * 10).astype(int), 9)
    total = 0.0
    for b in np.unique(bins):
        members = bins == b
        total += members.mean() * abs(y[members].mean() - p[members].mean())
    return float(total)
