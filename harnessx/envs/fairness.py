"""Tasks that cannot be scored fairly, found when a suite is loaded.

- A blocked task whose evidence is an `observation` (the agent must look before it may defer) but
  whose task text already states the blocker (its description, verbatim): deferring without looking
  would be scored as looking.
- A task that shares its source with a task of another split (a held-out variant of a search task):
  selection would have seen the held-out task's source, so held-out numbers would be contaminated.

Each problem is one line naming the task, the field and what was expected; a loader lists such a
task as invalid (never run, excluded as `invalid_task`) instead of scoring it.
"""

from __future__ import annotations

from collections.abc import Sequence

from harnessx.tasks import Task


def _plain(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def task_problem(task: Task) -> str | None:
    """Why this task alone cannot be scored fairly, or None."""
    if task.feasible or task.blocker is None or task.evidence is None or task.evidence.where != "observation":
        return None
    stated = _plain(task.blocker.description)
    if stated and stated in _plain(task.instruction):
        return (f"task {task.id}: blocker.description {task.blocker.description[:60]!r} is stated in the task text, "
                "but evidence.where = 'observation' (expected the blocker hidden from the task text until observed, "
                "or evidence.where = 'spec')")
    return None


def split_problems(tasks: Sequence[Task]) -> dict[str, str]:
    """Task id -> why it cannot be scored fairly: a source whose tasks lie in more than one split
    (a variant held out from its search source, or the reverse) marks every task of that source that is
    not in the source task's own split (the task whose id is the source id; else the first one's)."""
    by_source: dict[str, list[Task]] = {}
    for task in tasks:
        by_source.setdefault(task.source_id, []).append(task)
    problems = {}
    for source, group in by_source.items():
        if len({t.split for t in group}) < 2:
            continue
        anchor = next((t for t in group if t.id == source), group[0])
        for task in group:
            if task.split != anchor.split:
                problems[task.id] = (f"task {task.id}: split = {task.split!r} but its source {source!r} is a "
                                     f"{anchor.split!r} task ({anchor.id}); expected split = {anchor.split!r} "
                                     "(a source's tasks share a split, or held-out results are contaminated)")
    return problems


def unfair(tasks: Sequence[Task]) -> dict[str, str]:
    """Every task of `tasks` that cannot be scored fairly, with its reason."""
    problems = split_problems(tasks)
    for task in tasks:
        if task.id not in problems and (why := task_problem(task)):
            problems[task.id] = why
    return problems
