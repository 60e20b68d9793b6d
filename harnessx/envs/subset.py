"""A subset of a suite's tasks: the first N sources (feasible/blocked pairs stay together) or
named tasks. `eval`/`compare` (`--sources`) and `search` (`--sources`, `--tasks`) share it."""

from __future__ import annotations

from collections.abc import Sequence

from harnessx.errors import InputError
from harnessx.tasks import Task


def select_tasks(tasks: Sequence[Task], sources: int = 0, ids: Sequence[str] | None = None) -> list[Task]:
    """`tasks` limited to the named task ids (or source ids), then to the first `sources` sources (0 = all)."""
    chosen = list(tasks)
    if ids:
        known = {t.id for t in chosen} | {t.source_id for t in chosen}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise InputError("--tasks", f"unknown task or source id(s) {unknown}",
                             f"ids of this split, e.g. {', '.join(t.id for t in chosen[:3])}")
        wanted = set(ids)
        chosen = [t for t in chosen if t.id in wanted or t.source_id in wanted]
    if sources:
        keep = set(list(dict.fromkeys(t.source_id for t in chosen))[:sources])
        chosen = [t for t in chosen if t.source_id in keep]
    return chosen
