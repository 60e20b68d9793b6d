"""A model judge's calls run concurrently (bounded by the runner's concurrency), not one at a time."""

from __future__ import annotations

import threading
import time

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.scoring.judges import DeterministicJudge, Verdict


class SlowJudge:
    """The deterministic verdict after a 0.3 s 'model call'; counts calls in flight."""

    name = "slow"

    def __init__(self) -> None:
        self.inner, self.lock = DeterministicJudge(), threading.Lock()
        self.in_flight = self.peak = self.calls = 0

    def judge(self, task, assessments, reason) -> Verdict:
        with self.lock:
            self.in_flight += 1
            self.calls += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(0.3)
        with self.lock:
            self.in_flight -= 1
        return self.inner.judge(task, assessments, reason)


async def test_judge_calls_overlap_up_to_the_runner_concurrency_and_agree_with_sequential():
    suite = ToySuite(n_sources=4)
    tasks = suite.tasks()
    runner = Runner(suite, ModelClient("sim/baseline"), concurrency=4)
    harness = load_preset("A1")
    judge = SlowJudge()
    evaluation = await evaluate(runner, harness, tasks, [0], judge=judge)
    assert judge.calls == 8 and 2 <= judge.peak <= 4  # 8 blocked tasks judged, never more than 4 at once
    sequential = await evaluate(runner, harness, tasks, [0], judge=DeterministicJudge())
    assert [s.model_dump() for s in evaluation.scores] == [
        s.model_dump() | {"judge": "slow"} if not s.feasible else s.model_dump() for s in sequential.scores]
