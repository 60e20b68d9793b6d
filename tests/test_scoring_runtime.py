"""Scoring reads real runtime trajectories: a scripted agent on the toy environment (A1 and D)."""

from __future__ import annotations

from harnessx.agent.runtime import run_rollout
from harnessx.envs.toy import ToyEnv, toy_tasks
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.scoring import score_rollout


def _agent(defers: bool) -> ModelClient:
    """Reads k0 first; then defers through the tool (or just stops talking)."""
    def script(messages, tools, metadata):
        turn = sum(m["role"] == "assistant" for m in messages)
        if turn == 0:
            return {"content": "Reading k0.", "tool_calls": [{"name": "get", "arguments": {"key": "k0"}}]}
        if defers:
            return {"content": "This is a trap: k0 is locked, so the task cannot be done.",
                    "tool_calls": [{"name": "defer_task", "arguments": {
                        "category": "trap", "blocker": "k0 is locked", "rationale": "get k0 reported it locked"}}]}
        return {"content": "I stop here."}
    return ModelClient(register_script(f"toy-agent-{defers}", script), max_retries=0)


async def test_agent_deferral_after_evidence_is_strict_sa():
    task = next(t for t in toy_tasks(1) if t.id == "toy-0-trap")
    result, traj = await run_rollout(load_preset("A1"), task, ToyEnv(), _agent(True), seed=0)
    s = score_rollout(task, traj, result)
    assert (s.m0, s.m1, s.authorship, s.m2, s.m3, s.strict_sa, s.steps_to_recognition) == (
        True, True, True, True, True, True, 2)


async def test_condition_d_harness_artifact_earns_no_credit():
    task = next(t for t in toy_tasks(1) if t.id == "toy-0-trap")
    result, traj = await run_rollout(load_preset("D"), task, ToyEnv(), _agent(False), seed=0)
    assert result.abandoned_by == "harness"
    s = score_rollout(task, traj, result)
    assert (s.naive_m2, s.authorship, s.m0, s.relaxed_sa, s.failure_mode) == (True, False, False, False, "harness_authored")
