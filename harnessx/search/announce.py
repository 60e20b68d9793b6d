"""What the search loop tells a reporter beyond plan/rollout/note: a round starting and each move of
the incumbent. A reporter without these methods (a test's, a library user's) is simply not told."""

from __future__ import annotations

from typing import Any


def tell(reporter: Any, event: str, *args: Any) -> None:
    """Call the reporter's optional `event` method, when it has one."""
    method = getattr(reporter, event, None)
    if method is not None:
        method(*args)


def announce(reporter: Any, objective: Any, rows: list[dict], before: Any | None) -> None:
    """`accepted(row, before)` for each move of these ledger rows (accepted, or provisional under
    `stack`); `before` is the replaced incumbent's objective as `to_dict()` ({} when not known)."""
    base = objective.rate(before.scorecard).to_dict() if before is not None else {}
    for row in rows:
        if row["accepted"] or row.get("provisional"):
            tell(reporter, "accepted", {**row, "objective": {**row["objective"], "kind": base.get("kind")}}, base)
