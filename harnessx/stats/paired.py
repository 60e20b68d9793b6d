"""Paired tests for search acceptance: one-sided tests on per-task differences, Holm correction.

The challenger and the incumbent run on the same tasks and seeds; `paired_test` asks whether the
challenger's per-task scores are larger (H₁: mean difference > 0). `sign_flip_ci` is that test with
the interval that inverts it (the shifts it does not reject), so its lower bound is above zero exactly
when its p is at most its alpha. `holm` adjusts the p-values of a round's proposals for multiplicity.
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


@dataclass(frozen=True)
class SignFlipInterval:
    p_value: float   # one-sided, H₁: mean difference > 0
    low: float       # the interval at `confidence` that inverts the test: low > 0 exactly when
    high: float      # p_value <= (1 − confidence) / 2
    n: int
    exact: bool      # every sign assignment enumerated (2ⁿ <= n_resamples)


def sign_flip_ci(differences: Sequence[float], confidence: float, bounds: tuple[float, float],
                 n_resamples: int = 10_000, seed: int = 0) -> SignFlipInterval:
    """The one-sided sign-flip test of the mean of `differences` and the interval that inverts it.

    Each sign assignment s (all 2ⁿ when that is at most n_resamples, else n_resamples seeded draws)
    counts against a shift δ when mean(s·(d − δ)) >= mean(d − δ), which holds exactly for δ at or
    above its own threshold; so p(δ) is a step function rising with δ, the lower bound is the least δ
    with p(δ) > (1 − confidence) / 2, read off the sorted thresholds, and p(0) is the test's p. The
    interval and the verdict never disagree. The upper bound is the same on −d. A bound too few
    pairs cannot fix is the matching end of `bounds`, the range the mean difference can take."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        raise ValueError("sign_flip_ci needs at least one difference")
    exact = 2 ** d.size <= n_resamples
    if exact:
        signs = 1 - 2 * ((np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1)
    else:
        signs = np.random.default_rng(seed).choice(np.array([-1, 1]), size=(n_resamples, d.size))
    alpha = (1 - confidence) / 2
    p_value, low = _kept_from(d, signs, exact, alpha, bounds)
    _, neg_high = _kept_from(-d, signs, exact, alpha, (-bounds[1], -bounds[0]))
    return SignFlipInterval(p_value, low, 0.0 - neg_high, int(d.size), exact)  # 0.0 - 0.0 is +0.0


def _kept_from(d: np.ndarray, signs: np.ndarray, exact: bool, alpha: float,
               bounds: tuple[float, float]) -> tuple[float, float]:
    """p(0) of the test that mean(d − δ) > 0, and inf{δ : p(δ) > alpha} (clamped to `bounds`)."""
    mean = float(d.mean())
    moved = signs @ d / d.size                      # mean(s·d) per assignment
    share = signs.mean(axis=1)                      # mean(s): the part of δ each assignment keeps
    tolerance = 1e-12 * max(1.0, float(np.abs(d).max()))
    always = share >= 1.0 - 1e-12                   # the identity: counts at every δ
    gap = mean - moved[~always]
    gap[np.abs(gap) <= tolerance] = 0.0             # a tie in floating point is a tie: its threshold is 0
    thresholds = np.sort(gap / (1.0 - share[~always]))
    base = int(always.sum()) + (0 if exact else 1)  # a random test counts the observed assignment too
    total = signs.shape[0] + (0 if exact else 1)
    p_value = (base + int(np.searchsorted(thresholds, 0.0, side="right"))) / total
    need = int(np.floor(alpha * total)) - base + 1  # thresholds at or below δ that make p(δ) > alpha
    if need <= 0:
        return p_value, bounds[0]
    if need > thresholds.size:
        return p_value, bounds[1]
    return p_value, float(min(max(thresholds[need - 1], bounds[0]), bounds[1]))


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
