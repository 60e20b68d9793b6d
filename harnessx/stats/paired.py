"""Paired tests for search acceptance: one-sided tests on per-task differences, Holm correction.

The challenger and the incumbent run on the same tasks and seeds; `paired_test` asks whether the
challenger's per-task scores are larger (H₁: mean difference > 0). `sign_flip_ci` is the interval
that test gives: the shifts it does not reject, so its lower bound is above zero exactly when the
test's p is at most its alpha. `holm` adjusts the p-values of a round's proposals for multiplicity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import permutation_test, wilcoxon

Method = Literal["sign_flip", "wilcoxon"]


@dataclass(frozen=True)
class PairedTest:
    mean_diff: float
    p_value: float
    n: int
    method: str


def paired_test(challenger: Sequence[float], incumbent: Sequence[float], method: Method = "sign_flip",
                n_resamples: int = 10_000, seed: int = 0) -> PairedTest:
    """One-sided paired test of challenger > incumbent on matched per-task scores.

    `sign_flip` is a permutation test of the mean difference (exact when 2ⁿ ≤ n_resamples);
    `wilcoxon` is the signed-rank test with zero differences split between ranks. With every
    difference zero there is no evidence of improvement: p = 1.
    """
    diff = np.asarray(challenger, dtype=float) - np.asarray(incumbent, dtype=float)
    if diff.size == 0:
        raise ValueError("paired_test needs at least one matched pair")
    if not diff.any():
        return PairedTest(0.0, 1.0, int(diff.size), method)
    if method == "sign_flip" and diff.size == 1:  # the two sign assignments, exactly (scipy needs two or more)
        return PairedTest(float(diff[0]), 0.5 if diff[0] > 0 else 1.0, 1, method)
    if method == "sign_flip":
        res = permutation_test((diff,), _mean, permutation_type="samples", alternative="greater", vectorized=True,
                               n_resamples=n_resamples, random_state=np.random.default_rng(seed))
    elif method == "wilcoxon":
        res = wilcoxon(diff, alternative="greater", zero_method="zsplit")
    else:
        raise ValueError(f"unknown paired test {method!r} (expected sign_flip or wilcoxon)")
    return PairedTest(float(diff.mean()), float(res.pvalue), int(diff.size), method)


def sign_flip_ci(differences: Sequence[float], confidence: float, bounds: tuple[float, float],
                 n_resamples: int = 10_000, seed: int = 0, tolerance: float = 1e-6) -> tuple[float, float]:
    """The interval for the mean of `differences` that inverts `paired_test`'s one-sided sign-flip
    tests, each at (1 − confidence) / 2: the lower bound is the least shift δ whose test of
    differences − δ > 0 does not reject, the upper bound the greatest whose test of < 0 does not.

    The tests draw the same seeded sign flips at every δ, so each p moves one way with δ and the
    lower bound is above zero exactly when `paired_test(...).p_value` (same seed and resamples) is at
    most (1 − confidence) / 2. A bound the data cannot fix (too few pairs for any test to reject) is
    the matching end of `bounds`, the range the mean difference can take."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        raise ValueError("sign_flip_ci needs at least one difference")
    alpha = (1 - confidence) / 2
    lower = _lowest_kept(d, alpha, bounds, n_resamples, seed, tolerance)
    upper = -_lowest_kept(-d, alpha, (-bounds[1], -bounds[0]), n_resamples, seed, tolerance)
    return lower, upper


def _lowest_kept(d: np.ndarray, alpha: float, bounds: tuple[float, float], n_resamples: int, seed: int,
                 tolerance: float) -> float:
    """inf{δ : p(d − δ > 0) > alpha}, found by bisection; strictly above 0 when p at δ = 0 is <= alpha
    and at most 0 otherwise (the bracket starts at 0, on the side its p puts it)."""
    def kept(delta: float) -> bool:
        return paired_test(d - delta, np.zeros(d.size), n_resamples=n_resamples, seed=seed).p_value > alpha

    low, high = (bounds[0], 0.0) if kept(0.0) else (0.0, bounds[1])
    if low < 0.0 and kept(low):
        return low
    if high > 0.0 and not kept(high):
        return high
    while high - low > tolerance:
        middle = (low + high) / 2
        low, high = (low, middle) if kept(middle) else (middle, high)
    return high


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (step-down, monotone, capped at 1)."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()
