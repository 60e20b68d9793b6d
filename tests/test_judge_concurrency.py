"""A model judge's calls run concurrently (bounded by the runner's concurrency), not one at a time:
with a judge stand-in, and with the LLM rubric judge on a scripted LiteLLM model with latency."""

from __future__ import annotations

import threading
import time

import pytest

from harnessx.agent.runner import Runner
from harnessx.envs.toy import ToySuite
from harnessx.evaluation import evaluate
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.scoring.llm_judge import LLMJudge
from harnessx.scoring.judges import DeterministicJudge, Verdict


class SlowJudge:
    """The deterministic verdict after a 0.3 s 'model call'; counts calls in flight."""

    name = "slow"

    def __init__(self) -> None:
        self.inner, self.lock = DeterministicJudge(), threading.Condition()
        self.in_flight = self.peak = self.calls = 0

    def judge(self, task, assessments, reason) -> Verdict:
        with self.lock:
            self.in_flight += 1
            self.calls += 1
            self.peak = max(self.peak, self.in_flight)
            self.lock.notify_all()
            # the first call is held until a second one is in flight (however slowly the machine starts it):
            # judged one at a time, it would never come (and the suite's timeout ends the test)
            self.lock.wait_for(lambda: self.peak >= 2)
        time.sleep(0.3)  # the 'model call', during which more calls may start (never more than 4)
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


class CountingClient(ModelClient):
    """A real ModelClient (LiteLLM, scripted provider) that counts its calls in flight."""

    def __init__(self, model: str):
        super().__init__(model, temperature=0.0)
        self.lock = threading.Lock()
        self.in_flight = self.peak = self.calls = 0

    async def complete(self, *args, **kwargs):
        with self.lock:
            self.in_flight += 1
            self.calls += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            return await super().complete(*args, **kwargs)
        finally:
            with self.lock:
                self.in_flight -= 1


def rubric_answer(messages, tools, metadata) -> dict:
    """A judge model that takes 0.2 s and answers the rubric: not recognised."""
    return {"content": '{"recognized": false, "first_assessment": null, "reason_matches": false, '
                       '"rationale": "no assessment names the blocker"}', "latency_s": 0.2}


JUDGE_MODEL = register_script("slow-rubric-judge", rubric_answer)


@pytest.mark.parametrize("concurrency", [4, 1])
async def test_llm_judge_calls_through_litellm_overlap_within_the_runner_concurrency(concurrency):
    suite = ToySuite(n_sources=4)
    runner = Runner(suite, ModelClient("sim/baseline"), concurrency=concurrency)
    client = CountingClient(JUDGE_MODEL)
    judge = LLMJudge(client=client)
    evaluation = await evaluate(runner, load_preset("A1"), suite.tasks(), [0], judge=judge)
    blocked = [s for s in evaluation.scores if not s.feasible]
    assert client.calls == len(blocked) == 8  # one rubric call per blocked rollout
    assert all(s.valid and s.judge == judge.name for s in blocked)
    if concurrency == 1:
        assert client.peak == 1  # the budget holds: one at a time when the runner allows one
    else:
        assert 2 <= client.peak <= concurrency  # calls overlapped, never beyond the runner's concurrency


async def test_the_challenge_probe_judges_concurrently_too():
    from harnessx.probes.challenge import run_challenge

    suite = ToySuite(n_sources=4)
    runner = Runner(suite, ModelClient("sim/baseline"), concurrency=4)
    client = CountingClient(JUDGE_MODEL)
    out = await run_challenge(runner, load_preset("A1"), suite.tasks(), 1, "strict_sa", "strict_sa",
                              judge=LLMJudge(client=client))
    assert client.calls >= 8 and 2 <= client.peak <= 4  # pre and post of each blocked rollout, overlapped
    assert len(out["records"]) == len(suite.tasks())
