"""Run a probe for several contenders and assemble its JSON (model, split, per-harness results)."""

from __future__ import annotations

from harnessx.agent.runner import ProgressFn, Runner
from harnessx.comparison.runs import Contender
from harnessx.probes.belief import probe_beliefs
from harnessx.probes.belief_metrics import belief_summary
from harnessx.probes.challenge import run_challenge
from harnessx.scoring import Judge
from harnessx.tasks import Task


def _header(runner: Runner, contenders: list[Contender], split: str) -> dict:
    return {"env": runner.suite.name, "split": split, "model": runner.model.describe(),
            "simulated": runner.model.simulated, "contenders": [c.to_dict() for c in contenders]}


async def belief_probe(runner: Runner, contenders: list[Contender], tasks: list[Task], split: str, seeds: list[int],
                       n_resamples: int = 10_000, seed: int = 0) -> dict:
    reports = {c.label: await probe_beliefs(runner.suite, runner.model, c.harness, tasks, seeds, runner.concurrency)
               for c in contenders}
    return {**_header(runner, contenders, split), "seeds": seeds, **belief_summary(reports, n_resamples, seed),
            "reports": {label: [r.model_dump() for r in rs] for label, rs in reports.items()}}


async def challenge_probe(runner: Runner, contenders: list[Contender], tasks: list[Task], split: str, replicates: int,
                          pre: str, post: str, judge: Judge | None = None, progress: ProgressFn | None = None,
                          seeds: list[int] | None = None) -> dict:
    return {**_header(runner, contenders, split),
            "harnesses": {c.label: await run_challenge(runner, c.harness, tasks, replicates, pre, post, judge,
                                                       progress=progress, seeds=seeds) for c in contenders}}
