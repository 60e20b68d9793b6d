"""Search objectives by name: every benchmark's (`sa` and `joint` from ASA, digest §1.5; others as
their benchmarks land). The Objective type lives in `harnessx.scoring.objective`."""

from __future__ import annotations

from harnessx.benchmarks import objectives
from harnessx.errors import InputError, one_of
from harnessx.scoring.objective import Objective

__all__ = ["Objective", "get_objective", "objective_names"]


def objective_names() -> list[str]:
    return list(objectives())


def get_objective(name: str) -> Objective:
    known = objectives()
    if name not in known:
        raise InputError("--objective", f"unknown objective {name!r}", one_of(known))
    return known[name]


def check_measured(objective: Objective, tasks: list, env: str) -> None:
    """Refuse an objective that no search task measures (it would select on an empty value)."""
    from harnessx.benchmarks import benchmark_of

    if objective.value_key is None:
        return
    if not any(objective.name in benchmark_of(t).objectives for t in objective.tasks(tasks)):
        owners = sorted({benchmark_of(t).name for t in tasks}) or ["none"]
        raise InputError("--objective", f"{objective.name!r} is not measured by any search task of --env {env} "
                                        f"(its tasks are scored by: {', '.join(owners)})",
                         "an environment whose tasks are scored by the benchmark that declares this objective")
