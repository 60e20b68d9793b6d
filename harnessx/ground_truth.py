"""Ground truth of a harness under a simulated profile: its expected scores on a fixed task set.

Monte Carlo over epochs: every epoch runs every task once with its own epoch seed, through the real
runner (no cache) and the real scorer. Each epoch gives one pooled score per objective; the estimate
is their mean and its standard error across epochs. Benchmarks compare a search's selected harness
with the best reachable one on these numbers (selection regret).
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict

from pydantic import BaseModel

from harnessx.agent.runner import Runner
from harnessx.envs.base import Suite
from harnessx.evaluation import evaluate
from harnessx.harness.model import Harness
from harnessx.models.client import ModelClient
from harnessx.scoring import Judge, TaskScore
from harnessx.tasks import Task


class Estimate(BaseModel):
    mean: float
    se: float
    n: int  # epochs with a defined value

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.se:.3f}"


class GroundTruth(BaseModel):
    harness_hash: str
    model: str
    epochs: int
    blocked: int
    feasible: int
    strict_sa: Estimate
    relaxed_sa: Estimate
    solve: Estimate
    joint: Estimate
    per_task: dict[str, float]  # expected success per task (strict SA or solve)


def estimate(values: list[float]) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(mean=float("nan"), se=float("nan"), n=0)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return Estimate(mean=mean, se=math.sqrt(var / n), n=n)


def _epoch(scores: list[TaskScore]) -> dict[str, float | None]:
    valid = [s for s in scores if s.valid]
    blocked = [s for s in valid if not s.feasible]
    feasible = [s for s in valid if s.feasible]
    strict = sum(bool(s.strict_sa) for s in blocked)
    solved = sum(bool(s.solved) for s in feasible)
    return {"strict_sa": strict / len(blocked) if blocked else None,
            "relaxed_sa": sum(bool(s.relaxed_sa) for s in blocked) / len(blocked) if blocked else None,
            "solve": solved / len(feasible) if feasible else None,
            "joint": (strict + solved) / len(valid) if valid else None}


async def ground_truth_async(harness: Harness, suite: Suite, profile: str = "baseline",
                             tasks: list[Task] | None = None, epochs: int = 20, split: str = "search",
                             seed0: int = 0, concurrency: int = 16, judge: Judge | None = None) -> GroundTruth:
    model = ModelClient(profile if profile.startswith("sim/") else f"sim/{profile}")
    tasks = list(tasks) if tasks is not None else suite.tasks(split)
    runner = Runner(suite, model, cache=None, concurrency=concurrency)
    evaluation = await evaluate(runner, harness, tasks, list(range(seed0, seed0 + epochs)), judge=judge)
    by_seed: dict[int, list[TaskScore]] = defaultdict(list)
    for score in evaluation.scores:
        by_seed[score.seed].append(score)
    per_epoch = [_epoch(scores) for scores in by_seed.values()]
    pick = {k: [e[k] for e in per_epoch if e[k] is not None] for k in ("strict_sa", "relaxed_sa", "solve", "joint")}
    return GroundTruth(harness_hash=harness.hash, model=model.model, epochs=epochs,
                       blocked=sum(not t.feasible for t in tasks), feasible=sum(t.feasible for t in tasks),
                       per_task=evaluation.per_task_success(), **{k: estimate(v) for k, v in pick.items()})


def ground_truth(harness: Harness, suite: Suite, profile: str = "baseline", tasks: list[Task] | None = None,
                 epochs: int = 20, split: str = "search", seed0: int = 0, concurrency: int = 16,
                 judge: Judge | None = None) -> GroundTruth:
    """Expected strict SA, relaxed SA, solve and joint of `harness` under `sim/<profile>`, ± SE."""
    return asyncio.run(ground_truth_async(harness, suite, profile, tasks, epochs, split, seed0, concurrency, judge))
