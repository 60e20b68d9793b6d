"""How a candidate's score on part of the search split is labelled wherever it is shown (the viewer's
tree, the report's plots, MLflow): from the ledger row's `judged` record (`harnessx.search.judged`)."""

from __future__ import annotations

from typing import Any


def subset_label(row: dict[str, Any]) -> str:
    """'' for a candidate judged on the whole split, else e.g. 'screened on 16 of 128 tasks (race)'."""
    judged = row.get("judged") or {}
    if not judged.get("screened"):
        return ""
    return f"screened on {judged['tasks']} of {judged['of']} tasks ({row.get('stage', '?')})"


def rungs(row: dict[str, Any]) -> list[tuple[int, float]]:
    """The row's paired difference at each rung, as (tasks judged on, difference), fewest tasks first."""
    return sorted((int(n), d) for n, d in ((row.get("judged") or {}).get("rungs") or {}).items())
