"""The distribution of simulated worlds (harnessx/sim/worlds.py): draws are valid profiles, seeded,
follow the documented distribution, and the bench's across-worlds report computes its targets."""

from __future__ import annotations

import re

import math
import sys
from collections import Counter
from pathlib import Path

import pytest

from harnessx.sim.profile import RATE_NAMES, load_profile
from harnessx.sim.worlds import (ARCHETYPES, CUES, SYNERGY, archetype_of, draw_world, parse_worlds,
                                 world_model)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from world_targets import world_report  # noqa: E402

N = 1500
DRAWS = [draw_world(seed) for seed in range(N)]


def test_a_draw_is_the_same_world_for_the_same_seed_and_another_for_another():
    assert draw_world(7).digest == draw_world(7).digest
    assert len({w.digest for w in DRAWS}) == N


def test_every_draw_is_a_complete_profile_with_rates_that_are_probabilities():
    for world in DRAWS:
        assert set(RATE_NAMES) <= set(world.rates)
        for value in world.rates.values():
            for p in (value.values() if isinstance(value, dict) else [value]):
                assert 0.0 <= p <= 1.0
        assert 0.6 <= world.cue_scale <= 1.4
        assert set(world.cue_effects) <= set(CUES)


def test_archetypes_follow_their_documented_weights():
    counts = Counter(archetype_of(w) for w in DRAWS)
    assert set(counts) == set(ARCHETYPES)
    for name, (weight, _) in ARCHETYPES.items():
        sd = math.sqrt(N * weight * (1 - weight))
        assert abs(counts[name] - N * weight) < 4 * sd, (name, counts[name], N * weight)


def test_archetypes_move_the_rates_they_name():
    """An over-deferring world abstains on feasible tasks more than a typical one, on average."""
    def mean_rate(archetype: str, rate: str) -> float:
        values = [w.rates[rate] for w in DRAWS if archetype_of(w) == archetype]
        return sum(values) / len(values)

    assert mean_rate("over-defers", "false_abstain") > 3 * mean_rate("typical", "false_abstain")
    assert mean_rate("never-defers", "act") < mean_rate("typical", "act") - 0.2
    assert mean_rate("careless", "wrong_step") > mean_rate("typical", "wrong_step") + 0.1


def test_a_synergy_is_two_cues_that_do_nothing_alone_and_pay_together():
    synergies = [(w, pair) for w in DRAWS for pair, fx in w.interactions.items() if set(fx) == set(SYNERGY)]
    assert 0.1 * N < len(synergies) < 0.5 * N  # about E[pairs] x 0.5 = 0.5 per world, some pairs repeat
    for world, pair in synergies:
        for cue in pair.split("+"):
            assert all(v == 0.0 for v in world.cue_effects[cue].values()), (world.name, cue)
        assert all(v > 0 for v in world.interactions[pair].values())


def test_some_clauses_hurt_and_some_do_nothing():
    hurt = sum(1 for w in DRAWS for fx in w.cue_effects.values() if fx.get("false_abstain", 0) > 0.8)
    assert hurt > 0.3 * N
    silent = sum(1 for w in DRAWS for cue in CUES if cue not in w.cue_effects)
    assert silent > 0.2 * N * len(CUES)


def test_world_names_expand_and_bad_draws_are_refused():
    assert parse_worlds("baseline,draw:3-5,harmful") == ["baseline", "draw:3", "draw:4", "draw:5", "harmful"]
    for bad in ("draw:5-3", "draw:x", "draw:1-"):
        with pytest.raises(ValueError):
            parse_worlds(bad)


def test_a_drawn_world_is_usable_as_a_simulated_model():
    assert world_model("harmful") == "harmful"
    name = world_model("draw:11")
    assert name == "world-11" and load_profile(name).digest == draw_world(11).digest


def _summary(world: str, gains: dict[str, float], rollouts: dict[str, float], harmful: int = 0) -> dict:
    return {"env": "retail", "rho": 0.5, "profile": world, "strategies": {
        name: {"mean": {"gain_heldout": gains[name], "rollouts": rollouts[name]}, "harmful": harmful if name == "default"
               else 0, "rounds": None if name == "gepa" else 6} for name in gains}}


def test_the_across_worlds_report_counts_worlds_not_seeds():
    rollouts = {"paper": 2400, "default": 800, "gepa": 700}
    summaries = [_summary("draw:1", {"paper": 0.30, "default": 0.28, "gepa": 0.20}, rollouts),
                 _summary("draw:2", {"paper": 0.20, "default": 0.10, "gepa": 0.20}, rollouts, harmful=1),
                 _summary("draw:3", {"paper": 0.10, "default": 0.12, "gepa": 0.10}, rollouts)]
    text = "\n".join(world_report(summaries))
    assert "across 3 worlds on retail, rho 0.5" in text
    assert "behind GEPA by more than 0.05: 1/3 worlds = 0.33: missed" in text  # draw:2 only (-0.10)
    ratio = re.search(r"default/paper gain 0\.83 \[(\S+), (\S+)\] at 0\.33 of its rollouts: missed", text)  # 0.50/0.60
    assert ratio and float(ratio[1]) <= 0.83 <= float(ratio[2])  # the CI across worlds holds the ratio
    # resampling the worlds: the ratio's extremes are those of whole resamples (all draw:2 is 0.5, all draw:3 1.2)
    assert 0.5 <= float(ratio[1]) and float(ratio[2]) <= 1.2
    assert "harmful moves: 1/18 rounds = 0.056: missed" in text
    assert "default - GEPA +0.000" in text  # (0.08 - 0.10 + 0.02) / 3
