"""The rollout loop on the toy environment with scripted models."""

import asyncio

import pytest

from harnessx.agent.runner import RolloutCache, Runner
from harnessx.agent.runtime import run_rollout
from harnessx.envs.toy import ToyEnv, ToySuite
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from scripted_models import GARBAGE, ORACLE

SUITE = ToySuite(n_sources=2)


def _task(task_id: str):
    return next(t for t in SUITE.tasks() if t.id == task_id)


def _run(preset, task_id, model=ORACLE):
    return asyncio.run(run_rollout(load_preset(preset), _task(task_id), ToyEnv(), ModelClient(model), seed=0))


def test_feasible_rollout_records_a_verifiable_trajectory():
    result, traj = _run("A1", "toy-0")
    traj.verify()
    assert result.status == "ok" and result.reward == 1.0 and result.abandoned_by is None
    calls = traj.of_kind("tool_call")
    assert [c.data["name"] for c in calls] == ["get", "put"] and all(c.author == "agent" for c in calls)
    change = traj.of_kind("state_change")[0]
    assert change.author == "agent" and change.data["target"] == "k0" and not change.data["forbidden"]
    assert result.usage.calls == 3 and result.usage.completion_tokens == 15


def test_agent_deferral_is_agent_authored_and_after_the_evidence():
    result, traj = _run("A1", "toy-0-trap")
    abandon = traj.first("abandon")
    evidence = traj.first("evidence")
    assert abandon.author == "agent" and abandon.data["mechanism"] == "tool"
    assert evidence.seq < abandon.seq
    assert result.abandoned_by == "agent" and result.reward == 1.0


def test_condition_d_artifact_is_harness_authored():
    def proceeds(messages, tools, metadata):  # reads, sees the lock, says nothing and stops
        n = sum(m["role"] == "tool" for m in messages)
        return {"content": "", "tool_calls": [{"name": "get", "arguments": {"key": "k0"}}]} if n == 0 else {"content": "ok"}

    model = register_script("reads-then-stops", proceeds)
    result, traj = _run("D", "toy-0-trap", model)
    abandon = traj.first("abandon")
    assert abandon.author == "harness" and result.abandoned_by == "harness"
    assert "locked" in abandon.data["reason"]
    # the same agent under A1 leaves no artifact at all
    result_a1, traj_a1 = _run("A1", "toy-0-trap", model)
    assert traj_a1.first("abandon") is None and result_a1.abandoned_by is None


def test_malformed_output_is_recorded_not_fatal():
    result, traj = _run("A1", "toy-0", GARBAGE)
    traj.verify()
    assert result.status == "malformed_limit" and result.malformed == 3
    assert len(traj.of_kind("malformed")) == 3 and traj.of_kind("tool_call") == []


def test_stop_token_and_planner_executor_topology():
    def stopper(messages, tools, metadata):
        return {"content": "STOP: key z0 does not exist"}

    result, traj = _run("feasigen-stop", "toy-0-missing", register_script("stopper", stopper))
    assert traj.first("abandon").data == {"mechanism": "stop", "reason": "key z0 does not exist"}
    result, traj = _run("planner-executor", "toy-0")
    roles = [e.data["role"] for e in traj.of_kind("model_call")]
    assert roles[:2] == ["planner", "planner"] and set(roles[2:]) == {"executor"}
    assert result.reward == 1.0


def test_self_check_and_report_steps_are_harness_messages():
    _, traj = _run("C", "toy-0")
    assert [e.data["role"] for e in traj.of_kind("message") if e.author == "harness"] == ["system", "self_check"]
    _, traj = _run("B", "toy-0")
    assert traj.of_kind("message")[-1].data["role"] == "report"


def test_step_limit_stops_the_loop():
    looping = register_script("looping", lambda m, t, meta: {"content": "", "tool_calls": [
        {"name": "get", "arguments": {"key": "k0"}}]})
    result, _ = _run("A0", "toy-0", looping)
    assert result.stop_reason == "step_limit" and result.steps == load_preset("A0").switches.max_steps


