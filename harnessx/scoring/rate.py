"""Rate: k successes out of n valid trials, with the excluded count and a Wilson 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harnessx.stats import wilson


def rate_text(k: int, n: int, excluded: int = 0, ci: tuple[float, float] | None = None, unpaired: int = 0) -> str:
    """The one printed form of a rate: `k/n p% [lo, hi]` (Wilson 95%) and `, x excl.` when any trial
    was excluded (an invalid rollout), `, u unpaired` when any unit had no twin to pair with (not
    applicable, not excluded); `k/0 (n/a)` when no trial was valid. Every table cell and `str(Rate)`
    use it."""
    if not n:
        text = f"{k}/0 (n/a)"
    else:
        lo, hi = ci or wilson(k, n)
        text = f"{k}/{n} {100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
    return text + (f", {excluded} excl." if excluded else "") + (f", {unpaired} unpaired" if unpaired else "")


@dataclass(frozen=True)
class Rate:
    k: int
    n: int
    excluded: int = 0
    unpaired: int = 0  # units outside the rate because they have no twin (pairs), not because they failed

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n) if self.n else None

    def __str__(self) -> str:
        return rate_text(self.k, self.n, self.excluded, unpaired=self.unpaired)

    def to_dict(self) -> dict:
        return {"k": self.k, "n": self.n, "excluded": self.excluded, "value": self.value,
                "ci": list(self.ci) if self.ci else None, **({"unpaired": self.unpaired} if self.unpaired else {})}

    @classmethod
    def of(cls, flags: list[bool | None], excluded: int = 0) -> "Rate":
        """Count True among the scored flags (None marks an invalid trial: excluded, not counted)."""
        scored = [f for f in flags if f is not None]
        return cls(sum(scored), len(scored), excluded + len(flags) - len(scored))


@dataclass(frozen=True)
class MeanValue:
    """The mean of a per-trial value over n valid trials (a benchmark objective that is not a count),
    with the excluded count and a normal-approximation 95% interval clipped to [lo, hi]."""

    total: float
    n: int
    excluded: int = 0
    sum_sq: float = 0.0
    lo: float = 0.0
    hi: float = 1.0

    @property
    def k(self) -> float:
        return round(self.total, 6)

    @property
    def value(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def ci(self) -> tuple[float, float] | None:
        if not self.n:
            return None
        mean = self.total / self.n
        var = max(self.sum_sq / self.n - mean * mean, 0.0) * (self.n / (self.n - 1) if self.n > 1 else 0.0)
        half = 1.96 * math.sqrt(var / self.n)
        return max(self.lo, mean - half), min(self.hi, mean + half)

    def __str__(self) -> str:
        if not self.n:
            return "n/a (n=0)" + (f", {self.excluded} excl." if self.excluded else "")
        lo, hi = self.ci
        return f"{self.value:.3f} [{lo:.3f}, {hi:.3f}] (n={self.n}" + (f", {self.excluded} excl.)" if self.excluded else ")")

    def to_dict(self) -> dict:
        return {"k": self.k, "n": self.n, "excluded": self.excluded, "value": self.value,
                "ci": list(self.ci) if self.ci else None, "kind": "mean"}

    @classmethod
    def of(cls, values: list[float | None], lo: float = 0.0, hi: float = 1.0) -> "MeanValue":
        """Mean of the scored values (None marks an invalid trial: excluded, not counted)."""
        scored = [float(v) for v in values if v is not None]
        return cls(sum(scored), len(scored), len(values) - len(scored), sum(v * v for v in scored), lo, hi)
