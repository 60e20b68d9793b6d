"""`greedy`, the paper's acceptance rule: every proposal fully evaluated, the best one accepted if
its objective is strictly higher than the incumbent's."""

from __future__ import annotations

import asyncio

import numpy as np

from harnessx.harness import Harness
from harnessx.search.acceptance import AcceptanceRule, Paired, Verdict, describe
from harnessx.search.arena import Arena


class Greedy(AcceptanceRule):
    """The paper's rule: full evaluation of every proposal; the best one wins if strictly better."""

    name = "greedy"

    async def judge(self, incumbent: Harness, proposals: list[Harness], arena: Arena) -> list[Verdict]:
        inc = await arena.evaluate(incumbent)
        evals = await asyncio.gather(*(arena.evaluate(p) for p in proposals))
        incumbent_value = arena.objective.rate(inc.scorecard).value or 0.0
        verdicts = []
        for ev in evals:
            verdict = Verdict(ev, "full")
            describe(verdict, Paired.of(ev, inc, arena.objective.value_key), arena.objective.strata)
            verdicts.append(verdict)
        values = [arena.objective.rate(v.evaluation.scorecard).value or 0.0 for v in verdicts]
        best = int(np.argmax(values)) if values else -1
        for i, (verdict, value) in enumerate(zip(verdicts, values)):
            if i == best and value > incumbent_value:
                verdict.accepted, verdict.reason = True, f"best of round, {value:.3f} > incumbent {incumbent_value:.3f}"
            elif value > incumbent_value:
                verdict.reason = f"{value:.3f} > incumbent {incumbent_value:.3f} but not the round's best"
            else:
                verdict.reason = f"{value:.3f} <= incumbent {incumbent_value:.3f}"
        return verdicts
