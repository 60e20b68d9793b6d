"""Betting e-values on paired per-task differences, and the rung sizes, shared by the adaptive
acceptance rules (`sequential`, its screen, `stack`)."""

from __future__ import annotations

import math

import numpy as np

from harnessx.search.acceptance import Paired


def bets(d: np.ndarray, cap: float = 0.9, prior: float = 0.25) -> np.ndarray:
    """Predictable bets lambda_i in [0, cap]: Kelly's mean/second-moment ratio of d_1..d_{i-1}
    (shrunk by a `prior` pseudo-second-moment), 0 while the running mean is not positive."""
    if d.size == 0:
        return d
    s1 = np.concatenate([[0.0], np.cumsum(d)[:-1]])
    s2 = np.concatenate([[0.0], np.cumsum(d * d)[:-1]])
    return np.clip(s1 / (s2 + prior), 0.0, cap)


def wealth_path(d: np.ndarray, cap: float = 0.9) -> np.ndarray:
    """K_t for t = 1..n; bounded d in [-1, 1] and lambda < 1 keep every factor positive."""
    return np.cumprod(1.0 + bets(d, cap) * d) if d.size else np.ones(0)


def max_wealth(d: np.ndarray, cap: float = 0.9) -> float:
    """sup_t K_t (1.0 for no data): an e-process, so 1 / max_wealth is an anytime-valid p-value."""
    path = wealth_path(d, cap)
    return float(max(1.0, path.max())) if path.size else 1.0


def first_rung(n_all: int, share: float) -> int:
    """The first rung (and the screen): `share` of the split, at least 8 tasks."""
    return min(n_all, max(8, math.ceil(share * n_all)))


def differences(paired: Paired, order: list[str], stratum: str | None = None) -> np.ndarray:
    """Per-task differences in the arena's order (optionally of one stratum)."""
    ids = [t for t in order if t in paired.per_task and (stratum is None or paired.strata[t] == stratum)]
    return np.array([paired.per_task[t] - paired.other[t] for t in ids], dtype=float)
