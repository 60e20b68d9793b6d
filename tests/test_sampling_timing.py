"""Sampling settings and time accounting through the runtime, with a scripted stand-in client."""

from __future__ import annotations

import asyncio

from harnessx.agent.clock import AgentClock
from harnessx.agent.runtime import run_rollout
from harnessx.agent.sampling import call_seed, sampling_kwargs
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient, ModelReply, Usage
from harnessx.tasks import ToolCall


class FakeClient(ModelClient):
    """Replies from a list; each call sleeps `wait_s`, reported as waiting for a shared model."""

    def __init__(self, replies: list[ModelReply], wait_s: float = 0.0, queued: bool = True):
        super().__init__("scripted/fake")
        self.replies, self.wait_s, self.queued = list(replies), wait_s, queued
        self.calls: list[dict] = []

    async def complete(self, messages, tools=None, **kwargs) -> ModelReply:
        self.calls.append(kwargs)
        await asyncio.sleep(self.wait_s)
        reply = self.replies.pop(0) if self.replies else ModelReply(text="done")
        return reply.model_copy(update={"latency_s": self.wait_s, "queue_s": self.wait_s if self.queued else 0.0,
                                        "usage": Usage(calls=1)})


def get_call(key: str) -> ModelReply:
    return ModelReply(tool_calls=[ToolCall(name="get", arguments={"key": key}, id="c")])


def test_call_seed_is_the_rollout_seed_then_deterministic_and_distinct_per_retry():
    assert call_seed(7) == 7 and call_seed(7, 0) == 7
    retries = [call_seed(7, r) for r in (1, 2, 3)]
    assert len(set(retries) | {7}) == 4 and retries == [call_seed(7, r) for r in (1, 2, 3)]


def test_harness_sampling_switches_override_the_run_defaults_only_when_set():
    h = load_preset("A1")
    assert sampling_kwargs(h.switches) == {}
    assert sampling_kwargs(h.with_switches(temperature=0.7, top_p=0.9).switches) == {"temperature": 0.7, "top_p": 0.9}
    assert h.with_switches(temperature=0.7).hash != h.hash


async def test_a_retry_after_a_malformed_reply_uses_another_seed_and_the_sampling_switches():
    suite = ToySuite(n_sources=1)
    task = suite.tasks()[0]
    client = FakeClient([ModelReply(text="{", malformed="cut off"), get_call("k0")])
    harness = load_preset("A1").with_switches(max_steps=3, temperature=0.8, top_p=0.5, tool_format="constrained")
    result, traj = await run_rollout(harness, task, suite.make_env(), client, seed=11)
    seeds = [c["seed"] for c in client.calls]
    assert seeds[0] == 11 and seeds[1] == call_seed(11, 1) != 11 and seeds[2] == 11
    assert all(c["temperature"] == 0.8 and c["top_p"] == 0.5 and c["tool_format"] == "constrained" for c in client.calls)
    assert [e.data["seed"] for e in traj.of_kind("model_call")] == seeds


async def test_waiting_for_a_shared_model_does_not_count_against_the_time_limit():
    suite = ToySuite(n_sources=1)
    task = suite.tasks()[0]
    # a limit of 1 s, model calls of 0.6 s each: 4 queued calls wait 2.4 s, which must not count; the
    # agent's own work (a few toy steps) stays far below 1 s even on a loaded 2-core machine
    harness = load_preset("A1").with_switches(max_steps=4, time_limit_s=1.0)
    queued = FakeClient([get_call("k0")] * 3, wait_s=0.6, queued=True)
    result, traj = await run_rollout(harness, task, suite.make_env(), queued, seed=0)
    end = traj.of_kind("end")[0].data
    assert result.stop_reason != "time_limit" and len(queued.calls) == 4
    assert end["queue_s"] >= 2.35 and end["agent_s"] < 1.0 and end["model_s"] == 0.0
    assert all("tool_s" in e.data for e in traj.of_kind("tool_result"))

    own = FakeClient([get_call("k0")] * 3, wait_s=0.6, queued=False)  # the model's own time counts: 2 calls
    result, traj = await run_rollout(harness, task, suite.make_env(), own, seed=0)
    assert result.stop_reason == "time_limit" and len(own.calls) == 2


def test_agent_clock_subtracts_queue_time_only():
    clock = AgentClock(started=0.0)
    clock.model_call(latency_s=2.0, queue_s=1.5)
    clock.tool_call(0.25)
    assert (clock.queue_s, clock.model_s, clock.tool_s) == (1.5, 0.5, 0.25)
