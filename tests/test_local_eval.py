"""An eval end to end with the real local model: Runner + run_rollout, text tool calls, scoring.

Asserts the mechanics (calls made, tokens counted, parse failures recorded, scores computed),
never a success rate: what a 135M model decides is its own business.
"""

from __future__ import annotations

import pytest

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.envs.registry import get_suite
from harnessx.harness import load_preset
from harnessx.local.fewshot import tool_call_examples
from harnessx.models.client import ModelClient, parse_text_tool_call
from harnessx.scoring import Scorecard, score_rollout

pytestmark = [pytest.mark.realmodel,
              pytest.mark.requires("local")]


def text_tool_harness():
    """A1 with tools rendered as text, the shipped ChatML few-shot tool-call examples, short budgets."""
    return (load_preset("A1").with_component("few_shot", tool_call_examples("chatml"))
            .with_switches(tool_format="text", max_steps=3, max_output_tokens=64))


def eval_tasks(suite) -> list:
    """A handful per environment: a feasible search task with its blocked variants (toy), or one
    feasible and one blocked task (retail, terminal: long prompts, which the 135M model reads slowly)."""
    search = suite.tasks("search")
    feasible = next(t for t in search if t.feasible)
    if suite.name == "toy":
        return [t for t in search if t.source_id == feasible.source_id]
    return [feasible, next(t for t in search if not t.feasible)]


@pytest.mark.parametrize("env", ["toy", "retail", "terminal"])
async def test_eval_records_calls_tokens_parse_failures_and_scores(env, tmp_path):
    suite = get_suite(env)
    tasks = eval_tasks(suite)
    runner = Runner(suite, ModelClient("local/smollm2"), cache=RolloutCache(tmp_path), concurrency=2)
    harness = text_tool_harness()
    results = await runner.run_many(harness, tasks, seeds=[0])

    assert runner.model_calls == sum(r.usage.calls for r in results) > 0
    scores = []
    for task, result in zip(tasks, results):
        assert result.status in ("ok", "malformed_limit") and result.reward is not None
        assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
        traj = runner.trajectory(result)
        traj.verify()
        model_calls = traj.of_kind("model_call")
        assert len(model_calls) == result.usage.calls
        assert all(e.data["prompt_tokens"] > 0 and e.data["latency_s"] > 0 for e in model_calls)
        assert sum(e.data["completion_tokens"] for e in model_calls) == result.usage.completion_tokens
        # Every reply the text-tool parser rejects is recorded as a malformed event, and only those.
        replies = [e for e in traj.of_kind("message") if e.author == "agent" and e.data["role"] == "agent"]
        unparseable = [e.step for e in replies if parse_text_tool_call(e.data["content"])[1] is not None]
        assert [e.step for e in traj.of_kind("malformed")] == unparseable
        assert result.malformed == len(unparseable)
        scores.append(score_rollout(task, traj, result))

    assert all(s.valid for s in scores)
    card = Scorecard.from_scores(scores)
    assert card.joint.n == len(tasks) and card.solve.n == sum(t.feasible for t in tasks)

    again = Runner(suite, ModelClient("local/smollm2"), cache=RolloutCache(tmp_path))
    await again.run_many(harness, tasks, seeds=[0])
    assert again.cache_hits == len(tasks) and again.model_calls == 0
