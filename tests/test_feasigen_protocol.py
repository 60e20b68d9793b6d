"""FeasiGen protocol: the STOP parser, the decision and token accounting on real rollouts, the
masking hook of the retail environment, the benchmark's per-trial values, and planner → executor
with two different models."""

from __future__ import annotations

import asyncio

import pytest

from harnessx.agent.runner import Runner
from harnessx.benchmarks import score_trial
from harnessx.envs.base import AbandonSpec
from harnessx.envs.retail.suite import RetailSuite
from harnessx.feasigen import masking
from harnessx.feasigen.protocol import binaries, decision, parse_stop, planner_executor_harness, stop_harness
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from scripted_models import ORACLE

SUITE = RetailSuite()
ORIGINAL = next(t for t in SUITE.tasks() if t.id == "retail-001-cancel")
MASKED = masking.infeasible_of(ORIGINAL, ["cancel_pending_order"], "retail", {})
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def _stopper(messages, tools, metadata):
    return {"content": "  STOP: no tool can cancel an order", "usage": USAGE}


def _planner(messages, tools, metadata):
    return {"content": "1. look up the user\n2. cancel the order", "usage": {"prompt_tokens": 7, "completion_tokens": 3}}


def _lowercase(messages, tools, metadata):
    return {"content": "stop: I cannot do this", "usage": USAGE}


STOPPER = register_script("fg-stopper", _stopper)
PLANNER = register_script("fg-planner", _planner)
LOWER = register_script("fg-lower", _lowercase)


def run(harness, task, model, planner=None):
    runner = Runner(SUITE, ModelClient(model), planner_model=ModelClient(planner) if planner else None)
    result = asyncio.run(runner.run_one(harness, task, 0))
    return result, runner.trajectory(result), runner


def test_parse_stop_is_exact():
    assert parse_stop("STOP: missing search") == "missing search"
    assert parse_stop("\n  STOP:x") == "x"
    assert parse_stop("stop: lower case") is None
    assert parse_stop("I must STOP: here") is None
    assert parse_stop("") is None and parse_stop(None) is None


def test_binaries_reads_command_names_and_skips_heredocs():
    script = "#!/bin/bash\nset -e\npython3 - <<'PY'\nimport os\nPY\nFOO=1 sort -u a | /usr/bin/awk '{print}' > b && gzip b"
    assert binaries(script) == ["python3", "sort", "awk", "gzip"]


def test_masked_tools_are_not_offered_and_are_refused():
    env = SUITE.make_env()
    start = asyncio.run(env.reset(MASKED, AbandonSpec(mode="stop")))
    names = {t.name for t in start.tools}
    assert "cancel_pending_order" not in names and "get_order_details" in names
    out = asyncio.run(env.execute(MASKED.reference.actions[-1]))
    assert out.error and "not available" in out.observation and not out.state_changes


def test_stop_on_infeasible_counts_and_tokens_stop_at_the_decision():
    harness = stop_harness(15).with_switches(end_report=True).with_component("report_prompt", "Report.")
    result, traj, _ = run(harness, MASKED, STOPPER)
    d = decision(traj)
    assert d.stopped and d.mechanism == "stop" and d.turns == 1
    assert d.tokens == 15                       # the report call after the STOP is not counted
    assert result.usage.calls == 2
    score = score_trial(MASKED, traj, result)
    assert score.valid and score.strict_sa and score.values["stop"] == 1.0 and score.values["continue"] == 0.0
    assert score.values["fass"] == 1.0


def test_lowercase_stop_is_a_continue():
    result, traj, _ = run(stop_harness(15), MASKED, LOWER)
    assert not decision(traj).stopped
    score = score_trial(MASKED, traj, result)
    assert score.values["continue"] == 1.0 and score.failure_mode == "proceeded"


def test_gold_plan_on_the_original_solves_and_a_stop_there_fails():
    feasible = masking.original_of(ORIGINAL, "retail", MASKED.id)
    result, traj, _ = run(stop_harness(15), feasible, ORACLE)
    score = score_trial(feasible, traj, result)
    assert score.values["sr"] == 1.0 and score.solved and score.values["fcr_solve"] == pytest.approx(0.25)
    result, traj, _ = run(stop_harness(15), feasible, STOPPER)
    score = score_trial(feasible, traj, result)
    assert score.values["sr"] == 0.0 and score.values["false_stop"] == 1.0 and score.false_abstention


def test_continuing_on_the_masked_task_never_completes_it():
    result, traj, _ = run(stop_harness(15), MASKED, ORACLE)  # the oracle runs the gold plan; cancel is refused
    score = score_trial(MASKED, traj, result)
    assert result.reward == 0.0 and score.values["continue"] == 1.0 and score.values["completed"] == 0.0


def test_planner_and_executor_are_two_models():
    harness = planner_executor_harness()
    assert harness.switches.planner_rounds == 2 and harness.switches.executor_max_turns == 8
    result, traj, runner = run(harness, MASKED, ORACLE, planner=PLANNER)
    calls = traj.of_kind("model_call")
    assert {c.data["model"] for c in calls if c.data["role"] == "planner"} == {PLANNER}
    assert {c.data["model"] for c in calls if c.data["role"] == "executor"} == {ORACLE}
    assert sum(c.data["role"] == "planner" for c in calls) == 2
    assert runner.model_id == f"{PLANNER}->{ORACLE}"
    # the planner may stop at planning: no executor call then
    result, traj, _ = run(harness, MASKED, ORACLE, planner=STOPPER)
    d = decision(traj)
    assert d.stopped and d.role == "planner"
    assert not [c for c in traj.of_kind("model_call") if c.data["role"] == "executor"]


def test_excluded_rollouts_are_named_not_scored():
    bad = register_script("fg-broken", lambda m, t, md: (_ for _ in ()).throw(RuntimeError("down")))
    runner = Runner(SUITE, ModelClient(bad, max_retries=0, backoff_s=0.0))
    result = asyncio.run(runner.run_one(stop_harness(15), MASKED, 0))
    traj = runner.trajectory(result)
    score = score_trial(MASKED, traj, result)
    assert result.status == "model_failure" and not score.valid and score.exclusion == "model_failure"


def test_the_feasigen_search_space_starts_from_the_stop_prompt():
    from harnessx.search.space import load_space

    r0 = load_space("feasigen").initial()
    assert r0.switches.abandon_mode == "stop" and r0.switches.max_steps == 15
    assert "STOP:<brief explanation" in r0.text("system_prompt")