def test_environment_failure_is_excluded_not_scored():
    class Broken(ToyEnv):
        async def execute(self, call):
            raise OSError("sandbox died")

    result, traj = asyncio.run(run_rollout(load_preset("A1"), _task("toy-0"), Broken(), ModelClient(ORACLE), seed=0))
    assert result.status == "env_failure" and not result.valid and result.reward is None
    assert traj.first("error").data["detail"] == "sandbox died"


def test_cache_prevents_a_second_model_call(tmp_path):
    calls = []

    def counting(messages, tools, metadata):
        calls.append(1)
        return {"content": "done"}

    model = register_script("counting", counting)
    harness = load_preset("A0")
    first = Runner(SUITE, ModelClient(model), RolloutCache(tmp_path))
    results = asyncio.run(first.run_many(harness, SUITE.tasks(), seeds=[0, 1]))
    paid = len(calls)
    assert paid == len(results) == 12 and first.model_calls == 12
    again = Runner(SUITE, ModelClient(model), RolloutCache(tmp_path))  # e.g. a resumed process
    cached = asyncio.run(again.run_many(harness, SUITE.tasks(), seeds=[0, 1]))
    assert len(calls) == paid and again.cache_hits == 12 and all(r.cached for r in cached)
    again.trajectory(cached[0]).verify()
    asyncio.run(again.run_many(harness, SUITE.tasks(), seeds=[2]))
    assert len(calls) == paid + 6


def test_rollouts_run_concurrently_under_one_budget():
    active, peak = [0], [0]

    class Slow(ToyEnv):
        async def reset(self, task, abandon):
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            await asyncio.sleep(0.01)
            return await super().reset(task, abandon)

        async def cleanup(self):
            active[0] -= 1

    class SlowSuite(ToySuite):
        def make_env(self):
            return Slow()

    runner = Runner(SlowSuite(n_sources=4), ModelClient(ORACLE), concurrency=3)
    results = asyncio.run(runner.run_many(load_preset("A0"), SUITE.tasks(), seeds=[0, 1]))
    assert len(results) == 12 and peak[0] == 3


@pytest.mark.parametrize("bad", ["scripted/not-registered", "no-provider-model"])
def test_unknown_model_is_a_clear_error(bad):
    result, traj = _run("A0", "toy-0", bad)
    assert result.status == "model_failure"
    assert bad.split("/")[-1] in traj.first("error").data["detail"]


def test_challenge_adds_one_reconsideration_turn_after_the_run():
    def flips(messages, tools, metadata):  # defers at once; after the challenge it proceeds
        challenged = any(m["role"] == "user" and "reconsider" in (m["content"] or "") for m in messages)
        if challenged:
            return {"content": "", "tool_calls": [{"name": "put", "arguments": {"key": "k0", "value": "v0"}}]} \
                if messages[-1]["role"] == "user" else {"content": "Done after all."}
        return {"content": "locked", "tool_calls": [{"name": "defer_task", "arguments": {
            "category": "trap", "blocker": "k0 is locked", "rationale": "guess"}}]}

    model = register_script("flips", flips)
    result, traj = asyncio.run(run_rollout(load_preset("A1"), _task("toy-0-trap"), ToyEnv(), ModelClient(model),
                                           seed=0, challenge="Please reconsider your conclusion."))
    traj.verify()
    challenge = next(e for e in traj.of_kind("message") if e.data.get("role") == "challenge")
    assert challenge.author == "harness" and traj.first("abandon").seq < challenge.seq
    after = [e for e in traj if e.seq > challenge.seq]
    assert [e.data["target"] for e in after if e.kind == "state_change"] == ["k0"]
    assert next(e for e in after if e.kind == "state_change").data["forbidden"] is True


def test_a_bug_outside_the_environment_is_not_hidden_as_an_environment_failure(monkeypatch):
    import harnessx.agent.runtime as runtime

    calls = []

    def broken_control(self):
        calls.append(1)
        raise RuntimeError("bug in harness control")

    monkeypatch.setattr(runtime._Episode, "harness_control", broken_control)
    with pytest.raises(RuntimeError, match="bug in harness control"):
        _run("D", "toy-0-trap")
    assert calls == [1]
