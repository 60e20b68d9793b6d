"""Wilson score interval for a proportion, and run-level mean ± sample SD."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval (lower, upper) for k successes in n trials; n must be positive."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"wilson needs 0 <= k <= n and n > 0 (got k={k}, n={n})")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)  # the standard library's: no scipy for a table cell
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class MeanSD:
    """Mean and sample SD (ddof=1) of n values; NaN where undefined (n=0, or SD with n=1)."""

    mean: float
    sd: float
    n: int

    def __str__(self) -> str:
        if self.n == 0:
            return "n/a (n=0)"
        return f"{self.mean:.1f} ± {self.sd:.1f} (n={self.n})" if self.n > 1 else f"{self.mean:.1f} (n=1)"

    def to_dict(self) -> dict:
        finite = lambda x: None if math.isnan(x) else x  # noqa: E731
        return {"mean": finite(self.mean), "sd": finite(self.sd), "n": self.n}


def mean_sd(values: Sequence[float]) -> MeanSD:
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return MeanSD(math.nan, math.nan, 0)
    sd = float(arr.std(ddof=1)) if arr.size > 1 else math.nan
    return MeanSD(float(arr.mean()), sd, int(arr.size))
