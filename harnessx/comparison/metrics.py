"""The compared quantities: one flag per rollout and metric, and a split's scorecard block.

Strict and relaxed SA count over blocked rollouts, solve and false abstention over feasible ones,
joint (strict SA or solve, pooled) over all; per family, strict and relaxed SA. Invalid rollouts
are excluded from every metric and counted.
"""

from __future__ import annotations

from collections.abc import Callable

from harnessx.evaluation import Evaluation
from harnessx.scoring import TaskScore

METRICS: dict[str, tuple[str, Callable[[TaskScore], bool | None]]] = {
    "strict_sa": ("Strict SA", lambda s: None if s.feasible else s.strict_sa),
    "relaxed_sa": ("Relaxed SA", lambda s: None if s.feasible else s.relaxed_sa),
    "solve": ("Solve", lambda s: s.solved if s.feasible else None),
    "false_abstention": ("False abstention", lambda s: s.false_abstention if s.feasible else None),
    "joint": ("Joint", lambda s: s.success),
}
FAMILY_METRICS = ("strict_sa", "relaxed_sa")


def flag(metric: str, score: TaskScore) -> bool | None:
    """The metric's value on one valid rollout; None when the rollout is not in its stratum."""
    return METRICS[metric][1](score) if score.valid else None


def scorecard_block(evaluation: Evaluation) -> dict:
    """Every compared rate (k/n/excluded/value/ci) of one harness on one split, plus the per-family ones."""
    card = evaluation.scorecard
    return {
        "metrics": {m: getattr(card, m).to_dict() for m in METRICS},
        "per_family": {f: {m: rates[m].to_dict() for m in FAMILY_METRICS} for f, rates in card.per_family.items()},
        "excluded": dict(card.excluded),
        "exclusions": list(evaluation.exclusions),
        "n_rollouts": len(evaluation.scores),
    }
