"""Retail's LLM user is seeded per rollout from (task, rollout seed): epochs draw different customers,
a repeat of a rollout the same one, the seed reaches the LiteLLM call and is recorded on `start`."""

from __future__ import annotations

import pytest
from litellm import CustomLLM

from harnessx.agent.runtime import run_rollout
from harnessx.agent.sampling import seed_environment
from harnessx.envs.retail.suite import RetailSuite
from harnessx.envs.retail.users import user_seed
from harnessx.envs.toy import ToySuite
from harnessx.harness import load_preset
from harnessx.models.client import ModelClient
from harnessx.models.providers import _to_model_response, register_handler, register_script

USER_CALLS: list[dict] = []


class CustomerModel(CustomLLM):
    """A customer that asks twice, then ends; records the seed LiteLLM was given and the metadata's."""

    async def acompletion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,
                          encoding, api_key, logging_obj, optional_params, acompletion=None, litellm_params=None,
                          logger_fn=None, headers={}, timeout=None, client=None):
        meta = ((litellm_params or {}).get("metadata") or {}).get("harnessx", {})
        USER_CALLS.append({"seed": optional_params.get("seed"), "meta_seed": meta.get("seed"),
                           "task_id": meta.get("task_id")})
        turn = sum(1 for m in messages if m["role"] == "assistant")
        text = "I want to cancel my order." if turn < 2 else "###STOP###"
        return _to_model_response(model, {"content": text})


def talking_agent(messages, tools, metadata):
    return {"content": "Could you tell me more about your order?"}


AGENT = ModelClient(register_script("user-seed-agent", talking_agent))


@pytest.fixture(scope="module")
def suite() -> RetailSuite:
    register_handler("customer", CustomerModel())
    return RetailSuite(user_mode="llm", user_model="customer/c")


async def _user_seeds(suite: RetailSuite, seed: int, task_index: int = 0) -> tuple[set[int], dict]:
    USER_CALLS.clear()
    task = suite.tasks("search")[task_index]
    harness = load_preset("A1").with_switches(max_steps=5)
    result, traj = await run_rollout(harness, task, suite.make_env(), AGENT, seed=seed)
    assert result.status == "ok" and len(USER_CALLS) == 3  # opening, one answer, then ###STOP###
    assert all(c["seed"] == c["meta_seed"] and c["task_id"] == task.id for c in USER_CALLS)
    return {c["seed"] for c in USER_CALLS}, traj.of_kind("start")[0].data


def test_user_seed_is_deterministic_31_bit_and_separates_tasks_and_epochs():
    assert user_seed("t1", 0) == user_seed("t1", 0)
    seeds = {user_seed(t, s) for t in ("t1", "t2") for s in (0, 1, 1000)}
    assert len(seeds) == 6 and all(0 <= s < 2**31 for s in seeds)
    assert user_seed("t1", 0) != 0  # no longer the fixed seed 0


async def test_two_epochs_call_the_user_with_different_seeds_and_a_repeat_with_the_same(suite):
    epoch0, start0 = await _user_seeds(suite, seed=0)
    epoch1, start1 = await _user_seeds(suite, seed=1)
    repeat, start_again = await _user_seeds(suite, seed=0)
    task_id = suite.tasks("search")[0].id
    assert epoch0 == {user_seed(task_id, 0)} and epoch1 == {user_seed(task_id, 1)} and epoch0 != epoch1
    assert repeat == epoch0 and start_again["user_seed"] == start0["user_seed"]
    assert (start0["user_seed"], start1["user_seed"]) == (user_seed(task_id, 0), user_seed(task_id, 1))
    assert start0["user_seed"] != start0["seed"]  # the customer does not share the agent's draws


async def test_another_task_under_the_same_rollout_seed_gets_another_user_seed(suite):
    first, _ = await _user_seeds(suite, seed=0, task_index=0)
    other, _ = await _user_seeds(suite, seed=0, task_index=1)
    assert first != other


def test_environments_without_a_sampled_part_record_nothing():
    assert seed_environment(ToySuite(n_sources=1).make_env(), "t", 3) == {}
    assert seed_environment(RetailSuite().make_env(), "t", 3) == {}  # solo user: no model, no seed


def test_rollout_keys_tell_the_customer_modes_and_user_models_apart(tmp_path):
    from harnessx.agent.runner import Runner

    ids = {mode: Runner(s, AGENT).model_id for mode, s in (
        ("solo", RetailSuite()), ("scripted", RetailSuite(user_mode="scripted")),
        ("llm-a", RetailSuite(user_mode="llm", user_model="customer/a")),
        ("llm-b", RetailSuite(user_mode="llm", user_model="customer/b")))}
    assert ids["solo"] == AGENT.identity  # solo keys are unchanged, so existing caches still hit
    assert len(set(ids.values())) == 4 and "customer/a" in ids["llm-a"]


def test_a_feasigen_suite_carries_its_source_suites_rollout_identity():
    from types import SimpleNamespace

    from harnessx.feasigen.suite import FeasiGenSuite

    suite = FeasiGenSuite.__new__(FeasiGenSuite)  # the identity needs only the source suite
    suite.source = SimpleNamespace(rollout_identity="|user=llm:openai/u")
    assert suite.rollout_identity == "|user=llm:openai/u"
    suite.source = SimpleNamespace()
    assert suite.rollout_identity == ""
