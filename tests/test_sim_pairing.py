"""Fair pairing in the simulator (common random numbers for every edit kind) and the worlds where
edits can hurt (profile cue overrides and interacting cue pairs)."""

from __future__ import annotations

import json

from harnessx.agent.runner import Runner
from harnessx.agent.runtime import sim_side_channel
from harnessx.envs.toy import ToySuite
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.sim import load_profile, register_profile
from harnessx.sim.cues import shifts
from harnessx.sim.responder import _decision

SEEDS = range(200)


def _decisions(harness, task, profile: str = "baseline"):
    system = render(harness, [], "tool").system
    side = json.dumps(sim_side_channel(task), sort_keys=True)
    return [_decision(profile, side, system, "", s)[0] for s in SEEDS]


def _uniforms(d):
    return (d.u_repair, d.u_report, d.u_fix, d.u_slip, d.seed)


def test_draws_depend_on_task_and_seed_not_on_prompt_text():
    task = next(t for t in ToySuite(2).tasks() if not t.feasible)
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    cue = base.with_component("system_prompt", base.text("system_prompt") + "\nVerify the prerequisites first.")
    b, p, c = (_decisions(h, task) for h in (base, plain, cue))
    assert b == p                                          # an unrelated system-prompt edit changes nothing
    assert [_uniforms(x) for x in b] == [_uniforms(x) for x in c]  # a cue edit keeps the draws...
    assert b != c                                          # ...and flips only what its rate shift reaches
    # monotone: recognition (raised by the cue) never turns off under the edit on the same draws
    assert all(y.recognize for x, y in zip(b, c) if x.recognize)


def test_text_pairing_profile_redraws_on_any_prompt_edit():
    register_profile(load_profile("baseline").model_copy(update={"name": "baseline-text", "pairing": "text"}))
    task = next(t for t in ToySuite(2).tasks() if not t.feasible)
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    assert _decisions(base, task, "baseline-text") != _decisions(plain, task, "baseline-text")


async def test_same_seed_same_outcome_for_a_neutral_edit_through_the_runtime():
    suite = ToySuite(3)
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    runner = Runner(suite, ModelClient("sim/baseline"), cache=None, concurrency=16)
    a = await evaluate(runner, base, suite.tasks(), [0, 1, 2])
    b = await evaluate(runner, plain, suite.tasks(), [0, 1, 2])
    assert [s.success for s in a.scores] == [s.success for s in b.scores]


def test_harmful_world_overrides_cues_and_adds_interactions():
    harmful, base = load_profile("harmful"), load_profile("baseline")
    assert harmful.rates == base.rates  # same agent, different world
    alone = shifts(frozenset({"verify_prerequisites"}), harmful)
    guard = shifts(frozenset({"feasible_guard"}), harmful)
    both = shifts(frozenset({"verify_prerequisites", "feasible_guard"}), harmful)
    assert alone["false_abstain"] == 2.4 and shifts(frozenset({"verify_prerequisites"}), base)["false_abstain"] == 0.5
    # the pair adds its interaction on top of the two single effects
    assert both["false_abstain"] == alone["false_abstain"] + guard["false_abstain"] + 1.5
    assert both["act"] == alone["act"] + guard["act"] - 0.8
    assert shifts(frozenset({"verify_prerequisites", "feasible_guard"}), base)["act"] == 0.4 - 0.25
