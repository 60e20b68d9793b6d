"""Score rollouts with a model judge concurrently, at most `workers` judge calls at once.

Judges are synchronous (`Judge.judge`); a model judge (LLMJudge) blocks its caller for the length of
a model call. Scoring each rollout in a worker thread lets those calls overlap, bounded by the run's
rollout concurrency; without a model judge scoring is instant and stays in order on the caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


async def score_all(score: Callable[[T], R], items: Sequence[T], workers: int, concurrent: bool) -> list[R]:
    """`[score(i) for i in items]`, in order; with `concurrent`, on up to `workers` threads at once."""
    if not concurrent:
        return [score(item) for item in items]
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="harnessx-score") as pool:
        return list(await asyncio.gather(*(loop.run_in_executor(pool, score, item) for item in items)))
