"""`paired`: the rule that tests every accept: a one-sided paired test with Holm's correction over the
round's proposals, after racing out clear losers (a smoke subset, then half the tasks), with the
`joint` stratum veto."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import get_args

from harnessx.errors import InputError
from harnessx.evaluation import Evaluation
from harnessx.harness import Harness
from harnessx.search.acceptance import AcceptanceRule, Paired, Verdict, describe
from harnessx.search.veto import p_harmed, vetoes
from harnessx.search.arena import Arena
from harnessx.stats import holm
from harnessx.stats.paired import Method

METHODS = get_args(Method)  # the paired tests `method` may name


@dataclass
class PairedRacing(AcceptanceRule):
    """One-sided paired test with Holm over the round, after racing out clear losers.

    Stages: `smoke` tasks, then half the tasks, then all tasks. After each of the first two, a
    proposal is dropped if it crashed (no valid rollout), abstained on every feasible task, or is a
    clear loser (one-sided paired test for harm, p < `drop_p`). Accept the survivor with the
    largest mean gain among those whose Holm-adjusted p is below `alpha`, unless (joint) either
    stratum regresses with p < `alpha`.
    """

    alpha: float = 0.05
    smoke: int = 8
    drop_p: float = 0.25
    method: str = "sign_flip"
    name: str = "paired"
    takes_alpha = True

    def __post_init__(self) -> None:
        checks = [("alpha", 0 < self.alpha < 1, "in (0, 1)"), ("smoke", self.smoke >= 1, "an integer >= 1"),
                  ("drop_p", 0 < self.drop_p < 1, "in (0, 1)"),
                  ("method", self.method in METHODS, " or ".join(METHODS))]
        for field_name, ok, expected in checks:
            if not ok:
                raise InputError("--accept paired", f"{field_name} = {getattr(self, field_name)!r}", expected)

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        inc = await arena.evaluate(incumbent)
        n_all = len(arena.tasks)
        stages = [("smoke", min(self.smoke, n_all)), ("race", max(self.smoke, n_all // 2)), ("full", n_all)]
        verdicts: dict[int, Verdict] = {}
        alive = list(range(len(proposals)))
        for stage, n in stages:
            if not alive:
                break
            evals = await asyncio.gather(*(arena.evaluate(proposals[i], n) for i in alive))
            survivors = []
            for i, ev in zip(alive, evals):
                verdicts[i] = Verdict(ev, stage)
                if stage != "full" and (why := self._drop(stage, ev, Paired.of(ev, inc, arena.objective.value_key),
                                                          arena)):
                    verdicts[i].reason = why
                else:
                    survivors.append(i)
            alive = survivors
        for i, verdict in verdicts.items():
            describe(verdict, Paired.of(verdict.evaluation, inc, arena.objective.value_key), arena.objective.strata)
        p_full = [verdicts[i].p_value if i in alive else 1.0 for i in range(len(proposals))]
        adjusted = holm(p_full) if p_full else []
        candidates = []
        for i in alive:
            verdict = verdicts[i]
            verdict.p_adjusted = adjusted[i]
            harmed = vetoes(Paired.of(verdict.evaluation, inc, arena.objective.value_key), arena.objective.strata,
                            p_harmed(self.alpha))
            if verdict.p_adjusted >= self.alpha:
                verdict.undecided = (verdict.mean_diff or 0.0) > 0
                verdict.reason = f"not significant: Holm-adjusted p = {verdict.p_adjusted:.3f} >= {self.alpha}"
            elif harmed:
                verdict.reason = f"significant gain but {'/'.join(harmed)} regresses (p_harm < {self.alpha})"
            else:
                candidates.append(i)
        if candidates:
            best = max(candidates, key=lambda i: (verdicts[i].mean_diff, -verdicts[i].p_adjusted))
            verdicts[best].accepted = True
            verdicts[best].reason = (f"accepted: mean Δ = {verdicts[best].mean_diff:+.3f}, "
                                     f"Holm-adjusted p = {verdicts[best].p_adjusted:.3f} < {self.alpha}")
            for i in candidates:
                if i != best:
                    verdicts[i].reason = "significant, but another proposal gained more"
        return [verdicts[i] for i in range(len(proposals))]

    def _drop(self, stage: str, ev: Evaluation, paired: Paired, arena: Arena) -> str:
        card = ev.scorecard
        if arena.objective.rate(card).n == 0:  # nothing the objective can count: every rollout excluded
            return f"{stage}: no valid rollout"
        if card.false_abstention.n and card.false_abstention.k == card.false_abstention.n:
            return f"{stage}: abstained on every feasible task"
        diff, p_harm = paired.test(harm=True, method=self.method)
        if p_harm < self.drop_p:
            return f"raced out at {stage}: mean Δ = {diff:+.3f}, harm p = {p_harm:.3f} < {self.drop_p}"
        return ""
