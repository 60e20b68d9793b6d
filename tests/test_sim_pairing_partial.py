"""Partial common randomness (`pairing: partial`, rho): each (task, seed) shares its draws across
harnesses with probability rho and re-draws otherwise, alike for every edit kind, with the marginal
law (ground truth) unchanged."""

from __future__ import annotations

import json

import pytest

from harnessx.agent.runner import Runner
from harnessx.agent.runtime import sim_side_channel
from harnessx.envs.toy import ToySuite
from harnessx.errors import InputError
from harnessx.evaluation import evaluate
from harnessx.harness.presets import load_preset
from harnessx.harness.render import render
from harnessx.models.client import ModelClient
from harnessx.sim import load_profile
from harnessx.sim.pairing import shared, with_rho
from harnessx.sim.decision import rate
from harnessx.sim.profile import Profile
from harnessx.sim.responder import _decision
from harnessx.validation import validate

SEEDS = range(400)


def _decisions(harness, task, profile: str):
    system = render(harness, [], "tool").system
    side = json.dumps(sim_side_channel(task), sort_keys=True)
    return [_decision(profile, side, system, "", s, frozenset(), harness.hash)[0] for s in SEEDS]


def test_every_edit_kind_redraws_the_same_episodes_and_only_those():
    name = with_rho("baseline", 0.5).removeprefix("sim/")
    profile = load_profile(name)
    task = next(t for t in ToySuite(2).tasks() if not t.feasible)
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    switch = base.with_switches(max_steps=base.switches.max_steps + 7)  # changes no prompt text
    assert render(switch, [], "tool").system == render(base, [], "tool").system
    b, p, s = (_decisions(h, task, name) for h in (base, plain, switch))
    coins = [shared(profile, task.id, seed) for seed in SEEDS]
    for other in (p, s):
        same = [x == y for x, y in zip(b, other)]
        # shared episodes are identical; unshared ones are fresh draws (their uniforms all differ)
        assert all(same[i] for i, c in enumerate(coins) if c)
        assert all(b[i].u_repair != other[i].u_repair for i, c in enumerate(coins) if not c)
    assert 0.5 - 0.08 < sum(coins) / len(coins) < 0.5 + 0.08  # 400 coins: 3.2 SE either side


def test_rho_one_is_common_and_rho_zero_shares_nothing():
    task = next(t for t in ToySuite(2).tasks() if not t.feasible)
    base = load_preset("A1")
    plain = base.with_component("system_prompt", base.text("system_prompt") + "\nBe concise and polite.")
    assert with_rho("baseline", 1.0) == "sim/baseline"
    zero = with_rho("baseline", 0.0).removeprefix("sim/")
    a, b = _decisions(base, task, zero), _decisions(plain, task, zero)
    assert all(x.u_repair != y.u_repair for x, y in zip(a, b))


def test_marginal_law_is_unchanged():
    """On re-drawn episodes the harness's own stream is as uniform as the common one: the rate of a
    choice over many seeds matches the common world's within sampling error."""
    task = next(t for t in ToySuite(2).tasks() if not t.feasible)
    base = load_preset("A1")
    noisy = with_rho("baseline", 0.5).removeprefix("sim/")
    seeds = range(3000)
    side = json.dumps(sim_side_channel(task), sort_keys=True)
    system = render(base, [], "tool").system
    draw = lambda prof, s: _decision(prof, side, system, "", s, frozenset(), base.hash)  # noqa: E731
    rate_of = lambda prof: sum(draw(prof, s)[0].act for s in seeds) / len(seeds)  # noqa: E731
    expected = rate(load_profile("baseline"), "act", draw("baseline", 0)[1])  # act after A1's cue shifts
    se = (expected * (1 - expected) / len(seeds)) ** 0.5
    assert abs(rate_of("baseline") - expected) < 4 * se
    assert abs(rate_of(noisy) - expected) < 4 * se


@pytest.mark.slow
async def test_runtime_sends_the_harness_so_copies_agree_on_shared_episodes_only():
    suite = ToySuite(10)
    base = load_preset("A1")
    copy = base.with_component("system_prompt", base.text("system_prompt") + "\n(Revision note.)")
    model = with_rho("baseline", 0.5)
    profile = load_profile(model.removeprefix("sim/"))
    runner = Runner(suite, ModelClient(model), cache=None, concurrency=16)
    seeds = list(range(6))
    a = await evaluate(runner, base, suite.tasks(), seeds)
    b = await evaluate(runner, copy, suite.tasks(), seeds)
    outcome = {(s.task_id, s.seed): s.success for s in a.scores}
    pairs = [(shared(profile, s.task_id, s.seed), outcome[(s.task_id, s.seed)] == s.success) for s in b.scores]
    assert all(agree for is_shared, agree in pairs if is_shared)
    assert not all(agree for is_shared, agree in pairs if not is_shared)  # re-drawn episodes do differ


def test_builtin_noisy_worlds_and_a_rho_without_partial_pairing_is_refused():
    for name, parent in (("noisy", "baseline"), ("harmful-noisy", "harmful")):
        profile, base = load_profile(name), load_profile(parent)
        assert profile.pairing == "partial" and profile.rho == 0.5
        assert profile.rates == base.rates and profile.cue_effects == base.cue_effects
    assert load_profile("baseline").digest == "e77116205f18"  # rho left out: old profiles keep their draws
    data = load_profile("baseline").model_dump() | {"name": "x", "rho": 0.5}
    with pytest.raises(InputError, match="pairing: partial"):
        validate(Profile, data, "x.yaml")
