"""What the search loop tells its caller: the seam a progress display (the CLI's), a test or a
library user implements. Every hook is declared here with a no-op default, so a reporter overrides
only what it shows and the loop calls each hook directly (no probing for optional methods)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harnessx.agent.result import RolloutResult


class Reporter:
    """The base of every reporter; the default reports nothing."""

    def plan(self, total: int, done: int) -> None:
        """The rollouts the search plans in all (`total`) and those already paid (`done`, on resume)."""

    def claim(self, total: int, done: int) -> None:
        """The claim begins after the search: `total` more rollouts (outside the search's budget and
        its planned figure) after the search's `done`."""

    def rollout(self, result: RolloutResult, cost_usd: float) -> None:
        """One rollout finished (fresh or from the cache) and what it cost."""

    def note(self, text: str) -> None:
        """A line for the user (a dropped proposal, a re-plan)."""

    def round_started(self, round_no: int) -> None:
        """A round begins (0 is R0's evaluation)."""

    def accepted(self, row: dict, before: dict) -> None:
        """The incumbent moved: `row` is the accepted ledger row, `before` the replaced incumbent's
        objective as `to_dict()` ({} when not known)."""

    def stayed(self, round_no: int, rows: list[dict]) -> None:
        """A round ended without a move: `rows` are its ledger rows (each with the rule's `reason`)."""


def announce(reporter: Reporter, objective: Any, rows: list[dict], before: Any | None) -> None:
    """`accepted(row, before)` for each move among these ledger rows, or `stayed` when none moved."""
    base = objective.rate(before.scorecard).to_dict() if before is not None else {}
    if rows and not any(row["accepted"] for row in rows):
        reporter.stayed(rows[0]["round"], rows)
    for row in rows:
        if row["accepted"]:
            reporter.accepted({**row, "objective": {**row["objective"], "kind": base.get("kind")}}, base)
