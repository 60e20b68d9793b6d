"""Statistics of FeasiGen's human verification (digest §3.1 step 8).

- `sample_size`: Cochran's n₀ = z²·p(1−p)/e² with the finite population correction
  n = n₀ / (1 + (n₀ − 1)/N), rounded up.
- `allocate`: proportional allocation of that n over datasets, each share rounded up (so the
  total may exceed n). With N = 1,036 this gives n = 281 and 121 + 82 + 50 + 30 = 283, the
  paper's number (its text says Cochran + FPC "gives 283"; the formula alone gives 280.4 → 281).
- `agreement`: raw agreement, Cohen's κ and Gwet's AC1 of two annotators' binary labels.
- The confirmed share's interval is the Wilson score interval (`harnessx.stats.wilson`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy.stats import norm

from harnessx.stats import wilson


def cochran(confidence: float = 0.95, margin: float = 0.05, p: float = 0.5) -> float:
    """Cochran's infinite-population sample size n₀ = z² p (1 − p) / e²."""
    z = float(norm.ppf(0.5 + confidence / 2))
    return z * z * p * (1 - p) / (margin * margin)


def sample_size(population: int, confidence: float = 0.95, margin: float = 0.05, p: float = 0.5) -> int:
    """Cochran's n with the finite population correction, rounded up."""
    if population <= 0:
        raise ValueError("population must be positive")
    n0 = cochran(confidence, margin, p)
    return math.ceil(n0 / (1 + (n0 - 1) / population))


def allocate(sizes: Mapping[str, int], confidence: float = 0.95, margin: float = 0.05,
             p: float = 0.5) -> dict[str, int]:
    """Per-dataset sample sizes: ceil(n · N_d / N), with n from `sample_size` over N = Σ N_d."""
    total = sum(sizes.values())
    n = sample_size(total, confidence, margin, p)
    return {name: min(size, math.ceil(n * size / total - 1e-9)) for name, size in sizes.items()}


def draw(items_by_dataset: Mapping[str, Sequence[str]], seed: int = 0, **options: float) -> dict[str, list[str]]:
    """The sampled item ids per dataset (proportional allocation, seeded, without replacement)."""
    counts = allocate({k: len(v) for k, v in items_by_dataset.items()}, **options)
    rng = random.Random(seed)
    return {k: sorted(rng.sample(list(v), counts[k])) for k, v in items_by_dataset.items()}


@dataclass(frozen=True)
class Agreement:
    n: int
    both_yes: int
    both_no: int
    raw: float
    kappa: float
    ac1: float

    @property
    def disagreements(self) -> int:
        return self.n - self.both_yes - self.both_no

    def to_dict(self) -> dict:
        return {"n": self.n, "both_yes": self.both_yes, "both_no": self.both_no,
                "disagreements": self.disagreements, "raw": self.raw, "cohen_kappa": self.kappa, "gwet_ac1": self.ac1}


def agreement(first: Sequence[bool], second: Sequence[bool]) -> Agreement:
    """Raw agreement p_o; Cohen's κ = (p_o − p_e)/(1 − p_e) with p_e = p₁p₂ + (1−p₁)(1−p₂);
    Gwet's AC1 = (p_o − p_e)/(1 − p_e) with p_e = 2π(1 − π), π = (p₁ + p₂)/2."""
    if len(first) != len(second) or not first:
        raise ValueError("agreement needs two label lists of the same, non-zero length")
    n = len(first)
    yes = sum(a and b for a, b in zip(first, second))
    no = sum((not a) and (not b) for a, b in zip(first, second))
    p_o = (yes + no) / n
    p1, p2 = sum(map(bool, first)) / n, sum(map(bool, second)) / n
    pe_k = p1 * p2 + (1 - p1) * (1 - p2)
    pi = (p1 + p2) / 2
    pe_g = 2 * pi * (1 - pi)
    kappa = (p_o - pe_k) / (1 - pe_k) if pe_k < 1 else 1.0
    ac1 = (p_o - pe_g) / (1 - pe_g) if pe_g < 1 else 1.0
    return Agreement(n, yes, no, p_o, kappa, ac1)


def confirmed_share(confirmed: int, n: int) -> dict:
    """k/n with its Wilson 95% interval."""
    lo, hi = wilson(confirmed, n)
    return {"k": confirmed, "n": n, "value": confirmed / n, "ci": [lo, hi]}
