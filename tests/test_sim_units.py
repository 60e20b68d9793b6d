"""Units of the simulated agent: cue reading, certified mechanism, profiles, plans, the responder's
edges (no side channel, text tools, latency) and ground truth."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harnessx.agent.runtime import run_rollout, sim_side_channel
from harnessx.envs.toy import ToyEnv, ToySuite, toy_tasks
from harnessx.errors import InputError
from harnessx.harness.presets import load_preset
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.ground_truth import ground_truth
from harnessx.sim import load_profile, register_profile
from harnessx.sim.cues import active_cues, mechanism
from harnessx.sim.plan import altered, build_plan
from harnessx.sim.profile import Latency
from harnessx.sim.responder import NO_CHANNEL, respond


def _system(preset: str, native: str = "tool") -> str:
    return render(load_preset(preset), [], native).system


def test_presets_read_as_their_cues():
    assert active_cues(_system("A0"), "system") == frozenset()
    assert {"abandon_protocol", "name_the_blocker", "no_fabrication"} <= active_cues(_system("A1"), "system")
    assert "harness_files_record" in active_cues(_system("D"), "system")
    assert "harness_files_record" not in active_cues(_system("A1"), "system")
    assert "verify_prerequisites" in active_cues(_system("feasigen-stop"), "system")


def test_certified_mechanism_follows_the_prompt():
    assert mechanism(_system("A1", "tool"), frozenset({"get", "defer_task"})).mode == "tool"
    assert mechanism(_system("A1", "tool"), frozenset({"get"})).mode != "tool"  # the tool must exist
    file_mech = mechanism(_system("A1", "file"), frozenset({"bash", "write_file"}))
    assert (file_mech.mode, file_mech.target) == ("file", "infeasible.md")
    assert mechanism(_system("feasigen-stop"), frozenset({"get"})).target == "STOP:"
    assert mechanism(_system("A0"), frozenset({"get"})).mode == "none"


def test_profiles_load_and_inherit():
    base, weak, ideal = (load_profile(n) for n in ("baseline", "weak", "ideal"))
    assert weak.probe_reads == base.probe_reads and weak.rates["delegate"] == base.rates["delegate"]
    assert weak.rates["certify"] < base.rates["certify"] < ideal.rates["certify"]
    with pytest.raises(InputError):
        load_profile("no-such-profile")
    assert register_profile(base.model_copy(update={"name": "unit-fast"})) == "sim/unit-fast"
    assert load_profile("unit-fast").rates == base.rates


def test_latency_distribution_has_the_requested_mean():
    rng = random.Random(0)
    draws = [Latency(dist="lognormal", mean_s=0.2, sigma=0.5).sample(rng) for _ in range(4000)]
    assert abs(sum(draws) / len(draws) - 0.2) < 0.01
    assert Latency().sample(rng) == 0.0 and Latency(dist="fixed", mean_s=0.3).sample(rng) == 0.3


def test_plan_inserts_the_evidence_call_and_slips_one_argument():
    trap = next(t for t in toy_tasks(1) if t.family == "trap")
    plan = build_plan(sim_side_channel(trap))
    assert plan.steps[plan.evidence_index] == ("get", {"key": "k0"}) and plan.writes == (1,)
    marker = trap.model_copy(update={"evidence": trap.evidence.model_copy(update={"tool": None, "args": {},
                                                                                  "marker": "LEGAL HOLD"})})
    shell_plan = build_plan(sim_side_channel(marker), frozenset({"bash"}))
    assert shell_plan.steps[shell_plan.evidence_index][0] == "bash"
    assert "LEGAL HOLD" in shell_plan.steps[shell_plan.evidence_index][1]["command"]
    name, args = altered(("put", {"key": "k0", "value": "v0"}), 0.9)
    assert name == "put" and args["key"] == "k0" and args["value"] != "v0"


def test_no_side_channel_gets_a_plain_answer():
    reply = respond("baseline", [{"role": "user", "content": "hi"}], [], {})
    assert reply["content"] == NO_CHANNEL and not reply.get("tool_calls")


async def test_text_tool_format_and_latency_through_the_runtime():
    task = next(t for t in toy_tasks(1) if t.feasible)
    slow = register_profile(load_profile("ideal").model_copy(
        update={"name": "unit-slow", "latency": Latency(dist="fixed", mean_s=0.05)}))
    harness = load_preset("A1").with_switches(tool_format="text")
    start = time.perf_counter()
    result, traj = await run_rollout(harness, task, ToyEnv(), ModelClient(slow), seed=0)
    assert result.reward == 1.0 and result.malformed == 0
    assert time.perf_counter() - start >= 0.05 * result.usage.calls
    assert all(e.data["latency_s"] >= 0.05 for e in traj.of_kind("model_call"))


async def test_planner_executor_runs_and_flags_blockers():
    task = next(t for t in toy_tasks(1) if t.family == "infeasible")
    result, traj = await run_rollout(load_preset("planner-executor"), task, ToyEnv(), ModelClient("sim/ideal"), seed=0)
    plan = next(e for e in traj.of_kind("message") if e.data.get("role") == "planner")
    assert "Blocker:" in plan.data["content"] and result.abandoned_by == "agent"


def test_ground_truth_estimates_with_standard_errors():
    gt = ground_truth(load_preset("A1"), ToySuite(2), "baseline", epochs=4, concurrency=16)
    assert gt.epochs == 4 and gt.blocked == 4 and gt.feasible == 2
    for est in (gt.strict_sa, gt.solve, gt.joint):
        assert 0.0 <= est.mean <= 1.0 and est.se >= 0.0 and est.n == 4
    assert set(gt.per_task) == {t.id for t in ToySuite(2).tasks()}


@given(reads=st.lists(st.sampled_from(["get_item", "list_orders", "find_user", "lookup_price"]), min_size=1,
                      max_size=4),
       withheld=st.data())
def test_probe_reads_stop_at_a_tool_the_agent_was_not_offered(reads, withheld):
    """The reads an agent probes with before acting on evidence it had from the start use offered
    tools only: calling a masked twin's withheld lookup is acting on the blocker, not looking."""
    side = {"reference": {"actions": [{"name": n, "arguments": {"i": i}} for i, n in enumerate(reads)]
                          + [{"name": "place_order", "arguments": {}}]},
            "evidence": {"where": "spec"}}
    offered = frozenset(reads) | {"place_order"}
    assert build_plan(side, offered).leading_reads == len(reads)
    gone = withheld.draw(st.sampled_from(sorted(set(reads))))
    plan = build_plan(side, offered - {gone})
    assert plan.leading_reads == reads.index(gone)
    assert all(name in offered - {gone} for name, _ in plan.steps[:plan.leading_reads])
