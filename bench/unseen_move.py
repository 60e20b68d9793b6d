"""`unseen` (a bench-only design of the default rule, measured, not shipped): `explore` whose move is
decided on the tasks the round's screen did not see.

Why it was tried: the shipped rule decides a move on the climber's paired differences over the whole
split, and the split includes the screen, three quarters of which are pairs picked where the
incumbent failed (a copy can only tie or gain there) and on which the climber was chosen as the
best of K. In the search ledgers set against ground truth the Δ that moved overstated the move's
true gain in 7 of 9 moves. Here the screen still picks the climber and the rungs still stop it, but
the move's p-value and the harm veto see only the split minus the screen: a sample chosen blind to
every outcome.

What it costs: nothing in rollouts (the same tasks are paid); the move test has `screen` fewer tasks.
"""

from __future__ import annotations

from harnessx.search.acceptance import Paired, Verdict
from harnessx.search.explore import Explore


class UnseenMove(Explore):
    """`explore`, with the move tested on the tasks outside the round's screen (module docstring)."""

    name = "unseen"

    def __init__(self, settings=None, **options):
        super().__init__(settings, **options)
        if self.settings.design == "window":
            raise ValueError("unseen: the window design has no screen to leave out")

    def window(self, arena, incumbent_eval):
        screen, order = super().window(arena, incumbent_eval)
        seen = {t.id for t in screen}
        self.unseen = [t.id for t in order if t.id not in seen]
        return screen, order

    def _move(self, verdicts: dict[int, Verdict], i: int, paired: Paired, strata: tuple[str, ...]) -> None:
        super()._move(verdicts, i, paired.subset(self.unseen), strata)
