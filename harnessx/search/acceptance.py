"""Acceptance rules: which of a round's proposals, if any, replaces the incumbent.

This module declares the seam: `AcceptanceRule`, the base class every rule derives from, with the
one method a rule must define (`judge`) and every other hook the search loop calls, each with its
default (`options`, `restore`, `incumbent_evaluation`); what a rule returns (`Verdict`); and the paired
evidence the rules share (`Paired`, `describe`). It imports no rule. The rules live in their own
modules — `default` = `explore` (harnessx/search/explore.py), `greedy` (greedy.py), `paired`
(racing.py) — and harnessx/search/rules.py maps their names to their classes.

`default` moves on modest evidence and leaves the claim to the certification at the end
(harnessx/search/certify.py). `greedy` is the paper's rule: every proposal gets a full evaluation
and the best one is accepted if its objective is strictly higher than the incumbent's; with one
stochastic rollout per task it accepts noise often (anchors §5: ~23% of rounds when nothing
differs). `paired` tests every accept: challenger and incumbent on the same tasks and seeds,
per-task differences, a one-sided paired test with Holm's correction over the round's proposals,
racing (a smoke subset, then half the tasks) to stop clear losers early, and, for `joint`, a veto
on a significant regression in either stratum. Each records p-values and a bootstrap CI of the
mean per-task difference.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import numpy as np

from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.arena import RuleArena
from harnessx.stats import paired_bootstrap_ci, paired_test

RESAMPLES = 2000  # permutation and bootstrap draws: p resolution 0.0005, well below alpha / K


@dataclass
class Verdict:
    """What the rule decided about one proposal, and on what evidence (one ledger row each)."""

    evaluation: Evaluation
    stage: str                      # smoke / race / full: how far it got
    accepted: bool = False
    mean_diff: float | None = None  # mean per-task difference, challenger − incumbent
    p_value: float | None = None    # one-sided, challenger > incumbent
    p_adjusted: float | None = None
    ci: tuple[float, float] | None = None
    strata: dict[str, dict] = field(default_factory=dict)
    reason: str = ""
    undecided: bool = False         # rejected without evidence against it: the proposer may bring it back


@dataclass(frozen=True)
class Paired:
    """Matched tasks and seeds; per-task per-seed mean success compared by a one-sided paired test."""

    per_task: dict[str, float]
    other: dict[str, float]
    strata: dict[str, str]
    abstain: dict[str, tuple[float, float]] = field(default_factory=dict)  # feasible: (challenger, incumbent)

    @classmethod
    def of(cls, challenger: Evaluation, incumbent: Evaluation, value_key: str | None = None) -> "Paired":
        """Per-task values of both on their common tasks (`value_key`: the objective's, None = ASA success),
        and their false abstention where both have one (the `joint` veto, harnessx/search/veto.py)."""
        a, b = challenger.per_task_success(value_key), incumbent.per_task_success(value_key)
        common = sorted(a.keys() & b.keys())
        strata = {t.id: t.stratum for t in challenger.tasks}
        fa, fb = challenger.per_task_success("false_abstention"), incumbent.per_task_success("false_abstention")
        return cls({k: a[k] for k in common}, {k: b[k] for k in common}, {k: strata[k] for k in common},
                   {k: (fa[k], fb[k]) for k in common if k in fa and k in fb})

    def arrays(self, stratum: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        ids = [k for k in self.per_task if stratum is None or self.strata[k] == stratum]
        return np.array([self.per_task[k] for k in ids]), np.array([self.other[k] for k in ids])

    def test(self, stratum: str | None = None, harm: bool = False, method: str = "sign_flip") -> tuple[float, float]:
        """(mean difference, one-sided p) for improvement, or for harm with `harm=True`."""
        a, b = self.arrays(stratum)
        if a.size == 0:
            return 0.0, 1.0
        first, second = (b, a) if harm else (a, b)
        result = paired_test(first, second, method=method, n_resamples=RESAMPLES)
        return float((a - b).mean()), result.p_value

    def subset(self, ids: list[str]) -> "Paired":
        """The same pairs restricted to `ids` (those it has), in that order."""
        keep = [t for t in ids if t in self.per_task]
        return Paired({t: self.per_task[t] for t in keep}, {t: self.other[t] for t in keep},
                      {t: self.strata[t] for t in keep}, {t: self.abstain[t] for t in keep if t in self.abstain})

    def ci(self) -> tuple[float, float]:
        a, b = self.arrays()
        _, lo, hi = paired_bootstrap_ci(a, b, n_resamples=RESAMPLES)
        return lo, hi


def describe(verdict: Verdict, paired: Paired, strata: tuple[str, ...]) -> None:
    """Fill the verdict's evidence: mean difference, one-sided p, bootstrap CI and, with several
    strata, each stratum's mean difference and harm p."""
    verdict.mean_diff, verdict.p_value = paired.test()
    verdict.ci = paired.ci() if paired.per_task else None
    if len(strata) > 1:
        for stratum in strata:
            diff, p_harm = paired.test(stratum, harm=True)
            verdict.strata[stratum] = {"mean_diff": diff, "p_harm": p_harm}


class AcceptanceRule(ABC):
    """The seam of an acceptance rule: every hook the search loop calls, declared here with its default.

    A rule defines `name` and `judge`; it overrides a hook only to change its default. The loop calls
    each hook on every rule, in this order: `restore` once (a resumed search), `incumbent_evaluation`
    whenever the incumbent changes, then each round `looks` (how many proposals to ask for) and `judge`;
    in a budget-driven search (a budget, no --rounds) `round_rollouts` before each round.

    A rule decides *moves*, not the claim: the selected harness is certified afterwards, once, on
    tasks selection never saw. A rule gets its evidence only through the `Arena` (which pays for
    rollouts, caches them, and raises `BudgetExhausted` at the budget: a rule lets that propagate,
    and the loop stops the search with the round unfinished). A rule must never run rollouts past
    the arena, read held-out tasks, or change the harnesses it is given.

    Attributes:
        name: the `--accept` name, recorded in the run's config.
        takes_alpha: whether `make_acceptance` builds it with `alpha=--alpha`. Default: False.
    """

    name: str = ""
    takes_alpha: bool = False  # built with `alpha=--alpha` by `make_acceptance`

    @abstractmethod
    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: RuleArena) -> list[Verdict]:
        """Decide a round: which proposal, if any, replaces the incumbent.

        Args:
            incumbent: the working incumbent.
            proposals: the round's candidates, in the proposer's order (distinct hashes).
            arena: where to evaluate them (`arena.evaluate(h)` on the search split, or a prefix of
                it with `n_tasks`; `arena.evaluate_on(h, tasks)` on chosen tasks), with its objective.

        Returns:
            One verdict per proposal, in their order, each holding the evaluation it was judged on,
            how far it got (`stage`) and why (`reason`). At most one is accepted;
            a rejection without evidence against it sets `undecided`, so the proposer may bring it
            back.
        """

    def looks(self, proposals: int) -> int:
        """How many candidates the rule judges in a round when the search asks for `proposals`
        (`--proposals`): the loop asks the proposer for this many. Default: `proposals`."""
        return proposals

    def round_rollouts(self, tasks: int, proposals: int) -> int:
        """The most rollouts (one seed) a round of `proposals` can pay on a split of `tasks` tasks: a
        budget-driven search gives a round the most proposals whose figure what is left of its budget
        covers (none: it stops), so no round is cut off half-judged. Non-decreasing in `proposals`.
        Default: every look on every task."""
        return self.looks(proposals) * tasks

    def options(self) -> dict[str, Any]:
        """The rule's settings, as JSON values: `--accept-option name=value` sets them, config.json
        records them, and `--resume` must be given the same. Default: a dataclass rule's fields (but
        `name`), else none."""
        if is_dataclass(self):
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "name"}
        return {}

    def restore(self, history: list[dict]) -> None:
        """Rebuild the rule's memory from a resumed search's ledger rows (every row so far, in order).
        Default: a rule without memory does nothing."""

    async def incumbent_evaluation(self, incumbent: Harness, arena: RuleArena) -> Evaluation:
        """The incumbent's evaluation the proposer sees (its `RoundContext.evaluation`).
        Default: the full search split."""
        return await arena.evaluate(incumbent)
