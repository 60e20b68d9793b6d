"""`margin`: the worked example of docs/howto/add-acceptance-rule.md.

Every proposal gets the full search split, paired with the incumbent on the same tasks and seeds;
the proposal with the largest mean per-task gain is accepted when that gain is at least `margin`
and its one-sided paired p-value is below `alpha`. A gain that is positive but short of either bar
is rejected as undecided, so the proposer may bring the edit back.
"""

from __future__ import annotations

import asyncio

from harnessx import AcceptanceRule, Harness, Verdict
from harnessx.search.acceptance import Paired, describe
from harnessx.search.arena import Arena


class MarginRule(AcceptanceRule):
    name = "margin"
    takes_alpha = True  # `harnessx search --alpha` reaches the constructor

    def __init__(self, alpha: float = 0.05, margin: float = 0.05):
        self.alpha, self.margin = alpha, margin

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        base = await arena.evaluate(incumbent)
        evaluations = await asyncio.gather(*(arena.evaluate(p) for p in proposals))
        verdicts = []
        for evaluation in evaluations:
            verdict = Verdict(evaluation, "full")
            paired = Paired.of(evaluation, base, arena.objective.value_key)
            describe(verdict, paired, arena.objective.strata)  # mean_diff, p_value, ci, per stratum
            verdicts.append(verdict)
        best = max(verdicts, key=lambda v: v.mean_diff or 0.0, default=None)
        for verdict in verdicts:
            gain, p = verdict.mean_diff or 0.0, verdict.p_value if verdict.p_value is not None else 1.0
            if verdict is best and gain >= self.margin and p < self.alpha:
                verdict.accepted = True
                verdict.reason = f"gain {gain:+.3f} >= margin {self.margin} at p={p:.3f} < {self.alpha}"
            else:
                verdict.undecided = gain > 0  # some evidence for it, not enough: not refuted
                verdict.reason = f"gain {gain:+.3f}, p={p:.3f}: needs >= {self.margin} at p < {self.alpha}"
        return verdicts
