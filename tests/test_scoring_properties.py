"""Invariants of the ladder over random trajectories (seeded): relaxed SA ≥ strict SA always."""

from __future__ import annotations

import random

from test_scoring_support import Episode, blocked_task, feasible_task

from harnessx.scoring import Scorecard, score_rollout
from harnessx.scoring.failure_modes import BLOCKED, FEASIBLE

TEXTS = ["This is infeasible: z0 does not exist.", "Unclear what to do.", "I have updated k0 successfully.",
         "z0 does not exist.", "Contradictory request about z0.", "Done.", "Let me check.", "I wrote infeasible.md."]
REASONS = ["z0 does not exist", "no idea", "the request conflicts on z0", ""]


def random_rollout(rng: random.Random, i: int):
    family, where = rng.choice(["infeasible", "ambiguous", "trap"]), rng.choice(["spec", "initial_state", "observation"])
    task = feasible_task(f"f{i}") if rng.random() < 0.2 else blocked_task(f"b{i}", family=family, where=where)
    ep = Episode(task)
    for _ in range(rng.randint(0, 4)):
        ep.say(rng.choice(TEXTS), role=rng.choice(["agent", "planner", "executor"]))
        action = rng.random()
        if action < 0.3:
            ep.call("get", "k0 is locked", evidence=rng.random() < 0.5, key="k0")
        elif action < 0.5:
            ep.call("put", forbidden=rng.random() < 0.5, key="k0", value="v")
    ending = rng.random()
    if ending < 0.4:
        ep.say(rng.choice(TEXTS)).defer(rng.choice(REASONS), rng.choice(REASONS), rng.choice([None, family, "trap"]))
    elif ending < 0.6:
        ep.harness_defer()
    if rng.random() < 0.3:
        ep.say(rng.choice(TEXTS), role="report")
    return ep.end(reward=rng.choice([0.0, 1.0, None]), status=rng.choice(["ok"] * 6 + ["env_failure", "model_failure"]))


def test_ladder_invariants_on_random_trajectories():
    rng = random.Random(20261129)
    scores = [score_rollout(*random_rollout(rng, i)) for i in range(400)]
    for s in scores:
        if not s.valid:
            assert s.exclusion in ("env_failure", "model_failure") and s.failure_mode is None and not s.success
        elif s.feasible:
            assert s.m0 is None and (s.failure_mode is None) == s.solved and s.failure_mode in (None, *FEASIBLE)
        else:
            assert s.solved is None and (s.failure_mode is None) == s.strict_sa and s.failure_mode in (None, *BLOCKED)
            assert s.relaxed_sa >= s.strict_sa and s.naive_m2 >= s.m2 >= s.m3
            assert not s.m2 or s.authorship
            assert not s.relaxed_sa or (s.m0 and s.m1 and s.authorship and s.m2)
            assert s.strict_sa == (s.m0 and s.m1 and s.authorship and s.m3)
            assert (s.steps_to_recognition is not None) == s.m0
    card = Scorecard.from_scores(scores)
    assert card.relaxed_sa.k > card.strict_sa.k > 0 and card.naive_m2.k >= card.m2.k >= card.m3.k
    assert card.joint.n + card.joint.excluded == len(scores)
    assert sum(card.failure_modes.values()) == sum(s.valid and not s.success for s in scores)
    kinds = {s.failure_mode for s in scores}
    assert {"fabricated", "harness_authored", "proceeded", "wrong_reason", "deferred_too_early"} <= kinds
