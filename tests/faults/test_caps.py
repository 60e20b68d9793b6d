"""A cap is a cap: a proposer that evaluates candidates itself (as gepa does, in its own thread and
event loops) cannot use more rollouts than the pre-flight planned, and the search stops cleanly."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from harnessx.envs.toy import ToySuite
from harnessx.search import Search, SearchConfig
from harnessx.search.proposers import Proposal, Proposer


class GreedyEvaluator(Proposer):
    """Evaluates many fresh candidates per round, far beyond one round's share of the plan."""

    name = "greedy-evaluator"

    def propose(self, ctx, k):
        def spend():
            for i in range(6):
                harness = ctx.incumbent.with_component("system_prompt", f"variant {ctx.round}-{i}")
                asyncio.run(ctx.arena.evaluate(harness))
            return harness

        with ThreadPoolExecutor(1) as pool:
            harness = pool.submit(spend).result()
        return [Proposal(harness, f"variant {ctx.round}", "spent", "system_prompt")]


def test_a_self_evaluating_proposer_stops_at_the_planned_rollouts(tmp_path):
    cfg = SearchConfig.of(env="toy", model="sim/baseline", rounds=2, proposals=1, runs_dir=str(tmp_path / "runs"),
                       tracking_uri=None, concurrency=4)
    search = Search(cfg, suite=ToySuite(2), proposer=GreedyEvaluator())
    planned = search.plan()["rollouts"]
    result = asyncio.run(search.run())
    assert result.summary["rollouts"] <= planned
    assert result.summary["stop_reason"].startswith("budget: --max-rollouts")
