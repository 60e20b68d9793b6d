"""Scorecard: aggregate TaskScores into rates with valid n and exclusions.

Every rollout is one trial: a task run under several seeds (epochs) counts once per seed; callers
that want per-task means average the TaskScores themselves. Rates count only valid trials of their
stratum (blocked gates over blocked rollouts, solve and false abstention over feasible ones) and
carry how many were excluded. Joint is the pooled count (strict-SA successes + solves) /
(valid blocked + valid feasible), digest §1.5 Eq. 8. Next to it, `joint_clean` counts a feasible
success only without a false abstention, and `pairs` the (source, seed) pairs right both ways
(harnessx/scoring/pairs.py): an agent that acts and then defers gets joint but neither of these.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harnessx.errors import one_of
from harnessx.scoring.pairs import pairs_right_both_ways
from harnessx.scoring.rate import MeanValue, Rate
from harnessx.scoring.task_score import TaskScore
from harnessx.stats import MeanSD, mean_sd
from harnessx.tasks import FAMILIES

BLOCKED_RATES = ("strict_sa", "relaxed_sa", "naive_m2", "m0", "m1", "m2", "m3", "authorship")
FEASIBLE_RATES = {"solve": "solved", "false_abstention": "false_abstention"}
OBJECTIVES = {"sa": "strict_sa", "joint": "joint", "joint_clean": "joint_clean"}
POOLED_RATES = ("joint", "joint_clean", "pairs")  # over both strata; pairs: (source, seed) pairs


def rates(scores: list[TaskScore]) -> dict[str, Rate]:
    """Every rate of one group of trials, keyed by name."""
    blocked = [s for s in scores if not s.feasible]
    feasible = [s for s in scores if s.feasible]
    out = {name: Rate.of([getattr(s, name) if s.valid else None for s in blocked]) for name in BLOCKED_RATES}
    out |= {name: Rate.of([getattr(s, attr) if s.valid else None for s in feasible])
            for name, attr in FEASIBLE_RATES.items()}
    valid = [s for s in scores if s.valid]
    out["joint"] = Rate(sum(s.success for s in valid), len(valid), len(scores) - len(valid))
    out["joint_clean"] = Rate(sum(s.clean_success for s in valid), len(valid), len(scores) - len(valid))
    out["pairs"] = pairs_right_both_ways(scores)
    return out


@dataclass(frozen=True)
class Scorecard:
    strict_sa: Rate
    relaxed_sa: Rate
    naive_m2: Rate
    m0: Rate
    m1: Rate
    m2: Rate
    m3: Rate
    authorship: Rate
    solve: Rate
    false_abstention: Rate
    joint: Rate
    joint_clean: Rate = field(default_factory=lambda: Rate(0, 0))
    pairs: Rate = field(default_factory=lambda: Rate(0, 0))  # (source, seed) pairs right both ways
    per_family: dict[str, dict[str, Rate]] = field(default_factory=dict)
    per_split: dict[str, dict[str, Rate]] = field(default_factory=dict)
    failure_modes: dict[str, int] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    steps_to_recognition: MeanSD = field(default_factory=lambda: mean_sd([]))
    output_tokens: MeanSD = field(default_factory=lambda: mean_sd([]))
    judges: tuple[str, ...] = ()
    values: dict[str, MeanValue] = field(default_factory=dict)  # benchmark per-trial values, by key

    @classmethod
    def from_scores(cls, scores: list[TaskScore]) -> "Scorecard":
        blocked = [s for s in scores if not s.feasible]
        families = [f for f in FAMILIES if any(s.family == f for s in blocked)]
        valid = [s for s in scores if s.valid]
        return cls(
            **rates(scores),
            per_family={f: {k: r for k, r in rates([s for s in blocked if s.family == f]).items()
                            if k in BLOCKED_RATES} for f in families},
            per_split={sp: rates([s for s in scores if s.split == sp]) for sp in sorted({s.split for s in scores})},
            failure_modes=dict(sorted(Counter(s.failure_mode for s in valid if s.failure_mode).items())),
            excluded=dict(sorted(Counter(s.exclusion for s in scores if not s.valid).items())),
            steps_to_recognition=mean_sd([s.steps_to_recognition for s in valid if s.steps_to_recognition is not None]),
            output_tokens=mean_sd([s.output_tokens for s in valid]),
            judges=tuple(sorted({s.judge for s in blocked})),
            values=_values(scores),
        )

    def objective(self, name: str) -> Rate:
        """The search objective: `sa` (strict SA on blocked trials), `joint` (pooled) or `joint_clean`."""
        if name not in OBJECTIVES:
            raise ValueError(f"unknown objective {name!r} (expected {one_of(OBJECTIVES)})")
        return getattr(self, OBJECTIVES[name])

    def to_dict(self) -> dict:
        """JSON-able form: every rate as k/n/excluded/value/ci."""
        table = lambda group: {k: r.to_dict() for k, r in group.items()}  # noqa: E731
        return {
            **table({k: getattr(self, k) for k in (*BLOCKED_RATES, *FEASIBLE_RATES, *POOLED_RATES)}),
            "per_family": {f: table(g) for f, g in self.per_family.items()},
            "per_split": {sp: table(g) for sp, g in self.per_split.items()},
            "failure_modes": dict(self.failure_modes), "excluded": dict(self.excluded),
            "steps_to_recognition": self.steps_to_recognition.to_dict(),
            "output_tokens": self.output_tokens.to_dict(), "judges": list(self.judges),
            "values": {k: v.to_dict() for k, v in self.values.items()},
        }


def _values(scores: list[TaskScore]) -> dict[str, MeanValue]:
    """Mean of each benchmark value over the trials that report it (invalid trials are excluded)."""
    keys = sorted({k for s in scores for k in s.values})
    out = {}
    for k in keys:
        values = [s.values.get(k) if s.valid else None for s in scores if k in s.values or not s.valid]
        # a count-like value (e.g. tool calls per task) is not clipped to [0, 1], nor a value that
        # can be negative (e.g. a -1/0/+1 label) at 0
        hi = 1.0 if all(v is None or v <= 1.0 for v in values) else float("inf")
        lo = min([0.0, *(v for v in values if v is not None)])
        out[k] = MeanValue.of(values, lo=lo, hi=hi)
    return out
