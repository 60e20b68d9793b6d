"""Search objectives by name: every benchmark's (`sa` and `joint` from ASA, digest §1.5; others as
their benchmarks land). The Objective type lives in `harnessx.scoring.objective`."""

from __future__ import annotations

from harnessx.benchmarks import objectives
from harnessx.errors import InputError
from harnessx.scoring.objective import Objective

__all__ = ["Objective", "get_objective", "objective_names"]


def objective_names() -> list[str]:
    return list(objectives())


def get_objective(name: str) -> Objective:
    known = objectives()
    if name not in known:
        raise InputError("--objective", f"unknown objective {name!r}", f"one of {', '.join(known)}")
    return known[name]
