"""Full retail episodes through the rollout runtime, with scripted models and the scripted / LLM user.

Covers a solved feasible task, a correct certified deferral, a forbidden write, and a deferral filed
by the harness (preset D) rather than by the agent.
"""

from __future__ import annotations

import pytest

from harnessx.agent.runtime import run_rollout
from harnessx.envs.retail.suite import RetailSuite
from harnessx.harness.presets import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import register_script
from harnessx.scoring.score import score_rollout
from harnessx.tasks import Task

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def _turn(messages: list[dict]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant")


def _gold(metadata: dict) -> list[dict]:
    return metadata["harnessx"]["sim"]["reference"]["actions"]


def _say(text: str) -> dict:
    return {"content": text, "usage": USAGE}


def _call(action: dict) -> dict:
    return {"content": "", "tool_calls": [{"name": action["name"], "arguments": action["arguments"]}], "usage": USAGE}


def conversational_agent(messages, tools, metadata):
    """Asks who the customer is, looks up, asks for confirmation, writes, closes."""
    gold = _gold(metadata)
    steps = [_say("Could you give me your email, or your name and zip code, to verify you?"),
             *[_call(a) for a in gold[:-1]],
             _say(f"I will run {gold[-1]['name']} with {gold[-1]['arguments']}. Do you confirm (yes/no)?"),
             _call(gold[-1]), _say("All done. Thank you for contacting us.")]
    return steps[min(_turn(messages), len(steps) - 1)]


def deferring_agent(messages, tools, metadata):
    """Authenticates, reads the decisive evidence, then certifies a deferral naming the blocker."""
    sim = metadata["harnessx"]["sim"]
    steps = [_call(_gold(metadata)[0]), {"content": "", "usage": USAGE, "tool_calls": [
        {"name": sim["evidence"]["tool"], "arguments": sim["evidence"]["args"]}]},
        {"content": f"I cannot do this: {sim['blocker']['description']}", "usage": USAGE, "tool_calls": [
            {"name": "defer_task", "arguments": {"category": sim["family"], "blocker": sim["blocker"]["description"],
                                                 "rationale": "seen in the order details"}}]}]
    return steps[min(_turn(messages), len(steps) - 1)]


def plan_follower(messages, tools, metadata):
    """Runs the gold plan of the task (or of its source), then stops."""
    gold = _gold(metadata)
    turn = _turn(messages)
    return _call(gold[turn]) if turn < len(gold) else _say("Done.")


def customer_model(messages, tools, metadata):
    """A scripted LLM user: opens with the request, confirms, then ends with ###STOP###."""
    system, last = messages[0]["content"], messages[-1]["content"].lower()
    if last.startswith("hi!"):
        return _say(system.split("Why you are contacting the store: ")[1].split("\n")[0])
    if "email" in last:
        return _say(system.split("What you know: ")[1].split(" The order id")[0])
    if "confirm" in last:
        return _say("Yes, please go ahead.")
    return _say("###STOP###")


MODELS = {name: ModelClient(register_script(f"retail-{name}", fn)) for name, fn in [
    ("talker", conversational_agent), ("deferrer", deferring_agent), ("follower", plan_follower)]}
USER_MODEL = register_script("retail-customer", customer_model)


@pytest.fixture(scope="module")
def suite() -> RetailSuite:
    return RetailSuite()


def _task(suite: RetailSuite, kind: str | None, template: str = "cancel") -> Task:
    return next(t for t in suite.tasks() if t.metadata.get("kind") == kind and t.metadata["template"] == template)


def _kinds(traj) -> list[str]:
    return [e.kind for e in traj]


@pytest.mark.parametrize("user_mode", ["scripted", "llm"])
async def test_conversation_solves_a_feasible_task(suite, user_mode):
    task = _task(suite, None)
    modes = RetailSuite(user_mode=user_mode, user_model=USER_MODEL if user_mode == "llm" else None)
    env = modes.make_env()
    result, traj = await run_rollout(load_preset("A1"), task, env, MODELS["talker"], seed=0)
    assert result.status == "ok" and result.reward == 1.0 and result.abandoned_by is None
    user_turns = [e.data["content"] for e in traj if e.kind == "message" and e.author == "user"]
    assert task.metadata["order_id"] in user_turns[0]  # the opening carries the request
    assert any("confirm" in t.lower() or "go ahead" in t.lower() for t in user_turns)
    changes = [e for e in traj if e.kind == "state_change"]
    assert len(changes) == 1 and changes[0].author == "agent" and not changes[0].data["forbidden"]
    traj.verify()  # the hash chain holds


async def test_correct_deferral_after_the_evidence(suite):
    task = _task(suite, "status")
    env = suite.make_env()
    result, traj = await run_rollout(load_preset("A1"), task, env, MODELS["deferrer"], seed=0)
    assert result.reward == 1.0 and result.abandoned_by == "agent" and result.stop_reason == "abandon"
    kinds = _kinds(traj)
    assert kinds.index("evidence") < kinds.index("abandon") and "state_change" not in kinds
    abandon = next(e for e in traj if e.kind == "abandon")
    assert abandon.author == "agent" and abandon.data["category"] == "infeasible"
    assert task.blocker.key_facts[0] in abandon.data["reason"]
    score = score_rollout(task, traj, result)
    assert score.m2 and score.strict_sa


async def test_forbidden_write_is_recorded_and_fails_the_task(suite):
    task = _task(suite, "other_customer")
    env = suite.make_env()
    result, traj = await run_rollout(load_preset("A1"), task, env, MODELS["follower"], seed=0)
    changes = [e for e in traj if e.kind == "state_change"]
    assert result.reward == 0.0 and result.abandoned_by is None
    assert len(changes) == 1 and changes[0].author == "agent" and changes[0].data["forbidden"]
    assert changes[0].data["change"] == "cancel_pending_order"
    assert not score_rollout(task, traj, result).strict_sa


async def test_harness_authored_deferral_under_condition_d(suite):
    task = _task(suite, "status")
    env = suite.make_env()
    result, traj = await run_rollout(load_preset("D"), task, env, MODELS["follower"], seed=0)
    abandon = next(e for e in traj if e.kind == "abandon")
    assert result.abandoned_by == "harness" and abandon.author == "harness"
    assert "Non-pending order cannot be cancelled" in abandon.data["reason"]
    assert env.deferrals == [abandon.data["reason"]]
    assert result.reward == 1.0 and not [e for e in traj if e.kind == "state_change"]
    score = score_rollout(task, traj, result)
    # the agent's refused cancel is an attempt at the forbidden write: it fails naive M2 (the
    # harness's deferral came after it), and the deferral is the harness's, not the agent's
    assert not score.naive_m2 and not score.relaxed_sa and not score.strict_sa
    assert score.authorship is False


async def test_llm_user_control_tokens_end_the_episode(suite):
    task = _task(suite, None)
    env = RetailSuite(user_mode="llm", user_model=USER_MODEL).make_env()
    from harnessx.envs.base import AbandonSpec

    start = await env.reset(task, AbandonSpec(mode="tool"))
    assert task.metadata["order_id"] in start.observation and "Store policy" in start.observation
    assert await env.user_reply("Is there anything else?") is None
    assert env.customer.ended_with == "###STOP###"
    assert await env.user_reply("Hello?") is None
