"""The `fresh` design of bench/search_efficiency.py (bench/fresh_incumbent.py): R0 is compared over
the arena's seeds; a harness moved to is compared from then on over new seeds, never over the
rollouts that selected it, and its own evaluation for the loop costs nothing new."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from fresh_incumbent import OFFSET, FreshIncumbent  # noqa: E402
from test_search_acceptance import FakeArena, evaluation, make_tasks  # noqa: E402

N = 40
TASKS = make_tasks(N)


class SeededArena(FakeArena):
    """FakeArena with seeds, recording the seeds of every evaluation by harness name."""

    seeds = [3]

    def __init__(self, evals):
        super().__init__(evals)
        self.seeds_used: dict[str, set[tuple[int, ...]]] = {}

    async def evaluate_on(self, harness, tasks, seeds=None):
        self.seeds_used.setdefault(harness.name, set()).add(tuple(seeds or self.seeds))
        return await super().evaluate_on(harness, tasks, seeds)


def test_a_moved_to_incumbent_is_compared_over_new_seeds_only():
    none, all_ = [0] * N, [1] * N
    evals = {name: evaluation(name, TASKS, *flags) for name, flags in
             {"r0": (none, none), "good": (all_, all_), "flat": (none, none), "next": (all_, all_)}.items()}
    arena = SeededArena({ev.harness.hash: ev for ev in evals.values()})
    rule = FreshIncumbent(screen=8)
    r0, good, flat, nxt = (evals[n].harness for n in ("r0", "good", "flat", "next"))

    moved, kept = asyncio.run(rule.judge(r0, [good, flat], arena))
    assert moved.accepted and not kept.accepted
    assert arena.seeds_used == {"r0": {(3,)}, "good": {(3,)}, "flat": {(3,)}}  # R0: the arena's seeds

    asyncio.run(rule.incumbent_evaluation(good, arena))  # what the loop asks after the move
    assert arena.seeds_used["good"] == {(3,)}  # the rollouts that selected it: already paid

    asyncio.run(rule.judge(good, [nxt], arena))
    fresh = (3 + OFFSET,)
    assert arena.seeds_used["good"] == {(3,), fresh} and arena.seeds_used["next"] == {fresh}
