"""`unseen` (a bench-only design name, kept so the runs that measured it re-run): `explore` whose move
is decided on the tasks the round's screen did not see: the rule's `confirm = "unseen"`
(harnessx/search/explore.py), which this name pins whatever --default's `confirm` says.

Why it was tried: the rule decided a move on the climber's paired differences over the whole
split, and the split includes the screen, three quarters of which are pairs picked where the
incumbent failed (a copy can only tie or gain there) and on which the climber was chosen as the
best of K. On retail's 128 tasks it changed nothing measurable; on a 20-task split the screen is 16
of the 20 tasks, and the rule moved to a harmful edit lucky there (docs/search-benchmarks.md).
"""

from __future__ import annotations

from dataclasses import replace

from harnessx.search.explore import Explore


class UnseenMove(Explore):
    """`explore` with `confirm` fresh: the move tested on the tasks outside the round's screen."""

    name = "unseen"

    def __init__(self, settings=None, **options):
        super().__init__(settings, **options)
        if self.settings.design == "window":
            raise ValueError("unseen: the window design has no screen to leave out")
        self.settings = replace(self.settings, confirm="unseen")
