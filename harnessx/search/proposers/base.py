"""The proposer seam: K candidate harnesses per round from the incumbent and the history."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harnessx.agent.result import RolloutResult
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.arena import Arena
from harnessx.search.objectives import Objective
from harnessx.search.space import SearchSpace
from harnessx.trajectory import Trajectory


@dataclass(frozen=True)
class Proposal:
    """One candidate harness and why: what the proposer returns, and what the ledger records."""

    harness: Harness
    edit: str         # a stable key of the edit (never re-proposed once rejected)
    rationale: str    # why the proposer expects it to help
    target: str = ""  # the library, switch group or component it changes


@dataclass(frozen=True)
class RoundContext:
    """Everything a proposer may see: search-split evidence only."""

    round: int
    objective: Objective
    space: SearchSpace
    incumbent: Harness
    evaluation: Evaluation                      # the incumbent on the full search split
    history: tuple[dict[str, Any], ...]         # every ledger row so far, rejected proposals included
    trajectory: Callable[[RolloutResult], Trajectory]
    seed: int = 0
    arena: Arena | None = None                  # for proposers that run rollouts themselves (gepa)

    def failure_modes(self) -> dict[str, int]:
        """The incumbent's failure-mode counts, largest first."""
        counts = self.evaluation.scorecard.failure_modes
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def seen_hashes(self) -> set[str]:
        return {row["hash"] for row in self.history}

    def rejected_edits(self) -> set[str]:
        return {row["edit"] for row in self.history if not row["accepted"] and row.get("edit")}

    def refuted_edits(self) -> set[str]:
        """Rejected edits with evidence against them; an undecided one (rejected, mean gain > 0,
        not significant yet) is not refuted. Ledgers without the flag count every rejection."""
        undecided = {row["edit"] for row in self.history if row.get("undecided")}
        return self.rejected_edits() - undecided

    def resumable_hashes(self) -> set[str]:
        """Harnesses whose latest verdict was undecided on part of the split: evidence can still grow
        (the rollouts they already have are reused)."""
        last: dict[str, dict[str, Any]] = {}
        for row in self.history:
            last[row["hash"]] = row
        return {h for h, row in last.items() if row.get("undecided") and row.get("stage") != "full"}


class Proposer(ABC):
    """The seam of a proposer: what the search loop reads of it, declared here with its defaults.

    Each round the loop builds a `RoundContext` (the incumbent, its evaluation on the search split,
    every ledger row so far, the search space) and calls `propose(ctx, k)`; the acceptance rule then
    judges what it returns, and the loop reports `dropped`. A proposer defines `name` and `propose`;
    `dropped` defaults to none.

    A proposer sees search-split evidence only: it must never read held-out tasks, their rollouts
    or the certification, or selection would leak into the claim. A resumed search calls `propose`
    again for the round it stopped in, so a proposer that is a pure function of the context (and
    `ctx.seed`) proposes the same harnesses again and reuses their rollouts.

    Attributes:
        name: the name recorded in the run's config and ledger.
        dropped: the drafts the last `propose` call refused, each a one-line reason (an LLM draft
            that did not parse, an edit outside the space); the loop prints them. Default: none.
        offline: True for a proposer that calls no model; otherwise the loop pre-flights the
            search's `--meta-model` before anything is written. Default: False.

    A proposer is registered as an entry point of the group `harnessx.proposers` or named by an
    import path (`--proposer package.module:Class`) and built by `from_options`.
    """

    name: str = ""
    dropped: Sequence[str] = ()
    offline: bool = False

    @classmethod
    def from_options(cls, meta_model: str | None = None, api_base: str | None = None) -> Proposer:
        """The proposer `--proposer NAME` builds, given the search's `--meta-model` and its server.
        Default: `cls()`, the options unused."""
        return cls()

    @abstractmethod
    def propose(self, ctx: RoundContext, k: int) -> list[Proposal]:
        """Up to k proposals, each a harness not evaluated before in this search.

        Args:
            ctx: the round's evidence; `ctx.seen_hashes()`, `ctx.refuted_edits()` and
                `ctx.resumable_hashes()` say what not to propose again.
            k: the most proposals the round takes (`--proposals`).

        Returns:
            At most k proposals with distinct harness hashes and distinct `edit` keys, in the order
            the rule should prefer them. An empty list ends the search ("the proposer has no new
            edit"). A proposer must not return a harness the search already evaluated unless its
            hash is in `ctx.resumable_hashes()`, and must not return more than k.
        """
