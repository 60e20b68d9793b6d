"""`fresh` (a bench-only design of the default rule, measured, not shipped): `explore` whose moved-to
incumbent is never compared on the rollouts that selected it.

Why it was tried: a move is decided on the climber's own rollouts over the whole split, so they are
biased upward by the selection (a copy that moves read +0.125 on 128 tasks at p = 0.005 on one
search). Reused as the baseline of every later round, they make the next edits look worse than they
are: after such a move a +0.180 edit read -0.062 and stopped at its second rung.

What it does: R0 is compared on the arena's seeds, as in `explore`. The harness moved to in a
round is compared from then on over fresh seeds (the arena's, shifted by a per-move offset): the
incumbent is run again on each task a screen or a rung needs, once, and every proposal meets it
there, paired task by task. The failure-picked screen pairs still come from the rollouts that
selected it (an outcome-aware pick over one set of draws, compared on another). The price is a
second pass of each moved-to harness over the tasks its rounds reach, up to the whole split.

It keeps its memory in the rule object, so it is for the bench's uninterrupted searches only
(the shipped rules rebuild theirs from the ledger on --resume).
"""

from __future__ import annotations

from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.acceptance import Verdict
from harnessx.search.explore import Explore

OFFSET = 7919  # the seed shift of each move's fresh draws (a prime, far from the arena's seed spacing)


class SeedView:
    """The arena with another default seed list; every other member passes through."""

    def __init__(self, arena, seeds: list[int]):
        self._arena, self.seeds = arena, seeds

    def __getattr__(self, name: str):
        return getattr(self._arena, name)

    async def evaluate_on(self, harness: Harness, tasks: list, seeds: list[int] | None = None) -> Evaluation:
        return await self._arena.evaluate_on(harness, tasks, self.seeds if seeds is None else seeds)

    async def evaluate(self, harness: Harness, n_tasks: int | None = None) -> Evaluation:
        return await self.evaluate_on(harness, self._arena.prefix(n_tasks or len(self._arena.tasks)))


class FreshIncumbent(Explore):
    """`explore`, with each moved-to incumbent compared over fresh seeds (module docstring)."""

    name = "fresh"

    def __init__(self, settings=None, **options):
        super().__init__(settings, **options)
        self.selected_on: dict[str, list[int]] = {}  # moved-to hash -> the seeds whose rollouts selected it
        self.compared_on: dict[str, list[int]] = {}  # moved-to hash -> the seeds it is compared over

    async def incumbent_evaluation(self, incumbent: Harness, arena) -> Evaluation:
        """The whole split on the seeds that selected it (R0: the arena's): paid already, no rollout."""
        seeds = self.selected_on.get(incumbent.hash, arena.seeds)
        return await arena.evaluate_on(incumbent, arena.tasks, seeds)

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena) -> list[Verdict]:
        seeds = self.compared_on.get(incumbent.hash, arena.seeds)
        verdicts = await super().judge(incumbent, proposals, SeedView(arena, seeds))
        for proposal, verdict in zip(proposals, verdicts):
            if verdict.accepted:  # the n-th move's fresh seeds: the arena's shifted by n offsets
                self.selected_on[proposal.hash] = seeds
                self.compared_on[proposal.hash] = [s + OFFSET * len(self.selected_on) for s in arena.seeds]
        return verdicts
