"""A candidate's per-task table: filter and sort its scored trials.

Filters: split, family, failure mode, outcome (pass / fail / excluded: strict SA on a blocked task,
solve on a feasible one), "failed on every seed" (the task has valid trials and none passed) and
"flipped against the parent" (gained / lost / any, from the same flip computation as the flip page).
Sorting: by task, seed, family, outcome, failure mode or steps, ascending or descending.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CHOICES = ("split", "family", "failure_mode", "outcome")
FLIPPED = ("", "any", "gained", "lost")
ORDER = {"outcome": ("pass", "fail", "excluded")}
SORTS = ("task_id", "seed", "family", "outcome", "failure_mode", "steps")


def outcome(row: Mapping[str, Any]) -> str:
    if not row.get("valid"):
        return "excluded"
    good = row.get("solved") if row.get("feasible") else row.get("strict_sa")
    return "pass" if good else "fail"


def _choice(row: Mapping[str, Any], key: str) -> str:
    return outcome(row) if key == "outcome" else str(row.get(key) or "—")


@dataclass
class Query:
    """What the table's form asks for (`?family=…&outcome=fail&every_seed=1&flipped=lost&sort=-seed`)."""

    filters: dict[str, str] = field(default_factory=dict)
    every_seed: bool = False
    flipped: str = ""
    sort: str = ""

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> Query:
        flipped = args.get("flipped", "")
        sort = args.get("sort", "")
        return cls({k: args.get(k, "") for k in CHOICES}, args.get("every_seed", "") == "1",
                   flipped if flipped in FLIPPED else "", sort if sort.lstrip("-") in SORTS else "")

    def args(self) -> dict[str, str]:
        """The query as URL arguments (for the pager and the sort links), empty ones left out."""
        out = {k: v for k, v in self.filters.items() if v}
        if self.every_seed:
            out["every_seed"] = "1"
        if self.flipped:
            out["flipped"] = self.flipped
        if self.sort:
            out["sort"] = self.sort
        return out


def choices(rows: list[Mapping[str, Any]]) -> dict[str, list[str]]:
    found = {k: sorted({_choice(x, k) for x in rows}) for k in CHOICES}
    found["outcome"] = [o for o in ORDER["outcome"] if o in found["outcome"]]
    return found


def failed_every_seed(rows: list[Mapping[str, Any]]) -> set[str]:
    """Tasks with at least one valid trial and no passing one."""
    seen: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        seen[str(row.get("task_id"))].append(outcome(row))
    return {task for task, outs in seen.items() if "fail" in outs and "pass" not in outs}


def select(rows: list[dict[str, Any]], query: Query, flips: Mapping[tuple[str, int], str]) -> list[dict[str, Any]]:
    """The rows the query keeps, sorted; each carries its `outcome` and `flip` (gained / lost / "")."""
    failing = failed_every_seed(rows) if query.every_seed else set()
    shown = []
    for row in rows:
        if not all(not v or _choice(row, k) == v for k, v in query.filters.items()):
            continue
        if query.every_seed and str(row.get("task_id")) not in failing:
            continue
        flip = flips.get((str(row.get("task_id")), int(row.get("seed", 0))), "")
        if query.flipped and (not flip or query.flipped not in ("any", flip)):
            continue
        shown.append({**row, "outcome": outcome(row), "flip": flip})
    if query.sort:
        key = query.sort.lstrip("-")
        rank = {o: i for i, o in enumerate(ORDER.get(key, ()))}

        def value(row: dict[str, Any]) -> tuple:
            v = row.get(key)
            return (v is None, rank.get(v, 0) if rank else (v if isinstance(v, int) else str(v or "")))

        shown.sort(key=value, reverse=query.sort.startswith("-"))
    return shown
