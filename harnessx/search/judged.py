"""What a candidate was judged on, for everything that shows its score beside another's.

A rule may judge a proposal on part of the search split (racing's smoke and race rungs, a window):
its k/n then counts a screened subset, and set beside a whole-split k/n it reads as a better or worse
harness when it is only other tasks. So each ledger row carries `judged`: how many of the split's tasks
the candidate ran, its and the incumbent's mean objective on the tasks both ran, their paired
difference (the figure the rule compared), and that difference at each rung the rule evaluated it on
(`rungs`: tasks -> difference). The viewer, the report, Optuna (trial value and intermediate values)
and MLflow read these instead of comparing counts over different tasks.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harnessx.evaluation import Evaluation


def _paired(candidate: Evaluation, incumbent: Evaluation, value_key: str | None) -> tuple[int, float, float]:
    """(matched tasks, candidate mean, incumbent mean) over the tasks both have a valid value on."""
    a, b = candidate.per_task_success(value_key), incumbent.per_task_success(value_key)
    common = sorted(a.keys() & b.keys())
    if not common:
        return 0, 0.0, 0.0
    return len(common), sum(a[t] for t in common) / len(common), sum(b[t] for t in common) / len(common)


def judged_on(evaluation: Evaluation, incumbent: Evaluation | None, rungs: Iterable[Evaluation], split_tasks: int,
              value_key: str | None) -> dict[str, Any]:
    """The row's `judged` record. `incumbent` None: the candidate is R0 (its own reference, difference 0);
    `rungs`: every evaluation the rule ran of it, smallest first."""
    reference = incumbent if incumbent is not None else evaluation
    matched, mine, theirs = _paired(evaluation, reference, value_key)
    steps = {}
    for rung in rungs:
        n, a, b = _paired(rung, reference, value_key)
        if n:
            steps[str(len(rung.tasks))] = a - b
    n_tasks = len(evaluation.tasks)
    return {"tasks": n_tasks, "of": split_tasks, "screened": n_tasks < split_tasks, "matched": matched,
            "candidate": mine if matched else None, "incumbent": theirs if matched else None,
            "diff": (mine - theirs) if matched else None, "rungs": steps}


def now() -> str:
    """A UTC ISO-8601 timestamp (when a candidate's judging started / finished: Optuna's durations)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")

