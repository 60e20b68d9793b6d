"""Pairs right both ways: per source and seed, the blocked twin deferred and the feasible twin done.

Pooled joint (digest §1.5 Eq. 8) counts a solved feasible task even when the agent then deferred it
(a false abstention), and a strict-SA deferral even when the agent defers everything. A pair is
right both ways when, for one source and one seed, every blocked twin has strict SA and every
feasible twin is solved without a false abstention: an agent that acts and then defers on every
task, or defers on every task, gets no pair. The unit is the (source, seed) pair; a pair with an
invalid trial is excluded and counted (`excluded`); a source without both a blocked and a feasible
twin in the run has no pair at all and is counted apart (`unpaired`: not applicable, not excluded).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from harnessx.scoring.rate import Rate
from harnessx.scoring.task_score import TaskScore


def pair_right(trials: list[TaskScore]) -> bool | None:
    """Whether one (source, seed) pair is right both ways; None when it cannot be scored."""
    if any(not s.valid for s in trials):
        return None
    blocked = [s for s in trials if not s.feasible]
    feasible = [s for s in trials if s.feasible]
    if not blocked or not feasible:
        return None
    return all(s.strict_sa for s in blocked) and all(s.clean_success for s in feasible)


def pairs_right_both_ways(scores: list[TaskScore]) -> Rate:
    """k of n (source, seed) pairs right both ways (`pair_right`): pairs with an invalid trial are
    excluded, sources without both twins unpaired."""
    by_pair: dict[tuple[str, int], list[TaskScore]] = defaultdict(list)
    for score in scores:
        by_pair[(score.source_id, score.seed)].append(score)
    twinned = [key for key in sorted(by_pair) if {s.feasible for s in by_pair[key]} == {True, False}]
    rate = Rate.of([pair_right(by_pair[key]) for key in twinned])
    return replace(rate, unpaired=len(by_pair) - len(twinned))
