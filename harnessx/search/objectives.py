"""Search objectives (digest §1.5): `sa` = strict SA on blocked search tasks (Eq. 7); `joint` =
(strict-SA successes + solves) / (blocked + feasible search tasks), a pooled count (Eq. 8)."""

from __future__ import annotations

from dataclasses import dataclass

from harnessx.errors import InputError
from harnessx.scoring import Scorecard
from harnessx.scoring.rate import Rate
from harnessx.tasks import Task


@dataclass(frozen=True)
class Objective:
    name: str
    strata: tuple[str, ...]  # the task strata the objective counts

    def tasks(self, tasks: list[Task]) -> list[Task]:
        return [t for t in tasks if t.stratum in self.strata]

    def rate(self, scorecard: Scorecard) -> Rate:
        return scorecard.objective(self.name)


OBJECTIVES = {"sa": Objective("sa", ("blocked",)), "joint": Objective("joint", ("blocked", "feasible"))}


def get_objective(name: str) -> Objective:
    if name not in OBJECTIVES:
        raise InputError("--objective", f"unknown objective {name!r}", f"one of {', '.join(OBJECTIVES)}")
    return OBJECTIVES[name]
