"""Rate: k successes out of n valid trials, with the excluded count and a Wilson 95% interval."""

from __future__ import annotations

from dataclasses import dataclass

from harnessx.stats import wilson


@dataclass(frozen=True)
class Rate:
    k: int
    n: int
    excluded: int = 0

    @property
    def value(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson(self.k, self.n) if self.n else None

    def __str__(self) -> str:
        text = f"{self.k}/{self.n} ({100 * self.value:.1f}%)" if self.n else f"{self.k}/0 (n/a)"
        return text + (f", {self.excluded} excluded" if self.excluded else "")

    def to_dict(self) -> dict:
        return {"k": self.k, "n": self.n, "excluded": self.excluded, "value": self.value,
                "ci": list(self.ci) if self.ci else None}

    @classmethod
    def of(cls, flags: list[bool | None], excluded: int = 0) -> "Rate":
        """Count True among the scored flags (None marks an invalid trial: excluded, not counted)."""
        scored = [f for f in flags if f is not None]
        return cls(sum(scored), len(scored), excluded + len(flags) - len(scored))
