"""The rule every eval command shares: a run in which every rollout was excluded reports nothing.

It lives here, below the benchmarks, so that a benchmark's own runner (FeasiGen's build and eval)
and the generic `evaluation` apply the same rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from harnessx.errors import NothingScoredError


def require_scored(command: str, total: int, exclusions: Iterable[dict]) -> None:
    """The one rule of every eval command: when all `total` rollouts were excluded, stop (exit 3)
    with the reasons counted and the first one's detail, instead of reporting a table of nothing."""
    excluded = list(exclusions)
    if total == 0 or len(excluded) < total:
        return
    counts = ", ".join(f"{why} {n}" for why, n in Counter(str(x["exclusion"]) for x in excluded).most_common())
    first = next((x for x in excluded if x.get("detail")), excluded[0])
    detail = str(first.get("detail") or "").strip().splitlines()
    raise NothingScoredError(f"{command}: every one of the {total} rollouts was excluded ({counts}), nothing was "
                             f"scored; first: {first.get('task_id')} seed {first.get('seed')}"
                             + (f": {detail[0][:300]}" if detail else ""))
